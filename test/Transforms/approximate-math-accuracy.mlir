// The approximations of mpt-approximate-math, run on the CPU, against
// Python's math.erf, math.exp and math.tanh (double precision) on 20001 points
// in [-12, 12] and at the infinities and NaN. Results print as bit patterns.
//
// RUN: mpt-opt %s --mpt-approximate-math --convert-scf-to-cf --convert-to-llvm \
// RUN:   --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN: | %python %S/Inputs/check_approximations.py | FileCheck %s
//
// erf within 2.5e-7 absolute, exp within 2^-22.5 relative down to 2^-126
// (below: zero), tanh within 2 ulp-ish (1e-6 relative or 1e-7 absolute).
// CHECK: erf: 20004 points, max abs error {{[0-9.e-]+}}, within 2.5e-07
// CHECK: exp: 20004 points, max rel error {{[0-9.e-]+}}, within 2.0e-07
// CHECK: tanh: 20004 points, max error {{[0-9.e-]+}}, within 1.0e-06 rel + 1.0e-07 abs
// CHECK: special values: ok

func.func private @printMemrefI32(memref<*xi32>)

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %points = arith.constant 20001 : index
  %size = arith.constant 20004 : index
  %start = arith.constant -12.0 : f32
  %step = arith.constant 0.0012 : f32
  %inf = arith.constant 0x7F800000 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %nan = arith.constant 0x7FC00000 : f32
  %out = memref.alloc(%size) : memref<?x4xi32>
  // x_i = -12 + 0.0012 i, then +inf, -inf, NaN.
  scf.for %i = %c0 to %size step %c1 {
    %regular = arith.cmpi ult, %i, %points : index
    %x = scf.if %regular -> f32 {
      %i32 = arith.index_cast %i : index to i32
      %fi = arith.sitofp %i32 : i32 to f32
      %offset = arith.mulf %fi, %step : f32
      %v = arith.addf %start, %offset : f32
      scf.yield %v : f32
    } else {
      %k = arith.subi %i, %points : index
      %isInf = arith.cmpi eq, %k, %c0 : index
      %isNinf = arith.cmpi eq, %k, %c1 : index
      %a = arith.select %isNinf, %ninf, %nan : f32
      %b = arith.select %isInf, %inf, %a : f32
      scf.yield %b : f32
    }
    %erf = math.erf %x : f32
    %exp = math.exp %x : f32
    %tanh = math.tanh %x : f32
    %c2 = arith.constant 2 : index
    %bits = arith.bitcast %x : f32 to i32
    %erfBits = arith.bitcast %erf : f32 to i32
    %expBits = arith.bitcast %exp : f32 to i32
    %tanhBits = arith.bitcast %tanh : f32 to i32
    memref.store %bits, %out[%i, %c0] : memref<?x4xi32>
    memref.store %erfBits, %out[%i, %c1] : memref<?x4xi32>
    memref.store %expBits, %out[%i, %c2] : memref<?x4xi32>
    memref.store %tanhBits, %out[%i, %c3] : memref<?x4xi32>
  }
  %unranked = memref.cast %out : memref<?x4xi32> to memref<*xi32>
  call @printMemrefI32(%unranked) : (memref<*xi32>) -> ()
  memref.dealloc %out : memref<?x4xi32>
  return
}
