// mpt-fold-rounded-compares, run on the CPU, against comparisons of values
// rounded to nearest even with exact rationals in Python
// (Inputs/check_rounded_compares.py, which reads the constants and predicates
// from this file). Each of 10 bf16 and 10 f16 constants (both zeros, the
// smallest subnormal, the largest subnormal, the smallest normal, 1 and its
// odd neighbour on both signs, the second-largest finite value on both signs)
// is compared with every ordering to the rounding of f32 inputs at and next to
// the constant and the midpoints to its neighbours (the ties), and at zeros,
// infinities, NaNs, the largest f32 and f16's overflow boundary 65520.
// Written by Inputs/gen_rounded_compares.py. The second RUN line checks
// that every compare was folded: otherwise the first would test LLVM's
// rounding instead.
//
// RUN: mpt-opt %s --mpt-fold-rounded-compares --convert-scf-to-cf \
// RUN:   --convert-to-llvm --reconcile-unrealized-casts \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_lib_dir/libmlir_runner_utils.so,%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN: | %python %S/Inputs/check_rounded_compares.py %s | FileCheck %s
// RUN: mpt-opt %s --mpt-fold-rounded-compares | FileCheck %s --check-prefix=FOLDED
//
// CHECK: 156 inputs x 160 compares: 0 wrong
// FOLDED-NOT: arith.truncf

func.func private @printMemrefI32(memref<*xi32>)
memref.global "private" constant @inputs : memref<156xi32> = dense<[
  0, 1, 32767, 32768, 32769, 65535, 65536, 65537,
  98303, 98304, 98305, 8355839, 8355840, 8355841, 8388607, 8388608,
  8388609, 8421375, 8421376, 8421377, 855638015, 855638016, 855638017, 864026623,
  864026624, 864026625, 868220927, 868220928, 868220929, 947888127, 947888128, 947888129,
  947896319, 947896320, 947896321, 947904511, 947904512, 947904513, 947912703, 947912704,
  947912705, 947916799, 947916800, 947916801, 1065320447, 1065320448, 1065320449, 1065349119,
  1065349120, 1065349121, 1065353215, 1065353216, 1065353217, 1065357311, 1065357312, 1065357313,
  1065361407, 1065361408, 1065361409, 1065365503, 1065365504, 1065365505, 1065385983, 1065385984,
  1065385985, 1065418751, 1065418752, 1065418753, 1065451519, 1065451520, 1065451521, 1199550463,
  1199550464, 1199550465, 1199554559, 1199554560, 1199554561, 1199558655, 1199558656, 1199558657,
  1199562751, 1199562752, 1199562753, 1199566847, 1199566848, 1199566849, 2138931199, 2138931200,
  2138931201, 2138963967, 2138963968, 2138963969, 2138996735, 2138996736, 2138996737, 2139095039,
  2139095040, 2139095041, 2143289344, -2147483648, -2147483647, -2147450881, -2147450880, -2147450879,
  -2147418113, -2147418112, -2147418111, -2147385345, -2147385344, -2147385343, -1291845633, -1291845632,
  -1291845631, -1082126337, -1082126336, -1082126335, -1082122241, -1082122240, -1082122239, -1082118145,
  -1082118144, -1082118143, -1082097665, -1082097664, -1082097663, -1082064897, -1082064896, -1082064895,
  -1082032129, -1082032128, -1082032127, -947933185, -947933184, -947933183, -947929089, -947929088,
  -947929087, -947924993, -947924992, -947924991, -947916801, -947916800, -947916799, -8552449,
  -8552448, -8552447, -8519681, -8519680, -8519679, -8486913, -8486912, -8486911,
  -8388609, -8388608, -4194304, -1
]>

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %count = arith.constant 156 : index
  %inputs = memref.get_global @inputs : memref<156xi32>
  %out = memref.alloc() : memref<156x161xi32>
  scf.for %i = %c0 to %count step %c1 {
    %bits = memref.load %inputs[%i] : memref<156xi32>
    memref.store %bits, %out[%i, %c0] : memref<156x161xi32>
    %x = arith.bitcast %bits : i32 to f32
    %bf16 = arith.truncf %x : f32 to bf16
    %f16 = arith.truncf %x : f32 to f16
    %bf16_0000 = arith.constant 0x0000 : bf16
    %r1 = arith.cmpf ogt, %bf16, %bf16_0000 : bf16
    %w1 = arith.extui %r1 : i1 to i32
    %k1 = arith.constant 1 : index
    memref.store %w1, %out[%i, %k1] : memref<156x161xi32>
    %r2 = arith.cmpf oge, %bf16, %bf16_0000 : bf16
    %w2 = arith.extui %r2 : i1 to i32
    %k2 = arith.constant 2 : index
    memref.store %w2, %out[%i, %k2] : memref<156x161xi32>
    %r3 = arith.cmpf olt, %bf16, %bf16_0000 : bf16
    %w3 = arith.extui %r3 : i1 to i32
    %k3 = arith.constant 3 : index
    memref.store %w3, %out[%i, %k3] : memref<156x161xi32>
    %r4 = arith.cmpf ole, %bf16, %bf16_0000 : bf16
    %w4 = arith.extui %r4 : i1 to i32
    %k4 = arith.constant 4 : index
    memref.store %w4, %out[%i, %k4] : memref<156x161xi32>
    %r5 = arith.cmpf ugt, %bf16, %bf16_0000 : bf16
    %w5 = arith.extui %r5 : i1 to i32
    %k5 = arith.constant 5 : index
    memref.store %w5, %out[%i, %k5] : memref<156x161xi32>
    %r6 = arith.cmpf uge, %bf16, %bf16_0000 : bf16
    %w6 = arith.extui %r6 : i1 to i32
    %k6 = arith.constant 6 : index
    memref.store %w6, %out[%i, %k6] : memref<156x161xi32>
    %r7 = arith.cmpf ult, %bf16, %bf16_0000 : bf16
    %w7 = arith.extui %r7 : i1 to i32
    %k7 = arith.constant 7 : index
    memref.store %w7, %out[%i, %k7] : memref<156x161xi32>
    %r8 = arith.cmpf ule, %bf16, %bf16_0000 : bf16
    %w8 = arith.extui %r8 : i1 to i32
    %k8 = arith.constant 8 : index
    memref.store %w8, %out[%i, %k8] : memref<156x161xi32>
    %bf16_8000 = arith.constant 0x8000 : bf16
    %r9 = arith.cmpf ogt, %bf16, %bf16_8000 : bf16
    %w9 = arith.extui %r9 : i1 to i32
    %k9 = arith.constant 9 : index
    memref.store %w9, %out[%i, %k9] : memref<156x161xi32>
    %r10 = arith.cmpf oge, %bf16, %bf16_8000 : bf16
    %w10 = arith.extui %r10 : i1 to i32
    %k10 = arith.constant 10 : index
    memref.store %w10, %out[%i, %k10] : memref<156x161xi32>
    %r11 = arith.cmpf olt, %bf16, %bf16_8000 : bf16
    %w11 = arith.extui %r11 : i1 to i32
    %k11 = arith.constant 11 : index
    memref.store %w11, %out[%i, %k11] : memref<156x161xi32>
    %r12 = arith.cmpf ole, %bf16, %bf16_8000 : bf16
    %w12 = arith.extui %r12 : i1 to i32
    %k12 = arith.constant 12 : index
    memref.store %w12, %out[%i, %k12] : memref<156x161xi32>
    %r13 = arith.cmpf ugt, %bf16, %bf16_8000 : bf16
    %w13 = arith.extui %r13 : i1 to i32
    %k13 = arith.constant 13 : index
    memref.store %w13, %out[%i, %k13] : memref<156x161xi32>
    %r14 = arith.cmpf uge, %bf16, %bf16_8000 : bf16
    %w14 = arith.extui %r14 : i1 to i32
    %k14 = arith.constant 14 : index
    memref.store %w14, %out[%i, %k14] : memref<156x161xi32>
    %r15 = arith.cmpf ult, %bf16, %bf16_8000 : bf16
    %w15 = arith.extui %r15 : i1 to i32
    %k15 = arith.constant 15 : index
    memref.store %w15, %out[%i, %k15] : memref<156x161xi32>
    %r16 = arith.cmpf ule, %bf16, %bf16_8000 : bf16
    %w16 = arith.extui %r16 : i1 to i32
    %k16 = arith.constant 16 : index
    memref.store %w16, %out[%i, %k16] : memref<156x161xi32>
    %bf16_0001 = arith.constant 0x0001 : bf16
    %r17 = arith.cmpf ogt, %bf16, %bf16_0001 : bf16
    %w17 = arith.extui %r17 : i1 to i32
    %k17 = arith.constant 17 : index
    memref.store %w17, %out[%i, %k17] : memref<156x161xi32>
    %r18 = arith.cmpf oge, %bf16, %bf16_0001 : bf16
    %w18 = arith.extui %r18 : i1 to i32
    %k18 = arith.constant 18 : index
    memref.store %w18, %out[%i, %k18] : memref<156x161xi32>
    %r19 = arith.cmpf olt, %bf16, %bf16_0001 : bf16
    %w19 = arith.extui %r19 : i1 to i32
    %k19 = arith.constant 19 : index
    memref.store %w19, %out[%i, %k19] : memref<156x161xi32>
    %r20 = arith.cmpf ole, %bf16, %bf16_0001 : bf16
    %w20 = arith.extui %r20 : i1 to i32
    %k20 = arith.constant 20 : index
    memref.store %w20, %out[%i, %k20] : memref<156x161xi32>
    %r21 = arith.cmpf ugt, %bf16, %bf16_0001 : bf16
    %w21 = arith.extui %r21 : i1 to i32
    %k21 = arith.constant 21 : index
    memref.store %w21, %out[%i, %k21] : memref<156x161xi32>
    %r22 = arith.cmpf uge, %bf16, %bf16_0001 : bf16
    %w22 = arith.extui %r22 : i1 to i32
    %k22 = arith.constant 22 : index
    memref.store %w22, %out[%i, %k22] : memref<156x161xi32>
    %r23 = arith.cmpf ult, %bf16, %bf16_0001 : bf16
    %w23 = arith.extui %r23 : i1 to i32
    %k23 = arith.constant 23 : index
    memref.store %w23, %out[%i, %k23] : memref<156x161xi32>
    %r24 = arith.cmpf ule, %bf16, %bf16_0001 : bf16
    %w24 = arith.extui %r24 : i1 to i32
    %k24 = arith.constant 24 : index
    memref.store %w24, %out[%i, %k24] : memref<156x161xi32>
    %bf16_8001 = arith.constant 0x8001 : bf16
    %r25 = arith.cmpf ogt, %bf16, %bf16_8001 : bf16
    %w25 = arith.extui %r25 : i1 to i32
    %k25 = arith.constant 25 : index
    memref.store %w25, %out[%i, %k25] : memref<156x161xi32>
    %r26 = arith.cmpf oge, %bf16, %bf16_8001 : bf16
    %w26 = arith.extui %r26 : i1 to i32
    %k26 = arith.constant 26 : index
    memref.store %w26, %out[%i, %k26] : memref<156x161xi32>
    %r27 = arith.cmpf olt, %bf16, %bf16_8001 : bf16
    %w27 = arith.extui %r27 : i1 to i32
    %k27 = arith.constant 27 : index
    memref.store %w27, %out[%i, %k27] : memref<156x161xi32>
    %r28 = arith.cmpf ole, %bf16, %bf16_8001 : bf16
    %w28 = arith.extui %r28 : i1 to i32
    %k28 = arith.constant 28 : index
    memref.store %w28, %out[%i, %k28] : memref<156x161xi32>
    %r29 = arith.cmpf ugt, %bf16, %bf16_8001 : bf16
    %w29 = arith.extui %r29 : i1 to i32
    %k29 = arith.constant 29 : index
    memref.store %w29, %out[%i, %k29] : memref<156x161xi32>
    %r30 = arith.cmpf uge, %bf16, %bf16_8001 : bf16
    %w30 = arith.extui %r30 : i1 to i32
    %k30 = arith.constant 30 : index
    memref.store %w30, %out[%i, %k30] : memref<156x161xi32>
    %r31 = arith.cmpf ult, %bf16, %bf16_8001 : bf16
    %w31 = arith.extui %r31 : i1 to i32
    %k31 = arith.constant 31 : index
    memref.store %w31, %out[%i, %k31] : memref<156x161xi32>
    %r32 = arith.cmpf ule, %bf16, %bf16_8001 : bf16
    %w32 = arith.extui %r32 : i1 to i32
    %k32 = arith.constant 32 : index
    memref.store %w32, %out[%i, %k32] : memref<156x161xi32>
    %bf16_0080 = arith.constant 0x0080 : bf16
    %r33 = arith.cmpf ogt, %bf16, %bf16_0080 : bf16
    %w33 = arith.extui %r33 : i1 to i32
    %k33 = arith.constant 33 : index
    memref.store %w33, %out[%i, %k33] : memref<156x161xi32>
    %r34 = arith.cmpf oge, %bf16, %bf16_0080 : bf16
    %w34 = arith.extui %r34 : i1 to i32
    %k34 = arith.constant 34 : index
    memref.store %w34, %out[%i, %k34] : memref<156x161xi32>
    %r35 = arith.cmpf olt, %bf16, %bf16_0080 : bf16
    %w35 = arith.extui %r35 : i1 to i32
    %k35 = arith.constant 35 : index
    memref.store %w35, %out[%i, %k35] : memref<156x161xi32>
    %r36 = arith.cmpf ole, %bf16, %bf16_0080 : bf16
    %w36 = arith.extui %r36 : i1 to i32
    %k36 = arith.constant 36 : index
    memref.store %w36, %out[%i, %k36] : memref<156x161xi32>
    %r37 = arith.cmpf ugt, %bf16, %bf16_0080 : bf16
    %w37 = arith.extui %r37 : i1 to i32
    %k37 = arith.constant 37 : index
    memref.store %w37, %out[%i, %k37] : memref<156x161xi32>
    %r38 = arith.cmpf uge, %bf16, %bf16_0080 : bf16
    %w38 = arith.extui %r38 : i1 to i32
    %k38 = arith.constant 38 : index
    memref.store %w38, %out[%i, %k38] : memref<156x161xi32>
    %r39 = arith.cmpf ult, %bf16, %bf16_0080 : bf16
    %w39 = arith.extui %r39 : i1 to i32
    %k39 = arith.constant 39 : index
    memref.store %w39, %out[%i, %k39] : memref<156x161xi32>
    %r40 = arith.cmpf ule, %bf16, %bf16_0080 : bf16
    %w40 = arith.extui %r40 : i1 to i32
    %k40 = arith.constant 40 : index
    memref.store %w40, %out[%i, %k40] : memref<156x161xi32>
    %bf16_3f80 = arith.constant 0x3F80 : bf16
    %r41 = arith.cmpf ogt, %bf16, %bf16_3f80 : bf16
    %w41 = arith.extui %r41 : i1 to i32
    %k41 = arith.constant 41 : index
    memref.store %w41, %out[%i, %k41] : memref<156x161xi32>
    %r42 = arith.cmpf oge, %bf16, %bf16_3f80 : bf16
    %w42 = arith.extui %r42 : i1 to i32
    %k42 = arith.constant 42 : index
    memref.store %w42, %out[%i, %k42] : memref<156x161xi32>
    %r43 = arith.cmpf olt, %bf16, %bf16_3f80 : bf16
    %w43 = arith.extui %r43 : i1 to i32
    %k43 = arith.constant 43 : index
    memref.store %w43, %out[%i, %k43] : memref<156x161xi32>
    %r44 = arith.cmpf ole, %bf16, %bf16_3f80 : bf16
    %w44 = arith.extui %r44 : i1 to i32
    %k44 = arith.constant 44 : index
    memref.store %w44, %out[%i, %k44] : memref<156x161xi32>
    %r45 = arith.cmpf ugt, %bf16, %bf16_3f80 : bf16
    %w45 = arith.extui %r45 : i1 to i32
    %k45 = arith.constant 45 : index
    memref.store %w45, %out[%i, %k45] : memref<156x161xi32>
    %r46 = arith.cmpf uge, %bf16, %bf16_3f80 : bf16
    %w46 = arith.extui %r46 : i1 to i32
    %k46 = arith.constant 46 : index
    memref.store %w46, %out[%i, %k46] : memref<156x161xi32>
    %r47 = arith.cmpf ult, %bf16, %bf16_3f80 : bf16
    %w47 = arith.extui %r47 : i1 to i32
    %k47 = arith.constant 47 : index
    memref.store %w47, %out[%i, %k47] : memref<156x161xi32>
    %r48 = arith.cmpf ule, %bf16, %bf16_3f80 : bf16
    %w48 = arith.extui %r48 : i1 to i32
    %k48 = arith.constant 48 : index
    memref.store %w48, %out[%i, %k48] : memref<156x161xi32>
    %bf16_3f81 = arith.constant 0x3F81 : bf16
    %r49 = arith.cmpf ogt, %bf16, %bf16_3f81 : bf16
    %w49 = arith.extui %r49 : i1 to i32
    %k49 = arith.constant 49 : index
    memref.store %w49, %out[%i, %k49] : memref<156x161xi32>
    %r50 = arith.cmpf oge, %bf16, %bf16_3f81 : bf16
    %w50 = arith.extui %r50 : i1 to i32
    %k50 = arith.constant 50 : index
    memref.store %w50, %out[%i, %k50] : memref<156x161xi32>
    %r51 = arith.cmpf olt, %bf16, %bf16_3f81 : bf16
    %w51 = arith.extui %r51 : i1 to i32
    %k51 = arith.constant 51 : index
    memref.store %w51, %out[%i, %k51] : memref<156x161xi32>
    %r52 = arith.cmpf ole, %bf16, %bf16_3f81 : bf16
    %w52 = arith.extui %r52 : i1 to i32
    %k52 = arith.constant 52 : index
    memref.store %w52, %out[%i, %k52] : memref<156x161xi32>
    %r53 = arith.cmpf ugt, %bf16, %bf16_3f81 : bf16
    %w53 = arith.extui %r53 : i1 to i32
    %k53 = arith.constant 53 : index
    memref.store %w53, %out[%i, %k53] : memref<156x161xi32>
    %r54 = arith.cmpf uge, %bf16, %bf16_3f81 : bf16
    %w54 = arith.extui %r54 : i1 to i32
    %k54 = arith.constant 54 : index
    memref.store %w54, %out[%i, %k54] : memref<156x161xi32>
    %r55 = arith.cmpf ult, %bf16, %bf16_3f81 : bf16
    %w55 = arith.extui %r55 : i1 to i32
    %k55 = arith.constant 55 : index
    memref.store %w55, %out[%i, %k55] : memref<156x161xi32>
    %r56 = arith.cmpf ule, %bf16, %bf16_3f81 : bf16
    %w56 = arith.extui %r56 : i1 to i32
    %k56 = arith.constant 56 : index
    memref.store %w56, %out[%i, %k56] : memref<156x161xi32>
    %bf16_bf81 = arith.constant 0xBF81 : bf16
    %r57 = arith.cmpf ogt, %bf16, %bf16_bf81 : bf16
    %w57 = arith.extui %r57 : i1 to i32
    %k57 = arith.constant 57 : index
    memref.store %w57, %out[%i, %k57] : memref<156x161xi32>
    %r58 = arith.cmpf oge, %bf16, %bf16_bf81 : bf16
    %w58 = arith.extui %r58 : i1 to i32
    %k58 = arith.constant 58 : index
    memref.store %w58, %out[%i, %k58] : memref<156x161xi32>
    %r59 = arith.cmpf olt, %bf16, %bf16_bf81 : bf16
    %w59 = arith.extui %r59 : i1 to i32
    %k59 = arith.constant 59 : index
    memref.store %w59, %out[%i, %k59] : memref<156x161xi32>
    %r60 = arith.cmpf ole, %bf16, %bf16_bf81 : bf16
    %w60 = arith.extui %r60 : i1 to i32
    %k60 = arith.constant 60 : index
    memref.store %w60, %out[%i, %k60] : memref<156x161xi32>
    %r61 = arith.cmpf ugt, %bf16, %bf16_bf81 : bf16
    %w61 = arith.extui %r61 : i1 to i32
    %k61 = arith.constant 61 : index
    memref.store %w61, %out[%i, %k61] : memref<156x161xi32>
    %r62 = arith.cmpf uge, %bf16, %bf16_bf81 : bf16
    %w62 = arith.extui %r62 : i1 to i32
    %k62 = arith.constant 62 : index
    memref.store %w62, %out[%i, %k62] : memref<156x161xi32>
    %r63 = arith.cmpf ult, %bf16, %bf16_bf81 : bf16
    %w63 = arith.extui %r63 : i1 to i32
    %k63 = arith.constant 63 : index
    memref.store %w63, %out[%i, %k63] : memref<156x161xi32>
    %r64 = arith.cmpf ule, %bf16, %bf16_bf81 : bf16
    %w64 = arith.extui %r64 : i1 to i32
    %k64 = arith.constant 64 : index
    memref.store %w64, %out[%i, %k64] : memref<156x161xi32>
    %bf16_7f7e = arith.constant 0x7F7E : bf16
    %r65 = arith.cmpf ogt, %bf16, %bf16_7f7e : bf16
    %w65 = arith.extui %r65 : i1 to i32
    %k65 = arith.constant 65 : index
    memref.store %w65, %out[%i, %k65] : memref<156x161xi32>
    %r66 = arith.cmpf oge, %bf16, %bf16_7f7e : bf16
    %w66 = arith.extui %r66 : i1 to i32
    %k66 = arith.constant 66 : index
    memref.store %w66, %out[%i, %k66] : memref<156x161xi32>
    %r67 = arith.cmpf olt, %bf16, %bf16_7f7e : bf16
    %w67 = arith.extui %r67 : i1 to i32
    %k67 = arith.constant 67 : index
    memref.store %w67, %out[%i, %k67] : memref<156x161xi32>
    %r68 = arith.cmpf ole, %bf16, %bf16_7f7e : bf16
    %w68 = arith.extui %r68 : i1 to i32
    %k68 = arith.constant 68 : index
    memref.store %w68, %out[%i, %k68] : memref<156x161xi32>
    %r69 = arith.cmpf ugt, %bf16, %bf16_7f7e : bf16
    %w69 = arith.extui %r69 : i1 to i32
    %k69 = arith.constant 69 : index
    memref.store %w69, %out[%i, %k69] : memref<156x161xi32>
    %r70 = arith.cmpf uge, %bf16, %bf16_7f7e : bf16
    %w70 = arith.extui %r70 : i1 to i32
    %k70 = arith.constant 70 : index
    memref.store %w70, %out[%i, %k70] : memref<156x161xi32>
    %r71 = arith.cmpf ult, %bf16, %bf16_7f7e : bf16
    %w71 = arith.extui %r71 : i1 to i32
    %k71 = arith.constant 71 : index
    memref.store %w71, %out[%i, %k71] : memref<156x161xi32>
    %r72 = arith.cmpf ule, %bf16, %bf16_7f7e : bf16
    %w72 = arith.extui %r72 : i1 to i32
    %k72 = arith.constant 72 : index
    memref.store %w72, %out[%i, %k72] : memref<156x161xi32>
    %bf16_ff7e = arith.constant 0xFF7E : bf16
    %r73 = arith.cmpf ogt, %bf16, %bf16_ff7e : bf16
    %w73 = arith.extui %r73 : i1 to i32
    %k73 = arith.constant 73 : index
    memref.store %w73, %out[%i, %k73] : memref<156x161xi32>
    %r74 = arith.cmpf oge, %bf16, %bf16_ff7e : bf16
    %w74 = arith.extui %r74 : i1 to i32
    %k74 = arith.constant 74 : index
    memref.store %w74, %out[%i, %k74] : memref<156x161xi32>
    %r75 = arith.cmpf olt, %bf16, %bf16_ff7e : bf16
    %w75 = arith.extui %r75 : i1 to i32
    %k75 = arith.constant 75 : index
    memref.store %w75, %out[%i, %k75] : memref<156x161xi32>
    %r76 = arith.cmpf ole, %bf16, %bf16_ff7e : bf16
    %w76 = arith.extui %r76 : i1 to i32
    %k76 = arith.constant 76 : index
    memref.store %w76, %out[%i, %k76] : memref<156x161xi32>
    %r77 = arith.cmpf ugt, %bf16, %bf16_ff7e : bf16
    %w77 = arith.extui %r77 : i1 to i32
    %k77 = arith.constant 77 : index
    memref.store %w77, %out[%i, %k77] : memref<156x161xi32>
    %r78 = arith.cmpf uge, %bf16, %bf16_ff7e : bf16
    %w78 = arith.extui %r78 : i1 to i32
    %k78 = arith.constant 78 : index
    memref.store %w78, %out[%i, %k78] : memref<156x161xi32>
    %r79 = arith.cmpf ult, %bf16, %bf16_ff7e : bf16
    %w79 = arith.extui %r79 : i1 to i32
    %k79 = arith.constant 79 : index
    memref.store %w79, %out[%i, %k79] : memref<156x161xi32>
    %r80 = arith.cmpf ule, %bf16, %bf16_ff7e : bf16
    %w80 = arith.extui %r80 : i1 to i32
    %k80 = arith.constant 80 : index
    memref.store %w80, %out[%i, %k80] : memref<156x161xi32>
    %f16_0000 = arith.constant 0x0000 : f16
    %r81 = arith.cmpf ogt, %f16, %f16_0000 : f16
    %w81 = arith.extui %r81 : i1 to i32
    %k81 = arith.constant 81 : index
    memref.store %w81, %out[%i, %k81] : memref<156x161xi32>
    %r82 = arith.cmpf oge, %f16, %f16_0000 : f16
    %w82 = arith.extui %r82 : i1 to i32
    %k82 = arith.constant 82 : index
    memref.store %w82, %out[%i, %k82] : memref<156x161xi32>
    %r83 = arith.cmpf olt, %f16, %f16_0000 : f16
    %w83 = arith.extui %r83 : i1 to i32
    %k83 = arith.constant 83 : index
    memref.store %w83, %out[%i, %k83] : memref<156x161xi32>
    %r84 = arith.cmpf ole, %f16, %f16_0000 : f16
    %w84 = arith.extui %r84 : i1 to i32
    %k84 = arith.constant 84 : index
    memref.store %w84, %out[%i, %k84] : memref<156x161xi32>
    %r85 = arith.cmpf ugt, %f16, %f16_0000 : f16
    %w85 = arith.extui %r85 : i1 to i32
    %k85 = arith.constant 85 : index
    memref.store %w85, %out[%i, %k85] : memref<156x161xi32>
    %r86 = arith.cmpf uge, %f16, %f16_0000 : f16
    %w86 = arith.extui %r86 : i1 to i32
    %k86 = arith.constant 86 : index
    memref.store %w86, %out[%i, %k86] : memref<156x161xi32>
    %r87 = arith.cmpf ult, %f16, %f16_0000 : f16
    %w87 = arith.extui %r87 : i1 to i32
    %k87 = arith.constant 87 : index
    memref.store %w87, %out[%i, %k87] : memref<156x161xi32>
    %r88 = arith.cmpf ule, %f16, %f16_0000 : f16
    %w88 = arith.extui %r88 : i1 to i32
    %k88 = arith.constant 88 : index
    memref.store %w88, %out[%i, %k88] : memref<156x161xi32>
    %f16_8000 = arith.constant 0x8000 : f16
    %r89 = arith.cmpf ogt, %f16, %f16_8000 : f16
    %w89 = arith.extui %r89 : i1 to i32
    %k89 = arith.constant 89 : index
    memref.store %w89, %out[%i, %k89] : memref<156x161xi32>
    %r90 = arith.cmpf oge, %f16, %f16_8000 : f16
    %w90 = arith.extui %r90 : i1 to i32
    %k90 = arith.constant 90 : index
    memref.store %w90, %out[%i, %k90] : memref<156x161xi32>
    %r91 = arith.cmpf olt, %f16, %f16_8000 : f16
    %w91 = arith.extui %r91 : i1 to i32
    %k91 = arith.constant 91 : index
    memref.store %w91, %out[%i, %k91] : memref<156x161xi32>
    %r92 = arith.cmpf ole, %f16, %f16_8000 : f16
    %w92 = arith.extui %r92 : i1 to i32
    %k92 = arith.constant 92 : index
    memref.store %w92, %out[%i, %k92] : memref<156x161xi32>
    %r93 = arith.cmpf ugt, %f16, %f16_8000 : f16
    %w93 = arith.extui %r93 : i1 to i32
    %k93 = arith.constant 93 : index
    memref.store %w93, %out[%i, %k93] : memref<156x161xi32>
    %r94 = arith.cmpf uge, %f16, %f16_8000 : f16
    %w94 = arith.extui %r94 : i1 to i32
    %k94 = arith.constant 94 : index
    memref.store %w94, %out[%i, %k94] : memref<156x161xi32>
    %r95 = arith.cmpf ult, %f16, %f16_8000 : f16
    %w95 = arith.extui %r95 : i1 to i32
    %k95 = arith.constant 95 : index
    memref.store %w95, %out[%i, %k95] : memref<156x161xi32>
    %r96 = arith.cmpf ule, %f16, %f16_8000 : f16
    %w96 = arith.extui %r96 : i1 to i32
    %k96 = arith.constant 96 : index
    memref.store %w96, %out[%i, %k96] : memref<156x161xi32>
    %f16_0001 = arith.constant 0x0001 : f16
    %r97 = arith.cmpf ogt, %f16, %f16_0001 : f16
    %w97 = arith.extui %r97 : i1 to i32
    %k97 = arith.constant 97 : index
    memref.store %w97, %out[%i, %k97] : memref<156x161xi32>
    %r98 = arith.cmpf oge, %f16, %f16_0001 : f16
    %w98 = arith.extui %r98 : i1 to i32
    %k98 = arith.constant 98 : index
    memref.store %w98, %out[%i, %k98] : memref<156x161xi32>
    %r99 = arith.cmpf olt, %f16, %f16_0001 : f16
    %w99 = arith.extui %r99 : i1 to i32
    %k99 = arith.constant 99 : index
    memref.store %w99, %out[%i, %k99] : memref<156x161xi32>
    %r100 = arith.cmpf ole, %f16, %f16_0001 : f16
    %w100 = arith.extui %r100 : i1 to i32
    %k100 = arith.constant 100 : index
    memref.store %w100, %out[%i, %k100] : memref<156x161xi32>
    %r101 = arith.cmpf ugt, %f16, %f16_0001 : f16
    %w101 = arith.extui %r101 : i1 to i32
    %k101 = arith.constant 101 : index
    memref.store %w101, %out[%i, %k101] : memref<156x161xi32>
    %r102 = arith.cmpf uge, %f16, %f16_0001 : f16
    %w102 = arith.extui %r102 : i1 to i32
    %k102 = arith.constant 102 : index
    memref.store %w102, %out[%i, %k102] : memref<156x161xi32>
    %r103 = arith.cmpf ult, %f16, %f16_0001 : f16
    %w103 = arith.extui %r103 : i1 to i32
    %k103 = arith.constant 103 : index
    memref.store %w103, %out[%i, %k103] : memref<156x161xi32>
    %r104 = arith.cmpf ule, %f16, %f16_0001 : f16
    %w104 = arith.extui %r104 : i1 to i32
    %k104 = arith.constant 104 : index
    memref.store %w104, %out[%i, %k104] : memref<156x161xi32>
    %f16_03ff = arith.constant 0x03FF : f16
    %r105 = arith.cmpf ogt, %f16, %f16_03ff : f16
    %w105 = arith.extui %r105 : i1 to i32
    %k105 = arith.constant 105 : index
    memref.store %w105, %out[%i, %k105] : memref<156x161xi32>
    %r106 = arith.cmpf oge, %f16, %f16_03ff : f16
    %w106 = arith.extui %r106 : i1 to i32
    %k106 = arith.constant 106 : index
    memref.store %w106, %out[%i, %k106] : memref<156x161xi32>
    %r107 = arith.cmpf olt, %f16, %f16_03ff : f16
    %w107 = arith.extui %r107 : i1 to i32
    %k107 = arith.constant 107 : index
    memref.store %w107, %out[%i, %k107] : memref<156x161xi32>
    %r108 = arith.cmpf ole, %f16, %f16_03ff : f16
    %w108 = arith.extui %r108 : i1 to i32
    %k108 = arith.constant 108 : index
    memref.store %w108, %out[%i, %k108] : memref<156x161xi32>
    %r109 = arith.cmpf ugt, %f16, %f16_03ff : f16
    %w109 = arith.extui %r109 : i1 to i32
    %k109 = arith.constant 109 : index
    memref.store %w109, %out[%i, %k109] : memref<156x161xi32>
    %r110 = arith.cmpf uge, %f16, %f16_03ff : f16
    %w110 = arith.extui %r110 : i1 to i32
    %k110 = arith.constant 110 : index
    memref.store %w110, %out[%i, %k110] : memref<156x161xi32>
    %r111 = arith.cmpf ult, %f16, %f16_03ff : f16
    %w111 = arith.extui %r111 : i1 to i32
    %k111 = arith.constant 111 : index
    memref.store %w111, %out[%i, %k111] : memref<156x161xi32>
    %r112 = arith.cmpf ule, %f16, %f16_03ff : f16
    %w112 = arith.extui %r112 : i1 to i32
    %k112 = arith.constant 112 : index
    memref.store %w112, %out[%i, %k112] : memref<156x161xi32>
    %f16_0400 = arith.constant 0x0400 : f16
    %r113 = arith.cmpf ogt, %f16, %f16_0400 : f16
    %w113 = arith.extui %r113 : i1 to i32
    %k113 = arith.constant 113 : index
    memref.store %w113, %out[%i, %k113] : memref<156x161xi32>
    %r114 = arith.cmpf oge, %f16, %f16_0400 : f16
    %w114 = arith.extui %r114 : i1 to i32
    %k114 = arith.constant 114 : index
    memref.store %w114, %out[%i, %k114] : memref<156x161xi32>
    %r115 = arith.cmpf olt, %f16, %f16_0400 : f16
    %w115 = arith.extui %r115 : i1 to i32
    %k115 = arith.constant 115 : index
    memref.store %w115, %out[%i, %k115] : memref<156x161xi32>
    %r116 = arith.cmpf ole, %f16, %f16_0400 : f16
    %w116 = arith.extui %r116 : i1 to i32
    %k116 = arith.constant 116 : index
    memref.store %w116, %out[%i, %k116] : memref<156x161xi32>
    %r117 = arith.cmpf ugt, %f16, %f16_0400 : f16
    %w117 = arith.extui %r117 : i1 to i32
    %k117 = arith.constant 117 : index
    memref.store %w117, %out[%i, %k117] : memref<156x161xi32>
    %r118 = arith.cmpf uge, %f16, %f16_0400 : f16
    %w118 = arith.extui %r118 : i1 to i32
    %k118 = arith.constant 118 : index
    memref.store %w118, %out[%i, %k118] : memref<156x161xi32>
    %r119 = arith.cmpf ult, %f16, %f16_0400 : f16
    %w119 = arith.extui %r119 : i1 to i32
    %k119 = arith.constant 119 : index
    memref.store %w119, %out[%i, %k119] : memref<156x161xi32>
    %r120 = arith.cmpf ule, %f16, %f16_0400 : f16
    %w120 = arith.extui %r120 : i1 to i32
    %k120 = arith.constant 120 : index
    memref.store %w120, %out[%i, %k120] : memref<156x161xi32>
    %f16_3c00 = arith.constant 0x3C00 : f16
    %r121 = arith.cmpf ogt, %f16, %f16_3c00 : f16
    %w121 = arith.extui %r121 : i1 to i32
    %k121 = arith.constant 121 : index
    memref.store %w121, %out[%i, %k121] : memref<156x161xi32>
    %r122 = arith.cmpf oge, %f16, %f16_3c00 : f16
    %w122 = arith.extui %r122 : i1 to i32
    %k122 = arith.constant 122 : index
    memref.store %w122, %out[%i, %k122] : memref<156x161xi32>
    %r123 = arith.cmpf olt, %f16, %f16_3c00 : f16
    %w123 = arith.extui %r123 : i1 to i32
    %k123 = arith.constant 123 : index
    memref.store %w123, %out[%i, %k123] : memref<156x161xi32>
    %r124 = arith.cmpf ole, %f16, %f16_3c00 : f16
    %w124 = arith.extui %r124 : i1 to i32
    %k124 = arith.constant 124 : index
    memref.store %w124, %out[%i, %k124] : memref<156x161xi32>
    %r125 = arith.cmpf ugt, %f16, %f16_3c00 : f16
    %w125 = arith.extui %r125 : i1 to i32
    %k125 = arith.constant 125 : index
    memref.store %w125, %out[%i, %k125] : memref<156x161xi32>
    %r126 = arith.cmpf uge, %f16, %f16_3c00 : f16
    %w126 = arith.extui %r126 : i1 to i32
    %k126 = arith.constant 126 : index
    memref.store %w126, %out[%i, %k126] : memref<156x161xi32>
    %r127 = arith.cmpf ult, %f16, %f16_3c00 : f16
    %w127 = arith.extui %r127 : i1 to i32
    %k127 = arith.constant 127 : index
    memref.store %w127, %out[%i, %k127] : memref<156x161xi32>
    %r128 = arith.cmpf ule, %f16, %f16_3c00 : f16
    %w128 = arith.extui %r128 : i1 to i32
    %k128 = arith.constant 128 : index
    memref.store %w128, %out[%i, %k128] : memref<156x161xi32>
    %f16_3c01 = arith.constant 0x3C01 : f16
    %r129 = arith.cmpf ogt, %f16, %f16_3c01 : f16
    %w129 = arith.extui %r129 : i1 to i32
    %k129 = arith.constant 129 : index
    memref.store %w129, %out[%i, %k129] : memref<156x161xi32>
    %r130 = arith.cmpf oge, %f16, %f16_3c01 : f16
    %w130 = arith.extui %r130 : i1 to i32
    %k130 = arith.constant 130 : index
    memref.store %w130, %out[%i, %k130] : memref<156x161xi32>
    %r131 = arith.cmpf olt, %f16, %f16_3c01 : f16
    %w131 = arith.extui %r131 : i1 to i32
    %k131 = arith.constant 131 : index
    memref.store %w131, %out[%i, %k131] : memref<156x161xi32>
    %r132 = arith.cmpf ole, %f16, %f16_3c01 : f16
    %w132 = arith.extui %r132 : i1 to i32
    %k132 = arith.constant 132 : index
    memref.store %w132, %out[%i, %k132] : memref<156x161xi32>
    %r133 = arith.cmpf ugt, %f16, %f16_3c01 : f16
    %w133 = arith.extui %r133 : i1 to i32
    %k133 = arith.constant 133 : index
    memref.store %w133, %out[%i, %k133] : memref<156x161xi32>
    %r134 = arith.cmpf uge, %f16, %f16_3c01 : f16
    %w134 = arith.extui %r134 : i1 to i32
    %k134 = arith.constant 134 : index
    memref.store %w134, %out[%i, %k134] : memref<156x161xi32>
    %r135 = arith.cmpf ult, %f16, %f16_3c01 : f16
    %w135 = arith.extui %r135 : i1 to i32
    %k135 = arith.constant 135 : index
    memref.store %w135, %out[%i, %k135] : memref<156x161xi32>
    %r136 = arith.cmpf ule, %f16, %f16_3c01 : f16
    %w136 = arith.extui %r136 : i1 to i32
    %k136 = arith.constant 136 : index
    memref.store %w136, %out[%i, %k136] : memref<156x161xi32>
    %f16_bc01 = arith.constant 0xBC01 : f16
    %r137 = arith.cmpf ogt, %f16, %f16_bc01 : f16
    %w137 = arith.extui %r137 : i1 to i32
    %k137 = arith.constant 137 : index
    memref.store %w137, %out[%i, %k137] : memref<156x161xi32>
    %r138 = arith.cmpf oge, %f16, %f16_bc01 : f16
    %w138 = arith.extui %r138 : i1 to i32
    %k138 = arith.constant 138 : index
    memref.store %w138, %out[%i, %k138] : memref<156x161xi32>
    %r139 = arith.cmpf olt, %f16, %f16_bc01 : f16
    %w139 = arith.extui %r139 : i1 to i32
    %k139 = arith.constant 139 : index
    memref.store %w139, %out[%i, %k139] : memref<156x161xi32>
    %r140 = arith.cmpf ole, %f16, %f16_bc01 : f16
    %w140 = arith.extui %r140 : i1 to i32
    %k140 = arith.constant 140 : index
    memref.store %w140, %out[%i, %k140] : memref<156x161xi32>
    %r141 = arith.cmpf ugt, %f16, %f16_bc01 : f16
    %w141 = arith.extui %r141 : i1 to i32
    %k141 = arith.constant 141 : index
    memref.store %w141, %out[%i, %k141] : memref<156x161xi32>
    %r142 = arith.cmpf uge, %f16, %f16_bc01 : f16
    %w142 = arith.extui %r142 : i1 to i32
    %k142 = arith.constant 142 : index
    memref.store %w142, %out[%i, %k142] : memref<156x161xi32>
    %r143 = arith.cmpf ult, %f16, %f16_bc01 : f16
    %w143 = arith.extui %r143 : i1 to i32
    %k143 = arith.constant 143 : index
    memref.store %w143, %out[%i, %k143] : memref<156x161xi32>
    %r144 = arith.cmpf ule, %f16, %f16_bc01 : f16
    %w144 = arith.extui %r144 : i1 to i32
    %k144 = arith.constant 144 : index
    memref.store %w144, %out[%i, %k144] : memref<156x161xi32>
    %f16_7bfe = arith.constant 0x7BFE : f16
    %r145 = arith.cmpf ogt, %f16, %f16_7bfe : f16
    %w145 = arith.extui %r145 : i1 to i32
    %k145 = arith.constant 145 : index
    memref.store %w145, %out[%i, %k145] : memref<156x161xi32>
    %r146 = arith.cmpf oge, %f16, %f16_7bfe : f16
    %w146 = arith.extui %r146 : i1 to i32
    %k146 = arith.constant 146 : index
    memref.store %w146, %out[%i, %k146] : memref<156x161xi32>
    %r147 = arith.cmpf olt, %f16, %f16_7bfe : f16
    %w147 = arith.extui %r147 : i1 to i32
    %k147 = arith.constant 147 : index
    memref.store %w147, %out[%i, %k147] : memref<156x161xi32>
    %r148 = arith.cmpf ole, %f16, %f16_7bfe : f16
    %w148 = arith.extui %r148 : i1 to i32
    %k148 = arith.constant 148 : index
    memref.store %w148, %out[%i, %k148] : memref<156x161xi32>
    %r149 = arith.cmpf ugt, %f16, %f16_7bfe : f16
    %w149 = arith.extui %r149 : i1 to i32
    %k149 = arith.constant 149 : index
    memref.store %w149, %out[%i, %k149] : memref<156x161xi32>
    %r150 = arith.cmpf uge, %f16, %f16_7bfe : f16
    %w150 = arith.extui %r150 : i1 to i32
    %k150 = arith.constant 150 : index
    memref.store %w150, %out[%i, %k150] : memref<156x161xi32>
    %r151 = arith.cmpf ult, %f16, %f16_7bfe : f16
    %w151 = arith.extui %r151 : i1 to i32
    %k151 = arith.constant 151 : index
    memref.store %w151, %out[%i, %k151] : memref<156x161xi32>
    %r152 = arith.cmpf ule, %f16, %f16_7bfe : f16
    %w152 = arith.extui %r152 : i1 to i32
    %k152 = arith.constant 152 : index
    memref.store %w152, %out[%i, %k152] : memref<156x161xi32>
    %f16_fbfe = arith.constant 0xFBFE : f16
    %r153 = arith.cmpf ogt, %f16, %f16_fbfe : f16
    %w153 = arith.extui %r153 : i1 to i32
    %k153 = arith.constant 153 : index
    memref.store %w153, %out[%i, %k153] : memref<156x161xi32>
    %r154 = arith.cmpf oge, %f16, %f16_fbfe : f16
    %w154 = arith.extui %r154 : i1 to i32
    %k154 = arith.constant 154 : index
    memref.store %w154, %out[%i, %k154] : memref<156x161xi32>
    %r155 = arith.cmpf olt, %f16, %f16_fbfe : f16
    %w155 = arith.extui %r155 : i1 to i32
    %k155 = arith.constant 155 : index
    memref.store %w155, %out[%i, %k155] : memref<156x161xi32>
    %r156 = arith.cmpf ole, %f16, %f16_fbfe : f16
    %w156 = arith.extui %r156 : i1 to i32
    %k156 = arith.constant 156 : index
    memref.store %w156, %out[%i, %k156] : memref<156x161xi32>
    %r157 = arith.cmpf ugt, %f16, %f16_fbfe : f16
    %w157 = arith.extui %r157 : i1 to i32
    %k157 = arith.constant 157 : index
    memref.store %w157, %out[%i, %k157] : memref<156x161xi32>
    %r158 = arith.cmpf uge, %f16, %f16_fbfe : f16
    %w158 = arith.extui %r158 : i1 to i32
    %k158 = arith.constant 158 : index
    memref.store %w158, %out[%i, %k158] : memref<156x161xi32>
    %r159 = arith.cmpf ult, %f16, %f16_fbfe : f16
    %w159 = arith.extui %r159 : i1 to i32
    %k159 = arith.constant 159 : index
    memref.store %w159, %out[%i, %k159] : memref<156x161xi32>
    %r160 = arith.cmpf ule, %f16, %f16_fbfe : f16
    %w160 = arith.extui %r160 : i1 to i32
    %k160 = arith.constant 160 : index
    memref.store %w160, %out[%i, %k160] : memref<156x161xi32>
  }
  %cast = memref.cast %out : memref<156x161xi32> to memref<*xi32>
  call @printMemrefI32(%cast) : (memref<*xi32>) -> ()
  memref.dealloc %out : memref<156x161xi32>
  return
}
