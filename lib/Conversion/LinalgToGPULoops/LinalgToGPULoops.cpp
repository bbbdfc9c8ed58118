//===- LinalgToGPULoops.cpp - mpt-convert-linalg-to-gpu-loops ---*- C++ -*-===//
//
// Every generated GPU kernel is first an scf.parallel nest with
// #gpu.loop_dim_map attributes: plain SCF that also runs on the CPU, so the
// kernels' arithmetic is tested in CI without a GPU, and that
// convert-parallel-loops-to-gpu maps to gpu.launch without further choices.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"

namespace mpt {
#define GEN_PASS_DEF_MPTCONVERTLINALGTOGPULOOPS
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

using gpu::Processor;

/// Marks `loop` (one induction variable per entry of `processors`) as mapped
/// to those GPU processors, identity map and bound.
static void mapLoop(OpBuilder &b, scf::ParallelOp loop,
                    ArrayRef<Processor> processors) {
  AffineMap identity = b.getDimIdentityMap();
  SmallVector<gpu::ParallelLoopDimMappingAttr> mapping;
  for (Processor processor : processors)
    mapping.push_back(gpu::ParallelLoopDimMappingAttr::get(
        b.getContext(), processor, identity, identity));
  (void)gpu::setMappingAttr(loop, mapping);
}

/// The loop indices of `op` for a linear index over the loop dimensions
/// `dims` (row-major: the last of `dims` varies fastest), written into `ivs`.
static void delinearize(OpBuilder &b, Location loc, Value linear,
                        ArrayRef<unsigned> dims, ArrayRef<int64_t> ranges,
                        MutableArrayRef<Value> ivs) {
  if (dims.empty())
    return;
  SmallVector<int64_t> basis;
  for (unsigned dim : dims)
    basis.push_back(ranges[dim]);
  if (dims.size() == 1) {
    ivs[dims[0]] = linear;
    return;
  }
  auto split = affine::AffineDelinearizeIndexOp::create(b, loc, linear, basis,
                                                        /*hasOuterBound=*/true);
  for (auto [dim, index] : llvm::zip(dims, split.getResults()))
    ivs[dim] = index;
}

/// The indices into an operand with indexing map `map` at loop point `ivs`.
static SmallVector<Value> applyMap(OpBuilder &b, Location loc, AffineMap map,
                                   ArrayRef<Value> ivs) {
  SmallVector<Value> indices;
  for (unsigned i = 0, e = map.getNumResults(); i < e; ++i)
    indices.push_back(affine::makeComposedAffineApply(b, loc, map.getSubMap(i),
                                                      getAsOpFoldResult(ivs))
                          .getResult());
  return indices;
}

/// The element of `op`'s input `input` at loop point `ivs`.
static Value loadInput(OpBuilder &b, Location loc, linalg::GenericOp op,
                       OpOperand *input, ArrayRef<Value> ivs) {
  Value value = input->get();
  if (isa<MemRefType>(value.getType()))
    return memref::LoadOp::create(
        b, loc, value, applyMap(b, loc, op.getMatchingIndexingMap(input), ivs));
  if (auto hostLoad = value.getDefiningOp<memref::LoadOp>())
    // A scalar operand read from a buffer (a 0-d tensor.extract, such as the
    // found-inf flag): read it in the kernel, where the buffer lives.
    return b.clone(*hostLoad)->getResult(0);
  return value;
}

/// Loads the elements of `op`'s inputs at loop point `ivs` into `mapping`
/// (block arguments to values) but for those already mapped.
static void loadInputs(OpBuilder &b, Location loc, linalg::GenericOp op,
                       ArrayRef<Value> ivs, IRMapping &mapping) {
  Block *body = op.getBody();
  for (OpOperand *input : op.getDpsInputOperands()) {
    BlockArgument arg = body->getArgument(input->getOperandNumber());
    if (!arg.use_empty() && !mapping.contains(arg))
      mapping.map(arg, loadInput(b, loc, op, input, ivs));
  }
}

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

/// Clones the body of `op` except its terminator and the ops in `skip`,
/// reading `linalg.index` from `ivs`.
static void cloneBody(OpBuilder &b, linalg::GenericOp op, ArrayRef<Value> ivs,
                      IRMapping &mapping,
                      const llvm::SmallPtrSetImpl<Operation *> &skip) {
  for (Operation &inner : op.getBody()->without_terminator()) {
    if (skip.contains(&inner))
      continue;
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      mapping.map(index.getResult(), ivs[index.getDim()]);
      continue;
    }
    b.clone(inner, mapping);
  }
}

/// A generic's parallel and reduction dimensions and their sizes: `points`
/// outputs of `length` elements each.
struct IterationSpace {
  SmallVector<unsigned> parallelDims, reductionDims;
  int64_t points = 1, length = 1;
};

static IterationSpace getIterationSpace(linalg::GenericOp op,
                                        ArrayRef<int64_t> ranges) {
  IterationSpace space;
  op.getParallelDims(space.parallelDims);
  op.getReductionDims(space.reductionDims);
  for (unsigned dim : space.parallelDims)
    space.points *= ranges[dim];
  for (unsigned dim : space.reductionDims)
    space.length *= ranges[dim];
  return space;
}

/// Builds a grid of `blocks` blocks (times `parts` over block_y when given)
/// of `threads` threads, one per index below `total` (the last block
/// guarded), and leaves `b` inside the guard. Returns the thread's index and
/// its block_y index (null without `parts`).
static std::pair<Value, Value> buildGuardedThreads(OpBuilder &b, Location loc,
                                                   int64_t blocks,
                                                   std::optional<int64_t> parts,
                                                   int64_t threads,
                                                   int64_t total) {
  auto c = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value zero = c(0), one = c(1);
  scf::ParallelOp grid;
  if (parts) {
    grid = scf::ParallelOp::create(b, loc, ValueRange{zero, zero},
                                   ValueRange{c(blocks), c(*parts)},
                                   ValueRange{one, one});
    mapLoop(b, grid, {Processor::BlockX, Processor::BlockY});
  } else {
    grid = scf::ParallelOp::create(b, loc, zero, c(blocks), one);
    mapLoop(b, grid, Processor::BlockX);
  }
  b.setInsertionPointToStart(grid.getBody());
  auto block = scf::ParallelOp::create(b, loc, zero, c(threads), one);
  mapLoop(b, block, Processor::ThreadX);
  b.setInsertionPointToStart(block.getBody());
  Value linear = arith::AddIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, grid.getInductionVars()[0], c(threads)),
      block.getInductionVars()[0]);
  Value inBounds = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                         linear, c(total));
  auto guard = scf::IfOp::create(b, loc, inBounds, /*withElseRegion=*/false);
  b.setInsertionPointToStart(&guard.getThenRegion().front());
  return {linear, parts ? grid.getInductionVars()[1] : Value()};
}

/// Lowers a generic with one thread per point of its parallel dimensions,
/// `blockSize` threads per block, the last block guarded. Reduction
/// dimensions, if any (small ones: pooling windows, a few classes), are
/// folded sequentially by each thread in the CPU lowering's order.
static void lowerPerThread(OpBuilder &b, linalg::GenericOp op,
                           ArrayRef<int64_t> ranges,
                           const IterationSpace &space, int64_t blockSize) {
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
    current.push_back(
        arg.use_empty() && reductionDims.empty()
            ? Value()
            : memref::LoadOp::create(
                  b, loc, init.get(),
                  applyMap(b, loc, op.getMatchingIndexingMap(&init), ivs))
                  .getResult());
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
    // Nothing is read or written where the update keeps its old values (on a
    // skipped step): the body runs, without its selects, under a branch that
    // is uniform over the grid.
    Value condition = loadInput(b, loc, op, kept->condition, ivs);
    Value writes = condition;
    if (!kept->writesWhen)
      writes = arith::XOrIOp::create(
          b, loc, condition, arith::ConstantIntOp::create(b, loc, 1, 1));
    auto branch = scf::IfOp::create(b, loc, writes, /*withElseRegion=*/false);
    b.setInsertionPointToStart(&branch.getThenRegion().front());
    IRMapping mapping;
    mapping.map(body->getArgument(kept->condition->getOperandNumber()),
                condition);
    loadInputs(b, loc, op, ivs, mapping);
    cloneBody(b, op, ivs, mapping, kept->selects);
    for (Value value : kept->updated)
      results.push_back(mapping.lookupOrDefault(value));
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
    memref::StoreOp::create(
        b, loc, value, init.get(),
        applyMap(b, loc, op.getMatchingIndexingMap(&init), ivs));
}

/// What a reduction output of a generic folds with: the combiner op
/// `combiner(element, accumulator)`, its neutral element, and which operand
/// is the accumulator. A subtracting reduction (acc - x) folds its elements
/// by subtraction but adds partial results: (init - a) + (0 - b).
struct Reduction {
  Operation *combiner;
  TypedAttr neutral;
  unsigned accumulatorOperand;
  bool subtracts;
};

/// Matches every output of `op` as a single-op reduction whose accumulator
/// (the output's block argument) feeds only the combiner.
static FailureOr<SmallVector<Reduction>> matchReductions(linalg::GenericOp op) {
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

/// matchReductions, with an error on `op` when it fails.
static FailureOr<SmallVector<Reduction>>
matchReductionsOrReport(linalg::GenericOp op) {
  FailureOr<SmallVector<Reduction>> reductions = matchReductions(op);
  if (failed(reductions))
    op.emitOpError("has a reduction that is not a single combiner op with a "
                   "neutral element; cannot map it to a parallel GPU "
                   "reduction");
  return reductions;
}

/// Folds the combiners of `reductions` into `accumulators` with `elements`,
/// or, with `partials`, merges partial results.
static SmallVector<Value> combine(OpBuilder &b, ArrayRef<Reduction> reductions,
                                  ValueRange accumulators, ValueRange elements,
                                  bool partials = false) {
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

/// The type in which threads exchange partial values of `reduction`: warp
/// shuffles move 32-bit values only. i1 widens to i32 exactly; f16/bf16
/// max/min widen to f32 exactly; an i64 count of i1 elements fits in i32
/// when the reduction has fewer than 2^31 elements. Null if none is exact.
static Type carrierType(const Reduction &reduction, int64_t length) {
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

/// Converts `value` between a reduction's type and its carrier type.
static Value convert(OpBuilder &b, Location loc, Value value, Type to) {
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

/// Builds `scf.parallel (%t) = (0) to (threads)` mapped to thread_x whose
/// threads compute partial values with `perThread` (from the neutral
/// element), combined block-wide by scf.reduce in `carrier`; returns the
/// block's total in the reduction's type.
static Value
buildBlockReduction(OpBuilder &b, Location loc, int64_t threads,
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

/// Folds `[begin, end)` in steps of `step` into `starts` with `foldOne`, in
/// that order. Four elements per iteration, then the rest one by one: the
/// four loads do not depend on each other, so a thread has them in flight
/// together instead of waiting for each in turn (one load in flight per
/// thread leaves a large reduction at a fraction of the memory bandwidth).
static SmallVector<Value> buildStridedFold(
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

/// Lowers a generic with reduction dimensions to one block per point of its
/// parallel dimensions (times `split` blocks when split > 1, combined by a
/// second kernel through a temporary buffer), threads folding strided slices
/// of the reduction space, then a block-wide scf.reduce.
static LogicalResult lowerReduction(OpBuilder &b, linalg::GenericOp op,
                                    ArrayRef<int64_t> ranges,
                                    const IterationSpace &space,
                                    int64_t blockSize, int64_t minBlocks) {
  FailureOr<SmallVector<Reduction>> reductions = matchReductionsOrReport(op);
  if (failed(reductions))
    return failure();
  Location loc = op.getLoc();
  const SmallVector<unsigned> &parallelDims = space.parallelDims;
  const SmallVector<unsigned> &reductionDims = space.reductionDims;
  int64_t points = space.points, length = space.length;
  int64_t threads = std::min<int64_t>(
      blockSize, llvm::PowerOf2Ceil(std::max<int64_t>(length, 32)));
  // Few outputs and a long reduction: spread each over `split` blocks so
  // that the grid fills the device, each thread still folding >= 8 elements.
  // Up to 16 * minBlocks blocks in all: about one full wave of 256-thread
  // blocks on an H200 (132 SMs, 8 such blocks each); fewer leave a reduction
  // short of loads in flight.
  int64_t split = 1;
  if (points < minBlocks)
    split = std::clamp<int64_t>(length / (8 * threads), 1,
                                llvm::divideCeil(16 * minBlocks, points));

  auto c = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value zero = c(0), one = c(1);
  llvm::SmallPtrSet<Operation *, 4> combiners;
  for (const Reduction &reduction : *reductions)
    combiners.insert(reduction.combiner);
  SmallVector<Value> outputs = op.getDpsInits();
  SmallVector<Value> elementsOf; // the value each combiner folds in
  for (const Reduction &reduction : *reductions)
    elementsOf.push_back(
        reduction.combiner->getOperand(1 - reduction.accumulatorOperand));

  // The body at one point of the iteration space, minus the combiners: the
  // elements to fold in.
  auto elementsAt = [&](OpBuilder &nb, ArrayRef<Value> ivs) {
    IRMapping mapping;
    loadInputs(nb, loc, op, ivs, mapping);
    cloneBody(nb, op, ivs, mapping, combiners);
    SmallVector<Value> elements;
    for (Value element : elementsOf)
      elements.push_back(mapping.lookupOrDefault(element));
    return elements;
  };
  auto outputIndices = [&](OpBuilder &nb, unsigned i, ArrayRef<Value> ivs) {
    return applyMap(nb, loc,
                    op.getIndexingMapsArray()[op.getNumDpsInputs() + i], ivs);
  };
  // One kernel (or two, when split) per output: convert-parallel-loops-to-gpu
  // maps one scf.reduce of one thread loop per block loop to gpu.all_reduce.
  // The body's ops that output `i` does not need are dead in its fold loop
  // and removed later.
  for (unsigned i = 0, e = reductions->size(); i < e; ++i) {
    const Reduction &reduction = (*reductions)[i];
    Type carrier = carrierType(reduction, length);
    if (!carrier)
      return op.emitOpError("reduces ")
             << reduction.neutral.getType() << " with "
             << reduction.combiner->getName()
             << ", which the GPU block reduction cannot exchange exactly "
                "(warp shuffles carry 32-bit values)";
    auto foldElements = [&](OpBuilder &fb, ArrayRef<Value> ivs, Value r,
                            ValueRange accumulators) {
      SmallVector<Value> pointIvs(ivs);
      delinearize(fb, loc, r, reductionDims, ranges, pointIvs);
      return combine(fb, (*reductions)[i], accumulators,
                     elementsAt(fb, pointIvs)[i]);
    };
    auto neutralValue = [&](OpBuilder &nb) {
      return arith::ConstantOp::create(nb, loc, reduction.neutral).getResult();
    };
    Value partialBuffer;
    if (split > 1) {
      partialBuffer = memref::AllocOp::create(
          b, loc,
          MemRefType::get({points, split}, reduction.neutral.getType()));
      // Pass 1: block (point, part) folds elements part*threads + t,
      // stepping by split*threads, into partial[point, part].
      auto grid = scf::ParallelOp::create(b, loc, ValueRange{zero, zero},
                                          ValueRange{c(points), c(split)},
                                          ValueRange{one, one});
      mapLoop(b, grid, {Processor::BlockX, Processor::BlockY});
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(grid.getBody());
      Value point = grid.getInductionVars()[0];
      Value part = grid.getInductionVars()[1];
      SmallVector<Value> ivs(ranges.size());
      delinearize(b, loc, point, parallelDims, ranges, ivs);
      Value total = buildBlockReduction(
          b, loc, threads, reduction, carrier,
          [&](OpBuilder &nb, Value thread) {
            Value begin = arith::AddIOp::create(
                nb, loc, arith::MulIOp::create(nb, loc, part, c(threads)),
                thread);
            return buildStridedFold(
                nb, loc, begin, c(length), c(split * threads), neutralValue(nb),
                [&](OpBuilder &fb, Value r, ValueRange accumulators) {
                  return foldElements(fb, ivs, r, accumulators);
                })[0];
          });
      memref::StoreOp::create(b, loc, total, partialBuffer,
                              ValueRange{point, part});
    }

    // The final pass: block `point` folds the reduction (or, after a split,
    // the partial values), then the output's current value, into output i.
    auto grid = scf::ParallelOp::create(b, loc, zero, c(points), one);
    mapLoop(b, grid, Processor::BlockX);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(grid.getBody());
    Value point = grid.getInductionVars()[0];
    SmallVector<Value> ivs(ranges.size());
    delinearize(b, loc, point, parallelDims, ranges, ivs);
    // Every thread reads the output before the reduction's barriers and
    // writes the same total after them.
    Value current =
        memref::LoadOp::create(b, loc, outputs[i], outputIndices(b, i, ivs));
    int64_t finalThreads =
        split > 1 ? std::min<int64_t>(threads, llvm::PowerOf2Ceil(split))
                  : threads;
    Value total = buildBlockReduction(
        b, loc, finalThreads, reduction, carrier,
        [&](OpBuilder &nb, Value thread) {
          if (split > 1)
            return buildStridedFold(
                nb, loc, thread, c(split), c(finalThreads), neutralValue(nb),
                [&](OpBuilder &fb, Value part, ValueRange accumulators) {
                  Value partial = memref::LoadOp::create(
                      fb, loc, partialBuffer, ValueRange{point, part});
                  return combine(fb, reduction, accumulators, partial,
                                 /*partials=*/true);
                })[0];
          return buildStridedFold(
              nb, loc, thread, c(length), c(threads), neutralValue(nb),
              [&](OpBuilder &fb, Value r, ValueRange accumulators) {
                return foldElements(fb, ivs, r, accumulators);
              })[0];
        });
    Value result = combine(b, reduction, current, total, /*partials=*/true)[0];
    memref::StoreOp::create(b, loc, result, outputs[i],
                            outputIndices(b, i, ivs));
    if (partialBuffer) {
      b.setInsertionPointAfter(grid);
      memref::DeallocOp::create(b, loc, partialBuffer);
    }
  }
  return success();
}

/// Whether `op` reduces over outer dimensions into outputs indexed by its
/// innermost loop dimension (a column sum: a bias gradient, a norm's weight
/// gradient), with every input read contiguously along that dimension or
/// not at all. One thread per output then reads the rows of consecutive
/// columns, and a warp reads consecutive addresses; a block per output would
/// read down one column, a row apart per thread.
static bool isColumnReduction(linalg::GenericOp op,
                              ArrayRef<utils::IteratorType> iterators) {
  if (iterators.empty() || iterators.back() != utils::IteratorType::parallel)
    return false;
  unsigned innermost = iterators.size() - 1;
  Block *body = op.getBody();
  for (OpOperand *input : op.getDpsInputOperands()) {
    if (body->getArgument(input->getOperandNumber()).use_empty())
      continue;
    auto type = dyn_cast<MemRefType>(input->get().getType());
    if (!type)
      continue;
    AffineMap map = op.getMatchingIndexingMap(input);
    bool readsInnermost =
        map.getNumResults() > 0 &&
        map.getResults().back() == getAffineDimExpr(innermost, op.getContext());
    int64_t uses = llvm::count_if(map.getResults(), [&](AffineExpr result) {
      return result.isFunctionOfDim(innermost);
    });
    if (uses == 0)
      continue; // the same element for a whole warp: a broadcast
    SmallVector<int64_t> strides;
    int64_t offset;
    if (!readsInnermost || uses != 1 ||
        failed(type.getStridesAndOffset(strides, offset)) ||
        strides.back() != 1)
      return false;
  }
  return true;
}

/// Lowers a column reduction (isColumnReduction) to one thread per output,
/// `blockSize` threads per block over consecutive outputs, each thread
/// folding all outputs of `op` at once. A long reduction over few blocks is
/// split into `split` consecutive parts over block_y, at least 32 rows each:
/// a first kernel folds each part from the neutral element into a
/// [split x outputs] buffer, a second folds the parts, in order, into the
/// outputs. Unsplit, each output folds its rows in the CPU lowering's order.
static LogicalResult lowerColumnReduction(OpBuilder &b, linalg::GenericOp op,
                                          ArrayRef<int64_t> ranges,
                                          const IterationSpace &space,
                                          int64_t blockSize,
                                          int64_t minBlocks) {
  FailureOr<SmallVector<Reduction>> reductions = matchReductionsOrReport(op);
  if (failed(reductions))
    return failure();
  constexpr int64_t kMinPartLength = 32;
  Location loc = op.getLoc();
  const SmallVector<unsigned> &parallelDims = space.parallelDims;
  const SmallVector<unsigned> &reductionDims = space.reductionDims;
  int64_t points = space.points, length = space.length;
  int64_t threads = std::min(blockSize, points);
  int64_t blocks = llvm::divideCeil(points, threads);
  // As lowerReduction: up to about one wave of blocks (16 * minBlocks).
  int64_t split = std::clamp<int64_t>(length / kMinPartLength, 1,
                                      llvm::divideCeil(16 * minBlocks, blocks));
  int64_t partLength = llvm::divideCeil(length, split);
  split = llvm::divideCeil(length, partLength);

  auto c = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value zero = c(0), one = c(1);
  llvm::SmallPtrSet<Operation *, 4> combiners;
  SmallVector<Value> elementsOf; // the value each combiner folds in
  for (const Reduction &reduction : *reductions) {
    combiners.insert(reduction.combiner);
    elementsOf.push_back(
        reduction.combiner->getOperand(1 - reduction.accumulatorOperand));
  }
  // Folds the rows [begin, end) at the output point `ivs` into
  // `accumulators`, four independent loads in flight per iteration.
  auto foldRows = [&](OpBuilder &nb, ArrayRef<Value> ivs, Value begin,
                      Value end, ValueRange accumulators) {
    return buildStridedFold(
        nb, loc, begin, end, one, accumulators,
        [&](OpBuilder &fb, Value r, ValueRange folded) {
          SmallVector<Value> pointIvs(ivs);
          delinearize(fb, loc, r, reductionDims, ranges, pointIvs);
          IRMapping mapping;
          loadInputs(fb, loc, op, pointIvs, mapping);
          cloneBody(fb, op, pointIvs, mapping, combiners);
          SmallVector<Value> elements =
              llvm::map_to_vector(elementsOf, [&](Value element) {
                return mapping.lookupOrDefault(element);
              });
          return combine(fb, *reductions, folded, elements);
        });
  };
  // Builds a thread per output (and `parts` over block_y) and calls
  // `perOutput` in the guarded body with the output's loop indices, its
  // linear index and the part.
  auto forEachOutput =
      [&](int64_t parts,
          function_ref<void(OpBuilder &, ArrayRef<Value>, Value, Value)>
              perOutput) {
        OpBuilder::InsertionGuard guard(b);
        auto [point, part] =
            buildGuardedThreads(b, loc, blocks, parts, threads, points);
        SmallVector<Value> ivs(ranges.size());
        delinearize(b, loc, point, parallelDims, ranges, ivs);
        perOutput(b, ivs, point, part);
      };
  auto outputIndices = [&](OpBuilder &nb, OpOperand &init,
                           ArrayRef<Value> ivs) {
    return applyMap(nb, loc, op.getMatchingIndexingMap(&init), ivs);
  };

  SmallVector<Value> partials;
  if (split > 1) {
    for (const Reduction &reduction : *reductions)
      partials.push_back(memref::AllocOp::create(
          b, loc,
          MemRefType::get({split, points}, reduction.neutral.getType())));
    forEachOutput(split, [&](OpBuilder &nb, ArrayRef<Value> ivs, Value point,
                             Value part) {
      Value begin = arith::MulIOp::create(nb, loc, part, c(partLength));
      Value end = arith::MinSIOp::create(
          nb, loc, arith::AddIOp::create(nb, loc, begin, c(partLength)),
          c(length));
      SmallVector<Value> neutrals;
      for (const Reduction &reduction : *reductions)
        neutrals.push_back(
            arith::ConstantOp::create(nb, loc, reduction.neutral));
      for (auto [partial, folded] :
           llvm::zip(partials, foldRows(nb, ivs, begin, end, neutrals)))
        memref::StoreOp::create(nb, loc, folded, partial,
                                ValueRange{part, point});
    });
  }
  forEachOutput(1, [&](OpBuilder &nb, ArrayRef<Value> ivs, Value point, Value) {
    SmallVector<Value> current;
    for (OpOperand &init : op.getDpsInitsMutable())
      current.push_back(memref::LoadOp::create(nb, loc, init.get(),
                                               outputIndices(nb, init, ivs)));
    SmallVector<Value> totals;
    if (partials.empty()) {
      totals = foldRows(nb, ivs, zero, c(length), current);
    } else {
      auto loop = scf::ForOp::create(
          nb, loc, zero, c(split), one, current,
          [&](OpBuilder &fb, Location, Value part, ValueRange accumulators) {
            SmallVector<Value> parts =
                llvm::map_to_vector(partials, [&](Value partial) -> Value {
                  return memref::LoadOp::create(fb, loc, partial,
                                                ValueRange{part, point});
                });
            scf::YieldOp::create(fb, loc,
                                 combine(fb, *reductions, accumulators, parts,
                                         /*partials=*/true));
          });
      totals = SmallVector<Value>(loop.getResults());
    }
    for (auto [init, total] : llvm::zip(op.getDpsInitsMutable(), totals))
      memref::StoreOp::create(nb, loc, total, init.get(),
                              outputIndices(nb, init, ivs));
  });
  for (Value partial : partials)
    memref::DeallocOp::create(b, loc, partial);
  return success();
}

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

/// Merges a chain of sums over one dimension at a time (a level summing the
/// previous level's partial sums into a zero-filled buffer, as the tensor
/// lowering writes statistics) into one generic over all the summed
/// dimensions. The block reductions reorder every sum anyway, and the single
/// reduction maps to full blocks (split over two passes when the outputs are
/// few) where the levels would be a column reduction with strided reads and
/// small per-thread loops, each with its own kernel and buffers.
/// Returns whether it merged `first` with its consumers.
static bool mergeSumLevels(IRRewriter &rewriter, linalg::GenericOp first) {
  if (!first.hasPureBufferSemantics() || first.getNumReductionLoops() == 0 ||
      !accumulatesSums(first))
    return false;
  SmallVector<linalg::GenericOp> levels;
  SmallVector<Operation *> erased;
  // The partial sums' buffers, and the zero buffers they were copied from.
  llvm::SetVector<Value> buffers;
  std::optional<int64_t> summedPosition;
  std::optional<unsigned> summedDim;
  for (OpOperand &output : first.getDpsInitsMutable()) {
    Value partial = output.get();
    auto alloc = partial.getDefiningOp<memref::AllocOp>();
    if (!alloc)
      return false;
    Operation *partialInit = zeroInitOf(partial, nullptr, first);
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
        return false;
      level = consumer;
    }
    if (!partialInit || !level || level->getBlock() != first->getBlock() ||
        !first->isBeforeInBlock(level) || level.getNumDpsInputs() != 1 ||
        level.getNumDpsInits() != 1 || level.getDpsInputs()[0] != partial ||
        !level.getMatchingIndexingMap(level.getDpsInputOperand(0))
             .isIdentity() ||
        level.getNumReductionLoops() != 1 || !accumulatesSums(level) ||
        !zeroUntil(level.getDpsInits()[0], level))
      return false;
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
      return false;
    AffineMap partialMap = first.getMatchingIndexingMap(&output);
    auto dim = dyn_cast<AffineDimExpr>(partialMap.getResult(position));
    if (!dim || (summedPosition && *summedPosition != position) ||
        (summedDim && *summedDim != dim.getPosition()))
      return false;
    summedPosition = position;
    summedDim = dim.getPosition();
    levels.push_back(level);
    if (isa<memref::CopyOp>(partialInit))
      erased.push_back(partialInit);
    buffers.insert(partial);
  }
  if (levels.empty())
    return false;
  linalg::GenericOp last = levels.front();
  for (linalg::GenericOp level : levels)
    if (last->isBeforeInBlock(level))
      last = level;
  // `first` moves down to `last`: nothing in between may write what it
  // reads (only allocations, constants, the levels and fills or copies of
  // other buffers are there).
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

  SmallVector<AffineMap> maps = first.getIndexingMapsArray();
  SmallVector<Value> outputs;
  for (auto [index, level] : llvm::enumerate(levels)) {
    AffineMap &map = maps[first.getNumDpsInputs() + index];
    map = map.dropResult(*summedPosition);
    outputs.push_back(level.getDpsInits()[0]);
  }
  SmallVector<utils::IteratorType> iterators = first.getIteratorTypesArray();
  iterators[*summedDim] = utils::IteratorType::reduction;
  rewriter.setInsertionPoint(last);
  auto merged =
      linalg::GenericOp::create(rewriter, first.getLoc(), TypeRange(),
                                first.getDpsInputs(), outputs, maps, iterators);
  rewriter.inlineRegionBefore(first.getRegion(), merged.getRegion(),
                              merged.getRegion().end());
  for (linalg::GenericOp level : levels)
    rewriter.eraseOp(level);
  rewriter.eraseOp(first);
  for (Operation *op : erased)
    if (auto copy = dyn_cast<memref::CopyOp>(op))
      buffers.insert(copy.getSource());
  for (Operation *op : erased)
    rewriter.eraseOp(op);
  // A buffer that is only zeroed and freed any more is dead.
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
  return true;
}

struct MPTConvertLinalgToGPULoopsPass
    : public mpt::impl::MPTConvertLinalgToGPULoopsBase<
          MPTConvertLinalgToGPULoopsPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    IRRewriter rewriter(&getContext());
    // A copy between strided views is no contiguous memcpy: a copy kernel.
    SmallVector<memref::CopyOp> stridedCopies;
    module.walk([&](memref::CopyOp copy) {
      auto contiguous = [](Value value) {
        return cast<MemRefType>(value.getType()).getLayout().isIdentity();
      };
      if (!contiguous(copy.getSource()) || !contiguous(copy.getTarget()))
        stridedCopies.push_back(copy);
    });
    for (memref::CopyOp copy : stridedCopies) {
      rewriter.setInsertionPoint(copy);
      rewriter.replaceOpWithNewOp<linalg::CopyOp>(
          copy, ValueRange{copy.getSource()}, ValueRange{copy.getTarget()});
    }

    if (gemmsAsLoops) {
      SmallVector<linalg::LinalgOp> gemms;
      module.walk([&](linalg::LinalgOp op) {
        if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
          gemms.push_back(op);
      });
      for (linalg::LinalgOp op : gemms) {
        rewriter.setInsertionPoint(op);
        if (failed(linalg::linalgOpToLoops(rewriter, op))) {
          op.emitOpError("cannot be lowered to loops");
          return signalPassFailure();
        }
        rewriter.eraseOp(op);
      }
    }

    // Sums written one dimension at a time become one reduction again.
    for (bool merged = true; merged;) {
      merged = false;
      SmallVector<linalg::GenericOp> sums;
      module.walk([&](linalg::GenericOp op) { sums.push_back(op); });
      for (linalg::GenericOp op : sums)
        if (mergeSumLevels(rewriter, op)) {
          merged = true;
          break;
        }
    }

    // Named ops (fill, copy, transpose, matmuls left to generated code, ...)
    // are generics with a known body.
    SmallVector<linalg::LinalgOp> named;
    module.walk([&](linalg::LinalgOp op) {
      if (!isa<linalg::GenericOp>(op))
        named.push_back(op);
    });
    for (linalg::LinalgOp op : named) {
      rewriter.setInsertionPoint(op);
      if (failed(linalg::generalizeNamedOp(rewriter, op))) {
        op.emitOpError("cannot be generalized into a linalg.generic for "
                       "the GPU loop lowering");
        return signalPassFailure();
      }
    }

    SmallVector<linalg::GenericOp> generics;
    module.walk([&](linalg::GenericOp op) { generics.push_back(op); });
    for (linalg::GenericOp op : generics) {
      if (!op.hasPureBufferSemantics()) {
        op.emitOpError("must be on memrefs (bufferize before "
                       "mpt-convert-linalg-to-gpu-loops)");
        return signalPassFailure();
      }
      SmallVector<int64_t> ranges = op.getStaticLoopRanges();
      if (ShapedType::isDynamicShape(ranges)) {
        op.emitOpError("has dynamic loop bounds; the GPU lowering needs "
                       "static shapes");
        return signalPassFailure();
      }
      OpBuilder b(op);
      IterationSpace space = getIterationSpace(op, ranges);
      // Fewer than a warp's worth of columns: a block tree per column reads
      // more of each at once.
      constexpr int64_t kMinColumns = 32;
      LogicalResult lowered = success();
      if (space.reductionDims.empty() || space.length <= maxThreadReduction)
        lowerPerThread(b, op, ranges, space, blockSize);
      else if (space.points >= kMinColumns &&
               isColumnReduction(op, op.getIteratorTypesArray()))
        lowered =
            lowerColumnReduction(b, op, ranges, space, blockSize, minBlocks);
      else
        lowered = lowerReduction(b, op, ranges, space, blockSize, minBlocks);
      if (failed(lowered))
        return signalPassFailure();
      SmallVector<Value> operands = op->getOperands();
      op.erase();
      for (Value operand : operands)
        if (auto hostLoad = operand.getDefiningOp<memref::LoadOp>())
          if (hostLoad->use_empty())
            hostLoad.erase();
    }
  }
};

} // namespace
