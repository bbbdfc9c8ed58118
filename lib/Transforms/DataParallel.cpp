//===- DataParallel.cpp - mpt-data-parallel ---------------------*- C++ -*-===//
//
// Sums the parameter gradients across the data-parallel ranks, in buckets
// all-reduced right after the last producer of their gradients, with 1/N
// folded into the backward seed.
//
//===----------------------------------------------------------------------===//

#include "mpt/Transforms/Passes.h"

#include "mlir/IR/Dominance.h"
#include "llvm/Support/MathExtras.h"

#include "Utils.h"
#include "mpt/Dialect/MPT/IR/MPTOps.h"

namespace mpt {
#define GEN_PASS_DEF_MPTDATAPARALLEL
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {
struct DataParallel : public mpt::impl::MPTDataParallelBase<DataParallel> {
  using Base::Base;
  LogicalResult initialize(MLIRContext *context) override;
  void runOnOperation() override;

private:
  Type reduceElementType(Value gradient);
  AllReduceOp reduceBucket(ArrayRef<Value> gradients, Operation *insertAfter,
                           DominanceInfo &dominance);
};
} // namespace

LogicalResult DataParallel::initialize(MLIRContext *context) {
  auto fail = [&](StringRef what) {
    return emitError(UnknownLoc::get(context), "mpt-data-parallel: ") << what;
  };
  if (worldSize < 1)
    return fail("world-size must be at least 1, got ") << int64_t(worldSize);
  if (bucketBytes < 1)
    return fail("bucket-bytes must be at least 1, got ")
           << int64_t(bucketBytes);
  return success();
}

Type DataParallel::reduceElementType(Value gradient) {
  Type type = getElementType(gradient);
  Type f32 = Float32Type::get(&getContext());
  switch (reduceType) {
  case GradientReduceType::Compute:
    return type;
  case GradientReduceType::F32:
    return f32;
  case GradientReduceType::Auto:
    break;
  }
  return type.isBF16() ? f32 : type;
}

static int64_t byteSize(RankedTensorType type) {
  return type.getNumElements() *
         llvm::divideCeil(type.getElementTypeBitWidth(), 8);
}

/// Makes every reader of `local`, or of a float cast of it, that comes after
/// `reduce` read `reduced` instead, converted to the type it read: a reader
/// of an f32 copy of an f16 gradient summed in f32 reads the f32 sum itself.
static void readReduced(Value local, Value reduced, Operation *reduce,
                        DominanceInfo &dominance) {
  OpBuilder builder(reduce->getContext());
  builder.setInsertionPointAfter(reduce);
  llvm::SmallDenseMap<Type, Value> reducedAs;
  auto convert = [&](Type elementType) {
    Value &converted = reducedAs[elementType];
    if (!converted)
      converted =
          createFloatCast(builder, reduced.getLoc(), reduced, elementType);
    return converted;
  };
  SmallVector<Value> worklist = {local};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : llvm::make_early_inc_range(value.getUses())) {
      Operation *user = use.getOwner();
      if (user == reduce)
        continue;
      if (isa<arith::ExtFOp, arith::TruncFOp>(user)) {
        worklist.push_back(user->getResult(0));
        continue;
      }
      if (dominance.properlyDominates(reduce, user))
        use.set(convert(getElementType(value)));
    }
  }
}

/// Sums `gradients` in one all-reduce after `insertAfter`, for every reader
/// after it.
AllReduceOp DataParallel::reduceBucket(ArrayRef<Value> gradients,
                                       Operation *insertAfter,
                                       DominanceInfo &dominance) {
  OpBuilder builder(insertAfter->getContext());
  builder.setInsertionPointAfter(insertAfter);
  Location loc = gradients.back().getLoc();
  SmallVector<Value> inputs = llvm::map_to_vector(gradients, [&](Value local) {
    return createFloatCast(builder, loc, local, reduceElementType(local));
  });
  auto reduce = AllReduceOp::create(builder, loc, inputs, ReduceKind::Sum);
  for (auto [local, reduced] : llvm::zip_equal(gradients, reduce.getResults()))
    readReduced(local, reduced, reduce, dominance);
  return reduce;
}

void DataParallel::runOnOperation() {
  func::FuncOp function = getOperation();
  if (!isTrainStep(function))
    return;
  FailureOr<LossGradOp> found = findBackwardSeed(function, getArgument());
  if (failed(found))
    return signalPassFailure();
  LossGradOp seed = *found;
  if (seed.getWorldSize())
    return; // Already summed across ranks.
  seed.setWorldSize(uint64_t(worldSize));

  Block &body = function.getBody().front();
  SmallVector<Value> gradients = findGradientRoots(function);
  for (Value gradient : gradients) {
    Operation *producer = gradient.getDefiningOp();
    if (!producer || producer->getBlock() != &body) {
      emitError(gradient.getLoc(),
                "mpt-data-parallel: a gradient an optimizer reads is not "
                "computed in the body of the step, so it has no place to be "
                "summed across ranks");
      return signalPassFailure();
    }
  }
  // The order of production, which is when each gradient is ready; results
  // of one op in their order.
  llvm::sort(gradients, [](Value a, Value b) {
    Operation *producerA = a.getDefiningOp(), *producerB = b.getDefiningOp();
    if (producerA != producerB)
      return producerA->isBeforeInBlock(producerB);
    return cast<OpResult>(a).getResultNumber() <
           cast<OpResult>(b).getResultNumber();
  });

  DominanceInfo dominance(function);
  SmallVector<Value> bucket;
  int64_t bytes = 0;
  Operation *lastReduce = nullptr;
  for (Value gradient : gradients) {
    bucket.push_back(gradient);
    bytes += byteSize(
        withElementType(gradient.getType(), reduceElementType(gradient)));
    if (bytes >= bucketBytes || gradient == gradients.back()) {
      // After the previous bucket too (one op can complete two buckets), so
      // that the buckets are reduced in the order they were formed.
      Operation *insertAfter = gradient.getDefiningOp();
      if (lastReduce && insertAfter->isBeforeInBlock(lastReduce))
        insertAfter = lastReduce;
      lastReduce = reduceBucket(bucket, insertAfter, dominance);
      bucket.clear();
      bytes = 0;
    }
  }
  eraseDeadCasts(function);
}
