//===- Signature.h - the compiled step's contract ---------------*- C++ -*-===//
//
// What the compiler's mpt-export-signature pass records about a training step
// (and its eval step), read back from the lowered module: the runtime's only
// knowledge of the model.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_SIGNATURE_H
#define MPT_RUNTIME_SIGNATURE_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mpt::runtime {

enum class ElementKind { F32, F16, BF16, I64, I32, I1 };

/// Bytes of one element as the compiled code stores it (i1 takes a byte).
size_t elementBytes(ElementKind kind);
/// "F32", "F16", "BF16", "I64", "I32", "BOOL": safetensors dtype names.
const char *elementName(ElementKind kind);
std::optional<ElementKind> elementKindNamed(const std::string &name);
bool isFloatKind(ElementKind kind);

struct TensorShape {
  ElementKind kind = ElementKind::F32;
  std::vector<int64_t> dims;
  int64_t numElements() const;
  size_t bytes() const { return numElements() * elementBytes(kind); }
  /// "F32[784x256]".
  std::string describe() const;
};

enum class Role { Param, State, Data };

/// The closed range a piece of state stays in, which the runtime checks
/// where state is loaded or written: [min, max] for float state, [intMin,
/// intMax] for integer state.
struct ValueDomain {
  double min = 0, max = 0;
  int64_t intMin = 0, intMax = 0;
};

/// How a parameter or state tensor starts.
enum class InitKind { Zeros, Ones, Uniform, Normal, Value, Copy };

struct ArgInfo {
  std::string name;
  TensorShape shape;
  Role role = Role::Data;
  InitKind init = InitKind::Zeros;
  double bound = 0.0;                // Uniform: values in [-bound, bound)
  std::vector<double> initValues;    // Value: all elements, or one (splat)
  int64_t workingCopyOf = -1;        // Copy: the master it rounds
  int64_t optimizerStateOf = -1;     // state: the parameter it updates
  int64_t classes = 0;               // data read as labels by a loss
  int64_t tableRows = 0;             // data read as ids by an embedding
  std::optional<ValueDomain> domain; // state the step keeps in a range
  // Data read as labels: the label the loss ignores (its ignore_index).
  std::optional<int64_t> ignoredLabel;
};

struct ResultInfo {
  TensorShape shape;
  int64_t next = -1;  // the argument it replaces, in that buffer
  std::string metric; // or the metric it reports
};

struct EvalArgInfo {
  std::string name;
  TensorShape shape;
  int64_t stateOf = -1;  // the training-step argument it reads, or data
  int64_t tableRows = 0; // data read as ids by an embedding
};

struct NamedTensor {
  std::string name;
  TensorShape shape;
};

struct Signature {
  std::string trainFunction, evalFunction;
  std::vector<ArgInfo> trainArgs;
  std::vector<ResultInfo> trainResults;
  std::vector<EvalArgInfo> evalArgs;
  std::vector<NamedTensor> evalResults;
  bool hasEval() const { return !evalFunction.empty(); }
};

/// Parses and checks the JSON of mpt-export-signature; false with `error`
/// saying what is malformed.
bool parseSignature(const std::string &json, Signature &signature,
                    std::string &error);

} // namespace mpt::runtime

#endif // MPT_RUNTIME_SIGNATURE_H
