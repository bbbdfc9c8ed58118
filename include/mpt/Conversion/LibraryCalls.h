//===- LibraryCalls.h - bufferized linalg ops as runtime calls --*- C++ -*-===//
//
// What mpt-convert-linalg-to-cpu-kernels and
// mpt-convert-linalg-to-cuda-library-calls share: recognizing a matmul as a
// GEMM C(f32) += op(A)·op(B), finding the zero fill that makes it
// C = op(A)·op(B), and calling a runtime entry point with memref descriptors
// of any shape and layout.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_CONVERSION_LIBRARYCALLS_H
#define MPT_CONVERSION_LIBRARYCALLS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/PatternMatch.h"

#include <functional>
#include <string>

namespace mpt {

/// The element-type suffix of the runtime's entry points ("f32", "f16",
/// "bf16"), empty if there is none for `type`.
llvm::StringRef libraryTypeName(mlir::Type type);

/// The operands of a product that the entry points take: inputs `a` and `b`
/// of one library type and an f32 accumulator `c` (what mpt-convert-to-linalg
/// writes, and what cuBLASLt's COMPUTE_32F computes), all strided memrefs,
/// which the entry points' descriptors can describe.
struct LibraryOperands {
  mlir::Value a, b, c;
};

/// The inputs and the init of `op` as LibraryOperands, or a match failure
/// that says why not.
mlir::FailureOr<LibraryOperands>
matchLibraryOperands(mlir::linalg::LinalgOp op,
                     mlir::PatternRewriter &rewriter);

/// A linalg.matmul or linalg.batch_matmul as a GEMM: LibraryOperands, each
/// input read directly or transposed.
struct LibraryGemm : LibraryOperands {
  bool transposeA, transposeB;
};

/// `op` (batched: a linalg.batch_matmul) as a LibraryGemm, or a match
/// failure that says why not.
mlir::FailureOr<LibraryGemm> matchLibraryGemm(mlir::linalg::LinalgOp op,
                                              bool batched,
                                              mlir::PatternRewriter &rewriter);

/// Names the entry point that writes the product of the GEMM entry point
/// `name`, on inputs of type `input`, rounded to `rounded`; empty if there is
/// none.
using RoundedGemmNameFn = std::function<std::string(
    llvm::StringRef name, mlir::Type input, mlir::Type rounded)>;

/// Replaces linalg.matmul and linalg.batch_matmul GEMMs (matchLibraryGemm) by
/// calls to the entry point `<prefix><type>_<rank>d` of their inputs' type and
/// rank, or the one `roundedName` names (replaceWithLibraryCall).
void populateGemmToLibraryCallPatterns(mlir::RewritePatternSet &patterns,
                                       llvm::StringRef prefix,
                                       RoundedGemmNameFn roundedName);

/// Calls the entry point `name` at the rewriter's insertion point with
/// `memrefs`, cast to dynamic sizes, strides and offset (one entry point
/// serves every shape and layout), then `scalars` as i64. The entry point is
/// declared on first use with a C interface, so memrefs travel as
/// descriptors.
void createLibraryCall(mlir::RewriterBase &rewriter, mlir::Location loc,
                       llvm::StringRef name, mlir::ValueRange memrefs,
                       llvm::ArrayRef<int64_t> scalars);

/// Replaces `op`, which adds its product to the last of `memrefs`, by a call
/// to the entry point `name` with `scalars` and then `accumulate`: 0 where a
/// zero fill of the output went before `op` (zeroFillBefore), which then goes
/// too. Where that zeroed product is then only rounded (onlyRoundingOf) and
/// `roundedName` names an entry point for the rounded type (non-empty), that
/// one is called instead, without `accumulate`, writing the product rounded
/// into the rounding's buffer, and the rounding goes: no f32 product is
/// written or read again.
void replaceWithLibraryCall(
    mlir::PatternRewriter &rewriter, mlir::Operation *op, llvm::StringRef name,
    llvm::SmallVector<mlir::Value> memrefs, llvm::ArrayRef<int64_t> scalars,
    llvm::function_ref<std::string(mlir::Type rounded)> roundedName);

/// The allocation or argument that `view` is a view of.
mlir::Value rootOf(mlir::Value view);

/// Whether `view` shows all of its root (through reshapes and casts).
bool isWholeView(mlir::Value view);

/// Whether `op` or an op nested in it has an operand that views `buffer`.
bool usesBuffer(mlir::Operation *op, mlir::Value buffer);

/// The linalg.fill that writes 0.0 to all of `c`'s buffer before `op` in its
/// block, with nothing in between reading or writing that buffer; null if
/// there is none. The GEMM or convolution `op` can then write C instead of
/// adding to it: no fill, and C is not read.
mlir::linalg::FillOp zeroFillBefore(mlir::Operation *op, mlir::Value c);

/// The generic after `op` that rounds all of the f32 product `c` to a
/// library type (arith.truncf to nearest even, element for element, into all
/// of another buffer), when it is the product's only reader: the product's
/// buffer is `op`'s block's own allocation, read by nothing else, and nothing
/// between `op` and the rounding uses the rounded buffer, which the GEMM or
/// convolution may then write at `op`. Null otherwise.
mlir::linalg::GenericOp onlyRoundingOf(mlir::Operation *op, mlir::Value c);

/// The buffer that `rounding` (onlyRoundingOf(op, c)) writes, seen in `c`'s
/// shape and available at `op` (its allocation moves before `op`), for `op`
/// to write its product rounded there. Leaves the insertion point at `op`.
mlir::Value roundedOutputAt(mlir::RewriterBase &rewriter, mlir::Operation *op,
                            mlir::linalg::GenericOp rounding, mlir::Value c);

/// The element type that `rounding` (onlyRoundingOf) rounds to.
mlir::Type roundedType(mlir::linalg::GenericOp rounding);

/// `buffer` (contiguous, static) as a memref of `shape`: both list the same
/// elements in the same order.
mlir::Value reshapedAs(mlir::RewriterBase &rewriter, mlir::Location loc,
                       mlir::Value buffer, llvm::ArrayRef<int64_t> shape);

} // namespace mpt

#endif // MPT_CONVERSION_LIBRARYCALLS_H
