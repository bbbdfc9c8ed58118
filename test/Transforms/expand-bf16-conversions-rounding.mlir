// The integer rounding of mpt-expand-bf16-conversions, run on the CPU, against
// round-to-nearest-even computed with exact rationals in Python: every f32
// whose low 16 bits are 0, 1, 0x7fff, 0x8000 (a tie), 0x8001 or 0xffff, with
// each of the 65536 high halves (both signs, subnormals, the largest values
// that overflow to infinity, infinities, NaNs). Also widens each result back.
//
// RUN: mpt-opt %s --mpt-expand-bf16-conversions --convert-scf-to-cf \
// RUN:   --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN: | %python %S/Inputs/check_bf16_rounding.py | FileCheck %s
//
// CHECK: 393216 values: 0 wrong roundings, 0 wrong widenings

func.func private @printMemrefI32(memref<*xi32>)
memref.global "private" constant @lows : memref<6xi32> = dense<[0, 1, 32767, 32768, 32769, 65535]>

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %halves = arith.constant 65536 : index
  %c16 = arith.constant 16 : i32
  %lows = memref.get_global @lows : memref<6xi32>
  %out = memref.alloc() : memref<65536x6x2xi32>
  scf.for %high = %c0 to %halves step %c1 {
    scf.for %j = %c0 to %c6 step %c1 {
      %high32 = arith.index_cast %high : index to i32
      %shifted = arith.shli %high32, %c16 : i32
      %low = memref.load %lows[%j] : memref<6xi32>
      %bits = arith.ori %shifted, %low : i32
      %x = arith.bitcast %bits : i32 to f32
      %rounded = arith.truncf %x : f32 to bf16
      %roundedBits16 = arith.bitcast %rounded : bf16 to i16
      %roundedBits = arith.extui %roundedBits16 : i16 to i32
      %widened = arith.extf %rounded : bf16 to f32
      %widenedBits = arith.bitcast %widened : f32 to i32
      memref.store %roundedBits, %out[%high, %j, %c0] : memref<65536x6x2xi32>
      memref.store %widenedBits, %out[%high, %j, %c1] : memref<65536x6x2xi32>
    }
  }
  %cast = memref.cast %out : memref<65536x6x2xi32> to memref<*xi32>
  call @printMemrefI32(%cast) : (memref<*xi32>) -> ()
  memref.dealloc %out : memref<65536x6x2xi32>
  return
}
