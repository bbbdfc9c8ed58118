//===- LibraryCalls.cpp - bufferized linalg ops as runtime calls ----------===//

#include "mpt/Conversion/LibraryCalls.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;

namespace mpt {

/// Whether `map` selects exactly the loop dimensions `dims`, in order.
static bool selects(AffineMap map, ArrayRef<unsigned> dims) {
  if (map.getNumResults() != dims.size())
    return false;
  for (auto [expr, dim] : llvm::zip(map.getResults(), dims)) {
    auto dimExpr = dyn_cast<AffineDimExpr>(expr);
    if (!dimExpr || dimExpr.getPosition() != dim)
      return false;
  }
  return true;
}

StringRef libraryTypeName(Type type) {
  if (type.isF32())
    return "f32";
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  return {};
}

/// Whether every operand of `op` is a strided memref.
static bool hasStridedMemRefOperands(linalg::LinalgOp op) {
  return op.hasPureBufferSemantics() &&
         llvm::all_of(op->getOperandTypes(), [](Type type) {
           return cast<MemRefType>(type).isStrided();
         });
}

FailureOr<LibraryOperands> matchLibraryOperands(linalg::LinalgOp op,
                                                PatternRewriter &rewriter) {
  if (!hasStridedMemRefOperands(op))
    return rewriter.notifyMatchFailure(op, "not on strided memrefs");
  LibraryOperands operands{op.getDpsInputOperand(0)->get(),
                           op.getDpsInputOperand(1)->get(),
                           op.getDpsInitOperand(0)->get()};
  Type aType = cast<MemRefType>(operands.a.getType()).getElementType();
  Type bType = cast<MemRefType>(operands.b.getType()).getElementType();
  Type cType = cast<MemRefType>(operands.c.getType()).getElementType();
  if (libraryTypeName(aType).empty() || aType != bType || !cType.isF32())
    return rewriter.notifyMatchFailure(op, "unsupported element types");
  return operands;
}

FailureOr<LibraryGemm> matchLibraryGemm(linalg::LinalgOp op, bool batched,
                                        PatternRewriter &rewriter) {
  FailureOr<LibraryOperands> operands = matchLibraryOperands(op, rewriter);
  if (failed(operands))
    return failure();
  LibraryGemm gemm{*operands, /*transposeA=*/false, /*transposeB=*/false};

  // Loop dimensions (m, n, k), after the batch dimension if batched.
  unsigned m = batched ? 1 : 0, n = m + 1, k = m + 2;
  auto withBatch = [&](std::initializer_list<unsigned> dims) {
    SmallVector<unsigned> all;
    if (batched)
      all.push_back(0);
    all.append(dims);
    return all;
  };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (!selects(maps[2], withBatch({m, n})))
    return rewriter.notifyMatchFailure(op, "unsupported output map");
  if (selects(maps[0], withBatch({m, k})))
    gemm.transposeA = false;
  else if (selects(maps[0], withBatch({k, m})))
    gemm.transposeA = true;
  else
    return rewriter.notifyMatchFailure(op, "unsupported lhs map");
  if (selects(maps[1], withBatch({k, n})))
    gemm.transposeB = false;
  else if (selects(maps[1], withBatch({n, k})))
    gemm.transposeB = true;
  else
    return rewriter.notifyMatchFailure(op, "unsupported rhs map");
  return gemm;
}

/// Same rank and element type, dynamic sizes, strides and offset.
static MemRefType dynamicStridedType(MemRefType type) {
  int64_t rank = type.getRank();
  SmallVector<int64_t> dynamic(rank, ShapedType::kDynamic);
  return MemRefType::get(
      dynamic, type.getElementType(),
      StridedLayoutAttr::get(type.getContext(), ShapedType::kDynamic, dynamic));
}

void createLibraryCall(RewriterBase &rewriter, Location loc, StringRef name,
                       ValueRange memrefs, ArrayRef<int64_t> scalars) {
  SmallVector<Value> operands;
  for (Value memref : memrefs)
    operands.push_back(memref::CastOp::create(
        rewriter, loc, dynamicStridedType(cast<MemRefType>(memref.getType())),
        memref));
  for (int64_t scalar : scalars)
    operands.push_back(
        arith::ConstantIntOp::create(rewriter, loc, scalar, /*width=*/64));

  auto module =
      rewriter.getInsertionBlock()->getParentOp()->getParentOfType<ModuleOp>();
  auto callee = module.lookupSymbol<func::FuncOp>(name);
  if (!callee) {
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(module.getBody());
    callee = func::FuncOp::create(
        rewriter, loc, name,
        rewriter.getFunctionType(ValueRange(operands).getTypes(), {}));
    callee.setPrivate();
    callee->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                    rewriter.getUnitAttr());
  }
  func::CallOp::create(rewriter, loc, callee, operands);
}

Value rootOf(Value view) {
  while (auto op = view.getDefiningOp<ViewLikeOpInterface>())
    view = op.getViewSource();
  return view;
}

bool isWholeView(Value view) {
  while (Operation *op = view.getDefiningOp<ViewLikeOpInterface>()) {
    if (!isa<memref::CollapseShapeOp, memref::ExpandShapeOp, memref::CastOp>(
            op))
      return false;
    view = op->getOperand(0);
  }
  return true;
}

bool usesBuffer(Operation *op, Value buffer) {
  return op
      ->walk([&](Operation *nested) {
        return llvm::any_of(nested->getOperands(),
                            [&](Value v) { return rootOf(v) == buffer; })
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

linalg::FillOp zeroFillBefore(Operation *op, Value c) {
  Value buffer = rootOf(c);
  if (!isWholeView(c))
    return nullptr;
  Operation *definition = buffer.getDefiningOp();
  for (Operation *before = op->getPrevNode(); before && before != definition;
       before = before->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(before);
        fill && rootOf(fill.getOutputs()[0]) == buffer) {
      auto value = fill.getInputs()[0].getDefiningOp<arith::ConstantOp>();
      auto zero = value ? dyn_cast<FloatAttr>(value.getValue()) : FloatAttr();
      return zero && zero.getValue().isZero() &&
                     isWholeView(fill.getOutputs()[0])
                 ? fill
                 : nullptr;
    }
    // Making a view reads and writes nothing.
    if (isa<ViewLikeOpInterface>(before) && isMemoryEffectFree(before))
      continue;
    if (usesBuffer(before, buffer))
      return nullptr;
  }
  return nullptr;
}

linalg::GenericOp onlyRoundingOf(Operation *op, Value c) {
  Value buffer = rootOf(c);
  auto cType = cast<MemRefType>(c.getType());
  auto allocation = buffer.getDefiningOp<memref::AllocOp>();
  if (!allocation || allocation->getBlock() != op->getBlock() ||
      !cType.getLayout().isIdentity() || !cType.hasStaticShape())
    return nullptr;
  linalg::GenericOp rounding;
  Operation *after = op->getNextNode();
  for (; after; after = after->getNextNode()) {
    if (isa<ViewLikeOpInterface>(after) && isMemoryEffectFree(after))
      continue;
    if (usesBuffer(after, buffer)) {
      rounding = dyn_cast<linalg::GenericOp>(after);
      break;
    }
  }
  if (!rounding || rounding.getNumDpsInputs() != 1 ||
      rounding.getNumDpsInits() != 1 ||
      rounding.getNumParallelLoops() != rounding.getNumLoops() ||
      !llvm::all_of(rounding.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return nullptr;
  Value input = rounding.getDpsInputOperand(0)->get();
  Value output = rounding.getDpsInitOperand(0)->get();
  auto yield = cast<linalg::YieldOp>(rounding.getBlock()->getTerminator());
  auto truncf = yield.getValues()[0].getDefiningOp<arith::TruncFOp>();
  if (rootOf(input) != buffer || !isWholeView(input) || !isWholeView(output) ||
      !truncf || truncf.getIn() != rounding.getBlock()->getArgument(0) ||
      truncf.getRoundingmode().value_or(arith::RoundingMode::to_nearest_even) !=
          arith::RoundingMode::to_nearest_even ||
      libraryTypeName(truncf.getType()).empty())
    return nullptr;
  auto roundedBuffer = dyn_cast<TypedValue<MemRefType>>(rootOf(output));
  auto roundedAllocation =
      roundedBuffer ? roundedBuffer.getDefiningOp<memref::AllocOp>() : nullptr;
  if (!roundedBuffer || roundedBuffer == buffer ||
      (!isa<BlockArgument>(roundedBuffer) &&
       (!roundedAllocation || roundedAllocation->getNumOperands() != 0)) ||
      !roundedBuffer.getType().getLayout().isIdentity() ||
      !roundedBuffer.getType().hasStaticShape() ||
      roundedBuffer.getType().getNumElements() != cType.getNumElements())
    return nullptr;
  for (Operation *between = op->getNextNode(); between != rounding;
       between = between->getNextNode())
    if (usesBuffer(between, roundedBuffer))
      return nullptr;
  for (Operation *later = rounding->getNextNode(); later;
       later = later->getNextNode())
    if (usesBuffer(later, buffer))
      return nullptr;
  return rounding;
}

Value reshapedAs(RewriterBase &rewriter, Location loc, Value buffer,
                 ArrayRef<int64_t> shape) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getShape() == shape)
    return buffer;
  auto all = [](int64_t rank) {
    return ReassociationIndices(llvm::to_vector(llvm::seq<int64_t>(0, rank)));
  };
  Value flat = buffer;
  if (type.getRank() != 1)
    flat = memref::CollapseShapeOp::create(rewriter, loc, buffer,
                                           {all(type.getRank())});
  if (shape.size() == 1)
    return flat;
  return memref::ExpandShapeOp::create(rewriter, loc, shape, flat,
                                       {all(shape.size())});
}

Value roundedOutputAt(RewriterBase &rewriter, Operation *op,
                      linalg::GenericOp rounding, Value c) {
  Value rounded = rootOf(rounding.getDpsInitOperand(0)->get());
  if (Operation *allocation = rounded.getDefiningOp();
      allocation && allocation->getBlock() == op->getBlock() &&
      op->isBeforeInBlock(allocation))
    rewriter.moveOpBefore(allocation, op);
  rewriter.setInsertionPoint(op);
  return reshapedAs(rewriter, op->getLoc(), rounded,
                    cast<MemRefType>(c.getType()).getShape());
}

Type roundedType(linalg::GenericOp rounding) {
  return cast<MemRefType>(rounding.getDpsInitOperand(0)->get().getType())
      .getElementType();
}

void replaceWithLibraryCall(PatternRewriter &rewriter, Operation *op,
                            StringRef name, SmallVector<Value> memrefs,
                            ArrayRef<int64_t> scalars,
                            function_ref<std::string(Type)> roundedName) {
  Value output = memrefs.back();
  Location loc = op->getLoc();
  linalg::FillOp zeroFill = zeroFillBefore(op, output);
  linalg::GenericOp rounding = zeroFill ? onlyRoundingOf(op, output) : nullptr;
  std::string callee =
      rounding ? roundedName(roundedType(rounding)) : std::string();
  if (callee.empty())
    rounding = nullptr;
  SmallVector<int64_t> arguments(scalars);
  if (rounding) {
    memrefs.back() = roundedOutputAt(rewriter, op, rounding, output);
  } else {
    callee = name.str();
    arguments.push_back(zeroFill ? 0 : 1);
  }
  rewriter.setInsertionPoint(op);
  createLibraryCall(rewriter, loc, callee, memrefs, arguments);
  rewriter.eraseOp(op);
  if (zeroFill)
    rewriter.eraseOp(zeroFill);
  if (rounding)
    rewriter.eraseOp(rounding);
}

namespace {
template <typename OpTy>
struct GemmToLibraryCall : public OpRewritePattern<OpTy> {
  GemmToLibraryCall(MLIRContext *context, StringRef prefix,
                    RoundedGemmNameFn roundedName)
      : OpRewritePattern<OpTy>(context), prefix(prefix.str()),
        roundedName(std::move(roundedName)) {}

  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    FailureOr<LibraryGemm> gemm = matchLibraryGemm(
        op, std::is_same_v<OpTy, linalg::BatchMatmulOp>, rewriter);
    if (failed(gemm))
      return failure();
    auto aType = cast<MemRefType>(gemm->a.getType());
    std::string name = prefix + libraryTypeName(aType.getElementType()).str() +
                       "_" + std::to_string(aType.getRank()) + "d";
    replaceWithLibraryCall(
        rewriter, op, name, {gemm->a, gemm->b, gemm->c},
        {gemm->transposeA, gemm->transposeB}, [&](Type rounded) {
          return roundedName(name, aType.getElementType(), rounded);
        });
    return success();
  }

  std::string prefix;
  RoundedGemmNameFn roundedName;
};
} // namespace

void populateGemmToLibraryCallPatterns(RewritePatternSet &patterns,
                                       StringRef prefix,
                                       RoundedGemmNameFn roundedName) {
  patterns.add<GemmToLibraryCall<linalg::MatmulOp>,
               GemmToLibraryCall<linalg::BatchMatmulOp>>(patterns.getContext(),
                                                         prefix, roundedName);
}

} // namespace mpt
