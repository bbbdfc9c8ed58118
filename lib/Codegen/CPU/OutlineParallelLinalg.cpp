//===- OutlineParallelLinalg.cpp - large linalg ops over the threads ------===//
//
// OpenBLAS runs a step's GEMMs on every thread it is given, while the
// generated loops ran on one: on two threads, the loops' share of the step
// grew, most of all in mixed precision, which adds loop work. Each large op
// is moved into a function over a slice of its first (parallel) loop, which
// the runtime runs on its threads.
//
//===----------------------------------------------------------------------===//

#include "mpt/Codegen/CPU/Passes.h"

#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/TypeSwitch.h"

#include "mpt/Contract/Contract.h"

namespace mpt {
#define GEN_PASS_DEF_MPTOUTLINEPARALLELLINALG
#include "mpt/Codegen/CPU/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

constexpr StringLiteral kParallelFor = mpt::contract::kernel::ParallelFor;

/// How slices of an op whose first loop is a reduction combine their partial
/// results: for each result, the atomic operation that adds a slice's into
/// it. Only 0-d integer accumulators whose combiner is one add, or, and, max
/// or min of the accumulator, which nothing else reads: integer combiners are
/// exact in any order, so the result does not depend on the thread count
/// (the loss-scaling pass's counts of zero and non-finite gradients, over
/// every gradient, ran on one thread).
std::optional<SmallVector<arith::AtomicRMWKind>>
atomicCombiners(linalg::LinalgOp op) {
  auto yield = cast<linalg::YieldOp>(op.getBlock()->getTerminator());
  SmallVector<arith::AtomicRMWKind> kinds;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    auto type = dyn_cast<MemRefType>(init.get().getType());
    if (!type || type.getRank() != 0 || !type.getElementType().isInteger())
      return std::nullopt;
    BlockArgument accumulator = op.getMatchingBlockArgument(&init);
    Value yielded =
        yield.getOperand(init.getOperandNumber() - op.getNumDpsInputs());
    Operation *combiner = yielded.getDefiningOp();
    if (!accumulator.hasOneUse() || !combiner || !yielded.hasOneUse() ||
        accumulator.getUses().begin()->getOwner() != combiner)
      return std::nullopt;
    std::optional<arith::AtomicRMWKind> kind =
        llvm::TypeSwitch<Operation *, std::optional<arith::AtomicRMWKind>>(
            combiner)
            .Case([](arith::AddIOp) { return arith::AtomicRMWKind::addi; })
            .Case([](arith::OrIOp) { return arith::AtomicRMWKind::ori; })
            .Case([](arith::AndIOp) { return arith::AtomicRMWKind::andi; })
            .Case([](arith::MaxSIOp) { return arith::AtomicRMWKind::maxs; })
            .Case([](arith::MinSIOp) { return arith::AtomicRMWKind::mins; })
            .Case([](arith::MaxUIOp) { return arith::AtomicRMWKind::maxu; })
            .Case([](arith::MinUIOp) { return arith::AtomicRMWKind::minu; })
            .Default([](Operation *) { return std::nullopt; });
    if (!kind)
      return std::nullopt;
    kinds.push_back(*kind);
  }
  return kinds;
}

/// How an op is split along its first loop.
struct SlicePlan {
  /// For each operand, the index of its map's result that is the first loop.
  SmallVector<std::optional<unsigned>> positions;
  /// For a reduction first loop, how slices combine each result.
  std::optional<SmallVector<arith::AtomicRMWKind>> combiners;
};

/// Nothing if the op cannot be split along its first loop: it must appear in
/// each map at most once and only as itself, and be parallel and index every
/// result (or slices would write the same elements), or be a reduction whose
/// results slices combine atomically (atomicCombiners).
std::optional<SlicePlan> planSlices(linalg::LinalgOp op,
                                    int64_t minIterations) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0)
    return std::nullopt;
  SlicePlan plan;
  bool reduction =
      !linalg::isParallelIterator(op.getIteratorTypesArray().front());
  if (reduction) {
    plan.combiners = atomicCombiners(op);
    if (!plan.combiners)
      return std::nullopt;
  }
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t iterations = 1;
  for (int64_t range : ranges) {
    if (ShapedType::isDynamic(range))
      return std::nullopt;
    iterations *= range;
  }
  if (iterations < minIterations || ranges.front() < 2)
    return std::nullopt;
  AffineExpr first = getAffineDimExpr(0, op.getContext());
  for (OpOperand &operand : op->getOpOperands()) {
    std::optional<unsigned> position;
    for (auto [index, result] :
         llvm::enumerate(op.getMatchingIndexingMap(&operand).getResults())) {
      if (!result.isFunctionOfDim(0))
        continue;
      if (position || result != first)
        return std::nullopt;
      position = index;
    }
    if (!position && op.isDpsInit(&operand) && !reduction)
      return std::nullopt;
    plan.positions.push_back(position);
  }
  return plan;
}

/// A memref whose shape, strides and offset are all static travels as its
/// aligned pointer alone: the slice rebuilds the rest from constants, which
/// LLVM folds into its address arithmetic, and the pointer can be marked
/// noalias (LLVM drops `llvm.noalias` on memref arguments).
bool isStaticMemRef(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape())
    return false;
  auto [strides, offset] = memref.getStridesAndOffset();
  return !ShapedType::isDynamic(offset) &&
         llvm::none_of(strides, ShapedType::isDynamic);
}

/// How a value of `type` is passed to the slice function: a static memref as
/// its pointer, an index as i64; null for what cannot be passed.
Type sliceArgumentType(Type type) {
  MLIRContext *context = type.getContext();
  if (isa<IndexType>(type))
    return IntegerType::get(context, 64);
  if (isStaticMemRef(type))
    return LLVM::LLVMPointerType::get(context);
  if (isa<MemRefType, IntegerType, FloatType>(type))
    return type;
  return {};
}

/// The context field that carries a slice argument.
Type fieldType(Type sliceArgument, const LLVMTypeConverter &converter) {
  return isa<MemRefType>(sliceArgument) ? converter.convertType(sliceArgument)
                                        : sliceArgument;
}

/// `value` as its context field.
Value packField(OpBuilder &builder, Location loc, Value value,
                const LLVMTypeConverter &converter) {
  Type type = value.getType();
  if (isa<IndexType>(type))
    return arith::IndexCastOp::create(builder, loc, builder.getI64Type(),
                                      value);
  if (!isa<MemRefType>(type))
    return value;
  Value descriptor = UnrealizedConversionCastOp::create(
                         builder, loc, converter.convertType(type), value)
                         .getResult(0);
  if (!isStaticMemRef(type))
    return descriptor;
  return LLVM::ExtractValueOp::create(builder, loc, descriptor,
                                      ArrayRef<int64_t>{1});
}

/// The slice argument that context field `field` carries.
Value unpackField(OpBuilder &builder, Location loc, Value field,
                  Type sliceArgument) {
  if (!isa<MemRefType>(sliceArgument))
    return field;
  return UnrealizedConversionCastOp::create(builder, loc, sliceArgument, field)
      .getResult(0);
}

/// The value of `type` that slice argument `argument` carries.
Value fromSliceArgument(OpBuilder &builder, Location loc, Value argument,
                        Type type, const LLVMTypeConverter &converter) {
  if (isa<IndexType>(type))
    return arith::IndexCastOp::create(builder, loc, type, argument);
  if (!isStaticMemRef(type))
    return argument;
  auto memref = cast<MemRefType>(type);
  auto [strides, offset] = memref.getStridesAndOffset();
  auto constant = [&](int64_t value) {
    return LLVM::ConstantOp::create(builder, loc, builder.getI64Type(),
                                    builder.getI64IntegerAttr(value));
  };
  Value descriptor =
      LLVM::PoisonOp::create(builder, loc, converter.convertType(type));
  auto insert = [&](Value value, ArrayRef<int64_t> position) {
    descriptor =
        LLVM::InsertValueOp::create(builder, loc, descriptor, value, position);
  };
  insert(argument, {0});
  insert(argument, {1});
  insert(constant(offset), {2});
  for (auto [dim, size] : llvm::enumerate(memref.getShape())) {
    insert(constant(size), {3, static_cast<int64_t>(dim)});
    insert(constant(strides[dim]), {4, static_cast<int64_t>(dim)});
  }
  return UnrealizedConversionCastOp::create(builder, loc, type, descriptor)
      .getResult(0);
}

/// The buffer a memref views.
Value viewedBuffer(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  return memref;
}

/// What a slice function takes: the operands of the op, and the values its
/// body uses from above; constants (a fill's value among them) are cloned
/// instead, so that LLVM sees them in the slice.
struct Captures {
  SetVector<Value> values;
  SetVector<Operation *> constants;
};

Captures collectCaptures(linalg::LinalgOp op) {
  Captures captures;
  auto capture = [&](Value value) {
    Operation *definition = value.getDefiningOp();
    if (definition && definition->hasTrait<OpTrait::ConstantLike>())
      captures.constants.insert(definition);
    else
      captures.values.insert(value);
  };
  for (Value operand : op->getOperands())
    capture(operand);
  SetVector<Value> usedAbove;
  getUsedValuesDefinedAbove(op->getRegions(), usedAbove);
  for (Value value : usedAbove)
    capture(value);
  return captures;
}

/// Marks noalias the slice arguments (from the third on, one per capture) of
/// buffers the step allocates and reaches through one pointer only: what LLVM
/// knew of them in the step (aligned_alloc's result).
void markNoAliasArguments(func::FuncOp slice, linalg::LinalgOp op,
                          const SlicePlan &plan,
                          const SetVector<Value> &captures) {
  DenseMap<Value, int> pointersToBuffer;
  for (Value capture : captures)
    if (isa<MemRefType>(capture.getType()))
      ++pointersToBuffer[viewedBuffer(capture)];
  // Slices update the results of a split reduction together, atomically:
  // not noalias.
  if (plan.combiners)
    for (Value init : op.getDpsInits())
      ++pointersToBuffer[viewedBuffer(init)];
  for (auto [position, capture] : llvm::enumerate(captures)) {
    Value buffer =
        isStaticMemRef(capture.getType()) ? viewedBuffer(capture) : Value();
    if (buffer && pointersToBuffer[buffer] == 1 &&
        isa_and_present<memref::AllocOp, memref::AllocaOp>(
            buffer.getDefiningOp()))
      slice.setArgAttr(position + 2, LLVM::LLVMDialect::getNoAliasAttrName(),
                       UnitAttr::get(slice.getContext()));
  }
}

/// Restricts the operands of `sliced` that the first loop indexes to
/// [begin, begin + size) along it.
void restrictToSlice(OpBuilder &body, Operation *sliced, const SlicePlan &plan,
                     Value begin, Value size) {
  Location loc = sliced->getLoc();
  for (auto [operand, position] :
       llvm::zip_equal(sliced->getOpOperands(), plan.positions)) {
    if (!position)
      continue;
    Value whole = operand.get();
    auto type = cast<MemRefType>(whole.getType());
    SmallVector<OpFoldResult> offsets(type.getRank(), body.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes = memref::getMixedSizes(body, loc, whole);
    SmallVector<OpFoldResult> strides(type.getRank(), body.getIndexAttr(1));
    offsets[*position] = begin;
    sizes[*position] = size;
    operand.set(
        memref::SubViewOp::create(body, loc, whole, offsets, sizes, strides));
  }
}

/// A split reduction accumulates its slice from the identity into a local
/// result, then combines that into the shared one.
void combineSlicesAtomically(OpBuilder &body, linalg::LinalgOp sliced,
                             ArrayRef<arith::AtomicRMWKind> combiners) {
  Location loc = sliced.getLoc();
  for (auto [init, kind] :
       llvm::zip_equal(sliced.getDpsInitsMutable(), combiners)) {
    Value shared = init.get();
    auto type = cast<MemRefType>(shared.getType());
    Value local = memref::AllocaOp::create(
        body, loc, MemRefType::get({}, type.getElementType()));
    memref::StoreOp::create(
        body, loc,
        arith::getIdentityValue(kind, type.getElementType(), body, loc), local);
    init.set(local);
    OpBuilder after(sliced->getContext());
    after.setInsertionPointAfter(sliced);
    Value partial = memref::LoadOp::create(after, loc, local);
    memref::AtomicRMWOp::create(after, loc, kind, partial, shared,
                                ValueRange{});
  }
}

/// The body sees slice-relative indices of the first loop: adds `begin`.
void offsetFirstLoopIndices(Operation *sliced, Value begin) {
  sliced->walk([&](linalg::IndexOp indexOp) {
    if (indexOp.getDim() != 0)
      return;
    OpBuilder after(indexOp->getContext());
    after.setInsertionPointAfter(indexOp);
    auto global =
        arith::AddIOp::create(after, sliced->getLoc(), indexOp, begin);
    indexOp.getResult().replaceAllUsesExcept(global, global);
  });
}

/// Fills the body of slice(begin, end, captures...): the op on [begin, end)
/// of its first loop.
void buildSliceBody(func::FuncOp slice, linalg::LinalgOp op,
                    const SlicePlan &plan, const Captures &captures,
                    const LLVMTypeConverter &converter) {
  Location loc = op.getLoc();
  Block *sliceBody = slice.addEntryBlock();
  OpBuilder body = OpBuilder::atBlockBegin(sliceBody);
  Value begin = sliceBody->getArgument(0);
  Value size =
      arith::SubIOp::create(body, loc, sliceBody->getArgument(1), begin);
  IRMapping mapping;
  for (auto [position, capture] : llvm::enumerate(captures.values))
    mapping.map(capture, fromSliceArgument(body, loc,
                                           sliceBody->getArgument(position + 2),
                                           capture.getType(), converter));
  for (Operation *constant : captures.constants)
    body.clone(*constant, mapping);
  Operation *sliced = body.clone(*op, mapping);
  body.setInsertionPoint(sliced);
  restrictToSlice(body, sliced, plan, begin, size);
  if (plan.combiners)
    combineSlicesAtomically(body, cast<linalg::LinalgOp>(sliced),
                            *plan.combiners);
  offsetFirstLoopIndices(sliced, begin);
  body.setInsertionPointToEnd(sliceBody);
  func::ReturnOp::create(body, loc);
}

/// Fills the body of entry(context, begin, end), which the runtime calls: it
/// unpacks the context and calls the slice.
void buildEntryBody(func::FuncOp entry, func::FuncOp slice,
                    LLVM::LLVMStructType contextType,
                    ArrayRef<Type> sliceArguments) {
  Location loc = entry.getLoc();
  Block *entryBody = entry.addEntryBlock();
  OpBuilder unpack = OpBuilder::atBlockBegin(entryBody);
  auto pointer = LLVM::LLVMPointerType::get(entry.getContext());
  SmallVector<Value> callArguments;
  for (Value bound : entryBody->getArguments().drop_front())
    callArguments.push_back(
        arith::IndexCastOp::create(unpack, loc, unpack.getIndexType(), bound));
  for (auto [field, type] : llvm::enumerate(contextType.getBody())) {
    Value address = LLVM::GEPOp::create(
        unpack, loc, pointer, contextType, entryBody->getArgument(0),
        ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(field)});
    Value value = LLVM::LoadOp::create(unpack, loc, type, address);
    callArguments.push_back(
        unpackField(unpack, loc, value, sliceArguments[field]));
  }
  func::CallOp::create(unpack, loc, slice, callArguments);
  func::ReturnOp::create(unpack, loc);
}

struct MPTOutlineParallelLinalg
    : public mpt::impl::MPTOutlineParallelLinalgBase<MPTOutlineParallelLinalg> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::pair<linalg::LinalgOp, SlicePlan>> candidates;
    module.walk([&](linalg::LinalgOp op) {
      if (std::optional<SlicePlan> plan = planSlices(op, minIterations))
        candidates.emplace_back(op, std::move(*plan));
    });
    if (candidates.empty())
      return;
    SymbolTable symbols(module);
    LLVMTypeConverter converter(&getContext());
    for (auto &[op, plan] : candidates)
      outline(op, plan, symbols, converter);
  }

  /// The runtime's `mpt_cpu_parallel_for(entry, context, count)`.
  func::FuncOp parallelForDeclaration(SymbolTable &symbols,
                                      FunctionType entryType) {
    if (auto existing = symbols.lookup<func::FuncOp>(kParallelFor))
      return existing;
    MLIRContext *context = &getContext();
    OpBuilder builder = OpBuilder::atBlockEnd(getOperation().getBody());
    auto declaration = func::FuncOp::create(
        builder, getOperation().getLoc(), kParallelFor,
        FunctionType::get(context,
                          {entryType, LLVM::LLVMPointerType::get(context),
                           IntegerType::get(context, 64)},
                          {}));
    declaration.setPrivate();
    symbols.insert(declaration);
    return declaration;
  }

  /// Moves `op` into a slice function and an entry the runtime runs on its
  /// threads, and puts a call of mpt_cpu_parallel_for in its place.
  void outline(linalg::LinalgOp op, const SlicePlan &plan, SymbolTable &symbols,
               const LLVMTypeConverter &converter) {
    MLIRContext *context = &getContext();
    Location loc = op.getLoc();
    auto parent = op->getParentOfType<func::FuncOp>();
    if (!parent)
      return;
    Captures captures = collectCaptures(op);
    SmallVector<Type> sliceArguments, fieldTypes;
    for (Value capture : captures.values) {
      Type type = sliceArgumentType(capture.getType());
      if (!type)
        return; // not a value the context can hold: left in place
      sliceArguments.push_back(type);
      fieldTypes.push_back(fieldType(type, converter));
    }
    auto contextType = LLVM::LLVMStructType::getLiteral(context, fieldTypes);

    OpBuilder builder(context);
    builder.setInsertionPoint(parent);
    std::string baseName = (parent.getSymName() + "_parallel").str();
    Type index = builder.getIndexType();
    Type i64 = builder.getI64Type();
    auto pointer = LLVM::LLVMPointerType::get(context);
    SmallVector<Type> sliceInputs = {index, index};
    llvm::append_range(sliceInputs, sliceArguments);
    auto slice = func::FuncOp::create(
        builder, loc, baseName, FunctionType::get(context, sliceInputs, {}));
    slice.setPrivate();
    symbols.insert(slice);
    markNoAliasArguments(slice, op, plan, captures.values);
    buildSliceBody(slice, op, plan, captures, converter);

    auto entryType = FunctionType::get(context, {pointer, i64, i64}, {});
    auto entry =
        func::FuncOp::create(builder, loc, baseName + "_entry", entryType);
    entry.setPrivate();
    symbols.insert(entry);
    buildEntryBody(entry, slice, contextType, sliceArguments);

    // In place of the op: fill the context, run the slices.
    func::FuncOp parallelFor = parallelForDeclaration(symbols, entryType);
    OpBuilder atEntry = OpBuilder::atBlockBegin(&parent.getBody().front());
    Value one = LLVM::ConstantOp::create(atEntry, loc, i64,
                                         atEntry.getI64IntegerAttr(1));
    Value contextAddress =
        LLVM::AllocaOp::create(atEntry, loc, pointer, contextType, one);
    builder.setInsertionPoint(op);
    for (auto [field, capture] : llvm::enumerate(captures.values)) {
      Value value = packField(builder, loc, capture, converter);
      Value address = LLVM::GEPOp::create(
          builder, loc, pointer, contextType, contextAddress,
          ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(field)});
      LLVM::StoreOp::create(builder, loc, value, address);
    }
    Value entryAddress =
        func::ConstantOp::create(builder, loc, entryType, entry.getSymName());
    Value count = arith::ConstantOp::create(
        builder, loc, builder.getI64IntegerAttr(op.getStaticLoopRanges()[0]));
    func::CallOp::create(builder, loc, parallelFor,
                         ValueRange{entryAddress, contextAddress, count});
    op->erase();
  }
};
} // namespace
