// RUN: mpt-opt %s --mpt-convert-linalg-to-vectorizable-loops --split-input-file | FileCheck %s
// RUN: mpt-opt %s --mpt-convert-linalg-to-vectorizable-loops="vector-width=8 predicate=false" --split-input-file | FileCheck %s --check-prefix=AVX2

// LLVM honours the hint: with it the f16 rows of Inputs/f16-rows.mlir are
// vectorized 16 wide for an AVX-512 CPU without AVX512-FP16; without it the
// cost model keeps them scalar.
// RUN: mpt-opt %S/Inputs/f16-rows.mlir --mpt-convert-linalg-to-vectorizable-loops \
// RUN:   --convert-linalg-to-loops --convert-scf-to-cf --convert-to-llvm \
// RUN:   --reconcile-unrealized-casts | mlir-translate --mlir-to-llvmir \
// RUN:   | opt -O3 -mtriple=x86_64-unknown-linux-gnu -mcpu=skylake-avx512 \
// RUN:       -pass-remarks=loop-vectorize -disable-output 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LLVM
// RUN: mpt-opt %S/Inputs/f16-rows.mlir \
// RUN:   --convert-linalg-to-loops --convert-scf-to-cf --convert-to-llvm \
// RUN:   --reconcile-unrealized-casts | mlir-translate --mlir-to-llvmir \
// RUN:   | opt -O3 -mtriple=x86_64-unknown-linux-gnu -mcpu=skylake-avx512 \
// RUN:       -pass-remarks=loop-vectorize -disable-output 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NO-HINT --allow-empty
// LLVM: vectorized loop (vectorization width: 16
// NO-HINT-NOT: vectorized loop
// What the runtime asks for without AVX-512: each 14-wide row in loops of 8,
// 4 and 2 lanes, which LLVM vectorizes whole, leaving no scalar remainder.
// RUN: mpt-opt %S/Inputs/f16-rows.mlir \
// RUN:   --mpt-convert-linalg-to-vectorizable-loops="vector-width=8 predicate=false" \
// RUN:   --convert-linalg-to-loops --convert-scf-to-cf --convert-to-llvm \
// RUN:   --reconcile-unrealized-casts | mlir-translate --mlir-to-llvmir \
// RUN:   | opt -O3 -mtriple=x86_64-unknown-linux-gnu -mcpu=haswell \
// RUN:       -pass-remarks=loop-vectorize -disable-output 2>&1 \
// RUN:   | FileCheck %s --check-prefix=LLVM-AVX2
// LLVM-AVX2-DAG: vectorized loop (vectorization width: 8
// LLVM-AVX2-DAG: vectorized loop (vectorization width: 4
// LLVM-AVX2-DAG: vectorized loop (vectorization width: 2

// A softmax backward row dot (Inputs/reduction-rows.mlir): with the hint and
// the reassociable sum, each 49-wide row is 4 masked iterations of 16 lanes
// of partial sums, added by a tree at the end; without them LLVM may not
// reorder the sum and keeps the row scalar.
// RUN: mpt-opt %S/Inputs/reduction-rows.mlir --mpt-convert-linalg-to-vectorizable-loops \
// RUN:   --convert-linalg-to-loops --convert-scf-to-cf --convert-to-llvm \
// RUN:   --reconcile-unrealized-casts | mlir-translate --mlir-to-llvmir \
// RUN:   | opt -O3 -mtriple=x86_64-unknown-linux-gnu -mcpu=skylake-avx512 \
// RUN:       -pass-remarks=loop-vectorize -S 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ROWS
// RUN: mpt-opt %S/Inputs/reduction-rows.mlir \
// RUN:   --convert-linalg-to-loops --convert-scf-to-cf --convert-to-llvm \
// RUN:   --reconcile-unrealized-casts | mlir-translate --mlir-to-llvmir \
// RUN:   | opt -O3 -mtriple=x86_64-unknown-linux-gnu -mcpu=skylake-avx512 \
// RUN:       -pass-remarks-missed=loop-vectorize -pass-remarks-analysis=loop-vectorize -S 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ROWS-NO-HINT
// ROWS: vectorized loop (vectorization width: 16, interleaved count: 1)
// ROWS: masked.load.v16f32
// ROWS: fadd reassoc <16 x float>
// ROWS: llvm.vector.reduce.fadd.v16f32
// ROWS-NO-HINT: loop not vectorized: cannot prove it is safe to reorder floating-point operations
// ROWS-NO-HINT-NOT: <16 x float>

#id = affine_map<(d0, d1) -> (d0, d1)>

// An f16 elementwise op: loops as convert-linalg-to-loops makes them, the
// innermost one asking LLVM to vectorize (overriding its cost model),
// predicated instead of with a scalar remainder, and not unrolled first. The
// input's rows are 16 apart, so its two loops cannot collapse into one.

// CHECK-DAG: #[[$VEC:.*]] = #llvm.loop_vectorize<disable = false, predicateEnable = true, width = 16 : i32>
// CHECK-DAG: #[[$UNROLL:.*]] = #llvm.loop_unroll<disable = true>
// CHECK-DAG: #[[$HINT:.*]] = #llvm.loop_annotation<vectorize = #[[$VEC]], unroll = #[[$UNROLL]]>
// CHECK-LABEL: func.func @f16_elementwise
// CHECK: scf.for %[[I:[a-z0-9]+]] =
// CHECK: scf.for %[[J:[a-z0-9]+]] =
// CHECK: memref.load %{{.*}}[%[[I]], %[[J]]] : memref<4x14xf16, strided<[16, 1]>>
// CHECK: arith.addf %{{.*}}, %{{.*}} : f16
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]] : memref<4x14xf16>
// CHECK: } {loop_annotation = #[[$HINT]]}
// CHECK-NOT: loop_annotation
// CHECK: return
// Unpredicated, the row is split into loops of 8, 4 and 2 iterations, each
// vectorized as wide as it is long, instead of a vector iteration and 6
// scalar ones.
// AVX2-DAG: #[[$VEC8:.*]] = #llvm.loop_vectorize<disable = false, predicateEnable = false, width = 8 : i32>
// AVX2-DAG: #[[$VEC4:.*]] = #llvm.loop_vectorize<disable = false, predicateEnable = false, width = 4 : i32>
// AVX2-DAG: #[[$VEC2:.*]] = #llvm.loop_vectorize<disable = false, predicateEnable = false, width = 2 : i32>
// AVX2-DAG: #[[$HINT8:.*]] = #llvm.loop_annotation<vectorize = #[[$VEC8]], unroll = #{{.*}}>
// AVX2-DAG: #[[$HINT4:.*]] = #llvm.loop_annotation<vectorize = #[[$VEC4]], unroll = #{{.*}}>
// AVX2-DAG: #[[$HINT2:.*]] = #llvm.loop_annotation<vectorize = #[[$VEC2]], unroll = #{{.*}}>
// AVX2-LABEL: func.func @f16_elementwise
// AVX2-DAG: %[[C0:.*]] = arith.constant 0 : index
// AVX2-DAG: %[[C8:.*]] = arith.constant 8 : index
// AVX2-DAG: %[[C12:.*]] = arith.constant 12 : index
// AVX2-DAG: %[[C14:.*]] = arith.constant 14 : index
// AVX2: scf.for %[[I:[a-z0-9]+]] =
// AVX2-NEXT: scf.for %[[J:[a-z0-9]+]] = %[[C0]] to %[[C8]]
// AVX2: memref.load %{{.*}}[%[[I]], %[[J]]] : memref<4x14xf16, strided<[16, 1]>>
// AVX2: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]] : memref<4x14xf16>
// AVX2-NEXT: } {loop_annotation = #[[$HINT8]]}
// AVX2-NEXT: scf.for %[[J:[a-z0-9]+]] = %[[C8]] to %[[C12]]
// AVX2: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]] : memref<4x14xf16>
// AVX2-NEXT: } {loop_annotation = #[[$HINT4]]}
// AVX2-NEXT: scf.for %[[J:[a-z0-9]+]] = %[[C12]] to %[[C14]]
// AVX2: memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]]] : memref<4x14xf16>
// AVX2-NEXT: } {loop_annotation = #[[$HINT2]]}
// AVX2-NEXT: }
// AVX2-NEXT: return
func.func @f16_elementwise(%x: memref<4x14xf16, strided<[16, 1]>>, %y: memref<4x14xf16>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x14xf16, strided<[16, 1]>>) outs(%y : memref<4x14xf16>) {
  ^bb0(%a: f16, %out: f16):
    %s = arith.addf %a, %a : f16
    linalg.yield %s : f16
  }
  return
}

// -----

// A batch norm fused with a 2x2 pooling's reshape, [N, C, H/2, 2, W/2, 2]:
// its last four loops walk the output and the normalized input as one
// contiguous run of H x W, and the per-channel operand not at all, so they
// collapse into one loop of 64, split 16 wide. Where the input's rows are
// padded (20 apart, not 16), only the last three collapse, into 16.

// CHECK-LABEL: func.func @collapsed_image
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[X:.*]] = memref.collapse_shape %arg0 {{\[}}[0], [1], [2, 3, 4, 5]] : memref<2x3x4x2x4x2xf16> into memref<2x3x64xf16>
// CHECK-DAG: %[[Y:.*]] = memref.collapse_shape %arg2 {{\[}}[0], [1], [2, 3, 4, 5]] : memref<2x3x4x2x4x2xf16> into memref<2x3x64xf16>
// CHECK: scf.for %[[N:[a-z0-9]+]] =
// CHECK: scf.for %[[C:[a-z0-9]+]] =
// CHECK: scf.for %[[P:[a-z0-9]+]] = %{{.*}} to %[[C64]]
// CHECK: memref.load %[[X]][%[[N]], %[[C]], %[[P]]]
// CHECK: memref.load %arg1[%[[C]]] : memref<3xf32>
// CHECK: memref.store %{{.*}}, %[[Y]][%[[N]], %[[C]], %[[P]]]
// CHECK: } {loop_annotation = #{{.*}}}
// CHECK-LABEL: func.func @collapsed_padded_image
// CHECK: memref.collapse_shape %arg0 {{\[}}[0], [1], [2], [3, 4, 5]] : memref<2x3x4x2x4x2xf32, strided<[240, 80, 20, 8, 2, 1]>> into memref<2x3x4x16xf32, strided<[240, 80, 20, 1]>>
// CHECK: memref.collapse_shape %arg1 {{\[}}[0], [1], [2], [3, 4, 5]] : memref<2x3x4x2x4x2xf32> into memref<2x3x4x16xf32>
// CHECK-COUNT-4: scf.for
// CHECK-NOT: scf.for
// CHECK: } {loop_annotation = #{{.*}}}
#bn = affine_map<(n, c, h, kh, w, kw) -> (n, c, h, kh, w, kw)>
#channel = affine_map<(n, c, h, kh, w, kw) -> (c)>
func.func @collapsed_image(%x: memref<2x3x4x2x4x2xf16>, %scale: memref<3xf32>,
                           %y: memref<2x3x4x2x4x2xf16>) {
  linalg.generic {indexing_maps = [#bn, #channel, #bn],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %scale : memref<2x3x4x2x4x2xf16>, memref<3xf32>) outs(%y : memref<2x3x4x2x4x2xf16>) {
  ^bb0(%a: f16, %s: f32, %out: f16):
    %e = arith.extf %a : f16 to f32
    %m = arith.mulf %e, %s : f32
    %t = arith.truncf %m : f32 to f16
    linalg.yield %t : f16
  }
  return
}
func.func @collapsed_padded_image(%x: memref<2x3x4x2x4x2xf32, strided<[240, 80, 20, 8, 2, 1]>>,
                                  %y: memref<2x3x4x2x4x2xf32>) {
  linalg.generic {indexing_maps = [#bn, #bn],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<2x3x4x2x4x2xf32, strided<[240, 80, 20, 8, 2, 1]>>) outs(%y : memref<2x3x4x2x4x2xf32>) {
  ^bb0(%a: f32, %out: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// bf16 read at a constant stride: the innermost dimension is followed only by
// constant indices (a pooling window's position), which LLVM vectorizes as
// interleaved loads. f32 loops are marked too. Unpredicated 8 wide, its 7
// iterations are loops of 4 and 2 lanes and one scalar iteration, left
// unmarked (no loop of 8 iterations, which LLVM would warn it could not
// vectorize).

// CHECK-LABEL: func.func @bf16_windowed
// CHECK: scf.for
// CHECK: scf.for
// CHECK: } {loop_annotation = #{{.*}}}
// AVX2-DAG: #[[$WIN4:.*]] = #llvm.loop_vectorize<disable = false, predicateEnable = false, width = 4 : i32>
// AVX2-DAG: #[[$WIN2:.*]] = #llvm.loop_vectorize<disable = false, predicateEnable = false, width = 2 : i32>
// AVX2-DAG: #[[$WINHINT4:.*]] = #llvm.loop_annotation<vectorize = #[[$WIN4]], unroll = #{{.*}}>
// AVX2-DAG: #[[$WINHINT2:.*]] = #llvm.loop_annotation<vectorize = #[[$WIN2]], unroll = #{{.*}}>
// AVX2-LABEL: func.func @bf16_windowed
// AVX2-DAG: %[[C0:.*]] = arith.constant 0 : index
// AVX2-DAG: %[[C4:.*]] = arith.constant 4 : index
// AVX2-DAG: %[[C6:.*]] = arith.constant 6 : index
// AVX2-DAG: %[[C7:.*]] = arith.constant 7 : index
// AVX2: scf.for %{{.*}} = %[[C0]] to %[[C4]]
// AVX2: } {loop_annotation = #[[$WINHINT4]]}
// AVX2-NEXT: scf.for %{{.*}} = %[[C4]] to %[[C6]]
// AVX2: } {loop_annotation = #[[$WINHINT2]]}
// AVX2-NEXT: scf.for %{{.*}} = %[[C6]] to %[[C7]]
// AVX2: }{{$}}
// AVX2-NEXT: }
// AVX2-NEXT: return
func.func @bf16_windowed(%x: memref<4x7x2xbf16>, %y: memref<4x7xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1, 1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x7x2xbf16>) outs(%y : memref<4x7xf32>) {
  ^bb0(%a: bf16, %out: f32):
    %e = arith.extf %a : bf16 to f32
    linalg.yield %e : f32
  }
  return
}

// -----

// A pooling gradient's loops (n, ow, kh, kw): the 2x2 window loops inside
// are left for LLVM to unroll, and the loop along ow around them is marked.
// The output, indexed (n, ow, kw) in a [N, OW, KW] view, is walked along ow
// at the constant stride KW.

// CHECK-LABEL: func.func @window_loops_inside
// CHECK: scf.for %{{.*}} = %{{.*}} to %c3
// CHECK: scf.for %{{.*}} = %{{.*}} to %c14
// CHECK: scf.for %{{.*}} = %{{.*}} to %c2
// CHECK: scf.for %{{.*}} = %{{.*}} to %c2
// CHECK: memref.store
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: } {loop_annotation = #{{.*}}}
// CHECK-NEXT: }
func.func @window_loops_inside(%x: memref<3x2x14x2xf32>, %dx: memref<3x2x14x2xf32>) {
  linalg.generic {indexing_maps = [affine_map<(n, ow, kh, kw) -> (n, 0, ow, 1)>,
                                   affine_map<(n, ow, kh, kw) -> (n, kh, ow, kw)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : memref<3x2x14x2xf32>) outs(%dx : memref<3x2x14x2xf32>) {
  ^bb0(%a: f32, %out: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

// Innermost reductions over contiguous rows (softmax's and layer norm's): the
// reduction loop is marked, and each sum may be reassociated into partial
// sums; max needs no flag (exact in any order). Inputs/reduction-rows.mlir
// shows what LLVM makes of them.

// CHECK-LABEL: func.func @row_reductions
// CHECK: scf.for %[[I:[a-z0-9]+]] =
// CHECK: scf.for %[[J:[a-z0-9]+]] =
// CHECK: memref.load %{{.*}}[%[[I]], %[[J]]] : memref<4x49xf16>
// CHECK: memref.load %{{.*}}[%[[I]], %[[J]]] : memref<4x49xf32>
// CHECK: arith.mulf
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK: } {loop_annotation = #{{.*}}}
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @row_reductions(%h: memref<4x49xf16>, %y: memref<4x49xf32>, %dots: memref<4xf32>,
                          %maxima: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>,
                                   affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%h, %y : memref<4x49xf16>, memref<4x49xf32>) outs(%dots, %maxima : memref<4xf32>, memref<4xf32>) {
  ^bb0(%x: f16, %b: f32, %acc: f32, %max: f32):
    %e = arith.extf %x : f16 to f32
    %p = arith.mulf %e, %b : f32
    %s = arith.addf %acc, %p : f32
    %m = arith.maximumf %max, %b : f32
    linalg.yield %s, %m : f32, f32
  }
  return
}

// -----

// Reductions that keep their order: over a row read along a non-innermost
// index (a transposed operand), over at most 4 elements (a pooling window,
// which LLVM unrolls), one whose accumulator feeds more than its combiner,
// and one whose running sum another result reads (a running maximum of
// prefix sums, which reordering the sum would change).

// CHECK-LABEL: func.func @reductions_left_alone
// CHECK-NOT: scf.for
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT: fastmath
// CHECK-NOT: loop_annotation
func.func @reductions_left_alone(%h: memref<4x14xf32>, %t: memref<14x4xf32>, %w: memref<14x4xf32>,
                                 %rows: memref<4xf32>, %cols: memref<14xf32>, %peaks: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%t : memref<14x4xf32>) outs(%rows : memref<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%w : memref<14x4xf32>) outs(%cols : memref<14xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%h : memref<4x14xf32>) outs(%rows : memref<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %acc, %x : f32
    %twice = arith.addf %s, %acc : f32
    linalg.yield %twice : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>,
                                   affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%h : memref<4x14xf32>) outs(%rows, %peaks : memref<4xf32>, memref<4xf32>) {
  ^bb0(%x: f32, %acc: f32, %peak: f32):
    %s = arith.addf %acc, %x : f32
    %m = arith.maximumf %peak, %s : f32
    linalg.yield %s, %m : f32, f32
  }
  return
}

// -----

// Left to convert-linalg-to-loops: an operand walked along a non-innermost
// index (a transpose: gathers), a loop nest without floats, and ops on
// tensors.

// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: scf.for
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT: loop_annotation
func.func @left_alone(%h: memref<4x14xf16>, %t: memref<14x4xf16>,
                      %i: memref<4x14xi32>, %j: memref<4x14xi32>, %tensor: tensor<4x14xf16>)
    -> tensor<4x14xf16> {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1, d0)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%h : memref<4x14xf16>) outs(%t : memref<14x4xf16>) {
  ^bb0(%x: f16, %out: f16):
    linalg.yield %x : f16
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%i : memref<4x14xi32>) outs(%j : memref<4x14xi32>) {
  ^bb0(%x: i32, %out: i32):
    %s = arith.addi %x, %x : i32
    linalg.yield %s : i32
  }
  %empty = tensor.empty() : tensor<4x14xf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%tensor : tensor<4x14xf16>) outs(%empty : tensor<4x14xf16>) {
  ^bb0(%x: f16, %out: f16):
    %s = arith.addf %x, %x : f16
    linalg.yield %s : f16
  } -> tensor<4x14xf16>
  return %r : tensor<4x14xf16>
}
