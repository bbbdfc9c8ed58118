//===- Recompute.cpp - mpt-recompute ----------------------------*- C++ -*-===//
//
// Activation recomputation: a step keeps what the backward reads of the
// forward, and at the backward's start that is every activation at once.
// Recomputing each segment of the forward just before the backward needs it
// keeps only the values segments pass on (and the last segment's), at the
// price of a second forward.
//
//===----------------------------------------------------------------------===//

#include "mpt/Transforms/Passes.h"

#include "Utils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "mpt/Dialect/MPT/IR/MPTOps.h"

#include <cmath>

namespace mpt {
#define GEN_PASS_DEF_MPTRECOMPUTE
#include "mpt/Transforms/Passes.h.inc"
} // namespace mpt

using namespace mlir;
using namespace mpt;

namespace {
struct Recompute : public mpt::impl::MPTRecomputeBase<Recompute> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

/// Ops a copy can recompute: results that are a function of the operands
/// alone. Constants are read where they are, as CSE would merge their copies.
static bool isRecomputable(Operation *op) {
  return op->getNumRegions() == 0 && op->getNumResults() > 0 &&
         isMemoryEffectFree(op) &&
         !op->hasTrait<mlir::OpTrait::ConstantLike>() &&
         llvm::all_of(op->getResultTypes(), llvm::IsaPred<RankedTensorType>);
}

/// The bytes of a value's tensor; a dynamic one counts as too large to keep.
static int64_t bytesOf(Value value) {
  return staticTensorBytes(value.getType()).value_or(int64_t(1) << 40);
}

/// Where a use of a forward value is, seen from the seed's block: a forward
/// op, the seed (the loss), a backward op, or the block's terminator (the
/// results); `op` is the use's ancestor in the block.
struct Reader {
  enum Kind { Forward, Loss, Backward, Results } kind;
  Operation *op;
};

static Reader readerOf(OpOperand &use, Operation *seed) {
  Operation *op = seed->getBlock()->findAncestorOpInBlock(*use.getOwner());
  if (op == seed)
    return {Reader::Loss, op};
  if (!seed->isBeforeInBlock(op))
    return {Reader::Forward, op};
  return {op->hasTrait<mlir::OpTrait::IsTerminator>() ? Reader::Results
                                                      : Reader::Backward,
          op};
}

/// A value of the forward that a later forward op or the loss reads: kept
/// if a segment ends in [definition, lastRead).
struct ForwardValue {
  size_t definition, lastRead;
  int64_t bytes;
};

/// Where the forward's segments end, chosen to minimize what the backward
/// holds at once: the values kept across segment ends plus the largest
/// segment's activations (its values the backward reads). For each budget on
/// a segment's activations, a segment ends at its narrowest cut once the next
/// op would exceed the budget; the best budget wins, and no cut at all if
/// none does better. On a chain of N like ops that gives about sqrt(N)
/// segments of sqrt(N) ops.
static SmallVector<bool> chooseCuts(ArrayRef<Operation *> forward,
                                    Operation *seed) {
  size_t n = forward.size();
  DenseMap<Operation *, size_t> position;
  for (auto [index, op] : llvm::enumerate(forward))
    position[op] = index;
  // activations[i]: the bytes of op i's results that the backward reads.
  SmallVector<int64_t> activations(n, 0);
  SmallVector<ForwardValue> crossingValues;
  for (auto [index, op] : llvm::enumerate(forward)) {
    // Constants are not buffers a step frees.
    if (op->hasTrait<mlir::OpTrait::ConstantLike>())
      continue;
    for (Value result : op->getResults()) {
      if (!isa<RankedTensorType>(result.getType()))
        continue;
      size_t last = index;
      bool readByBackward = false;
      for (OpOperand &use : result.getUses()) {
        Reader reader = readerOf(use, seed);
        if (reader.kind == Reader::Loss)
          last = n;
        else if (reader.kind == Reader::Forward)
          last = std::max(last, position.lookup(reader.op));
        else if (reader.kind == Reader::Backward)
          readByBackward = true;
      }
      if (readByBackward && isRecomputable(op))
        activations[index] += bytesOf(result);
      if (last != index)
        crossingValues.push_back({index, last, bytesOf(result)});
    }
  }
  // crossing[i]: the bytes live across the cut after op i.
  SmallVector<int64_t> crossing(n + 1, 0);
  for (const ForwardValue &value : crossingValues) {
    crossing[value.definition] += value.bytes;
    crossing[value.lastRead] -= value.bytes;
  }
  for (size_t i = 1; i <= n; ++i)
    crossing[i] += crossing[i - 1];
  auto keptBytes = [&](ArrayRef<bool> ends) {
    SmallVector<size_t> endsUpTo(n + 1, 0); // ends among ops [0, i)
    for (size_t i = 0; i < n; ++i)
      endsUpTo[i + 1] = endsUpTo[i] + ends[i];
    int64_t kept = 0;
    for (const ForwardValue &value : crossingValues)
      if (endsUpTo[value.lastRead] > endsUpTo[value.definition])
        kept += value.bytes;
    return kept;
  };

  int64_t total = 0, largest = 0;
  for (int64_t bytes : activations) {
    total += bytes;
    largest = std::max(largest, bytes);
  }
  SmallVector<bool> best(n, false);
  int64_t bestCost = total;
  for (int64_t parts = 2; parts <= std::min<int64_t>(n, 64); ++parts) {
    int64_t budget = std::max(largest, total / parts);
    SmallVector<bool> ends(n, false);
    int64_t segmentBytes = 0, largestSegment = 0;
    size_t start = 0;
    for (size_t i = 0; i < n; ++i) {
      if (segmentBytes + activations[i] > budget && i > start) {
        size_t cut = start;
        for (size_t c = start; c < i; ++c)
          if (crossing[c] <= crossing[cut])
            cut = c;
        ends[cut] = true;
        int64_t before = 0;
        for (size_t j = start; j <= cut; ++j)
          before += activations[j];
        largestSegment = std::max(largestSegment, before);
        segmentBytes -= before;
        start = cut + 1;
      }
      segmentBytes += activations[i];
    }
    largestSegment = std::max(largestSegment, segmentBytes);
    int64_t cost = keptBytes(ends) + largestSegment;
    if (cost < bestCost) {
      bestCost = cost;
      best = ends;
    }
  }
  return best;
}

/// The segment of each recomputable forward op of `forward`, numbered from 0
/// in order; failure if the policy finds no segment end.
static FailureOr<DenseMap<Operation *, unsigned>>
assignSegments(func::FuncOp function, ArrayRef<Operation *> forward,
               Operation *seed, RecomputePolicy policy) {
  SmallVector<bool> ends;
  if (policy == RecomputePolicy::Sqrt) {
    ends = chooseCuts(forward, seed);
  } else {
    ends = llvm::map_to_vector(forward, [](Operation *op) {
      return op->hasAttr(MPTDialect::kSegmentEndAttrName);
    });
    if (llvm::none_of(ends, [](bool end) { return end; }))
      return function.emitOpError("has no op marked '")
             << MPTDialect::kSegmentEndAttrName
             << "' to end a segment (policy=marked of mpt-recompute)";
  }
  DenseMap<Operation *, unsigned> segments;
  unsigned segment = 0;
  for (auto [op, end] : llvm::zip_equal(forward, ends)) {
    if (isRecomputable(op))
      segments[op] = segment;
    segment += end;
  }
  return segments;
}

/// Recomputes `values`, all of one segment, before their first reader in the
/// backward, the ops after `seed`, and makes the backward read the copies.
static void recomputeBefore(Operation *seed, ArrayRef<Value> values,
                            const DenseMap<Operation *, unsigned> &segments,
                            const DenseSet<Value> &kept) {
  auto inBackward = [&](OpOperand &use) {
    return readerOf(use, seed).kind == Reader::Backward;
  };
  // The ops the copies need: the values' definitions and, within the
  // segment, what they read that is not kept.
  SetVector<Operation *> slice;
  SmallVector<Operation *> worklist;
  for (Value value : values)
    worklist.push_back(value.getDefiningOp());
  unsigned segment = segments.lookup(worklist.front());
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!slice.insert(op))
      continue;
    for (Value operand : op->getOperands()) {
      Operation *producer = operand.getDefiningOp();
      auto found = producer ? segments.find(producer) : segments.end();
      if (found != segments.end() && found->second == segment &&
          !kept.contains(operand))
        worklist.push_back(producer);
    }
  }
  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });

  Operation *firstReader = nullptr;
  for (Value value : values)
    for (OpOperand &use : value.getUses())
      if (Reader reader = readerOf(use, seed); reader.kind == Reader::Backward)
        if (!firstReader || reader.op->isBeforeInBlock(firstReader))
          firstReader = reader.op;
  OpBuilder builder(firstReader);
  IRMapping copies;
  for (Operation *op : ordered)
    for (Value operand : op->getOperands()) {
      if (copies.contains(operand) || slice.contains(operand.getDefiningOp()))
        continue;
      // Constants and scalars (a micro-batch loop's offsets) are read as they
      // are: what tensors the copies read already tells them apart.
      Operation *producer = operand.getDefiningOp();
      if (!isa<RankedTensorType>(operand.getType()) ||
          (producer && producer->hasTrait<mlir::OpTrait::ConstantLike>()))
        continue;
      copies.map(operand, RecomputeBarrierOp::create(builder, operand.getLoc(),
                                                     operand));
    }
  for (Operation *op : ordered)
    builder.clone(*op, copies);
  for (Value value : values)
    value.replaceUsesWithIf(copies.lookup(value), inBackward);
}

void Recompute::runOnOperation() {
  func::FuncOp function = getOperation();
  if (policy == RecomputePolicy::None)
    return;
  SmallVector<LossGradOp> seeds;
  function.walk([&](LossGradOp seed) { seeds.push_back(seed); });
  if (seeds.empty()) {
    if (function->hasAttr(MPTDialect::kTrainStepAttrName)) {
      function.emitOpError("has no 'mpt.loss_grad' where its backward starts; "
                           "run mpt-recompute after mpt-autodiff");
      return signalPassFailure();
    }
    return;
  }
  if (seeds.size() > 1) {
    function.emitOpError("has ")
        << seeds.size() << " 'mpt.loss_grad' ops; mpt-recompute needs one";
    return signalPassFailure();
  }
  Operation *seed = seeds.front();
  Block *block = seed->getBlock();
  SmallVector<Operation *> forward;
  for (Operation &op : *block) {
    if (&op == seed)
      break;
    forward.push_back(&op);
  }
  FailureOr<DenseMap<Operation *, unsigned>> segments =
      assignSegments(function, forward, seed, policy);
  if (failed(segments))
    return signalPassFailure();
  unsigned lastSegment = 0;
  for (auto [op, segment] : *segments)
    lastSegment = std::max(lastSegment, segment);

  // A segment's value is kept when a later segment, the loss, the results or
  // anything else outside the segment and the backward reads it; of the
  // others, those the backward reads are recomputed.
  DenseSet<Value> kept;
  SmallVector<SmallVector<Value>> recomputed(lastSegment + 1);
  for (Operation *op : forward) {
    auto segment = segments->find(op);
    if (segment == segments->end())
      continue;
    for (Value result : op->getResults()) {
      bool backward = false, other = false;
      for (OpOperand &use : result.getUses()) {
        Reader reader = readerOf(use, seed);
        if (reader.kind == Reader::Backward)
          backward = true;
        else if (reader.kind != Reader::Forward ||
                 segments->find(reader.op) == segments->end() ||
                 segments->find(reader.op)->second != segment->second)
          other = true;
      }
      if (other || segment->second == lastSegment)
        kept.insert(result);
      else if (backward)
        recomputed[segment->second].push_back(result);
    }
  }
  for (ArrayRef<Value> values : recomputed)
    if (!values.empty())
      recomputeBefore(seed, values, *segments, kept);
}
