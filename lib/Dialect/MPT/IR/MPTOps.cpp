//===- MPTOps.cpp - mpt operations: verifiers, folders, type inference ----===//
//
// The ops of the update (optimizers, gradient clipping, loss scaling) are in
// UpdateOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "mpt/Dialect/MPT/IR/MPTOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

#include "OpVerifiers.h"

using namespace mlir;
using namespace mpt;
using namespace mpt::detail;

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// "128x784" for a shape, "scalar" for rank 0.
static std::string formatShape(ArrayRef<int64_t> shape) {
  if (shape.empty())
    return "scalar";
  return llvm::join(
      llvm::map_range(shape, [](int64_t d) { return std::to_string(d); }), "x");
}

static LogicalResult verifyRank(Operation *op, StringRef name, Value value,
                                ArrayRef<int64_t> allowedRanks) {
  int64_t rank = tensorType(value).getRank();
  if (llvm::is_contained(allowedRanks, rank))
    return success();
  std::string ranks =
      llvm::join(llvm::map_range(allowedRanks,
                                 [](int64_t r) { return std::to_string(r); }),
                 " or ");
  return op->emitOpError("expected ")
         << name << " of rank " << ranks << ", got rank " << rank << " ("
         << value.getType() << ")";
}

static LogicalResult verifySameElementType(Operation *op, StringRef lhsName,
                                           Value lhs, StringRef rhsName,
                                           Value rhs) {
  Type lhsElement = tensorType(lhs).getElementType();
  Type rhsElement = tensorType(rhs).getElementType();
  if (lhsElement == rhsElement)
    return success();
  return op->emitOpError("expected ")
         << lhsName << " and " << rhsName << " element types to match, got "
         << lhsElement << " and " << rhsElement;
}

/// A low-precision product may accumulate into f32; otherwise the result keeps
/// the operand type.
static LogicalResult verifyAccumulatorType(Operation *op, Type operandElement,
                                           Value result) {
  Type resultElement = tensorType(result).getElementType();
  if (resultElement == operandElement || resultElement.isF32())
    return success();
  if (operandElement.isF32())
    return op->emitOpError("expected result element type f32, got ")
           << resultElement;
  return op->emitOpError("expected result element type ")
         << operandElement << " or f32, got " << resultElement;
}

LogicalResult mpt::detail::verifyShape(Operation *op, StringRef name,
                                       Value value,
                                       ArrayRef<int64_t> expected) {
  ArrayRef<int64_t> actual = tensorType(value).getShape();
  if (actual == expected)
    return success();
  return op->emitOpError("expected ")
         << name << " shape " << formatShape(expected) << ", got "
         << formatShape(actual);
}

static LogicalResult verifyDimsEqual(Operation *op, StringRef lhsName,
                                     int64_t lhsDim, int64_t lhsSize,
                                     StringRef rhsName, int64_t rhsDim,
                                     int64_t rhsSize) {
  if (lhsSize == rhsSize)
    return success();
  return op->emitOpError("expected ")
         << lhsName << " dim " << lhsDim << " (" << lhsSize << ") to equal "
         << rhsName << " dim " << rhsDim << " (" << rhsSize << ")";
}

LogicalResult mpt::detail::verifyPositive(Operation *op, StringRef name,
                                          float value) {
  if (value > 0.0f && std::isfinite(value))
    return success();
  return op->emitOpError("expected ")
         << name << " to be positive and finite, got " << value;
}

LogicalResult mpt::detail::verifyNonNegative(Operation *op, StringRef name,
                                             float value) {
  if (value >= 0.0f && std::isfinite(value))
    return success();
  return op->emitOpError("expected ")
         << name << " to be non-negative and finite, got " << value;
}

LogicalResult mpt::detail::verifyInRange(Operation *op, StringRef name,
                                         float value, float low, float high,
                                         bool highInclusive) {
  if (value >= low && (highInclusive ? value <= high : value < high))
    return success();
  return op->emitOpError("expected ")
         << name << " in [" << low << ", " << high
         << (highInclusive ? "]" : ")") << ", got " << value;
}

/// Checks a 2-d window attribute: two entries, each at least `minValue`.
static LogicalResult verifyWindowAttr(Operation *op, StringRef name,
                                      ArrayRef<int64_t> values,
                                      int64_t minValue) {
  if (values.size() != 2)
    return op->emitOpError("expected ")
           << name << " to have 2 entries (H, W), got " << values.size();
  for (int64_t v : values)
    if (v < minValue)
      return op->emitOpError("expected ")
             << name << " entries to be at least " << minValue << ", got "
             << formatShape(values);
  return success();
}

/// Checks a list of dims: strictly increasing, each in [0, rank).
static LogicalResult verifyDimList(Operation *op, ArrayRef<int64_t> dims,
                                   int64_t rank) {
  int64_t previous = -1;
  for (int64_t dim : dims) {
    if (dim <= previous || dim >= rank)
      return op->emitOpError("expected dims to be strictly increasing in [0, ")
             << rank << "), got ["
             << llvm::join(
                    llvm::map_range(
                        dims, [](int64_t d) { return std::to_string(d); }),
                    ", ")
             << "]";
    previous = dim;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

bool MatmulOp::isScaleEquivariantIn(const llvm::SmallBitVector &scaled) {
  return scalesWithAnyOneOperand(scaled);
}

LogicalResult MatmulOp::verify() {
  Operation *op = getOperation();
  if (failed(verifyRank(op, "lhs", getLhs(), {2, 3})))
    return failure();
  RankedTensorType lhsType = tensorType(getLhs()),
                   rhsType = tensorType(getRhs()),
                   resultType = tensorType(getResult());
  int64_t rank = lhsType.getRank();
  if (rhsType.getRank() != rank)
    return emitOpError("expected rhs rank (")
           << rhsType.getRank() << ") to equal lhs rank (" << rank << ")";
  if (resultType.getRank() != rank)
    return emitOpError("expected result rank (")
           << resultType.getRank() << ") to equal lhs rank (" << rank << ")";
  if (failed(verifySameElementType(op, "lhs", getLhs(), "rhs", getRhs())) ||
      failed(verifyAccumulatorType(op, lhsType.getElementType(), getResult())))
    return failure();

  SmallVector<int64_t> expected;
  if (rank == 3) {
    if (failed(verifyDimsEqual(op, "lhs batch", 0, lhsType.getDimSize(0),
                               "rhs batch", 0, rhsType.getDimSize(0))))
      return failure();
    expected.push_back(lhsType.getDimSize(0));
  }
  int64_t rowDim = rank - 2, colDim = rank - 1;
  int64_t lhsM = getTransposeA() ? colDim : rowDim,
          lhsK = getTransposeA() ? rowDim : colDim;
  int64_t rhsK = getTransposeB() ? colDim : rowDim,
          rhsN = getTransposeB() ? rowDim : colDim;
  if (failed(verifyDimsEqual(op, "lhs", lhsK, lhsType.getDimSize(lhsK), "rhs",
                             rhsK, rhsType.getDimSize(rhsK))))
    return failure();
  expected.push_back(lhsType.getDimSize(lhsM));
  expected.push_back(rhsType.getDimSize(rhsN));
  return verifyShape(op, "result", getResult(), expected);
}

//===----------------------------------------------------------------------===//
// BiasAddOp
//===----------------------------------------------------------------------===//

int64_t BiasAddOp::getNormalizedAxis() {
  auto axis = static_cast<int64_t>(getAxis());
  return axis < 0 ? axis + tensorType(getInput()).getRank() : axis;
}

bool BiasAddOp::isScaleEquivariantIn(const llvm::SmallBitVector &scaled) {
  return scalesWithAllOperands(scaled);
}

LogicalResult BiasAddOp::verify() {
  Operation *op = getOperation();
  if (failed(verifyRank(op, "bias", getBias(), {1})) ||
      failed(verifySameElementType(op, "input", getInput(), "bias", getBias())))
    return failure();
  int64_t rank = tensorType(getInput()).getRank();
  if (rank == 0)
    return emitOpError("expected input of rank at least 1, got a scalar");
  auto axis = static_cast<int64_t>(getAxis());
  if (axis < -rank || axis >= rank)
    return emitOpError("expected axis in [")
           << -rank << ", " << rank << ") for an input of rank " << rank
           << ", got " << axis;
  int64_t normalized = getNormalizedAxis();
  return verifyDimsEqual(op, "bias", 0, tensorType(getBias()).getDimSize(0),
                         "input", normalized,
                         tensorType(getInput()).getDimSize(normalized));
}

//===----------------------------------------------------------------------===//
// Convolution
//===----------------------------------------------------------------------===//

namespace {
/// The three tensors of a convolution, whichever of them the op computes.
struct ConvRoles {
  StringRef inputName, filterName, outputName;
  Value input, filter, output;
};
} // namespace

static int64_t windowOutputSize(int64_t size, int64_t kernel, int64_t stride,
                                int64_t pad, int64_t dilation) {
  int64_t span = dilation * (kernel - 1) + 1;
  if (size + 2 * pad < span)
    return 0;
  return (size + 2 * pad - span) / stride + 1;
}

static LogicalResult verifyConv(Operation *op, const ConvRoles &roles,
                                ArrayRef<int64_t> strides,
                                ArrayRef<int64_t> padding,
                                ArrayRef<int64_t> dilations, int64_t groups) {
  if (failed(verifyWindowAttr(op, "strides", strides, 1)) ||
      failed(verifyWindowAttr(op, "padding", padding, 0)) ||
      failed(verifyWindowAttr(op, "dilations", dilations, 1)))
    return failure();
  for (auto [name, layout, value] :
       {std::tuple(roles.inputName, "NCHW", roles.input),
        std::tuple(roles.filterName, "FCHW", roles.filter),
        std::tuple(roles.outputName, "NCHW", roles.output)})
    if (failed(verifyRank(op, (name + " (" + layout + ")").str(), value, {4})))
      return failure();
  if (failed(verifySameElementType(op, "lhs", op->getOperand(0), "rhs",
                                   op->getOperand(1))) ||
      failed(verifyAccumulatorType(
          op, tensorType(op->getOperand(0)).getElementType(),
          op->getResult(0))))
    return failure();

  ArrayRef<int64_t> input = tensorType(roles.input).getShape();
  ArrayRef<int64_t> filter = tensorType(roles.filter).getShape();
  ArrayRef<int64_t> output = tensorType(roles.output).getShape();
  // Each group of F / groups filters reads C / groups input channels.
  for (auto [name, channels] : {std::pair(roles.inputName, input[1]),
                                std::pair(roles.filterName, filter[0])})
    if (channels % groups != 0)
      return op->emitOpError("expected ")
             << name << " channels (" << channels
             << ") to be divisible by groups (" << groups << ")";
  if (input[1] / groups != filter[1])
    return op->emitOpError("expected ")
           << roles.inputName << " dim 1 (" << input[1] << ") / groups ("
           << groups << ") to equal " << roles.filterName << " dim 1 ("
           << filter[1] << ")";
  if (failed(verifyDimsEqual(op, roles.outputName, 0, output[0],
                             roles.inputName, 0, input[0])) ||
      failed(verifyDimsEqual(op, roles.outputName, 1, output[1],
                             roles.filterName, 0, filter[0])))
    return failure();
  SmallVector<int64_t, 2> spatial;
  for (int i = 0; i < 2; ++i) {
    int64_t size = windowOutputSize(input[2 + i], filter[2 + i], strides[i],
                                    padding[i], dilations[i]);
    if (size == 0)
      return op->emitOpError("filter window ")
             << formatShape(filter.drop_front(2)) << " with dilations "
             << formatShape(dilations) << " does not fit the "
             << roles.inputName << " " << formatShape(input.drop_front(2))
             << " padded by " << formatShape(padding);
    spatial.push_back(size);
  }
  if (output.drop_front(2) != ArrayRef<int64_t>(spatial))
    return op->emitOpError("expected ")
           << roles.outputName << " spatial size " << formatShape(spatial)
           << " for " << roles.inputName << " "
           << formatShape(input.drop_front(2)) << ", filter "
           << formatShape(filter.drop_front(2)) << ", strides "
           << formatShape(strides) << ", padding " << formatShape(padding)
           << ", dilations " << formatShape(dilations) << "; got "
           << formatShape(output.drop_front(2));
  return success();
}

// Convolutions and their gradients are bilinear in input and filter.
#define MPT_BILINEAR_CONV(OP)                                                  \
  bool OP::isScaleEquivariantIn(const llvm::SmallBitVector &scaled) {          \
    return scalesWithAnyOneOperand(scaled);                                    \
  }
MPT_BILINEAR_CONV(Conv2DOp)
MPT_BILINEAR_CONV(Conv2DInputGradOp)
MPT_BILINEAR_CONV(Conv2DFilterGradOp)
#undef MPT_BILINEAR_CONV

LogicalResult Conv2DOp::verify() {
  return verifyConv(
      *this, {"input", "filter", "result", getLhs(), getRhs(), getResult()},
      getStrides(), getPadding(), getDilations(), getGroups());
}

LogicalResult Conv2DInputGradOp::verify() {
  return verifyConv(
      *this, {"result", "filter", "grad", getResult(), getRhs(), getLhs()},
      getStrides(), getPadding(), getDilations(), getGroups());
}

LogicalResult Conv2DFilterGradOp::verify() {
  return verifyConv(
      *this, {"input", "result", "grad", getLhs(), getResult(), getRhs()},
      getStrides(), getPadding(), getDilations(), getGroups());
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

/// Verifies the pooling window and returns the pooled shape of `input` in
/// `pooled`; `inputName` is the value that has the forward input's shape.
static LogicalResult verifyPool(Operation *op, StringRef inputName, Value input,
                                ArrayRef<int64_t> kernel,
                                ArrayRef<int64_t> strides,
                                ArrayRef<int64_t> padding,
                                SmallVectorImpl<int64_t> &pooled) {
  if (failed(verifyWindowAttr(op, "kernel", kernel, 1)) ||
      failed(verifyWindowAttr(op, "strides", strides, 1)) ||
      failed(verifyWindowAttr(op, "padding", padding, 0)) ||
      failed(verifyRank(op, (inputName + " (NCHW)").str(), input, {4})))
    return failure();
  for (int i = 0; i < 2; ++i)
    if (2 * padding[i] > kernel[i])
      return op->emitOpError(
                 "expected padding to be at most half the kernel, got padding ")
             << formatShape(padding) << " for kernel " << formatShape(kernel);
  ArrayRef<int64_t> shape = tensorType(input).getShape();
  pooled.assign({shape[0], shape[1]});
  for (int i = 0; i < 2; ++i) {
    int64_t size =
        windowOutputSize(shape[2 + i], kernel[i], strides[i], padding[i], 1);
    if (size == 0)
      return op->emitOpError("kernel ")
             << formatShape(kernel) << " does not fit the " << inputName << " "
             << formatShape(shape.drop_front(2)) << " padded by "
             << formatShape(padding);
    pooled.push_back(size);
  }
  return success();
}

/// Verifies a pooling op or its gradient: `image` has the forward input's
/// shape, `pooled` the pooled one, and both one element type (reported in
/// the op's operand order).
static LogicalResult verifyPoolOp(Operation *op, StringRef imageName,
                                  Value image, StringRef pooledName,
                                  Value pooled, ArrayRef<int64_t> kernel,
                                  ArrayRef<int64_t> strides,
                                  ArrayRef<int64_t> padding) {
  SmallVector<int64_t> pooledShape;
  bool imageFirst = op->getOperand(0) == image;
  if (failed(verifyPool(op, imageName, image, kernel, strides, padding,
                        pooledShape)) ||
      failed(imageFirst ? verifySameElementType(op, imageName, image,
                                                pooledName, pooled)
                        : verifySameElementType(op, pooledName, pooled,
                                                imageName, image)))
    return failure();
  return verifyShape(op, pooledName, pooled, pooledShape);
}

LogicalResult MaxPool2DOp::verify() {
  return verifyPoolOp(*this, "input", getInput(), "result", getResult(),
                      getKernel(), getStrides(), getPadding());
}

LogicalResult MaxPool2DGradOp::verify() {
  return verifyPoolOp(*this, "input", getInput(), "grad", getGrad(),
                      getKernel(), getStrides(), getPadding());
}

LogicalResult AvgPool2DOp::verify() {
  return verifyPoolOp(*this, "input", getInput(), "result", getResult(),
                      getKernel(), getStrides(), getPadding());
}

LogicalResult AvgPool2DGradOp::verify() {
  return verifyPoolOp(*this, "result", getResult(), "grad", getGrad(),
                      getKernel(), getStrides(), getPadding());
}

//===----------------------------------------------------------------------===//
// Embedding
//===----------------------------------------------------------------------===//

/// Checks a (V, D) table against ids of any shape S (rank at least 1) and the
/// (S..., D) rows looked up from it.
static LogicalResult verifyLookup(Operation *op, StringRef tableName,
                                  Value table, Value ids, StringRef rowsName,
                                  Value rows) {
  if (failed(verifyRank(op, tableName, table, {2})))
    return failure();
  ArrayRef<int64_t> idsShape = tensorType(ids).getShape();
  if (idsShape.empty())
    return op->emitOpError("expected ids of rank at least 1, got ")
           << ids.getType();
  SmallVector<int64_t> rowsShape(idsShape);
  rowsShape.push_back(tensorType(table).getDimSize(1));
  return verifyShape(op, rowsName, rows, rowsShape);
}

LogicalResult EmbeddingOp::verify() {
  if (failed(verifySameElementType(*this, "table", getTable(), "result",
                                   getResult())))
    return failure();
  return verifyLookup(*this, "table", getTable(), getIds(), "result",
                      getResult());
}

LogicalResult EmbeddingGradOp::verify() {
  return verifyLookup(*this, "result", getResult(), getIds(), "grad",
                      getGrad());
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

/// Checks an (N, C) or (N, C, H, W) input against per-channel operands of shape
/// (C).
static LogicalResult verifyPerChannel(Operation *op, Value input,
                                      Value channelValue,
                                      StringRef channelName) {
  if (failed(verifyRank(op, "input", input, {2, 4})) ||
      failed(verifyRank(op, channelName, channelValue, {1})))
    return failure();
  return verifyDimsEqual(op, channelName, 0,
                         tensorType(channelValue).getDimSize(0), "input", 1,
                         tensorType(input).getDimSize(1));
}

LogicalResult BatchNormOp::verify() {
  if (failed(verifyPerChannel(*this, getInput(), getGamma(), "gamma")) ||
      failed(verifyInRange(*this, "momentum", getMomentum().convertToFloat(),
                           0.0f, 1.0f,
                           /*highInclusive=*/true)) ||
      failed(verifyPositive(*this, "epsilon", getEpsilon().convertToFloat())))
    return failure();
  // The running variance takes the unbiased batch variance, which needs two
  // values.
  RankedTensorType inputType = tensorType(getInput());
  if (inputType.getDimSize(1) == 0)
    return emitOpError("expected at least one channel, got input ")
           << formatShape(inputType.getShape());
  int64_t perChannel = inputType.getNumElements() / inputType.getDimSize(1);
  if (perChannel < 2)
    return emitOpError("expected more than 1 value per channel in training "
                       "mode, got input ")
           << formatShape(inputType.getShape());
  return success();
}

LogicalResult BatchNormGradOp::verify() {
  return verifyPerChannel(*this, getInput(), getGamma(), "gamma");
}

LogicalResult BatchNormInferenceOp::verify() {
  if (failed(verifyPerChannel(*this, getInput(), getGamma(), "gamma")))
    return failure();
  return verifyPositive(*this, "epsilon", getEpsilon().convertToFloat());
}

/// Checks `gamma` of shape (D) and row statistics of shape input[:-1] for a
/// layer norm.
static LogicalResult verifyLayerNormShapes(Operation *op, Value input,
                                           Value gamma, Value mean) {
  RankedTensorType inputType = tensorType(input);
  if (inputType.getRank() < 1)
    return op->emitOpError("expected input of rank at least 1, got a scalar");
  if (failed(verifyRank(op, "gamma", gamma, {1})))
    return failure();
  int64_t last = inputType.getRank() - 1;
  if (failed(verifyDimsEqual(op, "gamma", 0, tensorType(gamma).getDimSize(0),
                             "input", last, inputType.getDimSize(last))))
    return failure();
  return verifyShape(op, "mean", mean, inputType.getShape().drop_back());
}

LogicalResult LayerNormOp::verify() {
  if (failed(verifyLayerNormShapes(*this, getInput(), getGamma(), getMean())))
    return failure();
  return verifyPositive(*this, "epsilon", getEpsilon().convertToFloat());
}

LogicalResult LayerNormGradOp::verify() {
  return verifyLayerNormShapes(*this, getInput(), getGamma(), getMean());
}

/// Normalization ops compute their statistics from the activation operands only
/// and return one activation-typed result, the first.
static bool isActivationOperand(Operation *op, unsigned index) {
  // The gradient ops take the output gradient and the forward input; the others
  // the input.
  return isa<BatchNormGradOp, LayerNormGradOp>(op) ? index <= 1 : index == 0;
}

#define MPT_ACTIVATION_OPERANDS_ONLY(OP)                                       \
  bool OP::isPrecisionOperand(unsigned index) {                                \
    return isActivationOperand(*this, index);                                  \
  }                                                                            \
  bool OP::isPrecisionResult(unsigned index) { return index == 0; }
MPT_ACTIVATION_OPERANDS_ONLY(BatchNormOp)
MPT_ACTIVATION_OPERANDS_ONLY(BatchNormGradOp)
MPT_ACTIVATION_OPERANDS_ONLY(BatchNormInferenceOp)
MPT_ACTIVATION_OPERANDS_ONLY(LayerNormOp)
MPT_ACTIVATION_OPERANDS_ONLY(LayerNormGradOp)
#undef MPT_ACTIVATION_OPERANDS_ONLY

//===----------------------------------------------------------------------===//
// Softmax and loss
//===----------------------------------------------------------------------===//

/// Softmax normalizes over the innermost dimension, which must exist.
static LogicalResult verifySoftmaxInput(Operation *op, Value input) {
  if (tensorType(input).getRank() >= 1)
    return success();
  return op->emitOpError("expected input of rank at least 1, got a scalar");
}

LogicalResult SoftmaxOp::verify() {
  return verifySoftmaxInput(*this, getInput());
}

LogicalResult SoftmaxGradOp::verify() {
  return verifySoftmaxInput(*this, getOutput());
}

static LogicalResult verifyLogitsAndLabels(Operation *op, Value logits,
                                           Value labels) {
  if (failed(verifyRank(op, "logits", logits, {2})) ||
      failed(verifyRank(op, "labels", labels, {1})))
    return failure();
  if (tensorType(logits).getDimSize(1) == 0)
    return op->emitOpError("expected at least one class, got logits ")
           << formatShape(tensorType(logits).getShape());
  return verifyDimsEqual(op, "labels", 0, tensorType(labels).getDimSize(0),
                         "logits", 0, tensorType(logits).getDimSize(0));
}

/// Label smoothing mixes the one-hot target with the uniform distribution, so
/// its weight is a probability. An ignored label that the label type cannot
/// hold would never match: a mistake, not a no-op. Any representable value is
/// accepted, in [0, C) too (a padding class) as in PyTorch.
template <typename CrossEntropyOp>
static LogicalResult verifyCrossEntropy(CrossEntropyOp op) {
  if (failed(verifyLogitsAndLabels(op, op.getLogits(), op.getLabels())))
    return failure();
  double smoothing = op.getLabelSmoothing().convertToDouble();
  if (!(smoothing >= 0.0 && smoothing <= 1.0))
    return op.emitOpError("expected label_smoothing in [0, 1], got ")
           << smoothing;
  std::optional<int64_t> ignored = op.getIgnoreIndex();
  unsigned labelBits = tensorType(op.getLabels()).getElementTypeBitWidth();
  if (ignored && !llvm::isIntN(labelBits, *ignored))
    return op.emitOpError("ignore_index ")
           << *ignored << " does not fit the labels' i" << labelBits;
  return success();
}

LogicalResult SoftmaxCrossEntropyOp::verify() {
  return verifyCrossEntropy(*this);
}

LogicalResult SoftmaxCrossEntropyGradOp::verify() {
  return verifyCrossEntropy(*this);
}

/// The mean squared error divides by the number of elements, so there must be
/// one.
static LogicalResult verifyMseInput(Operation *op, Value input) {
  RankedTensorType type = tensorType(input);
  if (type.getNumElements() > 0)
    return success();
  return op->emitOpError("expected input with at least one element, got ")
         << formatShape(type.getShape());
}

LogicalResult MseLossOp::verify() { return verifyMseInput(*this, getInput()); }

LogicalResult MseLossGradOp::verify() {
  return verifyMseInput(*this, getInput());
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::verify() {
  RankedTensorType inputType = tensorType(getInput()),
                   resultType = tensorType(getResult());
  if (failed(verifySameElementType(*this, "input", getInput(), "result",
                                   getResult())))
    return failure();
  if (inputType.getNumElements() != resultType.getNumElements())
    return emitOpError("expected result shape ")
           << formatShape(resultType.getShape()) << " ("
           << resultType.getNumElements()
           << " elements) to have as many elements as input shape "
           << formatShape(inputType.getShape()) << " ("
           << inputType.getNumElements() << ")";
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  if (auto producer = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(producer.getInput());
    return getResult();
  }
  return {};
}

LogicalResult TransposeOp::verify() {
  ArrayRef<int64_t> permutation = getPermutation();
  RankedTensorType inputType = tensorType(getInput());
  int64_t rank = inputType.getRank();
  if (static_cast<int64_t>(permutation.size()) != rank)
    return emitOpError("expected permutation of ")
           << rank << " entries for an input of rank " << rank << ", got "
           << permutation.size();
  SmallVector<bool> seen(rank, false);
  for (int64_t dim : permutation) {
    if (dim < 0 || dim >= rank || seen[dim])
      return emitOpError("expected permutation to be a permutation of [0, ")
             << rank << "), got ["
             << llvm::join(llvm::map_range(
                               permutation,
                               [](int64_t d) { return std::to_string(d); }),
                           ", ")
             << "]";
    seen[dim] = true;
  }
  if (failed(verifySameElementType(*this, "input", getInput(), "result",
                                   getResult())))
    return failure();
  SmallVector<int64_t> expected = llvm::map_to_vector(
      permutation, [&](int64_t dim) { return inputType.getDimSize(dim); });
  return verifyShape(*this, "result", getResult(), expected);
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  auto isIdentity = [](ArrayRef<int64_t> permutation) {
    for (auto [index, dim] : llvm::enumerate(permutation))
      if (static_cast<int64_t>(index) != dim)
        return false;
    return true;
  };
  if (isIdentity(getPermutation()))
    return getInput();
  auto producer = getInput().getDefiningOp<TransposeOp>();
  if (!producer)
    return {};
  // Result dim i is producer result dim perm[i], which is producer input dim
  // inner[perm[i]].
  SmallVector<int64_t> composed =
      llvm::map_to_vector(getPermutation(), [&](int64_t dim) {
        return producer.getPermutation()[dim];
      });
  if (isIdentity(composed))
    return producer.getInput();
  setPermutation(composed);
  getInputMutable().assign(producer.getInput());
  return getResult();
}

LogicalResult ReduceSumOp::verify() {
  RankedTensorType inputType = tensorType(getInput());
  ArrayRef<int64_t> dims = getDims();
  if (failed(verifyDimList(*this, dims, inputType.getRank())) ||
      failed(verifyAccumulatorType(*this, inputType.getElementType(),
                                   getResult())))
    return failure();
  SmallVector<int64_t> expected;
  for (auto [index, size] : llvm::enumerate(inputType.getShape())) {
    if (!llvm::is_contained(dims, static_cast<int64_t>(index)))
      expected.push_back(size);
    else if (getKeepDims())
      expected.push_back(1);
  }
  return verifyShape(*this, "result", getResult(), expected);
}

OpFoldResult ReduceSumOp::fold(FoldAdaptor) {
  if (getDims().empty() && getInput().getType() == getType())
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// BroadcastOp
//===----------------------------------------------------------------------===//

LogicalResult BroadcastOp::verify() {
  RankedTensorType inputType = tensorType(getInput()),
                   resultType = tensorType(getResult());
  ArrayRef<int64_t> dims = getDims();
  if (inputType.getRank() + static_cast<int64_t>(dims.size()) !=
      resultType.getRank())
    return emitOpError("expected result rank ")
           << inputType.getRank() + dims.size() << " (input rank "
           << inputType.getRank() << " plus " << dims.size()
           << " new dims), got " << resultType.getRank();
  if (failed(verifyDimList(*this, dims, resultType.getRank())) ||
      failed(verifySameElementType(*this, "input", getInput(), "result",
                                   getResult())))
    return failure();
  SmallVector<int64_t> kept;
  for (auto [index, size] : llvm::enumerate(resultType.getShape()))
    if (!llvm::is_contained(dims, static_cast<int64_t>(index)))
      kept.push_back(size);
  if (ArrayRef<int64_t>(kept) != inputType.getShape())
    return emitOpError("expected the result without dims to have the input "
                       "shape ")
           << formatShape(inputType.getShape()) << ", got "
           << formatShape(kept);
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor) {
  if (getDims().empty() && getInput().getType() == getType())
    return getInput();
  return {};
}

LogicalResult DropoutOp::verify() {
  double p = getP().convertToDouble();
  if (!(p >= 0.0 && p < 1.0))
    return emitOpError("expects p, the probability of zeroing an element, in "
                       "[0, 1), got ")
           << p;
  auto function = (*this)->getParentOfType<FunctionOpInterface>();
  if (function && function->hasAttr(MPTDialect::kEvalStepAttrName))
    return emitOpError("in '")
           << function.getName() << "', marked '"
           << MPTDialect::kEvalStepAttrName
           << "': evaluation runs without dropout (the identity)";
  return success();
}

Value mpt::stripFloatCasts(Value value) {
  while (Operation *op = value.getDefiningOp()) {
    if (!isa<arith::ExtFOp, arith::TruncFOp>(op))
      break;
    value = op->getOperand(0);
  }
  return value;
}

#define GET_OP_CLASSES
#include "mpt/Dialect/MPT/IR/MPTOps.cpp.inc"
