// RUN: mpt-opt %s --split-input-file --mpt-convert-linalg-to-gpu-loops --verify-diagnostics | FileCheck %s

// An elementwise op: one linear index over 37x129 = 4773 points, 19 blocks
// of 256 threads, the last block guarded, the index split back into (i, j).
// CHECK-LABEL: func.func @elementwise
// CHECK-SAME: (%[[X:.*]]: memref<37x129xf32>, %[[Y:.*]]: memref<37x129xf16>)
// CHECK: scf.parallel (%[[B:.*]]) = (%{{.*}}) to (%c19)
// CHECK: scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%c256)
// CHECK: %[[M:.*]] = arith.muli %[[B]], %c256
// CHECK: %[[L:.*]] = arith.addi %[[M]], %[[T]]
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[L]], %c4773
// CHECK: scf.if %[[IN]]
// CHECK: %[[IJ:.*]]:2 = affine.delinearize_index %[[L]] into (37, 129)
// CHECK: %[[V:.*]] = memref.load %[[X]]
// CHECK: %[[R:.*]] = arith.truncf %[[V]] : f32 to f16
// CHECK: memref.store %[[R]], %[[Y]]
// CHECK: {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// CHECK: {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// CHECK-NOT: linalg.generic
func.func @elementwise(%x: memref<37x129xf32>, %y: memref<37x129xf16>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<37x129xf32>) outs(%y : memref<37x129xf16>) {
  ^bb0(%a: f32, %b: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  }
  return
}

// -----

// A row sum over 1000 columns: a block per row; each of 256 threads folds
// columns t, t+256, ... from 0 (four per iteration while four remain, so
// their loads are in flight together, then the rest; the order is the
// same), scf.reduce combines them (gpu.all_reduce on the GPU), and the row's
// old value is added once.
// CHECK-LABEL: func.func @row_sum
// CHECK-SAME: (%[[X:.*]]: memref<300x1000xf32>, %[[Y:.*]]: memref<300xf32>)
// CHECK: scf.parallel (%[[ROW:.*]]) = (%{{.*}}) to (%c300)
// CHECK: %[[OLD:.*]] = memref.load %[[Y]]
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[SUM:.*]] = scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%c256) step (%{{.*}}) init (%[[ZERO]]) -> f32
// CHECK: %[[LEFT:.*]] = arith.subi %c1000, %[[T]] : index
// CHECK: %[[COUNT:.*]] = arith.ceildivsi %{{.*}}, %[[STEP:.*]] : index
// CHECK: %[[FOURS:.*]] = arith.divsi %[[COUNT]], %[[C4:.*]] : index
// CHECK: %[[MAINEND:.*]] = arith.addi %[[T]], %{{.*}} : index
// CHECK: %[[MAIN:.*]] = scf.for %[[K:.*]] = %[[T]] to %[[MAINEND]] step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK: %[[V0:.*]] = memref.load %[[X]]
// CHECK: %[[N0:.*]] = arith.addf %[[V0]], %[[ACC]]
// CHECK: %[[V1:.*]] = memref.load %[[X]]
// CHECK: %[[N1:.*]] = arith.addf %[[V1]], %[[N0]]
// CHECK: %[[V2:.*]] = memref.load %[[X]]
// CHECK: %[[N2:.*]] = arith.addf %[[V2]], %[[N1]]
// CHECK: %[[V3:.*]] = memref.load %[[X]]
// CHECK: %[[N3:.*]] = arith.addf %[[V3]], %[[N2]]
// CHECK: scf.yield %[[N3]]
// CHECK: %[[P:.*]] = scf.for %{{.*}} = %[[MAINEND]] to %c1000 step %[[STEP]] iter_args(%[[ACC2:.*]] = %[[MAIN]])
// CHECK: %[[V:.*]] = memref.load %[[X]]
// CHECK: %[[N:.*]] = arith.addf %[[V]], %[[ACC2]]
// CHECK: scf.yield %[[N]]
// CHECK: scf.reduce(%[[P]] : f32)
// CHECK: arith.addf
// CHECK: thread_x
// CHECK: %[[TOTAL:.*]] = arith.addf %[[SUM]], %[[OLD]] : f32
// CHECK: memref.store %[[TOTAL]], %[[Y]]
// CHECK: block_x
func.func @row_sum(%x: memref<300x1000xf32>, %y: memref<300xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<300x1000xf32>) outs(%y : memref<300xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A full sum of 300000 elements has one output: 146 blocks fold strided
// parts into a temporary 1x146 buffer, then one block reduces those.
// CHECK-LABEL: func.func @full_sum
// CHECK: %[[PARTS:.*]] = memref.alloc() : memref<1x146xf32>
// CHECK: scf.parallel ({{.*}}, {{.*}}) = ({{.*}}) to (%c1{{.*}}, %c146)
// CHECK: block_y
// CHECK: scf.parallel
// CHECK: memref.load %[[PARTS]]
// CHECK: block_x
// CHECK: memref.dealloc %[[PARTS]]
func.func @full_sum(%x: memref<300x1000xf32>, %y: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                  iterator_types = ["reduction", "reduction"]}
      ins(%x : memref<300x1000xf32>) outs(%y : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A 2x2 window (4 elements per output) is folded by one thread per output,
// in order, no block reduction.
// CHECK-LABEL: func.func @window_max
// CHECK-NOT: scf.reduce(
// CHECK: scf.for %{{.*}} = %c0 to %c4 step %c1 iter_args
// CHECK: arith.maximumf
// CHECK-NOT: scf.reduce(
func.func @window_max(%x: memref<8x8xf32>, %w: memref<2x2xf32>, %y: memref<4x4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j, k, l) -> (2 * i + k, 2 * j + l)>,
                                   affine_map<(i, j, k, l) -> (k, l)>,
                                   affine_map<(i, j, k, l) -> (i, j)>],
                  iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x, %w : memref<8x8xf32>, memref<2x2xf32>) outs(%y : memref<4x4xf32>) {
  ^bb0(%a: f32, %unused: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// An argmax-like reduction (two outputs combined by several ops) over more
// elements than one thread should fold has no parallel form.
func.func @argmax(%x: memref<4x1000xf32>, %v: memref<4xf32>, %i: memref<4xi32>) {
  // expected-error @+1 {{has a reduction that is not a single combiner op with a neutral element; cannot map it to a parallel GPU reduction}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>,
                                   affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x1000xf32>) outs(%v, %i : memref<4xf32>, memref<4xi32>) {
  ^bb0(%a: f32, %best: f32, %idx: i32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %gt = arith.cmpf ogt, %a, %best : f32
    %nb = arith.select %gt, %a, %best : f32
    %ni = arith.select %gt, %ji, %idx : i32
    linalg.yield %nb, %ni : f32, i32
  }
  return
}

// -----

// An i64 sum of arbitrary values cannot cross threads exactly in 32 bits.
func.func @i64_sum(%x: memref<4x1000xi64>, %y: memref<4xi64>) {
  // expected-error @+1 {{reduces 'i64' with arith.addi, which the GPU block reduction cannot exchange exactly (warp shuffles carry 32-bit values)}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x1000xi64>) outs(%y : memref<4xi64>) {
  ^bb0(%a: i64, %acc: i64):
    %s = arith.addi %a, %acc : i64
    linalg.yield %s : i64
  }
  return
}

// -----

func.func @dynamic(%x: memref<?xf32>, %y: memref<?xf32>) {
  // expected-error @+1 {{has dynamic loop bounds; the GPU lowering needs static shapes}}
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                  iterator_types = ["parallel"]}
      ins(%x : memref<?xf32>) outs(%y : memref<?xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  }
  return
}

// -----

func.func @tensors(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{must be on memrefs (bufferize before mpt-convert-linalg-to-gpu-loops)}}
  %r = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<4xf32>) outs(%x : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32):
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// Sums written one dimension at a time (as mpt-convert-to-linalg writes
// statistics: 64x8x28 -> 8x28 -> 8, each level into zeros copied from one
// shared zero buffer) become one reduction over both dimensions again: a
// block per output, its 256 threads folding all 64·28 = 1792 terms (n, w),
// with no partial buffer, its copy, or the zero buffer left.
// CHECK-LABEL: func.func @sum_levels
// CHECK-NOT: memref<8x28xf32>
// CHECK: scf.parallel (%[[C:.*]]) = (%{{.*}}) to (%c8)
// CHECK: scf.parallel (%[[T:.*]]) = {{.*}} to (%c256) {{.*}} init
// CHECK: scf.for %[[K:.*]] = %[[T]] to %{{.*}} step
// CHECK: %[[NW:.*]]:2 = affine.delinearize_index %[[K]] into (64, 28)
// CHECK: memref.load %arg0[%{{.*}}, %{{.*}}, %{{.*}}] : memref<64x8x28xf32>
// CHECK-NOT: memref<8x28xf32>
// CHECK: return
func.func @sum_levels(%x: memref<64x8x28xf32>, %sums: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %zeros = memref.alloc() : memref<8x28xf32>
  linalg.fill ins(%zero : f32) outs(%zeros : memref<8x28xf32>)
  %partial = memref.alloc() : memref<8x28xf32>
  memref.copy %zeros, %partial : memref<8x28xf32> to memref<8x28xf32>
  linalg.generic {indexing_maps = [affine_map<(n, c, w) -> (n, c, w)>, affine_map<(n, c, w) -> (c, w)>],
                  iterator_types = ["reduction", "parallel", "parallel"]}
      ins(%x : memref<64x8x28xf32>) outs(%partial : memref<8x28xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %sum = arith.addf %acc, %in : f32
    linalg.yield %sum : f32
  }
  linalg.fill ins(%zero : f32) outs(%sums : memref<8xf32>)
  linalg.generic {indexing_maps = [affine_map<(c, w) -> (c, w)>, affine_map<(c, w) -> (c)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%partial : memref<8x28xf32>) outs(%sums : memref<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %sum = arith.addf %acc, %in : f32
    linalg.yield %sum : f32
  }
  memref.dealloc %partial : memref<8x28xf32>
  memref.dealloc %zeros : memref<8x28xf32>
  return
}

// -----

// A maximum over the partial sums is no sum of sums: the levels stay apart.
// CHECK-LABEL: func.func @max_of_sums
// CHECK: memref<8x28xf32>
// CHECK: arith.maximumf
func.func @max_of_sums(%x: memref<64x8x28xf32>, %maxima: memref<8xf32>) {
  %zero = arith.constant 0.0 : f32
  %partial = memref.alloc() : memref<8x28xf32>
  linalg.fill ins(%zero : f32) outs(%partial : memref<8x28xf32>)
  linalg.generic {indexing_maps = [affine_map<(n, c, w) -> (n, c, w)>, affine_map<(n, c, w) -> (c, w)>],
                  iterator_types = ["reduction", "parallel", "parallel"]}
      ins(%x : memref<64x8x28xf32>) outs(%partial : memref<8x28xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %sum = arith.addf %acc, %in : f32
    linalg.yield %sum : f32
  }
  linalg.fill ins(%zero : f32) outs(%maxima : memref<8xf32>)
  linalg.generic {indexing_maps = [affine_map<(c, w) -> (c, w)>, affine_map<(c, w) -> (c)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%partial : memref<8x28xf32>) outs(%maxima : memref<8xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %max = arith.maximumf %acc, %in : f32
    linalg.yield %max : f32
  }
  memref.dealloc %partial : memref<8x28xf32>
  return
}

// -----

// A column sum (a bias gradient): one thread per column, so that a warp
// reads 32 consecutive floats of a row, 256 threads in 2 blocks for 300
// columns (the last guarded). 1000 rows over 2 blocks is too few blocks:
// block_y splits the rows into 31 parts of 33 (the last 10), each folded
// from zero into a 31x300 buffer (part-major, so that its writes and the
// second kernel's reads are consecutive too); the second kernel folds the
// old value and the 31 parts in order.
// CHECK-LABEL: func.func @column_sum
// CHECK-SAME: (%[[X:.*]]: memref<1000x300xf32>, %[[Y:.*]]: memref<300xf32>)
// CHECK: %[[PARTS:.*]] = memref.alloc() : memref<31x300xf32>
// CHECK: scf.parallel (%[[B:.*]], %[[PART:.*]]) = (%{{.*}}, %{{.*}}) to (%c2, %c31)
// CHECK: scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%c256)
// CHECK: %[[M:.*]] = arith.muli %[[B]], %c256
// CHECK: %[[COL:.*]] = arith.addi %[[M]], %[[T]]
// CHECK: arith.cmpi slt, %[[COL]], %c300
// CHECK: %[[BEGIN:.*]] = arith.muli %[[PART]], %c33
// CHECK: %[[NEXT:.*]] = arith.addi %[[BEGIN]], %c33
// CHECK: %[[END:.*]] = arith.minsi %[[NEXT]], %c1000
// CHECK: scf.for %[[R:.*]] = %[[BEGIN]] to
// CHECK: %[[RI:.*]] = affine.apply #{{.*}}(%[[R]])
// CHECK: %[[CI:.*]] = affine.apply #{{.*}}(%[[COL]])
// CHECK: memref.load %[[X]][%[[RI]], %[[CI]]]
// CHECK: %[[P:.*]] = scf.for %{{.*}} to %[[END]]
// CHECK: memref.store %[[P]], %[[PARTS]][%[[PART]], %[[COL]]]
// CHECK: thread_x
// CHECK: block_x{{.*}}block_y
// CHECK: scf.parallel (%[[B2:.*]], %{{.*}}) = (%{{.*}}, %{{.*}}) to (%c2{{.*}}, %c1{{.*}})
// CHECK: scf.parallel (%[[T2:.*]]) = (%{{.*}}) to (%c256)
// CHECK: %[[COL2:.*]] = arith.addi
// CHECK: %[[YI:.*]] = affine.apply #{{.*}}(%[[COL2]])
// CHECK: %[[OLD:.*]] = memref.load %[[Y]][%[[YI]]]
// CHECK: %[[SUM:.*]] = scf.for %[[K:.*]] = %c0 to %c31{{.*}} iter_args(%[[ACC:.*]] = %[[OLD]])
// CHECK: %[[V:.*]] = memref.load %[[PARTS]][%[[K]], %[[COL2]]]
// CHECK: arith.addf %[[V]], %[[ACC]]
// CHECK: memref.store %[[SUM]], %[[Y]]
// CHECK: memref.dealloc %[[PARTS]]
// CHECK-NOT: scf.reduce(
func.func @column_sum(%x: memref<1000x300xf32>, %y: memref<300xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<1000x300xf32>) outs(%y : memref<300xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A norm's two weight gradients, with a per-row input (read once per row by
// the whole warp): both columns' sums in one thread, one kernel for both.
// 48 rows are too few to split (parts of at least 32): each thread folds
// its rows in order from the old value, as the CPU does.
// CHECK-LABEL: func.func @two_column_sums
// CHECK-NOT: memref.alloc
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = (%{{.*}}, %{{.*}}) to (%c1{{.*}}, %c1{{.*}})
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%c64)
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, f32)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.addf
// CHECK: memref.store
// CHECK: memref.store
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @two_column_sums(%x: memref<48x64xf32>, %dy: memref<48x64xf32>, %rstd: memref<48xf32>,
                           %dgamma: memref<64xf32>, %dbeta: memref<64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>,
                                   affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (j)>,
                                   affine_map<(i, j) -> (j)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x, %dy, %rstd : memref<48x64xf32>, memref<48x64xf32>, memref<48xf32>)
      outs(%dgamma, %dbeta : memref<64xf32>, memref<64xf32>) {
  ^bb0(%a: f32, %g: f32, %r: f32, %accg: f32, %accb: f32):
    %n = arith.mulf %a, %r : f32
    %ng = arith.mulf %n, %g : f32
    %sg = arith.addf %ng, %accg : f32
    %sb = arith.addf %g, %accb : f32
    linalg.yield %sg, %sb : f32, f32
  }
  return
}

// -----

// Not column sums: summed across a transposed read (consecutive columns are
// a row apart in memory), and over 10 columns (fewer than a warp). Both keep
// a block per output and its tree.
// CHECK-LABEL: func.func @not_column_sums
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%c300)
// CHECK: scf.reduce(
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%c10)
// CHECK: scf.reduce(
func.func @not_column_sums(%xt: memref<300x1000xf32>, %y: memref<300xf32>,
                           %x: memref<1000x10xf32>, %z: memref<10xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (j)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%xt : memref<300x1000xf32>) outs(%y : memref<300xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<1000x10xf32>) outs(%z : memref<10xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// An optimizer update written into the state it replaces, which keeps the old
// values when the step is skipped (select on a scalar flag, the old value read
// from the output's own buffer): the flag is read in the kernel and the
// update runs under a branch on it, without the selects, so a skipped step
// reads and writes no element.
// CHECK-LABEL: func.func @kept_update
// CHECK-SAME: (%[[FLAG:.*]]: memref<i1>, %[[W:.*]]: memref<1000xf32>, %[[G:.*]]: memref<1000xf32>, %[[M:.*]]: memref<1000xf32>)
// CHECK: scf.if %{{.*}} {
// CHECK: %[[OK:.*]] = memref.load %[[FLAG]][]
// CHECK-NEXT: scf.if %[[OK]] {
// CHECK-DAG: memref.load %[[W]]
// CHECK-DAG: memref.load %[[G]]
// CHECK-DAG: memref.load %[[M]]
// CHECK-NOT: arith.select
// CHECK: memref.store %{{.*}}, %[[W]]
// CHECK: memref.store %{{.*}}, %[[M]]
// CHECK-NEXT: }
// CHECK-NEXT: }
func.func @kept_update(%flag: memref<i1>, %w: memref<1000xf32>, %g: memref<1000xf32>,
                       %m: memref<1000xf32>) {
  %ok = memref.load %flag[] : memref<i1>
  %lr = arith.constant 0.1 : f32
  linalg.generic {indexing_maps = [affine_map<(i) -> ()>, affine_map<(i) -> (i)>,
                                   affine_map<(i) -> (i)>, affine_map<(i) -> (i)>,
                                   affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                  iterator_types = ["parallel"]}
      ins(%ok, %w, %g, %m : i1, memref<1000xf32>, memref<1000xf32>, memref<1000xf32>)
      outs(%w, %m : memref<1000xf32>, memref<1000xf32>) {
  ^bb0(%finite: i1, %old_w: f32, %grad: f32, %old_m: f32, %out_w: f32, %out_m: f32):
    %new_m = arith.addf %old_m, %grad : f32
    %step = arith.mulf %new_m, %lr : f32
    %new_w = arith.subf %old_w, %step : f32
    %kept_w = arith.select %finite, %new_w, %old_w : f32
    %kept_m = arith.select %finite, %new_m, %old_m : f32
    linalg.yield %kept_w, %kept_m : f32, f32
  }
  return
}

// -----

// The same with the flag saying the step is skipped: the update runs where
// the flag is false.
// CHECK-LABEL: func.func @kept_when_false
// CHECK: %[[SKIPPED:.*]] = memref.load
// CHECK: %[[RUNS:.*]] = arith.xori %[[SKIPPED]], %true
// CHECK-NEXT: scf.if %[[RUNS]] {
// CHECK-NOT: arith.select
// CHECK: memref.store
func.func @kept_when_false(%flag: memref<i1>, %w: memref<1000xf32>, %g: memref<1000xf32>) {
  %skipped = memref.load %flag[] : memref<i1>
  linalg.generic {indexing_maps = [affine_map<(i) -> ()>, affine_map<(i) -> (i)>,
                                   affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                  iterator_types = ["parallel"]}
      ins(%skipped, %w, %g : i1, memref<1000xf32>, memref<1000xf32>)
      outs(%w : memref<1000xf32>) {
  ^bb0(%skip: i1, %old: f32, %grad: f32, %out: f32):
    %new = arith.subf %old, %grad : f32
    %kept = arith.select %skip, %old, %new : f32
    linalg.yield %kept : f32
  }
  return
}

// -----

// A select whose old value comes from another buffer than the one written
// (the update is not in place) writes every element: no branch.
// CHECK-LABEL: func.func @not_in_place
// CHECK: scf.if %{{.*}} {
// CHECK-NOT: scf.if
// CHECK: arith.select
// CHECK: memref.store
func.func @not_in_place(%flag: memref<i1>, %w: memref<1000xf32>, %g: memref<1000xf32>,
                        %out: memref<1000xf32>) {
  %ok = memref.load %flag[] : memref<i1>
  linalg.generic {indexing_maps = [affine_map<(i) -> ()>, affine_map<(i) -> (i)>,
                                   affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                  iterator_types = ["parallel"]}
      ins(%ok, %w, %g : i1, memref<1000xf32>, memref<1000xf32>)
      outs(%out : memref<1000xf32>) {
  ^bb0(%finite: i1, %old: f32, %grad: f32, %o: f32):
    %new = arith.subf %old, %grad : f32
    %kept = arith.select %finite, %new, %old : f32
    linalg.yield %kept : f32
  }
  return
}

// -----

// An scf.forall on memrefs (embedding_grad's columns) is one thread per
// iteration: 300 columns, 2 blocks of 256 threads, the last guarded, each
// running the body (here the column's sequential loop over rows) unchanged.
// CHECK-LABEL: func.func @forall_columns
// CHECK-SAME: (%[[IDS:.*]]: memref<6xi32>, %[[DY:.*]]: memref<6x300xf32>, %[[OUT:.*]]: memref<10x300xf32>)
// CHECK: scf.parallel (%[[B:.*]]) = (%{{.*}}) to (%c2)
// CHECK: scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%c256)
// CHECK: %[[M:.*]] = arith.muli %[[B]], %c256
// CHECK: %[[D:.*]] = arith.addi %[[M]], %[[T]]
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[D]], %c300
// CHECK: scf.if %[[IN]]
// CHECK: scf.for %[[N:.*]] =
// CHECK: %[[ID:.*]] = memref.load %[[IDS]][%[[N]]]
// CHECK: %[[ROW:.*]] = arith.index_cast %[[ID]]
// CHECK: memref.load %[[DY]][%[[N]], %[[D]]]
// CHECK: memref.load %[[OUT]][%[[ROW]], %[[D]]]
// CHECK: memref.store %{{.*}}, %[[OUT]][%[[ROW]], %[[D]]]
// CHECK: {mapping = [#gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// CHECK: {mapping = [#gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// CHECK-NOT: scf.forall
func.func @forall_columns(%ids: memref<6xi32>, %dy: memref<6x300xf32>, %out: memref<10x300xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  scf.forall (%d) in (300) {
    scf.for %n = %c0 to %c6 step %c1 {
      %id = memref.load %ids[%n] : memref<6xi32>
      %row = arith.index_cast %id : i32 to index
      %g = memref.load %dy[%n, %d] : memref<6x300xf32>
      %old = memref.load %out[%row, %d] : memref<10x300xf32>
      %new = arith.addf %old, %g : f32
      memref.store %new, %out[%row, %d] : memref<10x300xf32>
    }
  }
  return
}

// -----

func.func @forall_dynamic(%n: index, %out: memref<?xf32>) {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{'scf.forall' op needs static bounds from 0 in steps of 1 for the GPU lowering}}
  scf.forall (%i) in (%n) {
    memref.store %zero, %out[%i] : memref<?xf32>
  }
  return
}

// -----

// A bias gradient as the tensor lowering writes it: a zero fill, the column
// sum into it, and the unscale reading the sum. The sum's kernels absorb
// both: the second kernel starts from the fill's scalar instead of reading
// the buffer (no fill kernel), and stores the unscaled sum, multiplied
// where the sum was stored. Nothing else reads the sum: its buffer is gone.
// CHECK-LABEL: func.func @bias_gradient
// CHECK-SAME: (%[[DY:.*]]: memref<1000x300xf16>, %[[INV:.*]]: memref<f32>, %[[G:.*]]: memref<300xf32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT: memref.alloc() : memref<300xf32>
// CHECK: %[[PARTS:.*]] = memref.alloc() : memref<31x300xf32>
// CHECK: memref.store %{{.*}}, %[[PARTS]]
// CHECK: scf.parallel (%[[B:.*]], %{{.*}}) = (%{{.*}}, %{{.*}}) to (%c2{{.*}}, %c1{{.*}})
// CHECK: %[[COL:.*]] = arith.addi
// CHECK: %[[SUM:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %[[ZERO]])
// CHECK: scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: affine.apply
// CHECK-NEXT: %[[K:.*]] = memref.load %[[INV]][]
// CHECK-NEXT: %[[U:.*]] = arith.mulf %[[SUM]], %[[K]] : f32
// CHECK-NEXT: %[[GI:.*]] = affine.apply #{{.*}}(%[[COL]])
// CHECK-NEXT: memref.store %[[U]], %[[G]][%[[GI]]]
// CHECK-NEXT: }
// CHECK: memref.dealloc %[[PARTS]]
// CHECK-NEXT: return
func.func @bias_gradient(%dy: memref<1000x300xf16>, %inv: memref<f32>, %g: memref<300xf32>) {
  %zero = arith.constant 0.0 : f32
  %sum = memref.alloc() : memref<300xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<300xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%dy : memref<1000x300xf16>) outs(%sum : memref<300xf32>) {
  ^bb0(%a: f16, %acc: f32):
    %w = arith.extf %a : f16 to f32
    %s = arith.addf %w, %acc : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(j) -> (j)>, affine_map<(j) -> ()>, affine_map<(j) -> (j)>],
                  iterator_types = ["parallel"]}
      ins(%sum, %inv : memref<300xf32>, memref<f32>) outs(%g : memref<300xf32>) {
  ^bb0(%s: f32, %k: f32, %out: f32):
    %u = arith.mulf %s, %k : f32
    linalg.yield %u : f32
  }
  memref.dealloc %sum : memref<300xf32>
  return
}

// -----

// A loss: a full sum from a fill, copied into the step's output by the
// next op, and read again after it: the block reduction adds the fill's
// scalar, then stores the total both into the sum, which the third op
// reads, and into the output.
// CHECK-LABEL: func.func @sum_read_again
// CHECK-SAME: (%[[X:.*]]: memref<1000xf32>, %[[LOSS:.*]]: memref<f32>, %[[TWICE:.*]]: memref<f32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[SUM:.*]] = memref.alloc() : memref<f32>
// CHECK-NOT: memref.store
// CHECK: %[[BLOCK:.*]] = scf.parallel {{.*}} init
// CHECK: scf.reduce(
// CHECK: %[[TOTAL:.*]] = arith.addf %[[BLOCK]], %[[ZERO]] : f32
// CHECK-NEXT: memref.store %[[TOTAL]], %[[SUM]][]
// CHECK-NEXT: memref.store %[[TOTAL]], %[[LOSS]][]
// CHECK: %[[S:.*]] = memref.load %[[SUM]][]
// CHECK-NEXT: %[[T:.*]] = arith.addf %[[S]], %[[S]]
// CHECK-NEXT: memref.store %[[T]], %[[TWICE]][]
func.func @sum_read_again(%x: memref<1000xf32>, %loss: memref<f32>, %twice: memref<f32>) {
  %zero = arith.constant 0.0 : f32
  %sum = memref.alloc() : memref<f32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<f32>)
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%x : memref<1000xf32>) outs(%sum : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>],
                  iterator_types = []}
      ins(%sum : memref<f32>) outs(%loss : memref<f32>) {
  ^bb0(%s: f32, %out: f32):
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>],
                  iterator_types = []}
      ins(%sum : memref<f32>) outs(%twice : memref<f32>) {
  ^bb0(%s: f32, %out: f32):
    %t = arith.addf %s, %s : f32
    linalg.yield %t : f32
  }
  memref.dealloc %sum : memref<f32>
  return
}

// -----

// Fills that stay kernels: one whose buffer an op between reads, and one
// under a select that keeps the old value (its kernel reads the buffer and
// writes only some elements). A fill that the next op overwrites without
// reading it is dead: no kernel stores its scalar.
// CHECK-LABEL: func.func @fills_kept
// CHECK-SAME: (%[[FLAG:.*]]: memref<i1>, %[[X:.*]]: memref<1000xf32>, %[[Y:.*]]: memref<1000xf32>, %[[Z:.*]]: memref<1000xf32>, %[[MAX:.*]]: memref<f32>, %[[S:.*]]: memref<f32>)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: memref.store %[[ZERO]], %[[S]][]
// CHECK: memref.load %[[S]][]
// CHECK: memref.store %{{.*}}, %[[MAX]][]
// CHECK: memref.load %[[S]][]
// CHECK: memref.store %{{.*}}, %[[S]][]
// CHECK: memref.store %[[ONE]], %[[Y]]
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[Y]]
// CHECK-NOT: memref.store %[[ZERO]]
// CHECK: memref.store %{{.*}}, %[[Z]]
// CHECK-NOT: memref.store %[[ZERO]]
func.func @fills_kept(%flag: memref<i1>, %x: memref<1000xf32>, %y: memref<1000xf32>,
                      %z: memref<1000xf32>, %max: memref<f32>, %s: memref<f32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%zero : f32) outs(%s : memref<f32>)
  linalg.generic {indexing_maps = [affine_map<() -> ()>, affine_map<() -> ()>],
                  iterator_types = []}
      ins(%s : memref<f32>) outs(%max : memref<f32>) {
  ^bb0(%a: f32, %out: f32):
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%x : memref<1000xf32>) outs(%s : memref<f32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.addf %a, %acc : f32
    linalg.yield %m : f32
  }
  %skip = memref.load %flag[] : memref<i1>
  linalg.fill ins(%one : f32) outs(%y : memref<1000xf32>)
  linalg.generic {indexing_maps = [affine_map<(i) -> ()>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                  iterator_types = ["parallel"]}
      ins(%skip, %x : i1, memref<1000xf32>) outs(%y : memref<1000xf32>) {
  ^bb0(%k: i1, %a: f32, %out: f32):
    %v = arith.select %k, %out, %a : f32
    linalg.yield %v : f32
  }
  linalg.fill ins(%zero : f32) outs(%z : memref<1000xf32>)
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                  iterator_types = ["parallel"]}
      ins(%x : memref<1000xf32>) outs(%z : memref<1000xf32>) {
  ^bb0(%a: f32, %out: f32):
    %d = arith.addf %a, %a : f32
    linalg.yield %d : f32
  }
  return
}

// -----

// A relu layer's backward in f16: the masked gradient (the product rounded,
// zero where the pre-activation is not positive), which the GEMMs also read
// later, then the bias gradient, its column sum. The sum's first kernel
// computes the masked gradient where it reads it, and stores it: the masked
// gradient's kernel is gone. 48 rows are not split: one kernel does it all.
// CHECK-LABEL: func.func @masked_gradient_and_bias_gradient
// CHECK-SAME: (%[[P:.*]]: memref<48x64xf32>, %[[Z:.*]]: memref<48x64xf16>, %[[DZ:.*]]: memref<48x64xf16>, %[[DB:.*]]: memref<64xf32>)
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[ZERO16:.*]] = arith.constant 0.000000e+00 : f16
// CHECK: scf.parallel
// CHECK: scf.parallel
// CHECK: scf.for %[[R:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]])
// CHECK: %[[PV:.*]] = memref.load %[[P]]
// CHECK: %[[ZV:.*]] = memref.load %[[Z]]
// CHECK: %[[R16:.*]] = arith.truncf %[[PV]] : f32 to f16
// CHECK: %[[POS:.*]] = arith.cmpf ugt, %[[ZV]], %[[ZERO16]]
// CHECK: %[[M:.*]] = arith.select %[[POS]], %[[R16]], %[[ZERO16]]
// CHECK: memref.store %[[M]], %[[DZ]]
// CHECK: %[[W:.*]] = arith.extf %[[M]] : f16 to f32
// CHECK: arith.addf %[[W]], %[[ACC]]
// CHECK: memref.store %{{.*}}, %[[DB]]
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @masked_gradient_and_bias_gradient(%p: memref<48x64xf32>, %z: memref<48x64xf16>,
                                             %dz: memref<48x64xf16>, %db: memref<64xf32>) {
  %zero = arith.constant 0.0 : f32
  %zero16 = arith.constant 0.0 : f16
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%p, %z : memref<48x64xf32>, memref<48x64xf16>) outs(%dz : memref<48x64xf16>) {
  ^bb0(%a: f32, %b: f16, %out: f16):
    %r = arith.truncf %a : f32 to f16
    %pos = arith.cmpf ugt, %b, %zero16 : f16
    %m = arith.select %pos, %r, %zero16 : f16
    linalg.yield %m : f16
  }
  linalg.fill ins(%zero : f32) outs(%db : memref<64xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%dz : memref<48x64xf16>) outs(%db : memref<64xf32>) {
  ^bb0(%a: f16, %acc: f32):
    %w = arith.extf %a : f16 to f32
    %s = arith.addf %w, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Not a prologue: the elementwise op also writes what the column sum
// accumulates into (its own kernel, then the sum's).
// CHECK-LABEL: func.func @producer_writes_the_sum
// CHECK-SAME: (%[[X:.*]]: memref<48x64xf32>, %[[Y:.*]]: memref<48x64xf32>, %[[S:.*]]: memref<64xf32>)
// CHECK: arith.negf
// CHECK-NEXT: affine.apply
// CHECK-NEXT: affine.apply
// CHECK-NEXT: memref.store %{{.*}}, %[[Y]]
// CHECK-NEXT: affine.apply
// CHECK-NEXT: memref.store %{{.*}}, %[[S]]
// CHECK-NEXT: }
// CHECK: scf.parallel
// CHECK: scf.parallel
// CHECK-NOT: arith.negf
// CHECK: memref.load %[[Y]]
// CHECK-NOT: arith.negf
// CHECK: arith.addf
// CHECK-NOT: arith.negf
// CHECK: return
func.func @producer_writes_the_sum(%x: memref<48x64xf32>, %y: memref<48x64xf32>, %s: memref<64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<48x64xf32>) outs(%y, %s : memref<48x64xf32>, memref<64xf32>) {
  ^bb0(%a: f32, %out: f32, %out2: f32):
    %n = arith.negf %a : f32
    linalg.yield %n, %n : f32, f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>],
                  iterator_types = ["reduction", "parallel"]}
      ins(%y : memref<48x64xf32>) outs(%s : memref<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %a, %acc : f32
    linalg.yield %t : f32
  }
  return
}
