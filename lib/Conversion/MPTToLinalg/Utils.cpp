//===- Utils.cpp - helpers shared by the mpt-to-linalg patterns -----------===//

#include "Utils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

namespace mpt::detail {

Type elementType(Value value) { return tensorType(value).getElementType(); }

SmallVector<Value> buildGeneric(OpBuilder &builder, Location loc,
                                ValueRange inputs, ValueRange inits,
                                ArrayRef<AffineMap> maps,
                                ArrayRef<utils::IteratorType> iterators,
                                GenericBodyFn body) {
  auto generic = linalg::GenericOp::create(
      builder, loc, inits.getTypes(), inputs, inits, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        linalg::YieldOp::create(nested, nestedLoc,
                                body(nested, nestedLoc, args));
      });
  return SmallVector<Value>(generic.getResults());
}

SmallVector<Value> buildElementwise(OpBuilder &builder, Location loc,
                                    ArrayRef<int64_t> shape, ValueRange inputs,
                                    ArrayRef<AffineMap> inputMaps,
                                    TypeRange resultElementTypes,
                                    GenericBodyFn body) {
  AffineMap identity = builder.getMultiDimIdentityMap(shape.size());
  SmallVector<AffineMap> maps(inputMaps);
  maps.resize(inputs.size(), identity);
  maps.append(resultElementTypes.size(), identity);
  SmallVector<Value> inits =
      llvm::map_to_vector(resultElementTypes, [&](Type type) {
        return createEmpty(builder, loc, shape, type);
      });
  return buildGeneric(builder, loc, inputs, inits, maps,
                      iteratorTypes(shape.size()), body);
}

SmallVector<utils::IteratorType>
iteratorTypes(int64_t rank, ArrayRef<int64_t> reductionDims) {
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  for (int64_t dim : reductionDims)
    iterators[dim] = utils::IteratorType::reduction;
  return iterators;
}

AffineMap projectionMap(MLIRContext *context, int64_t numDims,
                        ArrayRef<int64_t> dims) {
  SmallVector<AffineExpr> results = llvm::map_to_vector(
      dims, [&](int64_t dim) { return getAffineDimExpr(dim, context); });
  return AffineMap::get(numDims, /*symbolCount=*/0, results, context);
}

AffineMap dropDimsMap(MLIRContext *context, int64_t numDims,
                      ArrayRef<int64_t> droppedDims) {
  SmallVector<int64_t> kept;
  for (int64_t dim = 0; dim < numDims; ++dim)
    if (!llvm::is_contained(droppedDims, dim))
      kept.push_back(dim);
  return projectionMap(context, numDims, kept);
}

SmallVector<int64_t> dropDims(ArrayRef<int64_t> shape,
                              ArrayRef<int64_t> droppedDims) {
  SmallVector<int64_t> kept;
  for (auto [dim, size] : llvm::enumerate(shape))
    if (!llvm::is_contained(droppedDims, static_cast<int64_t>(dim)))
      kept.push_back(size);
  return kept;
}

Value createEmpty(OpBuilder &builder, Location loc, ArrayRef<int64_t> shape,
                  Type elementType) {
  return tensor::EmptyOp::create(builder, loc, shape, elementType);
}

Value createFilled(OpBuilder &builder, Location loc, ArrayRef<int64_t> shape,
                   Value value) {
  Value empty = createEmpty(builder, loc, shape, value.getType());
  return linalg::FillOp::create(builder, loc, value, empty).getResult(0);
}

Value createFilled(OpBuilder &builder, Location loc, ArrayRef<int64_t> shape,
                   Type elementType, double value) {
  return createFilled(builder, loc, shape,
                      floatConstant(builder, loc, elementType, value));
}

Value floatConstant(OpBuilder &builder, Location loc, Type type, double value) {
  return arith::ConstantOp::create(builder, loc, FloatAttr::get(type, value));
}

Value intConstant(OpBuilder &builder, Location loc, Type type, int64_t value) {
  return arith::ConstantOp::create(builder, loc,
                                   builder.getIntegerAttr(type, value));
}

Value castScalar(OpBuilder &builder, Location loc, Value value, Type to) {
  auto from = cast<FloatType>(value.getType());
  auto target = cast<FloatType>(to);
  if (from == target)
    return value;
  // f16 and bf16 have the same width but neither holds the other: go through
  // f32, which holds both exactly.
  if (from.getWidth() == target.getWidth())
    value = castScalar(builder, loc, value, builder.getF32Type());
  if (cast<FloatType>(value.getType()).getWidth() < target.getWidth())
    return arith::ExtFOp::create(builder, loc, target, value);
  return arith::TruncFOp::create(builder, loc, target, value);
}

Value toF32(OpBuilder &builder, Location loc, Value value) {
  return castScalar(builder, loc, value, builder.getF32Type());
}

Value convertElements(OpBuilder &builder, Location loc, Value tensor,
                      Type elementType) {
  RankedTensorType type = tensorType(tensor);
  if (type.getElementType() == elementType)
    return tensor;
  int64_t rank = type.getRank();
  AffineMap identity = builder.getMultiDimIdentityMap(rank);
  return buildGeneric(
      builder, loc, tensor,
      createEmpty(builder, loc, type.getShape(), elementType),
      {identity, identity}, iteratorTypes(rank),
      [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
        return {castScalar(b, l, args[0], elementType)};
      })[0];
}

Value padSpatial(OpBuilder &builder, Location loc, Value input,
                 ArrayRef<int64_t> padding, double padValue) {
  if (llvm::all_of(padding, [](int64_t pad) { return pad == 0; }))
    return input;
  RankedTensorType type = tensorType(input);
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<OpFoldResult> pads(2, builder.getIndexAttr(0));
  for (int i = 0; i < 2; ++i) {
    shape[2 + i] += 2 * padding[i];
    pads.push_back(builder.getIndexAttr(padding[i]));
  }
  Value value = floatConstant(builder, loc, type.getElementType(), padValue);
  return tensor::PadOp::create(builder, loc, type.clone(shape), input, pads,
                               pads, value);
}

SmallVector<Value> reduceByDims(OpBuilder &builder, Location loc,
                                ValueRange inputs,
                                ArrayRef<AffineMap> inputMaps,
                                ArrayRef<int64_t> shape,
                                ArrayRef<int64_t> reducedDims,
                                unsigned numResults, GenericBodyFn terms) {
  MLIRContext *context = builder.getContext();
  SmallVector<int64_t> dims(reducedDims);
  llvm::sort(dims);
  Type f32 = builder.getF32Type();
  if (dims.empty())
    return buildElementwise(builder, loc, shape, inputs, inputMaps,
                            SmallVector<Type>(numResults, f32), terms);
  // Sums over `dim` of an iteration space shaped `iterationShape`, reading
  // `sources` through `sourceMaps`, into `numResults` fresh f32 tensors.
  auto sumOver = [&](ArrayRef<int64_t> iterationShape, int64_t dim,
                     ValueRange sources, ArrayRef<AffineMap> sourceMaps,
                     unsigned numSums, GenericBodyFn body) {
    int64_t iterationRank = iterationShape.size();
    SmallVector<int64_t> resultShape = dropDims(iterationShape, {dim});
    SmallVector<Value> inits(numSums,
                             createFilled(builder, loc, resultShape, f32, 0.0));
    SmallVector<AffineMap> maps(sourceMaps);
    maps.append(numSums, dropDimsMap(context, iterationRank, {dim}));
    return buildGeneric(builder, loc, sources, inits, maps,
                        iteratorTypes(iterationRank, {dim}), body);
  };

  // First level: the terms, summed over the outermost reduced dimension.
  SmallVector<Value> partials = sumOver(
      shape, dims.front(), inputs, inputMaps, numResults,
      [&](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
        SmallVector<Value> values = terms(b, l, args.take_front(inputs.size()));
        ValueRange accumulators = args.drop_front(inputs.size());
        SmallVector<Value> sums;
        for (auto [accumulator, value] : llvm::zip(accumulators, values))
          sums.push_back(arith::AddFOp::create(b, l, accumulator, value));
        return sums;
      });
  // Then one level per remaining dimension; each earlier level removed one
  // dimension in front of it.
  SmallVector<int64_t> partialShape = dropDims(shape, {dims.front()});
  for (auto [level, dim] : llvm::enumerate(ArrayRef(dims).drop_front())) {
    int64_t position = dim - level - 1;
    AffineMap identity = builder.getMultiDimIdentityMap(partialShape.size());
    for (Value &partial : partials)
      partial = sumOver(
          partialShape, position, partial, identity, /*numSums=*/1,
          [](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
            return {arith::AddFOp::create(b, l, args[1], args[0])};
          })[0];
    partialShape = dropDims(partialShape, {position});
  }
  return partials;
}

Value sumToF32(OpBuilder &builder, Location loc, Value input,
               ArrayRef<int64_t> reducedDims) {
  RankedTensorType type = tensorType(input);
  return reduceByDims(
      builder, loc, input, builder.getMultiDimIdentityMap(type.getRank()),
      type.getShape(), reducedDims, /*numResults=*/1,
      [](OpBuilder &b, Location l, ValueRange args) -> SmallVector<Value> {
        return {toF32(b, l, args[0])};
      })[0];
}

Value FloatMath::constant(double value) const {
  return floatConstant(b, loc, type, value);
}
Value FloatMath::add(Value lhs, Value rhs) const {
  return arith::AddFOp::create(b, loc, lhs, rhs);
}
Value FloatMath::sub(Value lhs, Value rhs) const {
  return arith::SubFOp::create(b, loc, lhs, rhs);
}
Value FloatMath::mul(Value lhs, Value rhs) const {
  return arith::MulFOp::create(b, loc, lhs, rhs);
}
Value FloatMath::div(Value lhs, Value rhs) const {
  return arith::DivFOp::create(b, loc, lhs, rhs);
}
Value FloatMath::sqrt(Value value) const {
  return math::SqrtOp::create(b, loc, value);
}
Value FloatMath::exp(Value value) const {
  return math::ExpOp::create(b, loc, value);
}
Value FloatMath::log(Value value) const {
  return math::LogOp::create(b, loc, value);
}
Value FloatMath::cast(Value value) const {
  return castScalar(b, loc, value, type);
}

} // namespace mpt::detail
