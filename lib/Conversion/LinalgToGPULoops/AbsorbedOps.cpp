//===- AbsorbedOps.cpp - ops beside a reduction in its kernel ---*- C++ -*-===//
//
// The tensor lowering writes a reduction as a fill of its accumulator and a
// generic that folds into it, and an elementwise consumer of the result (a
// bias gradient's unscale, the loss's copy into its output) as a generic of
// its own. Fusion cannot merge a reduction with its consumer on tensors, but
// the reduction's kernel has each output's final value in a register: it
// starts from the fill's scalar and computes the consumer where it stores.
// Nor does it fuse an elementwise producer whose result others read too
// (relu's masked gradient, read by the bias gradient's sum and by GEMMs)
// into the reduction; a column sum's kernel reads each of its elements once,
// so it computes the producer there and stores its result for the others.
// The arithmetic is the same, so the results are bit-identical.
//
//===----------------------------------------------------------------------===//

#include "GPULoops.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace mpt::gpuloops {

namespace {

/// Whether `op` writes every element of its output `init` once per output
/// point: its indexing map picks distinct loop dimensions, one per dimension
/// of the buffer.
bool writesWholeOutput(linalg::GenericOp op, OpOperand &init) {
  AffineMap map = op.getMatchingIndexingMap(&init);
  auto type = cast<MemRefType>(init.get().getType());
  return map.isProjectedPermutation(/*allowZeroInResults=*/false) &&
         map.getNumResults() == type.getRank();
}

bool hasReductionDims(linalg::GenericOp op) {
  return op.getNumReductionLoops() > 0;
}

/// The output operand of `op` that writes `buffer`, if `buffer` is written
/// once and not also read as an input.
OpOperand *outputWriting(linalg::GenericOp op, Value buffer) {
  if (llvm::is_contained(op.getDpsInputs(), buffer) ||
      llvm::count(op.getDpsInits(), buffer) != 1)
    return nullptr;
  for (OpOperand &init : op.getDpsInitsMutable())
    if (init.get() == buffer)
      return &init;
  return nullptr;
}

/// The fills just before `op` (but for allocations between them) whose
/// buffers `op` overwrites: their scalars by output number, for a
/// reduction; none is needed where `op` does not read the output. Where a
/// non-reduction reads its output (a select that keeps it) the fill stays.
void absorbFills(linalg::GenericOp op, AbsorbedOps &absorbed,
                 SmallVectorImpl<Operation *> &deadFills) {
  for (Operation *prev = op->getPrevNode(); prev; prev = prev->getPrevNode()) {
    if (isa<memref::AllocOp>(prev))
      continue;
    auto fill = dyn_cast<linalg::FillOp>(prev);
    if (!fill || !fill.hasPureBufferSemantics())
      return;
    OpOperand *init = outputWriting(op, fill.getOutputs()[0]);
    if (!init || !writesWholeOutput(op, *init))
      return;
    unsigned output = init->getOperandNumber() - op.getNumDpsInputs();
    if (absorbed.fillValues.contains(output))
      return;
    bool readsOutput = !op.getMatchingBlockArgument(init).use_empty();
    if (readsOutput && !hasReductionDims(op))
      return;
    absorbed.fillValues[output] = readsOutput ? fill.getInputs()[0] : Value();
    deadFills.push_back(fill);
  }
}

/// The input of `op` that reads one of `buffers`, if exactly one does.
OpOperand *soleInputAmong(linalg::GenericOp op, ValueRange buffers) {
  OpOperand *found = nullptr;
  for (OpOperand *input : op.getDpsInputOperands()) {
    if (!llvm::is_contained(buffers, input->get()))
      continue;
    if (found)
      return nullptr;
    found = input;
  }
  return found;
}

/// The op next to `op` (after it or before it), past allocations and the ops
/// in `skip`, if it is an elementwise generic on buffers.
linalg::GenericOp elementwiseNeighbour(Operation *op, bool after,
                                       ArrayRef<Operation *> skip) {
  Operation *neighbour = op;
  do
    neighbour = after ? neighbour->getNextNode() : neighbour->getPrevNode();
  while (neighbour && (isa<memref::AllocOp>(neighbour) ||
                       llvm::is_contained(skip, neighbour)));
  auto generic = dyn_cast_or_null<linalg::GenericOp>(neighbour);
  if (!generic || !generic.hasPureBufferSemantics() ||
      generic.getNumReductionLoops() > 0)
    return nullptr;
  return generic;
}

/// Whether `user` is a deallocation or one of `known`.
bool isKnownUser(Operation *user, ArrayRef<Operation *> known) {
  return isa<memref::DeallocOp>(user) || llvm::is_contained(known, user);
}

/// The elementwise generic just after the reduction `op` (but for
/// allocations) that reads one of its outputs at the same points, and no
/// other, writing buffers that neither reads.
std::optional<std::pair<unsigned, Epilogue>>
matchEpilogue(linalg::GenericOp op, ArrayRef<Operation *> fills) {
  if (!hasReductionDims(op))
    return std::nullopt;
  linalg::GenericOp consumer = elementwiseNeighbour(op, /*after=*/true, {});
  if (!consumer)
    return std::nullopt;
  OpOperand *read = soleInputAmong(consumer, op.getDpsInits());
  if (!read || !consumer.getMatchingIndexingMap(read).isIdentity())
    return std::nullopt;
  OpOperand *output = outputWriting(op, read->get());
  if (!output || !writesWholeOutput(op, *output))
    return std::nullopt;
  for (OpOperand &init : consumer.getDpsInitsMutable())
    if (llvm::is_contained(op->getOperands(), init.get()) ||
        llvm::is_contained(consumer.getDpsInputs(), init.get()) ||
        !consumer.getMatchingBlockArgument(&init).use_empty())
      return std::nullopt;
  Value buffer = read->get();
  SmallVector<Operation *> known(fills);
  known.append({op, consumer});
  bool keepOutput = !buffer.getDefiningOp<memref::AllocOp>() ||
                    !llvm::all_of(buffer.getUsers(), [&](Operation *user) {
                      return isKnownUser(user, known);
                    });
  return std::make_pair(output->getOperandNumber() - op.getNumDpsInputs(),
                        Epilogue{consumer, read, keepOutput});
}

/// The elementwise generic just before the column reduction `op` (but for
/// allocations and the fills `op` absorbs) that writes one of its inputs,
/// read through a permutation (each element once), and no other operand of
/// `op`, reading nothing `op` writes.
std::optional<Prologue> matchPrologue(linalg::GenericOp op,
                                      ArrayRef<Operation *> fills,
                                      int64_t maxThreadReduction) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ShapedType::isDynamicShape(ranges) ||
      chooseKernelFamily(op, getIterationSpace(op, ranges),
                         maxThreadReduction) != KernelFamily::ColumnReduction)
    return std::nullopt;
  linalg::GenericOp producer = elementwiseNeighbour(op, /*after=*/false, fills);
  if (!producer)
    return std::nullopt;
  OpOperand *read = soleInputAmong(op, producer.getDpsInits());
  if (!read || !op.getMatchingIndexingMap(read).isPermutation() ||
      llvm::count(op->getOperands(), read->get()) != 1 ||
      llvm::count(producer.getDpsInits(), read->get()) != 1)
    return std::nullopt;
  unsigned result = 0;
  for (OpOperand &init : producer.getDpsInitsMutable()) {
    if (init.get() == read->get()) {
      result = init.getOperandNumber() - producer.getNumDpsInputs();
      if (!producer.getMatchingIndexingMap(&init).isIdentity())
        return std::nullopt;
    }
    if (!producer.getMatchingBlockArgument(&init).use_empty() ||
        llvm::is_contained(producer.getDpsInputs(), init.get()) ||
        (init.get() != read->get() &&
         llvm::is_contained(op->getOperands(), init.get())))
      return std::nullopt;
  }
  for (Value input : producer.getDpsInputs())
    if (llvm::is_contained(op.getDpsInits(), input))
      return std::nullopt;
  return Prologue{producer, read, result};
}

/// Computes the elementwise generic `elementwise` at its loop point `ivs`
/// (its block arguments in `mapping` taken as given, the others loaded),
/// stores its results and returns them.
SmallVector<Value> computeAndStore(OpBuilder &b, Location loc,
                                   linalg::GenericOp elementwise,
                                   ArrayRef<Value> ivs, IRMapping &mapping) {
  loadInputs(b, loc, elementwise, ivs, mapping);
  cloneBody(b, elementwise, ivs, mapping, SmallPtrSet<Operation *, 1>());
  auto yield = cast<linalg::YieldOp>(elementwise.getBody()->getTerminator());
  SmallVector<Value> results;
  for (auto [result, init] :
       llvm::zip(yield.getValues(), elementwise.getDpsInitsMutable())) {
    results.push_back(mapping.lookupOrDefault(result));
    memref::StoreOp::create(
        b, loc, results.back(), init.get(),
        applyMap(b, loc, elementwise.getMatchingIndexingMap(&init), ivs));
  }
  return results;
}

} // namespace

DenseMap<Operation *, AbsorbedOps>
absorbNeighbours(ModuleOp module, int64_t maxThreadReduction) {
  SmallVector<linalg::GenericOp> generics;
  module.walk([&](linalg::GenericOp op) {
    if (op.hasPureBufferSemantics())
      generics.push_back(op);
  });
  DenseMap<Operation *, AbsorbedOps> absorbedBy;
  SmallPtrSet<Operation *, 8> absorbedGenerics;
  SmallVector<Operation *> deadFills;
  for (linalg::GenericOp op : generics) {
    if (absorbedGenerics.contains(op))
      continue;
    AbsorbedOps absorbed;
    SmallVector<Operation *> fills;
    absorbFills(op, absorbed, fills);
    absorbed.prologue = matchPrologue(op, fills, maxThreadReduction);
    if (absorbed.prologue && absorbedGenerics.contains(absorbed.prologue->op))
      absorbed.prologue.reset();
    if (auto epilogue = matchEpilogue(op, fills)) {
      // The epilogue of a column's sum reads what that column's thread
      // stores; a prologue's result is stored by every thread.
      bool readsPrologue =
          absorbed.prologue &&
          llvm::any_of(absorbed.prologue->op.getDpsInits(), [&](Value init) {
            return llvm::is_contained(epilogue->second.op->getOperands(), init);
          });
      if (!readsPrologue) {
        // The epilogue's outputs are allocated between the two: allocated
        // before the reduction, they are there when its kernel writes them.
        for (Operation *alloc = op->getNextNode();
             alloc != epilogue->second.op;) {
          Operation *next = alloc->getNextNode();
          alloc->moveBefore(op);
          alloc = next;
        }
        absorbedGenerics.insert(epilogue->second.op);
        absorbed.epilogues.insert(*epilogue);
      }
    }
    if (absorbed.prologue)
      absorbedGenerics.insert(absorbed.prologue->op);
    if (!absorbed.fillValues.empty() || !absorbed.epilogues.empty() ||
        absorbed.prologue)
      absorbedBy[op] = std::move(absorbed);
    deadFills.append(fills);
  }
  for (Operation *fill : deadFills)
    fill->erase();
  return absorbedBy;
}

Value loadOutput(OpBuilder &b, Location loc, linalg::GenericOp op,
                 OpOperand &init, ArrayRef<Value> ivs,
                 const AbsorbedOps &absorbed) {
  unsigned output = init.getOperandNumber() - op.getNumDpsInputs();
  if (Value filled = absorbed.fillValues.lookup(output))
    return scalarInKernel(b, filled);
  return memref::LoadOp::create(
      b, loc, init.get(),
      applyMap(b, loc, op.getMatchingIndexingMap(&init), ivs));
}

void storeOutput(OpBuilder &b, Location loc, linalg::GenericOp op,
                 OpOperand &init, ArrayRef<Value> ivs, Value value,
                 const AbsorbedOps &absorbed) {
  SmallVector<Value> indices =
      applyMap(b, loc, op.getMatchingIndexingMap(&init), ivs);
  auto it =
      absorbed.epilogues.find(init.getOperandNumber() - op.getNumDpsInputs());
  if (it == absorbed.epilogues.end() || it->second.keepOutput)
    memref::StoreOp::create(b, loc, value, init.get(), indices);
  if (it == absorbed.epilogues.end())
    return;
  // The epilogue reads the output through an identity map: its loop point is
  // the output's indices.
  linalg::GenericOp epilogue = it->second.op;
  IRMapping mapping;
  mapping.map(epilogue.getMatchingBlockArgument(it->second.input), value);
  computeAndStore(b, loc, epilogue, indices, mapping);
}

void computePrologue(OpBuilder &b, Location loc, linalg::GenericOp op,
                     ArrayRef<Value> ivs, const AbsorbedOps &absorbed,
                     IRMapping &mapping) {
  if (!absorbed.prologue)
    return;
  const Prologue &prologue = *absorbed.prologue;
  // The prologue writes the input through an identity map: its loop point
  // is the input's indices.
  IRMapping prologueMapping;
  SmallVector<Value> results = computeAndStore(
      b, loc, prologue.op,
      applyMap(b, loc, op.getMatchingIndexingMap(prologue.read), ivs),
      prologueMapping);
  mapping.map(op.getMatchingBlockArgument(prologue.read),
              results[prologue.result]);
}

} // namespace mpt::gpuloops
