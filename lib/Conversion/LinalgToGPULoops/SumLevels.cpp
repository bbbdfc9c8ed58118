//===- SumLevels.cpp - sums over one dimension at a time merged -*- C++ -*-===//

#include "GPULoops.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mpt::gpuloops;

/// The op in `before`'s block that makes `buffer` zero before `before` (and
/// after `after` when given): a linalg.fill with 0.0, or a memref.copy from a
/// buffer filled so earlier (CSE shares one zero buffer among the inits).
static Operation *zeroInitOf(Value buffer, Operation *after,
                             Operation *before) {
  auto isZeroFill = [](Operation *op) {
    auto fill = dyn_cast<linalg::FillOp>(op);
    auto value =
        fill ? fill.getInputs()[0].getDefiningOp<arith::ConstantOp>() : nullptr;
    auto zero = value ? dyn_cast<FloatAttr>(value.getValue()) : FloatAttr();
    return zero && zero.getValue().isZero();
  };
  for (Operation *user : buffer.getUsers()) {
    if (user->getBlock() != before->getBlock() ||
        !user->isBeforeInBlock(before) ||
        (after && !after->isBeforeInBlock(user)))
      continue;
    if (isZeroFill(user) &&
        cast<linalg::FillOp>(user).getOutputs()[0] == buffer)
      return user;
    auto copy = dyn_cast<memref::CopyOp>(user);
    if (!copy || copy.getTarget() != buffer)
      continue;
    for (Operation *sourceUser : copy.getSource().getUsers())
      if (isZeroFill(sourceUser) &&
          sourceUser->getBlock() == copy->getBlock() &&
          sourceUser->isBeforeInBlock(copy))
        return copy;
  }
  return nullptr;
}

/// Whether `buffer` is made zero before `use` and only read in between.
static bool zeroUntil(Value buffer, Operation *use) {
  Operation *init = zeroInitOf(buffer, nullptr, use);
  if (!init)
    return false;
  return llvm::all_of(buffer.getUsers(), [&](Operation *user) {
    if (user == init || user == use || user->getBlock() != use->getBlock() ||
        user->isBeforeInBlock(init) || use->isBeforeInBlock(user))
      return true;
    auto copy = dyn_cast<memref::CopyOp>(user);
    return copy && copy.getSource() == buffer && copy.getTarget() != buffer;
  });
}

/// Whether `op` sums, with one arith.addf per output, a term that does not
/// depend on the outputs into each of them.
static bool accumulatesSums(linalg::GenericOp op) {
  Block *body = op.getBody();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  for (auto [result, accumulator] :
       llvm::zip(yield.getValues(), op.getRegionOutputArgs())) {
    auto add = result.getDefiningOp<arith::AddFOp>();
    if (!add || !accumulator.hasOneUse() ||
        (add.getLhs() != accumulator && add.getRhs() != accumulator))
      return false;
    Value term = add.getLhs() == accumulator ? add.getRhs() : add.getLhs();
    for (BlockArgument output : op.getRegionOutputArgs())
      if (term == output)
        return false;
  }
  return true;
}

namespace {
/// A chain of sums matched by matchSumLevels: the level that sums each of
/// `first`'s partial sums (in output order), the copies of zeros into those
/// partials, the partials' buffers, and the position in the partials' shape
/// and the loop dimension of `first` that the levels sum over.
struct SumLevels {
  SmallVector<linalg::GenericOp> levels;
  SmallVector<Operation *> erased;
  // The partial sums' buffers, and the zero buffers they were copied from.
  llvm::SetVector<Value> buffers;
  int64_t summedPosition = 0;
  unsigned summedDim = 0;
};
} // namespace

/// The one generic after `first` in its block that sums `partial` (made zero
/// by `partialInit` and written by `first`) over one dimension into a
/// zero-filled buffer; null if there is none or anything else reads it.
static linalg::GenericOp levelSumming(linalg::GenericOp first, Value partial,
                                      Operation *partialInit) {
  linalg::GenericOp level;
  for (Operation *user : partial.getUsers()) {
    if (user == first || user == partialInit || isa<memref::DeallocOp>(user))
      continue;
    // Copies of the zeros it held before `first` (a shared zero buffer).
    auto copy = dyn_cast<memref::CopyOp>(user);
    if (copy && copy.getSource() == partial &&
        copy->getBlock() == first->getBlock() && copy->isBeforeInBlock(first))
      continue;
    auto consumer = dyn_cast<linalg::GenericOp>(user);
    if (level || !consumer)
      return nullptr;
    level = consumer;
  }
  if (!partialInit || !level || level->getBlock() != first->getBlock() ||
      !first->isBeforeInBlock(level) || level.getNumDpsInputs() != 1 ||
      level.getNumDpsInits() != 1 || level.getDpsInputs()[0] != partial ||
      !level.getMatchingIndexingMap(level.getDpsInputOperand(0)).isIdentity() ||
      level.getNumReductionLoops() != 1 || !accumulatesSums(level) ||
      !zeroUntil(level.getDpsInits()[0], level))
    return nullptr;
  return level;
}

/// The levels that sum every partial sum `first` writes, all over the same
/// position of the partials and the same loop dimension of `first`.
static std::optional<SumLevels> matchSumLevels(IRRewriter &rewriter,
                                               linalg::GenericOp first) {
  SumLevels chain;
  std::optional<int64_t> summedPosition;
  std::optional<unsigned> summedDim;
  for (OpOperand &output : first.getDpsInitsMutable()) {
    Value partial = output.get();
    auto alloc = partial.getDefiningOp<memref::AllocOp>();
    if (!alloc)
      return std::nullopt;
    Operation *partialInit = zeroInitOf(partial, nullptr, first);
    linalg::GenericOp level = levelSumming(first, partial, partialInit);
    if (!level)
      return std::nullopt;
    // The level's output map drops the one reduced position of the partial.
    int64_t position = level.getIteratorTypesArray().size();
    for (auto [index, iterator] :
         llvm::enumerate(level.getIteratorTypesArray()))
      if (iterator == utils::IteratorType::reduction)
        position = index;
    AffineMap partialIdentity =
        rewriter.getMultiDimIdentityMap(level.getNumLoops());
    if (level.getMatchingIndexingMap(level.getDpsInitOperand(0)) !=
        partialIdentity.dropResult(position))
      return std::nullopt;
    AffineMap partialMap = first.getMatchingIndexingMap(&output);
    auto dim = dyn_cast<AffineDimExpr>(partialMap.getResult(position));
    if (!dim || (summedPosition && *summedPosition != position) ||
        (summedDim && *summedDim != dim.getPosition()))
      return std::nullopt;
    summedPosition = position;
    summedDim = dim.getPosition();
    chain.levels.push_back(level);
    if (isa<memref::CopyOp>(partialInit))
      chain.erased.push_back(partialInit);
    chain.buffers.insert(partial);
  }
  if (chain.levels.empty())
    return std::nullopt;
  chain.summedPosition = *summedPosition;
  chain.summedDim = *summedDim;
  return chain;
}

/// Whether `first` may move down to `last`: nothing in between may write
/// what it reads (only allocations, constants, the levels and fills or
/// copies of other buffers are there).
static bool canSinkTo(linalg::GenericOp first,
                      ArrayRef<linalg::GenericOp> levels, Operation *last) {
  for (Operation *between = first->getNextNode(); between != last;
       between = between->getNextNode()) {
    if (isa<memref::AllocOp, arith::ConstantOp>(between) ||
        llvm::is_contained(levels, between))
      continue;
    Value written;
    if (auto fill = dyn_cast<linalg::FillOp>(between))
      written = fill.getOutputs()[0];
    else if (auto copy = dyn_cast<memref::CopyOp>(between))
      written = copy.getTarget();
    if (!written || llvm::is_contained(first.getDpsInputs(), written))
      return false;
    // The merged sum writes the levels' outputs only at `last`: none may be
    // read after its own level until then.
    if (auto copy = dyn_cast<memref::CopyOp>(between))
      if (llvm::any_of(levels, [&](linalg::GenericOp level) {
            return level.getDpsInits()[0] == copy.getSource() &&
                   level->isBeforeInBlock(copy);
          }))
        return false;
  }
  return true;
}

/// Erases each of `buffers` that is only zeroed and freed any more.
static void eraseDeadBuffers(IRRewriter &rewriter,
                             const llvm::SetVector<Value> &buffers) {
  for (Value buffer : buffers) {
    auto alloc = buffer.getDefiningOp<memref::AllocOp>();
    if (!alloc || !llvm::all_of(buffer.getUsers(), [&](Operation *user) {
          auto copy = dyn_cast<memref::CopyOp>(user);
          return isa<linalg::FillOp, memref::DeallocOp>(user) ||
                 (copy && copy.getTarget() == buffer);
        }))
      continue;
    for (Operation *user : llvm::make_early_inc_range(buffer.getUsers()))
      rewriter.eraseOp(user);
    rewriter.eraseOp(alloc);
  }
}

namespace mpt::gpuloops {

bool mergeSumLevels(IRRewriter &rewriter, linalg::GenericOp first) {
  if (!first.hasPureBufferSemantics() || first.getNumReductionLoops() == 0 ||
      !accumulatesSums(first))
    return false;
  std::optional<SumLevels> chain = matchSumLevels(rewriter, first);
  if (!chain)
    return false;
  linalg::GenericOp last = chain->levels.front();
  for (linalg::GenericOp level : chain->levels)
    if (last->isBeforeInBlock(level))
      last = level;
  if (!canSinkTo(first, chain->levels, last))
    return false;

  SmallVector<AffineMap> maps = first.getIndexingMapsArray();
  SmallVector<Value> outputs;
  for (auto [index, level] : llvm::enumerate(chain->levels)) {
    AffineMap &map = maps[first.getNumDpsInputs() + index];
    map = map.dropResult(chain->summedPosition);
    outputs.push_back(level.getDpsInits()[0]);
  }
  SmallVector<utils::IteratorType> iterators = first.getIteratorTypesArray();
  iterators[chain->summedDim] = utils::IteratorType::reduction;
  rewriter.setInsertionPoint(last);
  auto merged =
      linalg::GenericOp::create(rewriter, first.getLoc(), TypeRange(),
                                first.getDpsInputs(), outputs, maps, iterators);
  rewriter.inlineRegionBefore(first.getRegion(), merged.getRegion(),
                              merged.getRegion().end());
  for (linalg::GenericOp level : chain->levels)
    rewriter.eraseOp(level);
  rewriter.eraseOp(first);
  for (Operation *op : chain->erased)
    if (auto copy = dyn_cast<memref::CopyOp>(op))
      chain->buffers.insert(copy.getSource());
  for (Operation *op : chain->erased)
    rewriter.eraseOp(op);
  eraseDeadBuffers(rewriter, chain->buffers);
  return true;
}

} // namespace mpt::gpuloops
