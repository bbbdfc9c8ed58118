//===- Utils.h - helpers shared by the mpt-to-linalg patterns ---*- C++ -*-===//
//
// Builders for the tensors, linalg.generic ops and scalar casts that every
// pattern of mpt-convert-to-linalg needs. All shapes are static (the mpt
// verifiers guarantee it).
//
//===----------------------------------------------------------------------===//

#ifndef MPT_LIB_CONVERSION_MPTTOLINALG_UTILS_H
#define MPT_LIB_CONVERSION_MPTTOLINALG_UTILS_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/Transforms/DialectConversion.h"

#include "mpt/Dialect/MPT/IR/MPTOps.h"

namespace mpt::detail {

/// Builds the body of a linalg.generic from its block arguments (inputs, then
/// outputs) and returns the values to yield.
using GenericBodyFn = llvm::function_ref<llvm::SmallVector<mlir::Value>(
    mlir::OpBuilder &, mlir::Location, mlir::ValueRange)>;

/// Creates a linalg.generic whose results have the types of `inits` and
/// returns its results.
llvm::SmallVector<mlir::Value> buildGeneric(
    mlir::OpBuilder &builder, mlir::Location loc, mlir::ValueRange inputs,
    mlir::ValueRange inits, llvm::ArrayRef<mlir::AffineMap> maps,
    llvm::ArrayRef<mlir::utils::IteratorType> iterators, GenericBodyFn body);

/// `rank` iterators, parallel except at `reductionDims`.
llvm::SmallVector<mlir::utils::IteratorType>
iteratorTypes(int64_t rank, llvm::ArrayRef<int64_t> reductionDims = {});

/// The map (d0, ..., d{numDims-1}) -> (d{dims[0]}, d{dims[1]}, ...); with no
/// `dims`, the map to a 0-d tensor.
mlir::AffineMap projectionMap(mlir::MLIRContext *context, int64_t numDims,
                              llvm::ArrayRef<int64_t> dims);

/// The map (d0, ..., d{numDims-1}) -> (d0, ..., d{numDims-1}) without the
/// dimensions in `droppedDims`.
mlir::AffineMap dropDimsMap(mlir::MLIRContext *context, int64_t numDims,
                            llvm::ArrayRef<int64_t> droppedDims);

/// The shape of `shape` without the dimensions in `droppedDims`.
llvm::SmallVector<int64_t> dropDims(llvm::ArrayRef<int64_t> shape,
                                    llvm::ArrayRef<int64_t> droppedDims);

/// tensor.empty of the given shape and element type.
mlir::Value createEmpty(mlir::OpBuilder &builder, mlir::Location loc,
                        llvm::ArrayRef<int64_t> shape, mlir::Type elementType);

/// tensor.empty filled (linalg.fill) with the scalar `value`.
mlir::Value createFilled(mlir::OpBuilder &builder, mlir::Location loc,
                         llvm::ArrayRef<int64_t> shape, mlir::Value value);

/// tensor.empty of `elementType` filled with the constant `value`.
mlir::Value createFilled(mlir::OpBuilder &builder, mlir::Location loc,
                         llvm::ArrayRef<int64_t> shape, mlir::Type elementType,
                         double value);

/// A scalar arith.constant of float type `type`, rounded from `value`.
mlir::Value floatConstant(mlir::OpBuilder &builder, mlir::Location loc,
                          mlir::Type type, double value);

/// A scalar arith.constant of integer or index type `type`.
mlir::Value intConstant(mlir::OpBuilder &builder, mlir::Location loc,
                        mlir::Type type, int64_t value);

/// Converts a float scalar to the float type `to` (extf/truncf; f16 and bf16
/// convert through f32).
mlir::Value castScalar(mlir::OpBuilder &builder, mlir::Location loc,
                       mlir::Value value, mlir::Type to);

/// `castScalar` to f32.
mlir::Value toF32(mlir::OpBuilder &builder, mlir::Location loc,
                  mlir::Value value);

/// Converts every element of a float tensor to `elementType` with an
/// elementwise linalg.generic; returns `tensor` when it already has that type.
mlir::Value convertElements(mlir::OpBuilder &builder, mlir::Location loc,
                            mlir::Value tensor, mlir::Type elementType);

/// Pads the two innermost (spatial) dimensions of an NCHW tensor
/// symmetrically by `padding` with the constant `padValue`; returns `input`
/// when there is no padding.
mlir::Value padSpatial(mlir::OpBuilder &builder, mlir::Location loc,
                       mlir::Value input, llvm::ArrayRef<int64_t> padding,
                       double padValue);

/// Sums, in f32, the `numResults` terms that `terms` computes from `inputs`
/// (read through `inputMaps` over the iteration space `shape`) over
/// `reducedDims`: one linalg.generic per reduced dimension, outermost first,
/// each summing the previous level's partial sums. Every sum thus adds at
/// most one dimension's worth of values (a tree whose depth is the sum of the
/// reduced sizes, not their product: 28 + 28 + 64 additions instead of 50176
/// for a batch norm over 64x28x28), and the first, largest level runs along
/// an outer dimension, so its inner loop is parallel and vectorizes. Results
/// are shaped like `shape` without `reducedDims`.
llvm::SmallVector<mlir::Value>
reduceByDims(mlir::OpBuilder &builder, mlir::Location loc,
             mlir::ValueRange inputs, llvm::ArrayRef<mlir::AffineMap> inputMaps,
             llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> reducedDims,
             unsigned numResults, GenericBodyFn terms);

/// Sums float `input` over `reducedDims` into a fresh f32 tensor, accumulating
/// in f32 whatever the input type, by `reduceByDims`.
mlir::Value sumToF32(mlir::OpBuilder &builder, mlir::Location loc,
                     mlir::Value input, llvm::ArrayRef<int64_t> reducedDims);

/// Creates a linalg.generic over `shape` with all loops parallel: `inputs`
/// are read through `inputMaps` (identity maps when empty), and the results
/// are fresh tensors of `shape` with `resultElementTypes`.
llvm::SmallVector<mlir::Value>
buildElementwise(mlir::OpBuilder &builder, mlir::Location loc,
                 llvm::ArrayRef<int64_t> shape, mlir::ValueRange inputs,
                 llvm::ArrayRef<mlir::AffineMap> inputMaps,
                 mlir::TypeRange resultElementTypes, GenericBodyFn body);

/// Terse scalar float arithmetic in one type, for linalg.generic bodies.
struct FloatMath {
  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::Type type;

  mlir::Value constant(double value) const;
  mlir::Value add(mlir::Value lhs, mlir::Value rhs) const;
  mlir::Value sub(mlir::Value lhs, mlir::Value rhs) const;
  mlir::Value mul(mlir::Value lhs, mlir::Value rhs) const;
  mlir::Value div(mlir::Value lhs, mlir::Value rhs) const;
  mlir::Value sqrt(mlir::Value value) const;
  mlir::Value exp(mlir::Value value) const;
  mlir::Value log(mlir::Value value) const;
  /// `value` converted to `type`.
  mlir::Value cast(mlir::Value value) const;
};

/// The element type of a value known to be a ranked tensor (tensorType).
mlir::Type elementType(mlir::Value value);

// Pattern registration, one function per source file.
void populateLinearAlgebraPatterns(mlir::RewritePatternSet &patterns);
void populateElementwisePatterns(mlir::RewritePatternSet &patterns);
void populateNormalizationPatterns(mlir::RewritePatternSet &patterns);
void populateLossPatterns(mlir::RewritePatternSet &patterns);
void populateOptimizerPatterns(mlir::RewritePatternSet &patterns);
void populateCollectivePatterns(mlir::RewritePatternSet &patterns);
void populateEmbeddingPatterns(mlir::RewritePatternSet &patterns);
void populateDropoutPatterns(mlir::RewritePatternSet &patterns);

/// mpt.all_reduce stays an mpt op, as one 1-d tensor (Collectives.cpp).
bool isFlatBucket(AllReduceOp op);

} // namespace mpt::detail

#endif // MPT_LIB_CONVERSION_MPTTOLINALG_UTILS_H
