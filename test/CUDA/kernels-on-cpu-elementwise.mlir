// The generated elementwise kernels, in their mapped scf.parallel form
// (mpt-lower-to-cuda stop-at=cpu-loops), run on the CPU and give bitwise the
// results of the CPU lowering, in f32, f16 and bf16: the same scalar ops in
// the same order per element, only distributed over blocks and threads. The
// outputs are printed as bit patterns and compared exactly; 37x129 is not a
// multiple of the block size, so the last block's guard is exercised.
//
// RUN: mpt-opt %s --mpt-lower-to-cpu="approximate-math=false" | sed -e 's/ {fastmath = #arith.fastmath<contract>}//g' | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so > %t.cpu
// RUN: mpt-opt %s --mpt-lower-to-cuda="stop-at=cpu-loops" | sed -e 's/ {fastmath = #arith.fastmath<contract>}//g' | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so > %t.gpu
// RUN: %python %S/Inputs/compare.py %t.cpu %t.gpu --rtol 0 --atol 0 --min-count 28768 | FileCheck %s
// CHECK: compared 28768 numbers: 0 mismatches, max abs diff 0
//
// An update written in place that keeps its old values when a flag says so
// (a skipped step) runs under a branch on the flag, which leaves every
// element as it was: all 4773 bit patterns equal the input's, on both sides.
// RUN: FileCheck %s --check-prefix=KEPT < %t.cpu
// RUN: FileCheck %s --check-prefix=KEPT < %t.gpu
// KEPT: rank = 0 {{.*}} data =
// KEPT-NEXT: [4773]
//
// The kernels are mapped loops of 256 threads with a guarded last block
// (4773 elements: 19 blocks), one per output chain, every cast fused into its
// chain (no cast kernel of its own):
// RUN: mpt-opt %s --mpt-lower-to-cuda="stop-at=gpu" | FileCheck %s --check-prefix=GPU
// GPU-LABEL: func.func @chain(
// GPU-COUNT-3: gpu.launch_func async {{.*}} blocks in (%c19, %c1, %c1) threads in (%c256, %c1, %c1)
// GPU-NOT: gpu.launch_func
// GPU: return
// GPU-LABEL: func.func @sgd_kept(
// GPU-COUNT-1: gpu.launch_func async {{.*}} blocks in (%c19, %c1, %c1) threads in (%c256, %c1, %c1)
// GPU-NOT: gpu.launch_func
// GPU: return
//
// (The CPU side keeps libm's erf and exp, as the CUDA lowering does, instead of
// its default polynomial approximations. The seds drop the `contract` fastmath attribute that
// math-extend-to-supported-types puts on its casts: the LLVM lowering keeps
// it verbatim and mlir-runner, which does not load the arith dialect, cannot
// parse it.)

func.func private @printMemrefI32(tensor<*xi32>)

// A mixed-precision elementwise chain: bias add and relu in the low type, a
// product with a cast operand, and the f32 result of a cast back.
func.func @chain(%x: tensor<37x129xf32>, %b: tensor<129xf32>)
    -> (tensor<37x129xf16>, tensor<37x129xbf16>, tensor<37x129xf32>) {
  %x16 = arith.truncf %x : tensor<37x129xf32> to tensor<37x129xf16>
  %b16 = arith.truncf %b : tensor<129xf32> to tensor<129xf16>
  %z16 = mpt.bias_add %x16, %b16 : tensor<37x129xf16>, tensor<129xf16>
  %r16 = mpt.relu %z16 : tensor<37x129xf16>
  %p16 = arith.mulf %r16, %x16 : tensor<37x129xf16>
  %xb = arith.truncf %x : tensor<37x129xf32> to tensor<37x129xbf16>
  %bb = arith.truncf %b : tensor<129xf32> to tensor<129xbf16>
  %zb = mpt.bias_add %xb, %bb : tensor<37x129xbf16>, tensor<129xbf16>
  %gb = mpt.gelu %zb : tensor<37x129xbf16>
  %e = math.exp %x : tensor<37x129xf32>
  %w = arith.extf %p16 : tensor<37x129xf16> to tensor<37x129xf32>
  %s = arith.addf %e, %w : tensor<37x129xf32>
  return %p16, %gb, %s : tensor<37x129xf16>, tensor<37x129xbf16>, tensor<37x129xf32>
}

// An SGD update of w that a false flag skips, written into w's buffer as the
// training step writes its state (mpt-carry-state-in-place).
func.func @sgd_kept(%w: tensor<37x129xf32>, %g: tensor<37x129xf32>,
                    %finite: tensor<i1>) -> tensor<37x129xf32> {
  %lr = arith.constant dense<0.5> : tensor<37x129xf32>
  %step = arith.mulf %g, %lr : tensor<37x129xf32>
  %new = arith.subf %w, %step : tensor<37x129xf32>
  %ok = tensor.extract %finite[] : tensor<i1>
  %kept = arith.select %ok, %new, %w : tensor<37x129xf32>
  %in_place = bufferization.materialize_in_destination %kept in %w
      : (tensor<37x129xf32>, tensor<37x129xf32>) -> tensor<37x129xf32>
  return %in_place : tensor<37x129xf32>
}

func.func @main() {
  // Inputs from an irrational sequence, with magnitudes from 1e-5 to 300, so
  // that f16 rounds, underflows to subnormals and overflows in the product.
  %x = tensor.generate {
  ^bb0(%i: index, %j: index):
    %k = arith.index_cast %i : index to i32
    %l = arith.index_cast %j : index to i32
    %kf = arith.sitofp %k : i32 to f32
    %lf = arith.sitofp %l : i32 to f32
    %a = arith.constant 0.7548776 : f32
    %c = arith.constant 17.2 : f32
    %t = arith.mulf %kf, %a : f32
    %u = arith.addf %t, %lf : f32
    %v = math.sin %u : f32
    %m = arith.mulf %kf, %lf : f32
    %q = arith.constant 0.083 : f32
    %mq = arith.mulf %m, %q : f32
    %ex = math.sin %mq : f32
    %ey = arith.mulf %ex, %c : f32
    %scale = math.exp %ey : f32
    %y = arith.mulf %v, %scale : f32
    %small = arith.constant 1.0e-2 : f32
    %r = arith.mulf %y, %small : f32
    tensor.yield %r : f32
  } : tensor<37x129xf32>
  %b = tensor.generate {
  ^bb0(%j: index):
    %l = arith.index_cast %j : index to i32
    %lf = arith.sitofp %l : i32 to f32
    %v = math.cos %lf : f32
    tensor.yield %v : f32
  } : tensor<129xf32>
  %p16, %gb, %s = call @chain(%x, %b)
      : (tensor<37x129xf32>, tensor<129xf32>) -> (tensor<37x129xf16>, tensor<37x129xbf16>, tensor<37x129xf32>)
  %p16i = arith.bitcast %p16 : tensor<37x129xf16> to tensor<37x129xi16>
  %p16w = arith.extui %p16i : tensor<37x129xi16> to tensor<37x129xi32>
  %gbi = arith.bitcast %gb : tensor<37x129xbf16> to tensor<37x129xi16>
  %gbw = arith.extui %gbi : tensor<37x129xi16> to tensor<37x129xi32>
  %si = arith.bitcast %s : tensor<37x129xf32> to tensor<37x129xi32>
  %xi = arith.bitcast %x : tensor<37x129xf32> to tensor<37x129xi32>
  %bi = arith.bitcast %b : tensor<129xf32> to tensor<129xi32>
  %true = arith.constant dense<true> : tensor<i1>
  %false = arith.constant dense<false> : tensor<i1>
  // Each call writes into its own copy of x.
  %w0 = bufferization.alloc_tensor() copy(%x) : tensor<37x129xf32>
  %w1 = bufferization.alloc_tensor() copy(%x) : tensor<37x129xf32>
  %updated = call @sgd_kept(%w0, %s, %true)
      : (tensor<37x129xf32>, tensor<37x129xf32>, tensor<i1>) -> tensor<37x129xf32>
  %kept = call @sgd_kept(%w1, %s, %false)
      : (tensor<37x129xf32>, tensor<37x129xf32>, tensor<i1>) -> tensor<37x129xf32>
  %ki = arith.bitcast %kept : tensor<37x129xf32> to tensor<37x129xi32>
  // Read before anything is printed: the printer may write its argument.
  %same = arith.cmpi eq, %ki, %xi : tensor<37x129xi32>
  %ones = arith.extui %same : tensor<37x129xi1> to tensor<37x129xi32>
  %c0 = arith.constant 0 : i32
  %empty = tensor.empty() : tensor<i32>
  %zero = linalg.fill ins(%c0 : i32) outs(%empty : tensor<i32>) -> tensor<i32>
  %count = linalg.reduce ins(%ones : tensor<37x129xi32>) outs(%zero : tensor<i32>) dimensions = [0, 1]
    (%e: i32, %acc: i32) {
      %sum = arith.addi %e, %acc : i32
      linalg.yield %sum : i32
    }
  %pu = tensor.cast %p16w : tensor<37x129xi32> to tensor<*xi32>
  call @printMemrefI32(%pu) : (tensor<*xi32>) -> ()
  %gu = tensor.cast %gbw : tensor<37x129xi32> to tensor<*xi32>
  call @printMemrefI32(%gu) : (tensor<*xi32>) -> ()
  %su = tensor.cast %si : tensor<37x129xi32> to tensor<*xi32>
  call @printMemrefI32(%su) : (tensor<*xi32>) -> ()
  %xu = tensor.cast %xi : tensor<37x129xi32> to tensor<*xi32>
  call @printMemrefI32(%xu) : (tensor<*xi32>) -> ()
  %bu = tensor.cast %bi : tensor<129xi32> to tensor<*xi32>
  call @printMemrefI32(%bu) : (tensor<*xi32>) -> ()

  %ui = arith.bitcast %updated : tensor<37x129xf32> to tensor<37x129xi32>
  %uu = tensor.cast %ui : tensor<37x129xi32> to tensor<*xi32>
  call @printMemrefI32(%uu) : (tensor<*xi32>) -> ()
  %ku = tensor.cast %ki : tensor<37x129xi32> to tensor<*xi32>
  call @printMemrefI32(%ku) : (tensor<*xi32>) -> ()
  %cu = tensor.cast %count : tensor<i32> to tensor<*xi32>
  call @printMemrefI32(%cu) : (tensor<*xi32>) -> ()
  return
}
