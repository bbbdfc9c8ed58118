// RUN: mpt-opt %s --mpt-fuse-elementwise="recompute-cheap-producers" --split-input-file | FileCheck %s --check-prefixes=CHECK,SHARED
// RUN: mpt-opt %s --mpt-fuse-elementwise --split-input-file | FileCheck %s --check-prefixes=ONE-USE,SHARED
// RUN: mpt-opt %s --linalg-fuse-elementwise-ops --split-input-file | FileCheck %s --check-prefix=UPSTREAM
// RUN: mpt-opt %s --mpt-fuse-elementwise="fuse-data-movement" --split-input-file | FileCheck %s --check-prefix=TRANSPOSES
// RUN: mpt-opt %s --mpt-fuse-elementwise="recompute-conversions" --split-input-file | FileCheck %s --check-prefix=CONVERSIONS
// RUN: mpt-opt %s --mpt-fuse-elementwise="recompute-conversions fuse-data-movement" --split-input-file | FileCheck %s --check-prefix=GPU
// RUN: mpt-opt %s --mpt-fuse-elementwise="recompute-cheap-producers keep-product-rounding" --split-input-file | FileCheck %s --check-prefix=KEPT

#id = affine_map<(d0, d1) -> (d0, d1)>

// Two elementwise generics still fuse into one.

// CHECK-LABEL: func.func @elementwise_chain
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>, %[[Y:.*]]: tensor<4x8xf32>)
// CHECK: %[[FUSED:.*]] = linalg.generic
// CHECK-SAME: ins(%[[X]], %[[Y]] : tensor<4x8xf32>, tensor<4x8xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK-NOT: linalg.generic
// CHECK: return %[[FUSED]]
func.func @elementwise_chain(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %empty = tensor.empty() : tensor<4x8xf32>
  %square = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%empty : tensor<4x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %m = arith.mulf %a, %a : f32
    linalg.yield %m : f32
  } -> tensor<4x8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%square, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%empty : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %sum : tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// The cast producing a matmul operand and the reshape of its result stay
// outside: the matmul remains a named op for the BLAS kernel. Upstream
// generalizes it and fuses the cast in.

// CHECK-LABEL: func.func @matmul_between_cast_and_reshape
// CHECK: %[[WIDE:.*]] = linalg.generic
// CHECK: arith.extf
// CHECK: %[[PRODUCT:.*]] = linalg.matmul ins(%[[WIDE]], %{{.*}} : tensor<4x8xf32>, tensor<8x6xf32>)
// CHECK: tensor.expand_shape %[[PRODUCT]]
// UPSTREAM-LABEL: func.func @matmul_between_cast_and_reshape
// UPSTREAM-NOT: linalg.matmul
// UPSTREAM: linalg.generic
// UPSTREAM-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction"]
func.func @matmul_between_cast_and_reshape(%x: tensor<4x8xf16>, %w: tensor<8x6xf32>) -> tensor<2x2x6xf32> {
  %empty = tensor.empty() : tensor<4x8xf32>
  %wide = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf16>) outs(%empty : tensor<4x8xf32>) {
  ^bb0(%a: f16, %out: f32):
    %e = arith.extf %a : f16 to f32
    linalg.yield %e : f32
  } -> tensor<4x8xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4x6xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<4x6xf32>) -> tensor<4x6xf32>
  %product = linalg.matmul ins(%wide, %w : tensor<4x8xf32>, tensor<8x6xf32>) outs(%acc : tensor<4x6xf32>) -> tensor<4x6xf32>
  %split = tensor.expand_shape %product [[0, 1], [2]] output_shape [2, 2, 6] : tensor<4x6xf32> into tensor<2x2x6xf32>
  return %split : tensor<2x2x6xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>

// An SGD update (parameter and momentum) whose results are kept on a skipped
// step by two selects on a flag computed after it: one generic reads the old
// values and the flag and writes the update or the old values. Upstream
// leaves the update and both selects apart (the update has two users).

// CHECK-LABEL: func.func @sgd_skipped_step
// CHECK-SAME: (%[[P:.*]]: tensor<4x8xf32>, %[[G:.*]]: tensor<4x8xf32>, %[[M:.*]]: tensor<4x8xf32>, %[[FLAG:.*]]: tensor<i1>)
// CHECK: %[[FINITE:.*]] = tensor.extract %[[FLAG]][]
// CHECK: %[[UPDATE:.*]]:2 = linalg.generic
// CHECK-SAME: ins(%[[P]], %[[G]], %[[M]], %[[FINITE]] : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, i1)
// CHECK: ^bb0(%[[PV:.*]]: f32, %[[GV:.*]]: f32, %[[MV:.*]]: f32, %[[KEEP:.*]]: i1,
// CHECK: %[[MOMENTUM:.*]] = arith.addf
// CHECK: %[[STEP:.*]] = arith.mulf %[[MOMENTUM]]
// CHECK: %[[PARAM:.*]] = arith.subf %[[PV]], %[[STEP]]
// CHECK: %[[NEWP:.*]] = arith.select %[[KEEP]], %[[PARAM]], %[[PV]] : f32
// CHECK: %[[NEWM:.*]] = arith.select %[[KEEP]], %[[MOMENTUM]], %[[MV]] : f32
// CHECK: linalg.yield %[[NEWP]], %[[NEWM]]
// CHECK-NOT: linalg.generic
// CHECK: return %[[UPDATE]]#0, %[[UPDATE]]#1
// UPSTREAM-LABEL: func.func @sgd_skipped_step
// UPSTREAM-COUNT-3: linalg.generic
func.func @sgd_skipped_step(%p: tensor<4x8xf32>, %g: tensor<4x8xf32>, %m: tensor<4x8xf32>, %flag: tensor<i1>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %momentum = arith.constant 0.9 : f32
  %lr = arith.constant 0.02 : f32
  %empty = tensor.empty() : tensor<4x8xf32>
  %update:2 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %g, %m : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) outs(%empty, %empty : tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%pv: f32, %gv: f32, %mv: f32, %out0: f32, %out1: f32):
    %kept = arith.mulf %mv, %momentum : f32
    %next = arith.addf %kept, %gv : f32
    %step = arith.mulf %next, %lr : f32
    %param = arith.subf %pv, %step : f32
    linalg.yield %param, %next : f32, f32
  } -> (tensor<4x8xf32>, tensor<4x8xf32>)
  %finite = tensor.extract %flag[] : tensor<i1>
  %keptP = linalg.generic {indexing_maps = [#scalar, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%finite, %update#0, %p : i1, tensor<4x8xf32>, tensor<4x8xf32>) outs(%empty : tensor<4x8xf32>) {
  ^bb0(%c: i1, %new: f32, %old: f32, %out: f32):
    %s = arith.select %c, %new, %old : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %keptM = linalg.generic {indexing_maps = [#scalar, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%finite, %update#1, %m : i1, tensor<4x8xf32>, tensor<4x8xf32>) outs(%empty : tensor<4x8xf32>) {
  ^bb0(%c: i1, %new: f32, %old: f32, %out: f32):
    %s = arith.select %c, %new, %old : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %keptP, %keptM : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>

// With persistent working copies, the new master is also rounded to its f16
// working copy, which the flag keeps too. The rounding (here with its select,
// as elementwise fusion leaves it) folds into the update: one generic writes
// the master and the working copy, rounding the master's new value before the
// flag chooses, and keeps both old values on a skipped step (the form
// without recomputed producers, mpt-lower-to-cuda's).

// ONE-USE-LABEL: func.func @sgd_working_copy
// ONE-USE-SAME: (%[[P:.*]]: tensor<4x8xf32>, %[[G:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<4x8xf16>, %[[FLAG:.*]]: tensor<i1>)
// ONE-USE: %[[FINITE:.*]] = tensor.extract %[[FLAG]][]
// ONE-USE: %[[UPDATE:.*]]:2 = linalg.generic
// ONE-USE-SAME: ins(%[[P]], %[[G]], %[[FINITE]], %[[W]] : tensor<4x8xf32>, tensor<4x8xf32>, i1, tensor<4x8xf16>)
// ONE-USE: ^bb0(%[[PV:.*]]: f32, %[[GV:.*]]: f32, %[[KEEP:.*]]: i1, %[[OLDW:.*]]: f16,
// ONE-USE: %[[PARAM:.*]] = arith.subf %[[PV]], %[[GV]]
// ONE-USE: %[[NEWP:.*]] = arith.select %[[KEEP]], %[[PARAM]], %[[PV]] : f32
// ONE-USE: %[[ROUNDED:.*]] = arith.truncf %[[PARAM]] : f32 to f16
// ONE-USE: %[[NEWW:.*]] = arith.select %[[KEEP]], %[[ROUNDED]], %[[OLDW]] : f16
// ONE-USE: linalg.yield %[[NEWP]], %[[NEWW]]
// ONE-USE-NOT: linalg.generic
// ONE-USE: return %[[UPDATE]]#0, %[[UPDATE]]#1
// With cheap producers recomputed (the CPU lowering), the update is computed
// again in each select instead.
// CHECK-LABEL: func.func @sgd_working_copy
// CHECK-COUNT-2: linalg.generic
// CHECK-NOT: linalg.generic
func.func @sgd_working_copy(%p: tensor<4x8xf32>, %g: tensor<4x8xf32>, %w: tensor<4x8xf16>, %flag: tensor<i1>) -> (tensor<4x8xf32>, tensor<4x8xf16>) {
  %empty = tensor.empty() : tensor<4x8xf32>
  %update = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %g : tensor<4x8xf32>, tensor<4x8xf32>) outs(%empty : tensor<4x8xf32>) {
  ^bb0(%pv: f32, %gv: f32, %out: f32):
    %param = arith.subf %pv, %gv : f32
    linalg.yield %param : f32
  } -> tensor<4x8xf32>
  %finite = tensor.extract %flag[] : tensor<i1>
  %keptP = linalg.generic {indexing_maps = [#scalar, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%finite, %update, %p : i1, tensor<4x8xf32>, tensor<4x8xf32>) outs(%empty : tensor<4x8xf32>) {
  ^bb0(%c: i1, %new: f32, %old: f32, %out: f32):
    %s = arith.select %c, %new, %old : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %empty16 = tensor.empty() : tensor<4x8xf16>
  %keptW = linalg.generic {indexing_maps = [#scalar, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%finite, %update, %w : i1, tensor<4x8xf32>, tensor<4x8xf16>) outs(%empty16 : tensor<4x8xf16>) {
  ^bb0(%c: i1, %new: f32, %old: f16, %out: f16):
    %r = arith.truncf %new : f32 to f16
    %s = arith.select %c, %r, %old : f16
    linalg.yield %s : f16
  } -> tensor<4x8xf16>
  return %keptP, %keptW : tensor<4x8xf32>, tensor<4x8xf16>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>

// Left alone: an updated tensor that is also read unselected (here returned),
// and selects on two different flags.

// CHECK-LABEL: func.func @update_read_unselected
// CHECK-COUNT-3: linalg.generic
// CHECK-LABEL: func.func @selects_on_two_flags
// CHECK-COUNT-3: linalg.generic
func.func @update_read_unselected(%p: tensor<4x8xf32>, %g: tensor<4x8xf32>, %flag: i1) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %empty = tensor.empty() : tensor<4x8xf32>
  %update:2 = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %g : tensor<4x8xf32>, tensor<4x8xf32>) outs(%empty, %empty : tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%pv: f32, %gv: f32, %out0: f32, %out1: f32):
    %param = arith.subf %pv, %gv : f32
    %square = arith.mulf %gv, %gv : f32
    linalg.yield %param, %square : f32, f32
  } -> (tensor<4x8xf32>, tensor<4x8xf32>)
  %keptP = linalg.generic {indexing_maps = [#scalar, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%flag, %update#0, %p : i1, tensor<4x8xf32>, tensor<4x8xf32>) outs(%empty : tensor<4x8xf32>) {
  ^bb0(%c: i1, %new: f32, %old: f32, %out: f32):
    %s = arith.select %c, %new, %old : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %keptS = linalg.generic {indexing_maps = [#scalar, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%flag, %update#1, %g : i1, tensor<4x8xf32>, tensor<4x8xf32>) outs(%empty : tensor<4x8xf32>) {
  ^bb0(%c: i1, %new: f32, %old: f32, %out: f32):
    %s = arith.select %c, %new, %old : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %keptP, %keptS, %update#0 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
func.func @selects_on_two_flags(%p: tensor<4x8xf32>, %g: tensor<4x8xf32>, %flag: i1, %other: i1) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %empty = tensor.empty() : tensor<4x8xf32>
  %update:2 = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %g : tensor<4x8xf32>, tensor<4x8xf32>) outs(%empty, %empty : tensor<4x8xf32>, tensor<4x8xf32>) {
  ^bb0(%pv: f32, %gv: f32, %out0: f32, %out1: f32):
    %param = arith.subf %pv, %gv : f32
    %square = arith.mulf %gv, %gv : f32
    linalg.yield %param, %square : f32, f32
  } -> (tensor<4x8xf32>, tensor<4x8xf32>)
  %keptP = linalg.generic {indexing_maps = [#scalar, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%flag, %update#0, %p : i1, tensor<4x8xf32>, tensor<4x8xf32>) outs(%empty : tensor<4x8xf32>) {
  ^bb0(%c: i1, %new: f32, %old: f32, %out: f32):
    %s = arith.select %c, %new, %old : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %keptS = linalg.generic {indexing_maps = [#scalar, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%other, %update#1, %g : i1, tensor<4x8xf32>, tensor<4x8xf32>) outs(%empty : tensor<4x8xf32>) {
  ^bb0(%c: i1, %new: f32, %old: f32, %out: f32):
    %s = arith.select %c, %new, %old : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %keptP, %keptS : tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// With recompute-cheap-producers, loss scaling's unscale,
// f32(round(g)) * (1 / scale), read by the counts of zero and non-finite
// gradients and by the update: computed again in both
// rather than written in full and read twice (f32 in, f32 out, two readers:
// 1 * 32 <= 3 * 32 bits per element). Upstream keeps it, as it keeps every
// producer with more than one use.

// CHECK-LABEL: func.func @unscale_read_twice
// CHECK-SAME: (%[[G:.*]]: tensor<64x8xf32>, %[[INVERSE:.*]]: tensor<f32>, %[[P:.*]]: tensor<64x8xf32>)
// CHECK: %[[COUNT:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["reduction", "reduction"]
// CHECK-SAME: ins(%[[G]], %[[INVERSE]] : tensor<64x8xf32>, tensor<f32>)
// CHECK: arith.truncf
// CHECK: arith.extf
// CHECK: arith.mulf
// CHECK: arith.cmpf
// CHECK: %[[UPDATED:.*]] = linalg.generic
// CHECK-SAME: ins(%[[P]], %[[G]], %[[INVERSE]] : tensor<64x8xf32>, tensor<64x8xf32>, tensor<f32>)
// CHECK: arith.truncf
// CHECK: arith.extf
// CHECK: arith.mulf
// CHECK: arith.subf
// CHECK-NOT: linalg.generic
// CHECK: return %[[COUNT]], %[[UPDATED]]
// UPSTREAM-LABEL: func.func @unscale_read_twice
// UPSTREAM-COUNT-3: linalg.generic
// ONE-USE-LABEL: func.func @unscale_read_twice
// ONE-USE-COUNT-3: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
func.func @unscale_read_twice(%g: tensor<64x8xf32>, %inverse: tensor<f32>, %p: tensor<64x8xf32>) -> (tensor<i64>, tensor<64x8xf32>) {
  %empty = tensor.empty() : tensor<64x8xf32>
  %unscaled = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %inverse : tensor<64x8xf32>, tensor<f32>) outs(%empty : tensor<64x8xf32>) {
  ^bb0(%a: f32, %s: f32, %out: f32):
    %r = arith.truncf %a : f32 to f16
    %e = arith.extf %r : f16 to f32
    %m = arith.mulf %e, %s : f32
    linalg.yield %m : f32
  } -> tensor<64x8xf32>
  %zero = arith.constant 0 : i64
  %init = tensor.empty() : tensor<i64>
  %acc = linalg.fill ins(%zero : i64) outs(%init : tensor<i64>) -> tensor<i64>
  %count = linalg.generic {indexing_maps = [#id, #scalar], iterator_types = ["reduction", "reduction"]}
      ins(%unscaled : tensor<64x8xf32>) outs(%acc : tensor<i64>) {
  ^bb0(%a: f32, %c: i64):
    %f0 = arith.constant 0.0 : f32
    %is = arith.cmpf oeq, %a, %f0 : f32
    %one = arith.extui %is : i1 to i64
    %s = arith.addi %c, %one : i64
    linalg.yield %s : i64
  } -> tensor<i64>
  %updated = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %unscaled : tensor<64x8xf32>, tensor<64x8xf32>) outs(%empty : tensor<64x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.subf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<64x8xf32>
  return %count, %updated : tensor<i64>, tensor<64x8xf32>
}

// -----

// Not computed again: an f16 rounding read twice (each reader would read the
// f32 source, which would stay alive instead of the half-size result), an
// unscale also returned (stored anyway), and one read by a sum per row (a
// partial reduction, as batch norm's gradient sums per channel). Their other
// readers take two inputs: a reader of one input would fuse into the
// producer instead (unary_reader_of_shared_producer).

// CHECK-LABEL: func.func @kept_producers
// CHECK-COUNT-8: linalg.generic
// CHECK-NOT: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
func.func @kept_producers(%x: tensor<64x8xf32>, %g: tensor<64x8xf32>, %inverse: tensor<f32>)
    -> (tensor<64x8xf32>, tensor<64x8xf32>, tensor<64x8xf32>, tensor<64x8xf32>, tensor<64xf32>, tensor<64x8xf32>) {
  %empty = tensor.empty() : tensor<64x8xf32>
  %empty16 = tensor.empty() : tensor<64x8xf16>
  %rounded = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x8xf32>) outs(%empty16 : tensor<64x8xf16>) {
  ^bb0(%a: f32, %out: f16):
    %r = arith.truncf %a : f32 to f16
    linalg.yield %r : f16
  } -> tensor<64x8xf16>
  %twice = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%rounded, %g : tensor<64x8xf16>, tensor<64x8xf32>) outs(%empty : tensor<64x8xf32>) {
  ^bb0(%a: f16, %b: f32, %out: f32):
    %e = arith.extf %a : f16 to f32
    %s = arith.addf %e, %b : f32
    linalg.yield %s : f32
  } -> tensor<64x8xf32>
  %square = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%rounded, %g : tensor<64x8xf16>, tensor<64x8xf32>) outs(%empty : tensor<64x8xf32>) {
  ^bb0(%a: f16, %b: f32, %out: f32):
    %e = arith.extf %a : f16 to f32
    %s = arith.mulf %e, %b : f32
    linalg.yield %s : f32
  } -> tensor<64x8xf32>
  %unscaled = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %inverse : tensor<64x8xf32>, tensor<f32>) outs(%empty : tensor<64x8xf32>) {
  ^bb0(%a: f32, %s: f32, %out: f32):
    %m = arith.mulf %a, %s : f32
    linalg.yield %m : f32
  } -> tensor<64x8xf32>
  %negated = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%unscaled, %x : tensor<64x8xf32>, tensor<64x8xf32>) outs(%empty : tensor<64x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %n = arith.subf %b, %a : f32
    linalg.yield %n : f32
  } -> tensor<64x8xf32>
  %scaled = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %inverse : tensor<64x8xf32>, tensor<f32>) outs(%empty : tensor<64x8xf32>) {
  ^bb0(%a: f32, %s: f32, %out: f32):
    %m = arith.mulf %a, %s : f32
    linalg.yield %m : f32
  } -> tensor<64x8xf32>
  %zeros = arith.constant dense<0.0> : tensor<64xf32>
  %rows = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%scaled : tensor<64x8xf32>) outs(%zeros : tensor<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  %halved = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%scaled, %g : tensor<64x8xf32>, tensor<64x8xf32>) outs(%empty : tensor<64x8xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %h = arith.mulf %a, %b : f32
    linalg.yield %h : f32
  } -> tensor<64x8xf32>
  return %twice, %square, %unscaled, %negated, %rows, %halved : tensor<64x8xf32>, tensor<64x8xf32>, tensor<64x8xf32>, tensor<64x8xf32>, tensor<64xf32>, tensor<64x8xf32>
}

// -----

// With recompute-cheap-producers, a weight gradient's product rounded to f16
// and read by loss scaling's count and by the update: the rounding is kept,
// and both read its f16 result. Computed again in each reader, it would keep
// the f32 product, twice its size, live until the last of them. The matmul
// stays a named op.

// CHECK-LABEL: func.func @rounded_product_read_twice
// CHECK-SAME: (%[[X:.*]]: tensor<16x64xf32>, %[[DY:.*]]: tensor<16x8xf32>, %[[INVERSE:.*]]: tensor<f32>, %[[P:.*]]: tensor<64x8xf32>)
// CHECK: %[[PRODUCT:.*]] = linalg.matmul
// CHECK: %[[ROUNDED:.*]] = linalg.generic
// CHECK-SAME: ins(%[[PRODUCT]] : tensor<64x8xf32>) outs(%{{.*}} : tensor<64x8xf16>)
// CHECK: %[[COUNT:.*]] = linalg.generic
// CHECK-SAME: ins(%[[ROUNDED]], %[[INVERSE]] : tensor<64x8xf16>, tensor<f32>)
// CHECK: %[[UPDATED:.*]] = linalg.generic
// CHECK-SAME: ins(%[[P]], %[[ROUNDED]], %[[INVERSE]] : tensor<64x8xf32>, tensor<64x8xf16>, tensor<f32>)
// CHECK-NOT: linalg.generic
// CHECK: return %[[COUNT]], %[[UPDATED]]
// ONE-USE-LABEL: func.func @rounded_product_read_twice
// ONE-USE: linalg.matmul
// ONE-USE-COUNT-3: linalg.generic
// ONE-USE-NOT: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
#scalar = affine_map<(d0, d1) -> ()>
#transposed = affine_map<(d0, d1, d2) -> (d2, d0)>
#plain = affine_map<(d0, d1, d2) -> (d2, d1)>
#result = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @rounded_product_read_twice(%x: tensor<16x64xf32>, %dy: tensor<16x8xf32>, %inverse: tensor<f32>, %p: tensor<64x8xf32>) -> (tensor<i64>, tensor<64x8xf32>) {
  %f0 = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x8xf32>
  %empty16 = tensor.empty() : tensor<64x8xf16>
  %acc = linalg.fill ins(%f0 : f32) outs(%empty : tensor<64x8xf32>) -> tensor<64x8xf32>
  %product = linalg.matmul indexing_maps = [#transposed, #plain, #result]
      ins(%x, %dy : tensor<16x64xf32>, tensor<16x8xf32>) outs(%acc : tensor<64x8xf32>) -> tensor<64x8xf32>
  %rounded = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%product : tensor<64x8xf32>) outs(%empty16 : tensor<64x8xf16>) {
  ^bb0(%a: f32, %out: f16):
    %r = arith.truncf %a : f32 to f16
    linalg.yield %r : f16
  } -> tensor<64x8xf16>
  %zero = arith.constant 0 : i64
  %init = tensor.empty() : tensor<i64>
  %zeros = linalg.fill ins(%zero : i64) outs(%init : tensor<i64>) -> tensor<i64>
  %count = linalg.generic {indexing_maps = [#id, #scalar, #scalar], iterator_types = ["reduction", "reduction"]}
      ins(%rounded, %inverse : tensor<64x8xf16>, tensor<f32>) outs(%zeros : tensor<i64>) {
  ^bb0(%a: f16, %s: f32, %c: i64):
    %e = arith.extf %a : f16 to f32
    %m = arith.mulf %e, %s : f32
    %is = arith.cmpf oeq, %m, %f0 : f32
    %one = arith.extui %is : i1 to i64
    %sum = arith.addi %c, %one : i64
    linalg.yield %sum : i64
  } -> tensor<i64>
  %updated = linalg.generic {indexing_maps = [#id, #id, #scalar, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %rounded, %inverse : tensor<64x8xf32>, tensor<64x8xf16>, tensor<f32>) outs(%empty : tensor<64x8xf32>) {
  ^bb0(%a: f32, %b: f16, %s: f32, %out: f32):
    %e = arith.extf %b : f16 to f32
    %m = arith.mulf %e, %s : f32
    %d = arith.subf %a, %m : f32
    linalg.yield %d : f32
  } -> tensor<64x8xf32>
  return %count, %updated : tensor<i64>, tensor<64x8xf32>
}

// -----

// A product rounded to f16, then its heads moved from [B, S, H, D] to
// [B, H, S, D]. By default the transpose stays a named op and the cast a
// generic of its own; with fuse-data-movement the transpose is a generic that
// reads the f32 product through the permutation and rounds as it writes.

// ONE-USE-LABEL: func.func @cast_then_transpose
// CHECK-LABEL: func.func @cast_then_transpose
// CHECK: linalg.generic
// CHECK: arith.truncf
// CHECK: linalg.transpose
// CHECK-SAME: permutation = [0, 2, 1, 3]
// TRANSPOSES-DAG: #[[PERMUTED:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
// TRANSPOSES-DAG: #[[IDENTITY:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// TRANSPOSES-LABEL: func.func @cast_then_transpose
// TRANSPOSES-SAME: (%[[X:.*]]: tensor<8x32x4x16xf32>)
// TRANSPOSES: %[[R:.*]] = linalg.generic {indexing_maps = [#[[PERMUTED]], #[[IDENTITY]]]
// TRANSPOSES-SAME: ins(%[[X]] : tensor<8x32x4x16xf32>) outs(%{{.*}} : tensor<8x4x32x16xf16>)
// TRANSPOSES: arith.truncf
// TRANSPOSES-NOT: linalg.{{generic|transpose}}
// TRANSPOSES: return %[[R]]
func.func @cast_then_transpose(%x: tensor<8x32x4x16xf32>) -> tensor<8x4x32x16xf16> {
  %empty = tensor.empty() : tensor<8x32x4x16xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>,
                                        affine_map<(a, b, c, d) -> (a, b, c, d)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<8x32x4x16xf32>) outs(%empty : tensor<8x32x4x16xf16>) {
  ^bb0(%a: f32, %out: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<8x32x4x16xf16>
  %init = tensor.empty() : tensor<8x4x32x16xf16>
  %heads = linalg.transpose ins(%h : tensor<8x32x4x16xf16>) outs(%init : tensor<8x4x32x16xf16>)
      permutation = [0, 2, 1, 3]
  return %heads : tensor<8x4x32x16xf16>
}

// -----

// A result rounded to f16 and also read by a reduction (the logits'
// gradient: f16 for its two GEMMs, f32 for its bias gradient). The producer
// writes both, in one generic, and the cast is gone. Upstream's fusion leaves
// the cast apart (allowed a producer with several readers, it would compute
// the producer again in the cast).

#id = affine_map<(d0, d1) -> (d0, d1)>
// SHARED-LABEL: func.func @cast_of_shared_result
// SHARED-SAME: (%[[X:.*]]: tensor<16x10xf32>, %[[Y:.*]]: tensor<16x10xf32>)
// SHARED: %[[BOTH:.*]]:2 = linalg.generic
// SHARED-SAME: ins(%[[X]], %[[Y]] : tensor<16x10xf32>, tensor<16x10xf32>)
// SHARED: %[[D:.*]] = arith.subf
// SHARED: %[[H:.*]] = arith.truncf %[[D]] : f32 to f16
// SHARED: linalg.yield %[[D]], %[[H]] : f32, f16
// SHARED: %[[SUM:.*]] = linalg.generic
// SHARED-SAME: ins(%[[BOTH]]#0 : tensor<16x10xf32>)
// SHARED-NOT: linalg.generic
// SHARED: return %[[BOTH]]#1, %[[SUM]]
// UPSTREAM-LABEL: func.func @cast_of_shared_result
// UPSTREAM-COUNT-3: linalg.generic
func.func @cast_of_shared_result(%x: tensor<16x10xf32>, %y: tensor<16x10xf32>) -> (tensor<16x10xf16>, tensor<10xf32>) {
  %empty = tensor.empty() : tensor<16x10xf32>
  %d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<16x10xf32>, tensor<16x10xf32>) outs(%empty : tensor<16x10xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.subf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<16x10xf32>
  %half_empty = tensor.empty() : tensor<16x10xf16>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d : tensor<16x10xf32>) outs(%half_empty : tensor<16x10xf16>) {
  ^bb0(%a: f32, %out: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<16x10xf16>
  %zeros = arith.constant dense<0.0> : tensor<10xf32>
  %sum = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
      ins(%d : tensor<16x10xf32>) outs(%zeros : tensor<10xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<10xf32>
  return %h, %sum : tensor<16x10xf16>, tensor<10xf32>
}

// -----

// A bias add whose result the backward pass reads again (relu's gradient)
// and its relu, in f16 (the product rounded first): one generic writes the
// pre-activation and the activation, a kernel and a read of the
// pre-activation fewer. The relu's gradient reads the pre-activation from it
// (computing the bias add again there would read the f32 product, twice the
// bytes). Upstream's fusion leaves the relu apart.

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// SHARED-LABEL: func.func @unary_reader_of_shared_producer
// SHARED-SAME: (%[[P:.*]]: tensor<16x10xf32>, %[[B:.*]]: tensor<10xf16>, %[[G:.*]]: tensor<16x10xf16>)
// SHARED: %[[BOTH:.*]]:2 = linalg.generic
// SHARED-SAME: ins(%[[P]], %[[B]] : tensor<16x10xf32>, tensor<10xf16>)
// SHARED: %[[ROUNDED:.*]] = arith.truncf
// SHARED: %[[Z:.*]] = arith.addf %[[ROUNDED]]
// SHARED: %[[KEEP:.*]] = arith.cmpf ugt, %[[Z]]
// SHARED: %[[H:.*]] = arith.select %[[KEEP]], %[[Z]]
// SHARED: linalg.yield %[[Z]], %[[H]] : f16, f16
// SHARED: %[[GRAD:.*]] = linalg.generic
// SHARED-SAME: ins(%[[G]], %[[BOTH]]#0 : tensor<16x10xf16>, tensor<16x10xf16>)
// SHARED-NOT: linalg.generic
// SHARED: return %[[BOTH]]#1, %[[GRAD]]
// UPSTREAM-LABEL: func.func @unary_reader_of_shared_producer
// UPSTREAM-COUNT-3: linalg.generic
func.func @unary_reader_of_shared_producer(%p: tensor<16x10xf32>, %bias: tensor<10xf16>, %g: tensor<16x10xf16>) -> (tensor<16x10xf16>, tensor<16x10xf16>) {
  %f0 = arith.constant 0.0 : f16
  %empty = tensor.empty() : tensor<16x10xf16>
  %z = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p, %bias : tensor<16x10xf32>, tensor<10xf16>) outs(%empty : tensor<16x10xf16>) {
  ^bb0(%a: f32, %b: f16, %out: f16):
    %r = arith.truncf %a : f32 to f16
    %s = arith.addf %r, %b : f16
    linalg.yield %s : f16
  } -> tensor<16x10xf16>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%z : tensor<16x10xf16>) outs(%empty : tensor<16x10xf16>) {
  ^bb0(%a: f16, %out: f16):
    %keep = arith.cmpf ugt, %a, %f0 : f16
    %r = arith.select %keep, %a, %f0 : f16
    linalg.yield %r : f16
  } -> tensor<16x10xf16>
  %grad = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%g, %z : tensor<16x10xf16>, tensor<16x10xf16>) outs(%empty : tensor<16x10xf16>) {
  ^bb0(%a: f16, %b: f16, %out: f16):
    %active = arith.cmpf ugt, %b, %f0 : f16
    %r = arith.select %active, %a, %f0 : f16
    linalg.yield %r : f16
  } -> tensor<16x10xf16>
  return %h, %grad : tensor<16x10xf16>, tensor<16x10xf16>
}

// -----

// A reader of one input that writes into the producer's result (in place)
// reads it twice: it stays apart.

#id = affine_map<(d0, d1) -> (d0, d1)>
// ONE-USE-LABEL: func.func @unary_reader_in_place
// ONE-USE-COUNT-3: linalg.generic
// ONE-USE-NOT: linalg.generic
func.func @unary_reader_in_place(%x: tensor<16x10xf32>, %y: tensor<16x10xf32>) -> (tensor<16x10xf32>, tensor<16x10xf32>) {
  %empty = tensor.empty() : tensor<16x10xf32>
  %d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<16x10xf32>, tensor<16x10xf32>) outs(%empty : tensor<16x10xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.subf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<16x10xf32>
  %scaled = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d : tensor<16x10xf32>) outs(%d : tensor<16x10xf32>) {
  ^bb0(%a: f32, %out: f32):
    %m = arith.addf %a, %out : f32
    linalg.yield %m : f32
  } -> tensor<16x10xf32>
  %other = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d, %x : tensor<16x10xf32>, tensor<16x10xf32>) outs(%empty : tensor<16x10xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<16x10xf32>
  return %scaled, %other : tensor<16x10xf32>, tensor<16x10xf32>
}

// -----

// A reader before the cast keeps the cast apart: the fused op would stand
// where the cast is, after that reader.

#id = affine_map<(d0, d1) -> (d0, d1)>
// SHARED-LABEL: func.func @cast_after_another_reader
// SHARED-COUNT-3: linalg.generic
// SHARED-NOT: linalg.generic
func.func @cast_after_another_reader(%x: tensor<16x10xf32>, %y: tensor<16x10xf32>) -> (tensor<16x10xf16>, tensor<10xf32>) {
  %empty = tensor.empty() : tensor<16x10xf32>
  %d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<16x10xf32>, tensor<16x10xf32>) outs(%empty : tensor<16x10xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.subf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<16x10xf32>
  %zeros = arith.constant dense<0.0> : tensor<10xf32>
  %sum = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d1)>], iterator_types = ["reduction", "parallel"]}
      ins(%d : tensor<16x10xf32>) outs(%zeros : tensor<10xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<10xf32>
  %half_empty = tensor.empty() : tensor<16x10xf16>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%d : tensor<16x10xf32>) outs(%half_empty : tensor<16x10xf16>) {
  ^bb0(%a: f32, %out: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<16x10xf16>
  return %h, %sum : tensor<16x10xf16>, tensor<10xf32>
}

// -----

// A product rounded to f16 and back (autocast's f16 result read in f32) by
// a generic of its own, read by a row maximum and an elementwise op: with
// recompute-conversions each reader rounds the product itself, and no
// generic is left that only converts. Without it (and upstream), the
// rounding stays a generic of its own, read by both.

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
// CONVERSIONS-LABEL: func.func @round_trip_in_readers
// CONVERSIONS-SAME: (%[[P:.*]]: tensor<8x16xf32>
// CONVERSIONS: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[P]] : tensor<8x16xf32>)
// CONVERSIONS: arith.truncf
// CONVERSIONS-NEXT: arith.extf
// CONVERSIONS-NEXT: arith.maximumf
// CONVERSIONS: linalg.generic {{.*}} ins(%[[P]], %{{.*}} : tensor<8x16xf32>, tensor<8xf32>)
// CONVERSIONS: arith.truncf
// CONVERSIONS-NEXT: arith.extf
// CONVERSIONS-NEXT: arith.subf
// CONVERSIONS-NOT: linalg.generic
// SHARED-LABEL: func.func @round_trip_in_readers
// ONE-USE-COUNT-3: linalg.generic
func.func @round_trip_in_readers(%p: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %empty = tensor.empty() : tensor<8x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<8x16xf32>) outs(%empty : tensor<8x16xf32>) {
  ^bb0(%a: f32, %out: f32):
    %h = arith.truncf %a : f32 to f16
    %w = arith.extf %h : f16 to f32
    linalg.yield %w : f32
  } -> tensor<8x16xf32>
  %lowest = arith.constant dense<0xFF800000> : tensor<8xf32>
  %max = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%r : tensor<8x16xf32>) outs(%lowest : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %acc, %a : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  %shifted = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r, %max : tensor<8x16xf32>, tensor<8xf32>) outs(%empty : tensor<8x16xf32>) {
  ^bb0(%a: f32, %m: f32, %out: f32):
    %d = arith.subf %a, %m : f32
    linalg.yield %d : f32
  } -> tensor<8x16xf32>
  return %shifted : tensor<8x16xf32>
}

// -----

// A rounding to f16 read by two generics stays one: each reader would read
// the f32 input, twice the bytes of the f16 result. So does a widening that
// the function also returns (a reader that is no generic). The readers take
// two inputs: a reader of one input would fuse into the conversion.
#id = affine_map<(d0, d1) -> (d0, d1)>
// CONVERSIONS-LABEL: func.func @narrowing_stays
// CONVERSIONS-COUNT-3: linalg.generic
// CONVERSIONS-NOT: linalg.generic
// CONVERSIONS-LABEL: func.func @widening_returned_stays
// CONVERSIONS-COUNT-3: linalg.generic
// CONVERSIONS-NOT: linalg.generic
func.func @narrowing_stays(%p: tensor<8x16xf32>, %q: tensor<8x16xf16>) -> (tensor<8x16xf16>, tensor<8x16xf16>) {
  %empty = tensor.empty() : tensor<8x16xf16>
  %h = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<8x16xf32>) outs(%empty : tensor<8x16xf16>) {
  ^bb0(%a: f32, %out: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<8x16xf16>
  %twice = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %q : tensor<8x16xf16>, tensor<8x16xf16>) outs(%empty : tensor<8x16xf16>) {
  ^bb0(%a: f16, %b: f16, %out: f16):
    %d = arith.addf %a, %b : f16
    linalg.yield %d : f16
  } -> tensor<8x16xf16>
  %square = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %q : tensor<8x16xf16>, tensor<8x16xf16>) outs(%empty : tensor<8x16xf16>) {
  ^bb0(%a: f16, %b: f16, %out: f16):
    %m = arith.mulf %a, %b : f16
    linalg.yield %m : f16
  } -> tensor<8x16xf16>
  return %twice, %square : tensor<8x16xf16>, tensor<8x16xf16>
}
func.func @widening_returned_stays(%p: tensor<8x16xf16>, %q: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
  %empty = tensor.empty() : tensor<8x16xf32>
  %w = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<8x16xf16>) outs(%empty : tensor<8x16xf32>) {
  ^bb0(%a: f16, %out: f32):
    %e = arith.extf %a : f16 to f32
    linalg.yield %e : f32
  } -> tensor<8x16xf32>
  %twice = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %q : tensor<8x16xf32>, tensor<8x16xf32>) outs(%empty : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %d = arith.addf %a, %b : f32
    linalg.yield %d : f32
  } -> tensor<8x16xf32>
  %square = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %q : tensor<8x16xf32>, tensor<8x16xf32>) outs(%empty : tensor<8x16xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<8x16xf32>
  return %w, %twice, %square : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

// The transformer's gradient of a mean over the sequence: a scaled [B, D]
// value broadcast over S, reshaped to [B·S, D], rounded to f16 for a GEMM
// and summed over rows in f32. For the GPU (fuse-data-movement,
// recompute-conversions) one generic computes the scaling, broadcasts it
// and writes both the f32 value and its rounding (the rounding moved ahead
// of the reshape); the sum reads the f32 value unreshaped. Otherwise the
// broadcast stays named and the rounding is a generic of its own.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
// GPU-LABEL: func.func @broadcast_rounded_and_summed
// GPU: %[[BOTH:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel"]}
// GPU-SAME: outs({{.*}} : tensor<2x4x8xf32>, tensor<2x4x8xf16>)
// GPU: arith.mulf
// GPU: arith.truncf
// GPU: tensor.collapse_shape %[[BOTH]]#1 {{.*}} into tensor<8x8xf16>
// GPU: linalg.generic {{.*}} iterator_types = ["reduction", "reduction", "parallel"]} ins(%[[BOTH]]#0 : tensor<2x4x8xf32>)
// GPU-NOT: linalg.generic
// GPU-NOT: linalg.broadcast
// CONVERSIONS-LABEL: func.func @broadcast_rounded_and_summed
// CONVERSIONS: linalg.broadcast
// CONVERSIONS: arith.truncf
// SHARED-LABEL: func.func @broadcast_rounded_and_summed
// SHARED: linalg.broadcast
func.func @broadcast_rounded_and_summed(%g: tensor<2x8xf32>) -> (tensor<8x8xf16>, tensor<8xf32>) {
  %quarter = arith.constant 0.25 : f32
  %e2 = tensor.empty() : tensor<2x8xf32>
  %scaled = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%g : tensor<2x8xf32>) outs(%e2 : tensor<2x8xf32>) {
  ^bb0(%a: f32, %out: f32):
    %m = arith.mulf %a, %quarter : f32
    linalg.yield %m : f32
  } -> tensor<2x8xf32>
  %e3 = tensor.empty() : tensor<2x4x8xf32>
  %b = linalg.broadcast ins(%scaled : tensor<2x8xf32>) outs(%e3 : tensor<2x4x8xf32>) dimensions = [1]
  %flat = tensor.collapse_shape %b [[0, 1], [2]] : tensor<2x4x8xf32> into tensor<8x8xf32>
  %eh = tensor.empty() : tensor<8x8xf16>
  %h = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%flat : tensor<8x8xf32>) outs(%eh : tensor<8x8xf16>) {
  ^bb0(%a: f32, %out: f16):
    %t = arith.truncf %a : f32 to f16
    linalg.yield %t : f16
  } -> tensor<8x8xf16>
  %zeros = arith.constant dense<0.0> : tensor<8xf32>
  %sum = linalg.generic {indexing_maps = [#id2, #col], iterator_types = ["reduction", "parallel"]}
      ins(%flat : tensor<8x8xf32>) outs(%zeros : tensor<8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %acc, %a : f32
    linalg.yield %s : f32
  } -> tensor<8xf32>
  return %h, %sum : tensor<8x8xf16>, tensor<8xf32>
}

// -----

// With keep-product-rounding, a product's only rounding stays beside the
// product, for the GEMM kernel that writes it rounded: it is not fused into
// its one reader, which then reads the f16 result (without the option,
// upstream's rule for a producer with one use fuses it, and the reader reads
// the f32 product).

#id = affine_map<(d0, d1) -> (d0, d1)>
// GPU-LABEL: func.func @product_rounding_kept
// CONVERSIONS-LABEL: func.func @product_rounding_kept
// KEPT-LABEL: func.func @product_rounding_kept
// KEPT: %[[PRODUCT:.*]] = linalg.matmul
// KEPT: %[[ROUNDED:.*]] = linalg.generic
// KEPT-SAME: ins(%[[PRODUCT]] : tensor<64x8xf32>) outs(%{{.*}} : tensor<64x8xf16>)
// KEPT: linalg.generic
// KEPT-SAME: ins(%[[ROUNDED]], %{{.*}} : tensor<64x8xf16>, tensor<64x8xf32>)
// ONE-USE-LABEL: func.func @product_rounding_kept
// ONE-USE: %[[PRODUCT:.*]] = linalg.matmul
// ONE-USE: linalg.generic
// ONE-USE-SAME: ins(%[[PRODUCT]], %{{.*}} : tensor<64x8xf32>, tensor<64x8xf32>)
// ONE-USE-NOT: linalg.generic
func.func @product_rounding_kept(%a: tensor<64x16xf32>, %b: tensor<16x8xf32>, %other: tensor<64x8xf32>) -> tensor<64x8xf32> {
  %f0 = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x8xf32>
  %empty16 = tensor.empty() : tensor<64x8xf16>
  %acc = linalg.fill ins(%f0 : f32) outs(%empty : tensor<64x8xf32>) -> tensor<64x8xf32>
  %product = linalg.matmul ins(%a, %b : tensor<64x16xf32>, tensor<16x8xf32>) outs(%acc : tensor<64x8xf32>) -> tensor<64x8xf32>
  %rounded = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%product : tensor<64x8xf32>) outs(%empty16 : tensor<64x8xf16>) {
  ^bb0(%x: f32, %out: f16):
    %r = arith.truncf %x : f32 to f16
    linalg.yield %r : f16
  } -> tensor<64x8xf16>
  %read = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%rounded, %other : tensor<64x8xf16>, tensor<64x8xf32>) outs(%empty : tensor<64x8xf32>) {
  ^bb0(%x: f16, %y: f32, %out: f32):
    %e = arith.extf %x : f16 to f32
    %m = arith.mulf %e, %y : f32
    linalg.yield %m : f32
  } -> tensor<64x8xf32>
  return %read : tensor<64x8xf32>
}

// -----

// The same product read through a reshape (an FFN's hidden gradient, which
// gelu's gradient reads as [batch, sequence, hidden]): with
// keep-product-rounding the rounding is not expanded to the reshaped product
// either, which would hide the product from it; the reshape moves to its f16
// result.

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id = affine_map<(d0, d1) -> (d0, d1)>
// KEPT-LABEL: func.func @reshaped_product_rounding_kept
// KEPT: %[[PRODUCT:.*]] = linalg.matmul
// KEPT: %[[ROUNDED:.*]] = linalg.generic
// KEPT-SAME: ins(%[[PRODUCT]] : tensor<64x8xf32>) outs(%{{.*}} : tensor<64x8xf16>)
// KEPT: %[[EXPANDED:.*]] = tensor.expand_shape %[[ROUNDED]]
// KEPT: linalg.generic
// KEPT-SAME: ins(%[[EXPANDED]], %{{.*}} : tensor<4x16x8xf16>, tensor<4x16x8xf32>)
// ONE-USE-LABEL: func.func @reshaped_product_rounding_kept
// ONE-USE: %[[PRODUCT:.*]] = linalg.matmul
// ONE-USE: %[[EXPANDED:.*]] = tensor.expand_shape %[[PRODUCT]]
// ONE-USE: linalg.generic
// ONE-USE-SAME: ins(%[[EXPANDED]], %{{.*}} : tensor<4x16x8xf32>, tensor<4x16x8xf32>)
// ONE-USE-NOT: linalg.generic
func.func @reshaped_product_rounding_kept(%a: tensor<64x16xf32>, %b: tensor<16x8xf32>, %other: tensor<4x16x8xf32>) -> tensor<4x16x8xf32> {
  %f0 = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<64x8xf32>
  %empty16 = tensor.empty() : tensor<64x8xf16>
  %empty3 = tensor.empty() : tensor<4x16x8xf32>
  %acc = linalg.fill ins(%f0 : f32) outs(%empty : tensor<64x8xf32>) -> tensor<64x8xf32>
  %product = linalg.matmul ins(%a, %b : tensor<64x16xf32>, tensor<16x8xf32>) outs(%acc : tensor<64x8xf32>) -> tensor<64x8xf32>
  %rounded = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%product : tensor<64x8xf32>) outs(%empty16 : tensor<64x8xf16>) {
  ^bb0(%x: f32, %out: f16):
    %r = arith.truncf %x : f32 to f16
    linalg.yield %r : f16
  } -> tensor<64x8xf16>
  %expanded = tensor.expand_shape %rounded [[0, 1], [2]] output_shape [4, 16, 8] : tensor<64x8xf16> into tensor<4x16x8xf16>
  %read = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%expanded, %other : tensor<4x16x8xf16>, tensor<4x16x8xf32>) outs(%empty3 : tensor<4x16x8xf32>) {
  ^bb0(%x: f16, %y: f32, %out: f32):
    %e = arith.extf %x : f16 to f32
    %m = arith.mulf %e, %y : f32
    linalg.yield %m : f32
  } -> tensor<4x16x8xf32>
  return %read : tensor<4x16x8xf32>
}
