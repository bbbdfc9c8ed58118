// REQUIRES: ptxas
// RUN: mpt-opt %s --split-input-file --mpt-convert-gpu-binary-to-fatbin="cuda-path=%cuda_root" --verify-diagnostics | FileCheck %s
// RUN: not mpt-opt %s --split-input-file --mpt-convert-gpu-binary-to-fatbin="cuda-path=/nonexistent" 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOTOOL

// Two PTX objects (one kernel, sm_80 and sm_90) become one fatbin object
// (magic 0xBA55ED50, little-endian) for the first target.
// CHECK: gpu.binary @kernels  [#gpu.object<#nvvm.target<chip = "sm_80">, "P\EDU\BA
// CHECK-NOT: #gpu.object
// NOTOOL: cannot find the CUDA tool `ptxas` (looked in /nonexistent/bin); set cuda-path or CUDA_HOME to the toolkit
module attributes {gpu.container_module} {
  gpu.binary @kernels [
    #gpu.object<#nvvm.target<chip = "sm_80">, properties = {O = 3 : i32}, assembly = ".version 7.0\0A.target sm_80\0A.address_size 64\0A.visible .entry k()\0A{\0A\09ret;\0A}\0A">,
    #gpu.object<#nvvm.target<chip = "sm_90">, properties = {O = 3 : i32}, assembly = ".version 7.8\0A.target sm_90\0A.address_size 64\0A.visible .entry k()\0A{\0A\09ret;\0A}\0A">
  ]
}

// -----

module attributes {gpu.container_module} {
  // expected-error @+1 {{expects PTX objects for NVVM targets (run gpu-module-to-binary with format=isa)}}
  gpu.binary @cubins [#gpu.object<#nvvm.target<chip = "sm_80">, bin = "\00">]
}

// -----

// ptxas rejects invalid PTX; its message is reported.
module attributes {gpu.container_module} {
  // expected-error @+1 {{-arch=sm_80 -O3}}
  gpu.binary @broken [#gpu.object<#nvvm.target<chip = "sm_80">, assembly = "this is not PTX">]
}
