//===- Signature.cpp - the compiled step's contract -------------*- C++ -*-===//

#include "Signature.h"

#include "llvm/Support/JSON.h"

#include "mpt/Contract/Contract.h"

#include <cmath>
#include <numeric>

namespace mpt::runtime {

namespace key = contract::key;
namespace dtype = contract::dtype;

size_t elementBytes(ElementKind kind) {
  switch (kind) {
  case ElementKind::F32:
  case ElementKind::I32:
    return 4;
  case ElementKind::F16:
  case ElementKind::BF16:
    return 2;
  case ElementKind::I64:
    return 8;
  case ElementKind::I1:
    return 1;
  }
  return 0;
}

const char *elementName(ElementKind kind) {
  switch (kind) {
  case ElementKind::F32:
    return dtype::F32;
  case ElementKind::F16:
    return dtype::F16;
  case ElementKind::BF16:
    return dtype::BF16;
  case ElementKind::I64:
    return dtype::I64;
  case ElementKind::I32:
    return dtype::I32;
  case ElementKind::I1:
    return dtype::Bool;
  }
  return "";
}

std::optional<ElementKind> elementKindNamed(const std::string &name) {
  for (ElementKind kind :
       {ElementKind::F32, ElementKind::F16, ElementKind::BF16, ElementKind::I64,
        ElementKind::I32, ElementKind::I1})
    if (name == elementName(kind))
      return kind;
  return std::nullopt;
}

bool isFloatKind(ElementKind kind) {
  return kind == ElementKind::F32 || kind == ElementKind::F16 ||
         kind == ElementKind::BF16;
}

int64_t TensorShape::numElements() const {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1},
                         std::multiplies<int64_t>());
}

std::string TensorShape::describe() const {
  std::string text = elementName(kind);
  text += "[";
  for (size_t i = 0; i < dims.size(); ++i)
    text += (i ? "x" : "") + std::to_string(dims[i]);
  return text + "]";
}

namespace {

/// Reads the signature's JSON objects, remembering the first problem.
class Reader {
public:
  explicit Reader(std::string &error) : error(error) {}

  bool fail(const std::string &message) {
    if (error.empty())
      error = "malformed step signature: " + message;
    return false;
  }

  bool shape(const llvm::json::Object &object, const std::string &what,
             TensorShape &shape) {
    std::optional<llvm::StringRef> dtype = object.getString(key::Dtype);
    std::optional<ElementKind> kind =
        dtype ? elementKindNamed(dtype->str()) : std::nullopt;
    const llvm::json::Array *dims = object.getArray(key::Shape);
    if (!kind || !dims)
      return fail(what + " has no valid dtype and shape");
    shape.kind = *kind;
    shape.dims.clear();
    for (const llvm::json::Value &dim : *dims) {
      std::optional<int64_t> size = dim.getAsInteger();
      if (!size || *size < 0)
        return fail(what + " has a bad dimension");
      shape.dims.push_back(*size);
    }
    return true;
  }

  bool argument(const llvm::json::Object &object, size_t index, ArgInfo &arg) {
    std::string what = "argument #" + std::to_string(index);
    std::optional<llvm::StringRef> name = object.getString(key::Name);
    std::optional<llvm::StringRef> role = object.getString(key::Role);
    if (!name || !role || !shape(object, what, arg.shape))
      return fail(what + " needs a name, role, dtype and shape");
    arg.name = name->str();
    if (*role == contract::role::Param)
      arg.role = Role::Param;
    else if (*role == contract::role::State)
      arg.role = Role::State;
    else if (*role == contract::role::Data)
      arg.role = Role::Data;
    else
      return fail(what + " has unknown role '" + role->str() + "'");
    arg.classes = object.getInteger(key::Classes).value_or(0);
    arg.ignoredLabel = object.getInteger(key::IgnoredLabel);
    arg.tableRows = object.getInteger(key::TableRows).value_or(0);
    arg.workingCopyOf = object.getInteger(key::WorkingCopyOf).value_or(-1);
    arg.optimizerStateOf =
        object.getInteger(key::OptimizerStateOf).value_or(-1);
    if (arg.role == Role::Data)
      return true;
    const llvm::json::Object *init = object.getObject(key::Init);
    if (!init)
      return fail(what + " has no initializer");
    return initializer(*init, what, arg) && domain(object, what, arg);
  }

  /// The train step's arguments and results.
  bool train(const llvm::json::Object &root, Signature &signature) {
    const llvm::json::Object *train = root.getObject(key::Train);
    const llvm::json::Array *args =
        train ? train->getArray(key::Arguments) : nullptr;
    const llvm::json::Array *results =
        train ? train->getArray(key::Results) : nullptr;
    std::optional<llvm::StringRef> function =
        train ? train->getString(key::Function) : std::nullopt;
    if (!args || !results || !function)
      return fail("no training step");
    signature.trainFunction = function->str();
    for (size_t i = 0; i < args->size(); ++i) {
      const llvm::json::Object *object = (*args)[i].getAsObject();
      ArgInfo arg;
      if (!object || !argument(*object, i, arg))
        return fail("argument #" + std::to_string(i));
      signature.trainArgs.push_back(std::move(arg));
    }
    for (size_t r = 0; r < results->size(); ++r)
      if (!trainResult((*results)[r], r, signature))
        return false;
    for (const ArgInfo &arg : signature.trainArgs)
      if (arg.init == InitKind::Copy &&
          (arg.workingCopyOf < 0 ||
           arg.workingCopyOf >= int64_t(signature.trainArgs.size())))
        return fail("'" + arg.name + "' copies no argument");
    for (const ArgInfo &arg : signature.trainArgs)
      if (arg.optimizerStateOf >= int64_t(signature.trainArgs.size()))
        return fail("'" + arg.name + "' is the optimizer state of argument #" +
                    std::to_string(arg.optimizerStateOf) +
                    ", which does not exist");
    return true;
  }

  /// The eval step's arguments and results, if there is an eval step.
  bool eval(const llvm::json::Object &root, Signature &signature) {
    const llvm::json::Object *eval = root.getObject(key::Eval);
    if (!eval)
      return true;
    const llvm::json::Array *args = eval->getArray(key::Arguments);
    const llvm::json::Array *results = eval->getArray(key::Results);
    std::optional<llvm::StringRef> function = eval->getString(key::Function);
    if (!args || !results || !function)
      return fail("eval step without arguments, results or function");
    signature.evalFunction = function->str();
    for (size_t i = 0; i < args->size(); ++i)
      if (!evalArgument((*args)[i], i, signature))
        return false;
    for (size_t r = 0; r < results->size(); ++r) {
      const llvm::json::Object *object = (*results)[r].getAsObject();
      NamedTensor result;
      std::string what = "eval result #" + std::to_string(r);
      if (!object || !shape(*object, what, result.shape) ||
          !object->getString(key::Name))
        return fail(what);
      result.name = object->getString(key::Name)->str();
      signature.evalResults.push_back(std::move(result));
    }
    return true;
  }

private:
  bool initializer(const llvm::json::Object &init, const std::string &what,
                   ArgInfo &arg) {
    std::optional<llvm::StringRef> kind = init.getString(key::Kind);
    if (!kind)
      return fail(what + " has no initializer");
    if (*kind == contract::init::Zeros) {
      arg.init = InitKind::Zeros;
    } else if (*kind == contract::init::Ones) {
      arg.init = InitKind::Ones;
    } else if (*kind == contract::init::Normal) {
      arg.init = InitKind::Normal;
    } else if (*kind == contract::init::Uniform) {
      arg.init = InitKind::Uniform;
      std::optional<double> bound = init.getNumber(key::Bound);
      if (!bound || !(*bound > 0))
        return fail(what + " has a uniform initializer without a bound");
      arg.bound = *bound;
    } else if (*kind == contract::init::Value) {
      arg.init = InitKind::Value;
      const llvm::json::Array *values = init.getArray(key::Values);
      if (!values)
        return fail(what + " has a value initializer without values");
      for (const llvm::json::Value &value : *values) {
        std::optional<double> number = value.getAsNumber();
        if (!number)
          return fail(what + " has a non-numeric initial value");
        arg.initValues.push_back(*number);
      }
      if (arg.initValues.size() != 1 &&
          int64_t(arg.initValues.size()) != arg.shape.numElements())
        return fail(what + " has " + std::to_string(arg.initValues.size()) +
                    " initial values for " + arg.shape.describe());
    } else if (*kind == contract::init::Copy) {
      arg.init = InitKind::Copy;
    } else {
      return fail(what + " has unknown initializer '" + kind->str() + "'");
    }
    return true;
  }

  /// The optional domain: finite float bounds, or integer bounds for
  /// integer state, with min <= max.
  bool domain(const llvm::json::Object &object, const std::string &what,
              ArgInfo &arg) {
    const llvm::json::Value *value = object.get(key::Domain);
    if (!value)
      return true;
    const llvm::json::Object *bounds = value->getAsObject();
    ValueDomain domain;
    bool valid = false;
    if (bounds && isFloatKind(arg.shape.kind)) {
      std::optional<double> min = bounds->getNumber(key::Min);
      std::optional<double> max = bounds->getNumber(key::Max);
      valid = min && max && std::isfinite(*min) && std::isfinite(*max) &&
              *min <= *max;
      domain.min = min.value_or(0);
      domain.max = max.value_or(0);
    } else if (bounds) {
      std::optional<int64_t> min = bounds->getInteger(key::Min);
      std::optional<int64_t> max = bounds->getInteger(key::Max);
      valid = min && max && *min <= *max;
      domain.intMin = min.value_or(0);
      domain.intMax = max.value_or(0);
    }
    if (!valid)
      return fail(what + " has a malformed domain");
    arg.domain = domain;
    return true;
  }

  bool trainResult(const llvm::json::Value &value, size_t index,
                   Signature &signature) {
    const llvm::json::Object *object = value.getAsObject();
    ResultInfo result;
    std::string what = "result #" + std::to_string(index);
    if (!object || !shape(*object, what, result.shape))
      return fail(what);
    result.next = object->getInteger(key::Next).value_or(-1);
    result.metric = object->getString(key::Metric).value_or("").str();
    const std::vector<ArgInfo> &args = signature.trainArgs;
    if (result.next >= int64_t(args.size()) ||
        (result.next >= 0 && args[result.next].shape.dims != result.shape.dims))
      return fail(what + " replaces no matching argument");
    signature.trainResults.push_back(std::move(result));
    return true;
  }

  bool evalArgument(const llvm::json::Value &value, size_t index,
                    Signature &signature) {
    const llvm::json::Object *object = value.getAsObject();
    EvalArgInfo arg;
    std::string what = "eval argument #" + std::to_string(index);
    if (!object || !shape(*object, what, arg.shape) ||
        !object->getString(key::Name))
      return fail(what);
    arg.name = object->getString(key::Name)->str();
    arg.stateOf = object->getInteger(key::StateOf).value_or(-1);
    arg.tableRows = object->getInteger(key::TableRows).value_or(0);
    const std::vector<ArgInfo> &trainArgs = signature.trainArgs;
    if (arg.stateOf >= int64_t(trainArgs.size()) ||
        (arg.stateOf >= 0 &&
         (trainArgs[arg.stateOf].shape.dims != arg.shape.dims ||
          trainArgs[arg.stateOf].shape.kind != arg.shape.kind)))
      return fail(what + " reads no matching training-step argument");
    signature.evalArgs.push_back(std::move(arg));
    return true;
  }

  std::string &error;
};

} // namespace

bool parseSignature(const std::string &json, Signature &signature,
                    std::string &error) {
  Reader reader(error);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json);
  if (!parsed)
    return reader.fail(llvm::toString(parsed.takeError()));
  const llvm::json::Object *root = parsed->getAsObject();
  if (!root || root->getString(key::Format) != contract::format::Signature)
    return reader.fail(std::string("not an ") + contract::format::Signature +
                       " object");
  return reader.train(*root, signature) && reader.eval(*root, signature);
}

} // namespace mpt::runtime
