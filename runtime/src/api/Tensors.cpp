//===- Tensors.cpp - dtype conversion and tensor views ----------*- C++ -*-===//

#include "api/Tensors.h"

#include "api/Status.h"
#include "mpt/float16.h"

#include <cstdio>
#include <cstring>
#include <limits>

namespace mpt::runtime::api {

std::optional<ElementKind> toKind(mpt_dtype_t dtype) {
  switch (dtype) {
  case MPT_DTYPE_F32:
    return ElementKind::F32;
  case MPT_DTYPE_F16:
    return ElementKind::F16;
  case MPT_DTYPE_BF16:
    return ElementKind::BF16;
  case MPT_DTYPE_I64:
    return ElementKind::I64;
  case MPT_DTYPE_I32:
    return ElementKind::I32;
  case MPT_DTYPE_BOOL:
    return ElementKind::I1;
  }
  return std::nullopt;
}

mpt_dtype_t toDtype(ElementKind kind) {
  switch (kind) {
  case ElementKind::F32:
    return MPT_DTYPE_F32;
  case ElementKind::F16:
    return MPT_DTYPE_F16;
  case ElementKind::BF16:
    return MPT_DTYPE_BF16;
  case ElementKind::I64:
    return MPT_DTYPE_I64;
  case ElementKind::I32:
    return MPT_DTYPE_I32;
  case ElementKind::I1:
    return MPT_DTYPE_BOOL;
  }
  return MPT_DTYPE_F32;
}

double loadValue(const uint8_t *data, ElementKind kind, int64_t i) {
  switch (kind) {
  case ElementKind::F32:
    return reinterpret_cast<const float *>(data)[i];
  case ElementKind::F16:
    return f16ToFloat(reinterpret_cast<const uint16_t *>(data)[i]);
  case ElementKind::BF16:
    return bf16ToFloat(reinterpret_cast<const uint16_t *>(data)[i]);
  case ElementKind::I64:
    return double(reinterpret_cast<const int64_t *>(data)[i]);
  case ElementKind::I32:
    return reinterpret_cast<const int32_t *>(data)[i];
  case ElementKind::I1:
    return data[i] ? 1.0 : 0.0;
  }
  return 0.0;
}

int64_t loadInteger(const uint8_t *data, ElementKind kind, int64_t i) {
  switch (kind) {
  case ElementKind::I64:
    return reinterpret_cast<const int64_t *>(data)[i];
  case ElementKind::I32:
    return reinterpret_cast<const int32_t *>(data)[i];
  case ElementKind::I1:
    return data[i] != 0;
  default:
    return int64_t(loadValue(data, kind, i));
  }
}

/// Enough digits to tell f32 values apart.
static std::string formatFloat(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.9g", value);
  return text;
}

std::string outsideDomain(const ArgInfo &arg, const uint8_t *values) {
  if (!arg.domain)
    return {};
  const ValueDomain &domain = *arg.domain;
  ElementKind kind = arg.shape.kind;
  bool isFloat = isFloatKind(kind);
  for (int64_t e = 0, count = arg.shape.numElements(); e < count; ++e) {
    std::string value, range;
    if (isFloat) {
      double element = loadValue(values, kind, e);
      if (element >= domain.min && element <= domain.max)
        continue;
      value = formatFloat(element);
      range = formatFloat(domain.min) + ", " + formatFloat(domain.max);
    } else {
      int64_t element = loadInteger(values, kind, e);
      if (element >= domain.intMin && element <= domain.intMax)
        continue;
      value = std::to_string(element);
      range =
          std::to_string(domain.intMin) + ", " + std::to_string(domain.intMax);
    }
    return "value " + value + " at index " + std::to_string(e) +
           " is outside [" + range +
           "], the range the training step keeps it in";
  }
  return {};
}

void storeFloat(uint8_t *data, ElementKind kind, int64_t i, double value) {
  switch (kind) {
  case ElementKind::F32:
    reinterpret_cast<float *>(data)[i] = float(value);
    return;
  case ElementKind::F16:
    reinterpret_cast<uint16_t *>(data)[i] = floatToF16(float(value));
    return;
  case ElementKind::BF16:
    reinterpret_cast<uint16_t *>(data)[i] = floatToBF16(float(value));
    return;
  default:
    return;
  }
}

std::pair<int64_t, int64_t> integerRange(ElementKind kind) {
  switch (kind) {
  case ElementKind::I32:
    return {std::numeric_limits<int32_t>::min(),
            std::numeric_limits<int32_t>::max()};
  case ElementKind::I1:
    return {0, 1};
  default:
    return {std::numeric_limits<int64_t>::min(),
            std::numeric_limits<int64_t>::max()};
  }
}

void storeInteger(uint8_t *data, ElementKind kind, int64_t i, int64_t value) {
  switch (kind) {
  case ElementKind::I64:
    reinterpret_cast<int64_t *>(data)[i] = value;
    return;
  case ElementKind::I32:
    reinterpret_cast<int32_t *>(data)[i] = int32_t(value);
    return;
  case ElementKind::I1:
    data[i] = value != 0;
    return;
  default:
    return;
  }
}

std::string convert(const uint8_t *from, ElementKind fromKind, uint8_t *to,
                    ElementKind toKind, int64_t count) {
  if (fromKind == toKind) {
    std::memcpy(to, from, count * elementBytes(toKind));
    return {};
  }
  if (isFloatKind(fromKind) != isFloatKind(toKind))
    return std::string("cannot convert ") + elementName(fromKind) + " to " +
           elementName(toKind);
  bool fromAlignedF32 =
      fromKind == ElementKind::F32 &&
      reinterpret_cast<uintptr_t>(from) % alignof(float) == 0 &&
      reinterpret_cast<uintptr_t>(to) % alignof(uint16_t) == 0;
  if (fromAlignedF32 &&
      (toKind == ElementKind::F16 || toKind == ElementKind::BF16)) {
    roundFloats(reinterpret_cast<const float *>(from),
                reinterpret_cast<uint16_t *>(to), size_t(count),
                toKind == ElementKind::F16 ? HalfKind::F16 : HalfKind::BF16);
    return {};
  }
  if (isFloatKind(toKind)) {
    for (int64_t i = 0; i < count; ++i)
      storeFloat(to, toKind, i, loadValue(from, fromKind, i));
    return {};
  }
  auto [low, high] = integerRange(toKind);
  for (int64_t i = 0; i < count; ++i) {
    int64_t value = loadInteger(from, fromKind, i);
    if (value < low || value > high)
      return "value " + std::to_string(value) + " at index " +
             std::to_string(i) + " does not fit " + elementName(toKind);
    storeInteger(to, toKind, i, value);
  }
  return {};
}

mpt_status_t fillInfo(const PublicTensor &tensor, mpt_tensor_info_t *info) {
  if (tensor.shape.dims.size() > MPT_MAX_RANK)
    return makeStatus(MPT_STATUS_INVALID_ARGUMENT,
                      "'" + tensor.name + "' has rank " +
                          std::to_string(tensor.shape.dims.size()) +
                          ", more than MPT_MAX_RANK");
  std::memset(info, 0, sizeof(*info));
  info->name = tensor.name.c_str();
  info->dtype = toDtype(tensor.shape.kind);
  info->rank = int64_t(tensor.shape.dims.size());
  for (size_t d = 0; d < tensor.shape.dims.size(); ++d)
    info->shape[d] = tensor.shape.dims[d];
  info->num_elements = tensor.shape.numElements();
  info->num_bytes = tensor.shape.bytes();
  info->num_classes = tensor.classes;
  info->is_parameter = tensor.isParameter;
  info->has_ignored_label = tensor.ignoredLabel.has_value();
  info->ignored_label = tensor.ignoredLabel.value_or(0);
  info->table_rows = tensor.tableRows;
  return nullptr;
}

const PublicTensor *findNamed(const std::vector<PublicTensor> &tensors,
                              const char *name) {
  for (const PublicTensor &tensor : tensors)
    if (tensor.name == name)
      return &tensor;
  return nullptr;
}

std::string namesOf(const std::vector<PublicTensor> &tensors) {
  std::string names;
  for (const PublicTensor &tensor : tensors)
    names += (names.empty() ? "'" : ", '") + tensor.name + "'";
  return names.empty() ? "none" : names;
}

} // namespace mpt::runtime::api

using namespace mpt::runtime;
using namespace mpt::runtime::api;

extern "C" {

size_t mpt_dtype_size(mpt_dtype_t dtype) {
  std::optional<ElementKind> kind = toKind(dtype);
  return kind ? elementBytes(*kind) : 0;
}

const char *mpt_dtype_name(mpt_dtype_t dtype) {
  std::optional<ElementKind> kind = toKind(dtype);
  return kind ? elementName(*kind) : "";
}

} // extern "C"
