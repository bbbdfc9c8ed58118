//===- Reductions.cpp - folds the reduction families share ------*- C++ -*-===//

#include "GPULoops.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using gpu::Processor;

namespace mpt::gpuloops {

FailureOr<SmallVector<Reduction>> matchReductions(linalg::GenericOp op) {
  Builder b(op.getContext());
  SmallVector<Reduction> reductions;
  Block *body = op.getBody();
  SmallVector<BlockArgument> outputArgs;
  for (OpOperand &init : op.getDpsInitsMutable())
    outputArgs.push_back(body->getArgument(init.getOperandNumber()));
  for (unsigned i = 0, e = outputArgs.size(); i < e; ++i) {
    SmallVector<Operation *, 1> combiners;
    if (!matchReduction(outputArgs, i, combiners) || combiners.size() != 1)
      return failure();
    Operation *combiner = combiners.front();
    if (combiner->getNumOperands() != 2 || !outputArgs[i].hasOneUse())
      return failure();
    unsigned accumulator = combiner->getOperand(0) == outputArgs[i] ? 0 : 1;
    bool subtracts = isa<arith::SubFOp>(combiner);
    if (subtracts && accumulator != 0)
      return failure();
    std::optional<TypedAttr> neutral =
        subtracts ? std::optional<TypedAttr>(
                        b.getZeroAttr(combiner->getResult(0).getType()))
                  : arith::getNeutralElement(combiner);
    if (!neutral)
      return failure();
    reductions.push_back({combiner, *neutral, accumulator, subtracts});
  }
  return reductions;
}

FailureOr<SmallVector<Reduction>>
matchReductionsOrReport(linalg::GenericOp op) {
  FailureOr<SmallVector<Reduction>> reductions = matchReductions(op);
  if (failed(reductions))
    op.emitOpError("has a reduction that is not a single combiner op with a "
                   "neutral element; cannot map it to a parallel GPU "
                   "reduction");
  return reductions;
}

ReductionKernelBuilder::ReductionKernelBuilder(OpBuilder &b,
                                               linalg::GenericOp op,
                                               ArrayRef<int64_t> ranges,
                                               const IterationSpace &space,
                                               ArrayRef<Reduction> reductions,
                                               const AbsorbedOps &absorbed)
    : b(b), op(op), loc(op.getLoc()), ranges(ranges), space(space),
      reductions(reductions), absorbed(absorbed) {
  zero = c(0);
  one = c(1);
  for (const Reduction &reduction : reductions) {
    combiners.insert(reduction.combiner);
    elementsOf.push_back(
        reduction.combiner->getOperand(1 - reduction.accumulatorOperand));
  }
}

Value ReductionKernelBuilder::c(int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v).getResult();
}

SmallVector<Value> ReductionKernelBuilder::elementsAt(OpBuilder &nb,
                                                      ArrayRef<Value> ivs) {
  IRMapping mapping;
  computePrologue(nb, loc, op, ivs, absorbed, mapping);
  loadInputs(nb, loc, op, ivs, mapping);
  cloneBody(nb, op, ivs, mapping, combiners);
  return llvm::map_to_vector(elementsOf, [&](Value element) {
    return mapping.lookupOrDefault(element);
  });
}

SmallVector<Value> combine(OpBuilder &b, ArrayRef<Reduction> reductions,
                           ValueRange accumulators, ValueRange elements,
                           bool partials) {
  SmallVector<Value> results;
  for (auto [reduction, accumulator, element] :
       llvm::zip(reductions, accumulators, elements)) {
    if (partials && reduction.subtracts) {
      results.push_back(arith::AddFOp::create(b, reduction.combiner->getLoc(),
                                              accumulator, element));
      continue;
    }
    IRMapping mapping;
    Value acc = reduction.combiner->getOperand(reduction.accumulatorOperand);
    Value elt =
        reduction.combiner->getOperand(1 - reduction.accumulatorOperand);
    mapping.map(acc, accumulator);
    mapping.map(elt, element);
    results.push_back(b.clone(*reduction.combiner, mapping)->getResult(0));
  }
  return results;
}

Type carrierType(const Reduction &reduction, int64_t length) {
  Type type = reduction.neutral.getType();
  MLIRContext *ctx = type.getContext();
  if (type.isInteger(32) || type.isF32())
    return type;
  if (type.isInteger(1))
    return IntegerType::get(ctx, 32);
  if ((type.isF16() || type.isBF16()) &&
      isa<arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp,
          arith::MinNumFOp>(reduction.combiner))
    return Float32Type::get(ctx);
  if (type.isInteger(64) && isa<arith::AddIOp>(reduction.combiner) &&
      length < (int64_t(1) << 31)) {
    Value element =
        reduction.combiner->getOperand(1 - reduction.accumulatorOperand);
    Operation *producer = element.getDefiningOp();
    if (isa_and_nonnull<arith::ExtUIOp, arith::ExtSIOp>(producer) &&
        producer->getOperand(0).getType().isInteger(1))
      return IntegerType::get(ctx, 32);
  }
  return {};
}

Value convert(OpBuilder &b, Location loc, Value value, Type to) {
  Type from = value.getType();
  if (from == to)
    return value;
  if (isa<FloatType>(to))
    return from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()
               ? arith::ExtFOp::create(b, loc, to, value).getResult()
               : arith::TruncFOp::create(b, loc, to, value).getResult();
  return from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()
             ? arith::ExtUIOp::create(b, loc, to, value).getResult()
             : arith::TruncIOp::create(b, loc, to, value).getResult();
}

Value buildBlockReduction(OpBuilder &b, Location loc, int64_t threads,
                          const Reduction &reduction, Type carrier,
                          function_ref<Value(OpBuilder &, Value)> perThread) {
  auto c = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Type type = reduction.neutral.getType();
  Value neutral = convert(
      b, loc, arith::ConstantOp::create(b, loc, reduction.neutral), carrier);
  auto block = scf::ParallelOp::create(
      b, loc, c(0), c(threads), c(1), neutral,
      [&](OpBuilder &nb, Location, ValueRange threadIvs, ValueRange) {
        Value partial = convert(nb, loc, perThread(nb, threadIvs[0]), carrier);
        auto reduce = scf::ReduceOp::create(nb, loc, partial);
        Block &combinerBlock = reduce.getReductions()[0].front();
        OpBuilder rb = OpBuilder::atBlockEnd(&combinerBlock);
        Value result = combine(rb, reduction, combinerBlock.getArgument(0),
                               combinerBlock.getArgument(1),
                               /*partials=*/true)[0];
        // Elementwise arith ops compute in their operands' type: the
        // combiner cloned on carrier operands yields the carrier type.
        result.setType(carrier);
        scf::ReduceReturnOp::create(rb, loc, result);
      });
  mapLoop(b, block, Processor::ThreadX);
  return convert(b, loc, block.getResult(0), type);
}

SmallVector<Value> buildStridedFold(
    OpBuilder &b, Location loc, Value begin, Value end, Value step,
    ValueRange starts,
    function_ref<SmallVector<Value>(OpBuilder &, Value, ValueRange)> foldOne) {
  constexpr int64_t kUnroll = 4;
  auto c = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value span = arith::MaxSIOp::create(
      b, loc, arith::SubIOp::create(b, loc, end, begin), c(0));
  Value count = arith::CeilDivSIOp::create(b, loc, span, step);
  Value unrolledStep = arith::MulIOp::create(b, loc, step, c(kUnroll));
  Value unrolledSpan = arith::MulIOp::create(
      b, loc, arith::DivSIOp::create(b, loc, count, c(kUnroll)), unrolledStep);
  Value unrolledEnd = arith::AddIOp::create(b, loc, begin, unrolledSpan);
  auto unrolled = scf::ForOp::create(
      b, loc, begin, unrolledEnd, unrolledStep, starts,
      [&](OpBuilder &nested, Location nestedLoc, Value index,
          ValueRange accumulators) {
        SmallVector<Value> folded(accumulators);
        for (int64_t k = 0; k < kUnroll; ++k) {
          Value at =
              k == 0 ? index
                     : arith::AddIOp::create(
                           nested, nestedLoc, index,
                           arith::MulIOp::create(nested, nestedLoc, step,
                                                 arith::ConstantIndexOp::create(
                                                     nested, nestedLoc, k)));
          folded = foldOne(nested, at, folded);
        }
        scf::YieldOp::create(nested, nestedLoc, folded);
      });
  auto rest = scf::ForOp::create(
      b, loc, unrolledEnd, end, step, unrolled.getResults(),
      [&](OpBuilder &nested, Location nestedLoc, Value index,
          ValueRange accumulators) {
        scf::YieldOp::create(nested, nestedLoc,
                             foldOne(nested, index, accumulators));
      });
  return SmallVector<Value>(rest.getResults());
}

} // namespace mpt::gpuloops
