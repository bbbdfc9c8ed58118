// RUN: mpt-opt %s --mpt-outline-parallel-linalg="min-iterations=64" --split-input-file --verify-each | FileCheck %s

// The outlined IR lowers to LLVM the way the CPU pipeline lowers it: the
// context's memref casts cancel, func.constant becomes the entry's address.
// RUN: mpt-opt %s --mpt-outline-parallel-linalg="min-iterations=64" --split-input-file \
// RUN:   --convert-linalg-to-loops --expand-strided-metadata --lower-affine --convert-scf-to-cf \
// RUN:   --finalize-memref-to-llvm --convert-to-llvm --reconcile-unrealized-casts \
// RUN:   | FileCheck %s --check-prefix=LLVM
// LLVM-LABEL: llvm.func @softmax_rows_parallel_entry(%{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64)
// LLVM: llvm.call @softmax_rows_parallel(
// LLVM-LABEL: llvm.func @softmax_rows(
// LLVM: %[[ENTRY:.*]] = llvm.mlir.addressof @softmax_rows_parallel_entry : !llvm.ptr
// LLVM: llvm.call @mpt_cpu_parallel_for(%[[ENTRY]], %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, i64) -> ()
// LLVM-NOT: unrealized_conversion_cast
// LLVM-LABEL: llvm.func @bias_rows_parallel(

// A row reduction over a 16x8 step argument into a buffer the step
// allocates: the rows are split. Static memrefs travel as their aligned
// pointers; the slice rebuilds their descriptors from constants. The buffer
// is marked noalias, the argument (which the caller could alias) is not.

// CHECK-LABEL: func.func private @softmax_rows_parallel(
// CHECK-SAME: %[[BEGIN:[^:]*]]: index, %[[END:[^:]*]]: index,
// CHECK-SAME: %[[XP:[^:]*]]: !llvm.ptr, %[[SUMP:[^:]*]]: !llvm.ptr {llvm.noalias})
// CHECK: %[[SIZE:.*]] = arith.subi %[[END]], %[[BEGIN]]
// CHECK: llvm.insertvalue %[[XP]], %{{.*}}[0]
// CHECK: llvm.insertvalue %[[XP]], %{{.*}}[1]
// CHECK: %[[C16:.*]] = llvm.mlir.constant(16 : i64)
// CHECK: llvm.insertvalue %[[C16]], %{{.*}}[3, 0]
// CHECK: %[[C8:.*]] = llvm.mlir.constant(8 : i64)
// CHECK: llvm.insertvalue %[[C8]], %{{.*}}[4, 0]
// CHECK: %[[X:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<16x8xf32>
// CHECK: %[[SUM:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<16xf32>
// CHECK: %[[XS:.*]] = memref.subview %[[X]][%[[BEGIN]], 0] [%[[SIZE]], 8] [1, 1]
// CHECK: %[[SUMS:.*]] = memref.subview %[[SUM]][%[[BEGIN]]] [%[[SIZE]]] [1]
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[XS]] : memref<?x8xf32, strided<[8, 1], offset: ?>>)
// CHECK-SAME: outs(%[[SUMS]] : memref<?xf32, strided<[1], offset: ?>>)
// CHECK: return
// CHECK-LABEL: func.func private @softmax_rows_parallel_entry(
// CHECK-SAME: %[[CONTEXT:[^:]*]]: !llvm.ptr, %[[B:[^:]*]]: i64, %[[E:[^:]*]]: i64)
// CHECK-DAG: %[[BI:.*]] = arith.index_cast %[[B]] : i64 to index
// CHECK-DAG: %[[EI:.*]] = arith.index_cast %[[E]] : i64 to index
// CHECK: %[[A0:.*]] = llvm.getelementptr %[[CONTEXT]][0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, ptr)>
// CHECK: %[[P0:.*]] = llvm.load %[[A0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[A1:.*]] = llvm.getelementptr %[[CONTEXT]][0, 1]
// CHECK: %[[P1:.*]] = llvm.load %[[A1]] : !llvm.ptr -> !llvm.ptr
// CHECK: call @softmax_rows_parallel(%[[BI]], %[[EI]], %[[P0]], %[[P1]])
// CHECK-LABEL: func.func @softmax_rows(
// CHECK-SAME: %[[ARG:.*]]: memref<16x8xf32>)
// CHECK: %[[SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr)>
// CHECK: %[[BUF:.*]] = memref.alloc() : memref<16xf32>
// CHECK: %[[ARGD:.*]] = builtin.unrealized_conversion_cast %[[ARG]] : memref<16x8xf32> to !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK: %[[ARGP:.*]] = llvm.extractvalue %[[ARGD]][1]
// CHECK: %[[F0:.*]] = llvm.getelementptr %[[SLOT]][0, 0]
// CHECK: llvm.store %[[ARGP]], %[[F0]] : !llvm.ptr, !llvm.ptr
// CHECK: %[[BUFD:.*]] = builtin.unrealized_conversion_cast %[[BUF]]
// CHECK: %[[BUFP:.*]] = llvm.extractvalue %[[BUFD]][1]
// CHECK: %[[F1:.*]] = llvm.getelementptr %[[SLOT]][0, 1]
// CHECK: llvm.store %[[BUFP]], %[[F1]] : !llvm.ptr, !llvm.ptr
// CHECK: %[[F:.*]] = constant @softmax_rows_parallel_entry : (!llvm.ptr, i64, i64) -> ()
// CHECK: %[[COUNT:.*]] = arith.constant 16 : i64
// CHECK: call @mpt_cpu_parallel_for(%[[F]], %[[SLOT]], %[[COUNT]])
// CHECK-NOT: linalg.generic
// CHECK: return %[[BUF]]
// CHECK: func.func private @mpt_cpu_parallel_for((!llvm.ptr, i64, i64) -> (), !llvm.ptr, i64)
#rows = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @softmax_rows(%x: memref<16x8xf32>) -> memref<16xf32> {
  %sum = memref.alloc() : memref<16xf32>
  linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<16x8xf32>) outs(%sum : memref<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %e = math.exp %in : f32
    %s = arith.addf %acc, %e : f32
    linalg.yield %s : f32
  }
  return %sum : memref<16xf32>
}

// -----

// An operand the first loop does not index (a bias broadcast over rows) is
// passed whole; a scalar the body reads from above goes through the context;
// a constant is cloned into the slice; linalg.index 0 counts from the
// slice's start.

// CHECK-LABEL: func.func private @bias_rows_parallel(
// CHECK-SAME: %[[BEGIN:[^:]*]]: index, %{{[^:]*}}: index, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %[[SCALE:[^:]*]]: f32)
// CHECK: %[[X:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<32x4xf32>
// CHECK: %[[BIAS:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<4xf32>
// CHECK: %[[OUT:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<32x4xf32>
// CHECK: %[[TWO:.*]] = arith.constant 2.0
// CHECK: %[[XS:.*]] = memref.subview %[[X]][%[[BEGIN]], 0]
// CHECK: %[[OUTS:.*]] = memref.subview %[[OUT]][%[[BEGIN]], 0]
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[XS]], %[[BIAS]] : memref<?x4xf32, strided<[4, 1], offset: ?>>, memref<4xf32>)
// CHECK-SAME: outs(%[[OUTS]] :
// CHECK: %[[LOCAL:.*]] = linalg.index 0 : index
// CHECK: %[[ROW:.*]] = arith.addi %[[LOCAL]], %[[BEGIN]] : index
// CHECK: arith.index_cast %[[ROW]]
// CHECK: arith.mulf %{{.*}}, %[[SCALE]]
// CHECK: arith.mulf %{{.*}}, %[[TWO]]
// CHECK-LABEL: func.func private @bias_rows_parallel_entry(
// CHECK: llvm.getelementptr %{{.*}}[0, 3] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, ptr, ptr, f32)>
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-LABEL: func.func @bias_rows(
// CHECK: call @mpt_cpu_parallel_for(
#map2 = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
func.func @bias_rows(%x: memref<32x4xf32>, %b: memref<4xf32>, %out: memref<32x4xf32>, %scale_in: memref<f32>) {
  %scale = memref.load %scale_in[] : memref<f32>
  %two = arith.constant 2.0 : f32
  linalg.generic {indexing_maps = [#map2, #bias, #map2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : memref<32x4xf32>, memref<4xf32>) outs(%out : memref<32x4xf32>) {
  ^bb0(%in: f32, %bias: f32, %o: f32):
    %row = linalg.index 0 : index
    %rowi = arith.index_cast %row : index to i32
    %rowf = arith.sitofp %rowi : i32 to f32
    %a = arith.addf %in, %bias : f32
    %c = arith.addf %a, %rowf : f32
    %d = arith.mulf %c, %scale : f32
    %e = arith.mulf %d, %two : f32
    linalg.yield %e : f32
  }
  return
}

// -----

// In place, an op reads and writes one allocation: passed once, noalias. Two
// views of another allocation are both passed and neither is noalias. A
// dynamically shaped memref travels as its whole descriptor, and an index the
// body reads as i64.

// CHECK-LABEL: func.func private @views_parallel(
// CHECK-SAME: %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: !llvm.ptr {llvm.noalias}, %{{[^:]*}}: !llvm.ptr, %[[DYN:[^:]*]]: memref<?x8xf32>, %{{[^:]*}}: !llvm.ptr, %[[N:[^:]*]]: i64)
// CHECK: arith.index_cast %[[N]] : i64 to index
// CHECK: memref.subview %[[DYN]][%{{.*}}, 0] [%{{.*}}, 8] [1, 1] : memref<?x8xf32> to memref<?x8xf32, strided<[8, 1], offset: ?>>
// CHECK-LABEL: func.func private @views_parallel_entry(
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK: builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<?x8xf32>
// CHECK-LABEL: func.func private @views_parallel_0(
// CHECK-SAME: %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: !llvm.ptr {llvm.noalias})
// CHECK-LABEL: func.func @views(
// CHECK-COUNT-2: call @mpt_cpu_parallel_for(
#same = affine_map<(d0, d1) -> (d0, d1)>
func.func @views(%dyn: memref<?x8xf32>, %n: index) {
  %a = memref.alloc() : memref<64x8xf32>
  %b = memref.alloc() : memref<128x8xf32>
  %top = memref.subview %b[0, 0] [64, 8] [1, 1] : memref<128x8xf32> to memref<64x8xf32, strided<[8, 1]>>
  %bottom = memref.subview %b[64, 0] [64, 8] [1, 1] : memref<128x8xf32> to memref<64x8xf32, strided<[8, 1], offset: 512>>
  linalg.generic {indexing_maps = [#same, #same, #same, #same], iterator_types = ["parallel", "parallel"]}
      ins(%a, %top, %dyn : memref<64x8xf32>, memref<64x8xf32, strided<[8, 1]>>, memref<?x8xf32>)
      outs(%bottom : memref<64x8xf32, strided<[8, 1], offset: 512>>) {
  ^bb0(%x: f32, %y: f32, %z: f32, %o: f32):
    %i = linalg.index 1 : index
    %c = arith.cmpi ult, %i, %n : index
    %s = arith.addf %x, %y : f32
    %t = arith.addf %s, %z : f32
    %r = arith.select %c, %t, %o : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#same, #same], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<64x8xf32>) outs(%a : memref<64x8xf32>) {
  ^bb0(%x: f32, %o: f32):
    %n2 = arith.negf %x : f32
    linalg.yield %n2 : f32
  }
  return
}

// -----

// Integer counts over every element into 0-d results (the loss-scaling
// pass's zero and non-finite counts): the reduction's first loop is split
// too. Each slice counts from 0 into its own accumulator and adds that into
// the shared result atomically; integer sums are exact in any order. The
// shared results are not noalias: every slice writes them.

// CHECK-LABEL: func.func private @counts_parallel(
// CHECK-SAME: %[[BEGIN:[^:]*]]: index, %[[END:[^:]*]]: index,
// CHECK-SAME: %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr, %{{[^:]*}}: !llvm.ptr)
// CHECK: %[[X:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<64x8xf32>
// CHECK: %[[ZEROS:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<i64>
// CHECK: %[[MASK:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<i32>
// CHECK: %[[ROWS:.*]] = memref.subview %[[X]][%[[BEGIN]], 0]
// CHECK: %[[LOCAL:.*]] = memref.alloca() : memref<i64>
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK: memref.store %[[ZERO]], %[[LOCAL]][]
// CHECK: %[[LOCALMASK:.*]] = memref.alloca() : memref<i32>
// CHECK: %[[ONES:.*]] = arith.constant -1 : i32
// CHECK: memref.store %[[ONES]], %[[LOCALMASK]][]
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["reduction", "reduction"]
// CHECK-SAME: ins(%[[ROWS]] : memref<?x8xf32, strided<[8, 1], offset: ?>>) outs(%[[LOCAL]], %[[LOCALMASK]] : memref<i64>, memref<i32>)
// CHECK: linalg.yield
// CHECK-NEXT: }
// CHECK-DAG: %[[PARTIAL:.*]] = memref.load %[[LOCAL]][]
// CHECK-DAG: memref.atomic_rmw addi %[[PARTIAL]], %[[ZEROS]][] : (i64, memref<i64>) -> i64
// CHECK-DAG: %[[PARTIALMASK:.*]] = memref.load %[[LOCALMASK]][]
// CHECK-DAG: memref.atomic_rmw andi %[[PARTIALMASK]], %[[MASK]][] : (i32, memref<i32>) -> i32
// CHECK: return
// CHECK-LABEL: func.func @counts(
// CHECK: call @mpt_cpu_parallel_for
// CHECK-NOT: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
#none = affine_map<(d0, d1) -> ()>
func.func @counts(%x: memref<64x8xf32>) -> (memref<i64>, memref<i32>) {
  %zero = arith.constant 0 : i64
  %ones = arith.constant -1 : i32
  %zeros = memref.alloc() : memref<i64>
  %mask = memref.alloc() : memref<i32>
  memref.store %zero, %zeros[] : memref<i64>
  memref.store %ones, %mask[] : memref<i32>
  linalg.generic {indexing_maps = [#id, #none, #none], iterator_types = ["reduction", "reduction"]}
      ins(%x : memref<64x8xf32>) outs(%zeros, %mask : memref<i64>, memref<i32>) {
  ^bb0(%in: f32, %count: i64, %bits: i32):
    %c0 = arith.constant 0.0 : f32
    %is = arith.cmpf oeq, %in, %c0 : f32
    %one = arith.extui %is : i1 to i64
    %sum = arith.addi %count, %one : i64
    %b = arith.bitcast %in : f32 to i32
    %and = arith.andi %bits, %b : i32
    linalg.yield %sum, %and : i64, i32
  }
  return %zeros, %mask : memref<i64>, memref<i32>
}

// -----

// Left in place: fewer iterations than asked; a reduction first loop (a
// column sum); a first loop that an output does not index (a sum over rows
// into a 0-d result: floats would sum in another order); a first loop that an
// operand reads shifted (d0 + d1, a window); an op on tensors; integer counts
// into a vector, and a count that another result reads.

// CHECK-LABEL: func.func @left_in_place(
// CHECK-NOT: call @mpt_cpu_parallel_for
// CHECK-COUNT-7: linalg.generic
// CHECK-NOT: call @mpt_cpu_parallel_for
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#none = affine_map<(d0, d1) -> ()>
#window = affine_map<(d0, d1) -> (d0 + d1)>
#taps = affine_map<(d0, d1) -> (d1)>
#out1 = affine_map<(d0, d1) -> (d0)>
func.func @left_in_place(%small: memref<4x4xf32>, %x: memref<64x8xf32>, %cols: memref<8xf32>,
                         %total: memref<f32>, %line: memref<80xf32>, %kernel: memref<17xf32>,
                         %pooled: memref<64xf32>, %colCounts: memref<8xi64>,
                         %count: memref<i64>, %largest: memref<i64>,
                         %t: tensor<64x8xf32>) -> tensor<64x8xf32> {
  linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<64x8xf32>) outs(%colCounts : memref<8xi64>) {
  ^bb0(%in: f32, %acc: i64):
    %c0 = arith.constant 0.0 : f32
    %is = arith.cmpf oeq, %in, %c0 : f32
    %one = arith.extui %is : i1 to i64
    %s = arith.addi %acc, %one : i64
    linalg.yield %s : i64
  }
  linalg.generic {indexing_maps = [#id, #none, #none], iterator_types = ["reduction", "reduction"]}
      ins(%x : memref<64x8xf32>) outs(%count, %largest : memref<i64>, memref<i64>) {
  ^bb0(%in: f32, %acc: i64, %top: i64):
    %c0 = arith.constant 0.0 : f32
    %is = arith.cmpf oeq, %in, %c0 : f32
    %one = arith.extui %is : i1 to i64
    %s = arith.addi %acc, %one : i64
    %m = arith.maxsi %top, %s : i64
    linalg.yield %s, %m : i64, i64
  }
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%small : memref<4x4xf32>) {
  ^bb0(%o: f32):
    %n = arith.negf %o : f32
    linalg.yield %n : f32
  }
  linalg.generic {indexing_maps = [#id, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<64x8xf32>) outs(%cols : memref<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#id, #none], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x8xf32>) outs(%total : memref<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %acc, %in : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [#window, #taps, #out1], iterator_types = ["parallel", "reduction"]}
      ins(%line, %kernel : memref<80xf32>, memref<17xf32>) outs(%pooled : memref<64xf32>) {
  ^bb0(%in: f32, %k: f32, %acc: f32):
    %p = arith.mulf %in, %k : f32
    %m = arith.addf %acc, %p : f32
    linalg.yield %m : f32
  }
  %r = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%t : tensor<64x8xf32>) {
  ^bb0(%o: f32):
    %n = arith.negf %o : f32
    linalg.yield %n : f32
  } -> tensor<64x8xf32>
  return %r : tensor<64x8xf32>
}

// -----

// A fill's value is a constant operand: cloned into the slice, not passed
// through the context, so that LLVM sees what is stored (a bf16 constant is
// stored as its bits; a bf16 argument would be rounded per element through
// f32 on CPUs without AVX512-BF16).

// CHECK-LABEL: func.func private @fill_parallel(
// CHECK-SAME: %{{[^:]*}}: index, %{{[^:]*}}: index, %{{[^:]*}}: !llvm.ptr {llvm.noalias})
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : bf16
// CHECK: linalg.fill ins(%[[ZERO]] : bf16)
// CHECK-LABEL: func.func private @fill_parallel_entry(
// CHECK: llvm.getelementptr %{{.*}}[0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr)>
func.func @fill() -> memref<64x8xbf16> {
  %zero = arith.constant 0.0 : bf16
  %buffer = memref.alloc() : memref<64x8xbf16>
  linalg.fill ins(%zero : bf16) outs(%buffer : memref<64x8xbf16>)
  return %buffer : memref<64x8xbf16>
}
