//===- Program.h - a compiled mpt training step -----------------*- C++ -*-===//
//
// Compiles an MLIR file through mpt-mixed-precision and mpt-lower-to-cpu,
// records the training-step conventions (roles, carried results, metrics,
// initial values) read before lowering, and JIT-compiles the result. This is
// the only part of the runtime that sees MLIR; its interface does not.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_PROGRAM_H
#define MPT_RUNTIME_PROGRAM_H

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace mpt::runtime {

enum class ElementKind { F32, F16, BF16, I64, I32, I1 };

/// Bytes of one element as the compiled code stores it (i1 takes a byte).
size_t elementBytes(ElementKind kind);
/// "F32", "F16", "BF16", "I64", "I32", "BOOL": safetensors dtype names.
const char *elementName(ElementKind kind);

struct TensorShape {
  ElementKind kind = ElementKind::F32;
  std::vector<int64_t> dims;
  int64_t numElements() const;
  size_t bytes() const { return numElements() * elementBytes(kind); }
};

enum class Role { Param, State, Data };

/// How a parameter starts: PyTorch's defaults for its use in the graph.
enum class InitKind { Zeros, Ones, KaimingUniform, Value };

struct ArgInfo {
  std::string name;
  TensorShape shape;
  Role role = Role::Data;
  InitKind init = InitKind::Zeros;
  int64_t fanIn = 0;              // for KaimingUniform: bound 1/sqrt(fanIn)
  std::vector<uint8_t> initValue; // for Value: the mpt.init bytes
  int64_t workingCopyOf = -1;     // a low-precision copy of this parameter
};

struct ResultInfo {
  TensorShape shape;
  int64_t next = -1;  // the argument this result replaces
  std::string metric; // or the metric it reports
};

struct EvalArgInfo {
  bool isData = false;
  int64_t stateOf = -1;
  TensorShape shape;
};

struct CompileOptions {
  std::string computeType = "f32"; // f32 (no rewrite), f16 or bf16
  std::string lossScale = "auto";
  double initScale = 65536.0;
  int64_t growthInterval = 2000;
  std::string dumpPrefix;
  bool cpuKernels = true;
};

class Program {
public:
  /// Compiles `path`; on failure returns null and sets `error` (with the
  /// MLIR diagnostics) and `isCompileError` (false: the file is unreadable).
  static std::unique_ptr<Program> compile(const std::string &path,
                                          const CompileOptions &options,
                                          std::string &error,
                                          bool &isCompileError);
  ~Program();

  const std::vector<ArgInfo> &args() const { return trainArgs; }
  const std::vector<ResultInfo> &results() const { return trainResults; }
  bool hasEval() const { return !evalArgs.empty(); }
  const std::vector<EvalArgInfo> &evalArguments() const { return evalArgs; }
  const TensorShape &evalResult() const { return evalResultShape; }

  /// Runs the training step: one buffer per argument, then one per result.
  bool runTrain(std::vector<void *> &buffers, std::string &error) const;
  /// Runs the eval step: one buffer per argument, then the logits.
  bool runEval(std::vector<void *> &buffers, std::string &error) const;

private:
  Program();
  bool run(const char *function, const std::vector<TensorShape> &shapes,
           std::vector<void *> &buffers, std::string &error) const;

  struct Engine;
  std::unique_ptr<Engine> engine;
  std::vector<ArgInfo> trainArgs;
  std::vector<ResultInfo> trainResults;
  std::vector<EvalArgInfo> evalArgs;
  TensorShape evalResultShape;
  std::vector<TensorShape> trainShapes, evalShapes;
  std::string trainName, evalName;
};

} // namespace mpt::runtime

#endif // MPT_RUNTIME_PROGRAM_H
