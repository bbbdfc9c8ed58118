//===- LinalgToVectorizableLoops.cpp - 16-bit float loops for LLVM -------===//
//
// LLVM prices vector f16/bf16 operations on x86 without AVX512-FP16 as if
// scalarized and keeps their loops scalar, although it lowers them to
// vector conversions and f32 vector arithmetic. Marking the innermost
// parallel loop of a 16-bit float op overrides that cost model.
//
//===----------------------------------------------------------------------===//

#include "mpt/Conversion/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMAttrs.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mpt {
#define GEN_PASS_DEF_CONVERTLINALGTOVECTORIZABLELOOPS
#include "mpt/Conversion/Passes.h.inc"
} // namespace mpt

using namespace mlir;

namespace {

bool is16BitFloat(Type type) {
  return isa<Float16Type, BFloat16Type>(getElementTypeOrSelf(type));
}

/// The innermost loop dimension appears in at most one index of the operand,
/// and every index after it is a constant: consecutive iterations are a
/// constant stride apart (1, or the trailing constant dimensions' size), which
/// LLVM vectorizes as contiguous or interleaved accesses, not gathers.
bool hasConstantStride(AffineMap map, unsigned innermost) {
  std::optional<unsigned> position;
  for (auto [index, result] : llvm::enumerate(map.getResults())) {
    if (!result.isFunctionOfDim(innermost))
      continue;
    if (position)
      return false;
    position = index;
  }
  if (!position)
    return true;
  return llvm::all_of(
      map.getResults().drop_front(*position + 1),
      [](AffineExpr result) { return isa<AffineConstantExpr>(result); });
}

bool wantsVectorHint(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumLoops() == 0)
    return false;
  unsigned innermost = op.getNumLoops() - 1;
  if (!linalg::isParallelIterator(op.getIteratorTypesArray()[innermost]))
    return false;
  bool touches16BitFloats = false;
  for (OpOperand &operand : op->getOpOperands()) {
    if (!is16BitFloat(operand.get().getType()))
      continue;
    touches16BitFloats = true;
    if (!hasConstantStride(op.getMatchingIndexingMap(&operand), innermost))
      return false;
  }
  return touches16BitFloats;
}

struct ConvertLinalgToVectorizableLoops
    : public mpt::impl::ConvertLinalgToVectorizableLoopsBase<
          ConvertLinalgToVectorizableLoops> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *context = &getContext();
    auto vectorize = LLVM::LoopVectorizeAttr::get(
        context, /*disable=*/BoolAttr::get(context, false),
        /*predicateEnable=*/BoolAttr::get(context, true), /*scalableEnable=*/{},
        IntegerAttr::get(IntegerType::get(context, 32), vectorWidth),
        /*followupVectorized=*/{}, /*followupEpilogue=*/{},
        /*followupAll=*/{});
    auto annotation = LLVM::LoopAnnotationAttr::get(
        context, /*disableNonforced=*/{}, vectorize, /*interleave=*/{},
        /*unroll=*/
        LLVM::LoopUnrollAttr::get(context, BoolAttr::get(context, true), {}, {},
                                  {}, {}, {}, {}),
        /*unrollAndJam=*/{}, /*licm=*/{}, /*distribute=*/{},
        /*pipeline=*/{}, /*peeled=*/{}, /*unswitch=*/{}, /*mustProgress=*/{},
        /*isVectorized=*/{}, /*startLoc=*/{}, /*endLoc=*/{},
        /*parallelAccesses=*/{});
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (wantsVectorHint(op))
        ops.push_back(op);
    });
    IRRewriter rewriter(context);
    for (linalg::LinalgOp op : ops) {
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::LinalgLoops> loops =
          linalg::linalgOpToLoops(rewriter, op);
      if (failed(loops))
        continue;
      loops->back()->setAttr("loop_annotation", annotation);
      rewriter.eraseOp(op);
    }
    // The loops index through identity affine.apply ops, which
    // convert-linalg-to-loops folds away too.
    RewritePatternSet patterns(context);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    (void)applyPatternsGreedily(getOperation(), std::move(patterns));
  }
};
} // namespace
