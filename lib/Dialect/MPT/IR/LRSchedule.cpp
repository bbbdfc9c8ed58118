//===- LRSchedule.cpp - learning-rate schedules -----------------*- C++ -*-===//

#include "mpt/Dialect/MPT/IR/LRSchedule.h"

#include "llvm/ADT/StringSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mpt;

namespace {
/// Reads the fields of one schedule dictionary, each at most once, and
/// reports the first one that is missing, unknown or malformed.
class FieldReader {
public:
  FieldReader(DictionaryAttr schedule, StringRef kind,
              llvm::function_ref<InFlightDiagnostic()> emitError)
      : schedule(schedule), kind(kind), emitError(emitError) {}

  /// A required integer field of at least `min`.
  FailureOr<int64_t> integer(StringRef name, int64_t min) {
    Attribute value = lookup(name);
    if (!value)
      return missing(name);
    auto number = dyn_cast<IntegerAttr>(value);
    if (!number || number.getType().isInteger(1) || number.getInt() < min)
      return error(name) << "must be an integer of at least " << min << ", got "
                         << value;
    return number.getInt();
  }

  /// A finite non-negative number field, at most 1 where `fraction` is set
  /// (an integer is taken as one); `fallback` when it is absent, or an error
  /// if there is none.
  FailureOr<double> number(StringRef name, bool fraction,
                           std::optional<double> fallback = std::nullopt) {
    Attribute value = lookup(name);
    if (!value && fallback)
      return *fallback;
    if (!value)
      return missing(name);
    return checkNumber(name, value, fraction);
  }

  /// A non-empty list of finite non-negative numbers.
  FailureOr<SmallVector<double>> numbers(StringRef name) {
    Attribute value = lookup(name);
    if (!value)
      return missing(name);
    auto list = dyn_cast<ArrayAttr>(value);
    if (!list || list.empty())
      return error(name) << "must be a non-empty list of numbers, got "
                         << value;
    SmallVector<double> result;
    for (Attribute element : list) {
      FailureOr<double> number = checkNumber(name, element, /*fraction=*/false);
      if (failed(number))
        return failure();
      result.push_back(*number);
    }
    return result;
  }

  /// Fails on a field none of the reads asked for.
  LogicalResult checkNoOtherFields() {
    for (NamedAttribute field : schedule)
      if (!llvm::is_contained(read, field.getName().getValue()))
        return emitError() << "lr_schedule of kind '" << kind
                           << "' has no field '" << field.getName().getValue()
                           << "'";
    return success();
  }

  InFlightDiagnostic error(StringRef name) {
    return emitError() << "lr_schedule of kind '" << kind << "': field '"
                       << name << "' ";
  }

private:
  Attribute lookup(StringRef name) {
    read.push_back(name);
    return schedule.get(name);
  }

  LogicalResult missing(StringRef name) { return error(name) << "is required"; }

  FailureOr<double> checkNumber(StringRef name, Attribute value,
                                bool fraction) {
    double number = NAN;
    if (auto real = dyn_cast<FloatAttr>(value))
      number = real.getValueAsDouble();
    else if (auto integer = dyn_cast<IntegerAttr>(value);
             integer && !integer.getType().isInteger(1))
      number = static_cast<double>(integer.getInt());
    if (!std::isfinite(number) || number < 0.0 || (fraction && number > 1.0))
      return error(name) << (fraction ? "must be a number in [0, 1]"
                                      : "must be a finite non-negative number")
                         << ", got " << value;
    return number;
  }

  DictionaryAttr schedule;
  StringRef kind;
  llvm::function_ref<InFlightDiagnostic()> emitError;
  SmallVector<StringRef> read = {"kind"};
};
} // namespace

FailureOr<LRSchedule>
LRSchedule::parse(DictionaryAttr schedule,
                  llvm::function_ref<InFlightDiagnostic()> emitError) {
  auto kindName = dyn_cast_or_null<StringAttr>(schedule.get("kind"));
  std::optional<Kind> kind =
      kindName ? llvm::StringSwitch<std::optional<Kind>>(kindName.getValue())
                     .Case("constant", Kind::Constant)
                     .Case("step", Kind::Step)
                     .Case("warmup_cosine", Kind::WarmupCosine)
                     .Case("table", Kind::Table)
                     .Default(std::nullopt)
               : std::nullopt;
  if (!kind)
    return emitError() << "lr_schedule: field 'kind' must be \"constant\", "
                          "\"step\", \"warmup_cosine\" or \"table\", got "
                       << schedule.get("kind");

  LRSchedule result;
  result.kind = *kind;
  FieldReader fields(schedule, kindName.getValue(), emitError);
  switch (*kind) {
  case Kind::Constant:
    break;
  case Kind::Step: {
    FailureOr<int64_t> stepSize = fields.integer("step_size", 1);
    if (failed(stepSize))
      return failure();
    FailureOr<double> gamma =
        fields.number("gamma", /*fraction=*/false, result.gamma);
    if (failed(gamma))
      return failure();
    result.stepSize = *stepSize;
    result.gamma = *gamma;
    break;
  }
  case Kind::WarmupCosine: {
    FailureOr<int64_t> warmupSteps = fields.integer("warmup_steps", 0);
    if (failed(warmupSteps))
      return failure();
    FailureOr<int64_t> totalSteps =
        fields.integer("total_steps", *warmupSteps + 1);
    if (failed(totalSteps))
      return failure();
    FailureOr<double> startFactor =
        fields.number("start_factor", /*fraction=*/true, result.startFactor);
    if (failed(startFactor))
      return failure();
    // As LinearLR requires.
    if (*startFactor == 0.0)
      return fields.error("start_factor") << "must be greater than 0";
    FailureOr<double> minLr =
        fields.number("min_lr", /*fraction=*/false, result.minLr);
    if (failed(minLr))
      return failure();
    result.warmupSteps = *warmupSteps;
    result.totalSteps = *totalSteps;
    result.startFactor = *startFactor;
    result.minLr = *minLr;
    break;
  }
  case Kind::Table: {
    FailureOr<SmallVector<double>> values = fields.numbers("values");
    if (failed(values))
      return failure();
    result.values = std::move(*values);
    break;
  }
  }
  if (failed(fields.checkNoOtherFields()))
    return failure();
  return result;
}
