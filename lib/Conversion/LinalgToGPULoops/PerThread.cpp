//===- PerThread.cpp - one GPU thread per output ----------------*- C++ -*-===//

#include "GPULoops.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mpt::gpuloops;

namespace {

/// An update that keeps its old value under a scalar condition: every output
/// is `select(condition, new, old)` (or `select(condition, old, new)`), where
/// `old` is read from the output's own buffer at the same point, as the
/// optimizer updates of state carried in place are (a skipped step keeps
/// everything). The condition, the value it has when the update writes, and
/// the selects with the new value of each.
struct KeptUnder {
  OpOperand *condition;
  bool writesWhen;
  llvm::SmallPtrSet<Operation *, 4> selects;
  SmallVector<Value> updated;
};

static std::optional<KeptUnder> matchKeptUnder(linalg::GenericOp op) {
  Block *body = op.getBody();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  std::optional<KeptUnder> kept;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    Value yielded =
        yield.getOperand(init.getOperandNumber() - op.getNumDpsInputs());
    auto select = yielded.getDefiningOp<arith::SelectOp>();
    if (!select || !op.getMatchingBlockArgument(&init).use_empty())
      return std::nullopt;
    auto condition = dyn_cast<BlockArgument>(select.getCondition());
    if (!condition || condition.getOwner() != body)
      return std::nullopt;
    OpOperand *conditionInput = &op->getOpOperand(condition.getArgNumber());
    if (!op.isDpsInput(conditionInput) ||
        op.getMatchingIndexingMap(conditionInput).getNumResults() != 0)
      return std::nullopt;
    auto readsOwnOutput = [&](Value value) {
      auto arg = dyn_cast<BlockArgument>(value);
      if (!arg || arg.getOwner() != body)
        return false;
      OpOperand *read = &op->getOpOperand(arg.getArgNumber());
      return op.isDpsInput(read) && read->get() == init.get() &&
             op.getMatchingIndexingMap(read) ==
                 op.getMatchingIndexingMap(&init);
    };
    std::optional<bool> writesWhen;
    if (readsOwnOutput(select.getFalseValue()))
      writesWhen = true;
    else if (readsOwnOutput(select.getTrueValue()))
      writesWhen = false;
    if (!writesWhen || (kept && (kept->condition != conditionInput ||
                                 kept->writesWhen != *writesWhen)))
      return std::nullopt;
    if (!kept)
      kept = KeptUnder{conditionInput, *writesWhen, {}, {}};
    kept->selects.insert(select);
    kept->updated.push_back(*writesWhen ? select.getTrueValue()
                                        : select.getFalseValue());
  }
  return kept;
}

/// The updated values of `op` (matchKeptUnder) at loop point `ivs`. Nothing
/// is read or written where the update keeps its old values (on a skipped
/// step): the body runs, without its selects, under a branch that is uniform
/// over the grid, and `b` is left inside it.
static SmallVector<Value> buildUnlessKept(OpBuilder &b, Location loc,
                                          linalg::GenericOp op,
                                          const KeptUnder &kept,
                                          ArrayRef<Value> ivs) {
  Block *body = op.getBody();
  Value condition = loadInput(b, loc, op, kept.condition, ivs);
  Value writes = condition;
  if (!kept.writesWhen)
    writes = arith::XOrIOp::create(b, loc, condition,
                                   arith::ConstantIntOp::create(b, loc, 1, 1));
  auto branch = scf::IfOp::create(b, loc, writes, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&branch.getThenRegion().front());
  IRMapping mapping;
  mapping.map(body->getArgument(kept.condition->getOperandNumber()), condition);
  loadInputs(b, loc, op, ivs, mapping);
  cloneBody(b, op, ivs, mapping, kept.selects);
  return llvm::map_to_vector(kept.updated, [&](Value value) {
    return mapping.lookupOrDefault(value);
  });
}

} // namespace

namespace mpt::gpuloops {

void lowerPerThread(OpBuilder &b, linalg::GenericOp op,
                    ArrayRef<int64_t> ranges, const IterationSpace &space,
                    const AbsorbedOps &absorbed, int64_t blockSize) {
  Location loc = op.getLoc();
  const SmallVector<unsigned> &parallelDims = space.parallelDims;
  const SmallVector<unsigned> &reductionDims = space.reductionDims;
  int64_t total = space.points, length = space.length;
  int64_t threads = std::min(blockSize, std::max<int64_t>(total, 1));
  int64_t blocks = llvm::divideCeil(total, threads);
  auto c = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value zero = c(0), one = c(1);
  Value linear =
      buildGuardedThreads(b, loc, blocks, std::nullopt, threads, total).first;

  SmallVector<Value> ivs(ranges.size());
  delinearize(b, loc, linear, parallelDims, ranges, ivs);
  Block *body = op.getBody();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  // Outputs are read only where the body uses them (a pure write is no
  // read-modify-write) or where a reduction folds into them.
  SmallVector<Value> current;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    BlockArgument arg = body->getArgument(init.getOperandNumber());
    current.push_back(arg.use_empty() && reductionDims.empty()
                          ? Value()
                          : loadOutput(b, loc, op, init, ivs, absorbed));
  }
  // The body at `pointIvs` with the outputs' values `outputs`.
  auto bodyAt = [&](OpBuilder &nb, ArrayRef<Value> pointIvs,
                    ValueRange outputs) {
    IRMapping mapping;
    loadInputs(nb, loc, op, pointIvs, mapping);
    for (auto [init, value] : llvm::zip(op.getDpsInitsMutable(), outputs))
      if (value)
        mapping.map(body->getArgument(init.getOperandNumber()), value);
    cloneBody(nb, op, pointIvs, mapping, llvm::SmallPtrSet<Operation *, 1>());
    return llvm::map_to_vector(yield.getValues(), [&](Value value) {
      return mapping.lookupOrDefault(value);
    });
  };
  SmallVector<Value> results;
  std::optional<KeptUnder> kept;
  if (reductionDims.empty())
    kept = matchKeptUnder(op);
  if (kept) {
    results = buildUnlessKept(b, loc, op, *kept, ivs);
  } else if (reductionDims.empty()) {
    results = bodyAt(b, ivs, current);
  } else {
    auto loop = scf::ForOp::create(
        b, loc, zero, c(length), one, current,
        [&](OpBuilder &nb, Location, Value r, ValueRange outputs) {
          SmallVector<Value> pointIvs(ivs);
          delinearize(nb, loc, r, reductionDims, ranges, pointIvs);
          scf::YieldOp::create(nb, loc, bodyAt(nb, pointIvs, outputs));
        });
    results = SmallVector<Value>(loop.getResults());
  }
  for (auto [init, value] : llvm::zip(op.getDpsInitsMutable(), results))
    storeOutput(b, loc, op, init, ivs, value, absorbed);
}

LogicalResult lowerForallPerThread(OpBuilder &b, scf::ForallOp forall,
                                   int64_t blockSize) {
  if (!forall.getOutputs().empty())
    return forall.emitOpError("must be on memrefs (bufferize before "
                              "mpt-convert-linalg-to-gpu-loops)");
  ArrayRef<int64_t> upper = forall.getStaticUpperBound();
  if (llvm::any_of(forall.getStaticLowerBound(),
                   [](int64_t v) { return v != 0; }) ||
      llvm::any_of(forall.getStaticStep(), [](int64_t v) { return v != 1; }) ||
      ShapedType::isDynamicShape(upper))
    return forall.emitOpError("needs static bounds from 0 in steps of 1 for "
                              "the GPU lowering");
  int64_t total = 1;
  for (int64_t size : upper)
    total *= size;
  int64_t threads = std::min(blockSize, std::max<int64_t>(total, 1));
  Location loc = forall.getLoc();
  b.setInsertionPoint(forall);
  Value linear = buildGuardedThreads(b, loc, llvm::divideCeil(total, threads),
                                     std::nullopt, threads, total)
                     .first;
  SmallVector<Value> ivs(upper.size());
  delinearize(b, loc, linear,
              llvm::to_vector(llvm::seq<unsigned>(0, upper.size())), upper,
              ivs);
  IRMapping mapping;
  mapping.map(forall.getInductionVars(), ivs);
  for (Operation &inner : forall.getBody()->without_terminator())
    b.clone(inner, mapping);
  forall.erase();
  return success();
}

} // namespace mpt::gpuloops
