//===- Tensors.h - tensors as the C API shows and converts them -*- C++ -*-===//
//
// The public dtypes and the element kinds of the signature, the conversions
// between them that binding, reading and writing state do, and the views of
// a program's tensors that mpt_tensor_info_t borrows from.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_API_TENSORS_H
#define MPT_RUNTIME_API_TENSORS_H

#include "Signature.h"
#include "mpt/runtime.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mpt::runtime::api {

std::optional<ElementKind> toKind(mpt_dtype_t dtype);
mpt_dtype_t toDtype(ElementKind kind);

/// Element `i` of `data`, of kind `kind`, as a double.
double loadValue(const uint8_t *data, ElementKind kind, int64_t i);
/// Element `i` of `data`, of kind `kind`, as an integer.
int64_t loadInteger(const uint8_t *data, ElementKind kind, int64_t i);
/// Stores a float into a float element (rounding to nearest even).
void storeFloat(uint8_t *data, ElementKind kind, int64_t i, double value);
/// Stores an integer, in range, into an integer element.
void storeInteger(uint8_t *data, ElementKind kind, int64_t i, int64_t value);
/// The range of an integer element type.
std::pair<int64_t, int64_t> integerRange(ElementKind kind);

/// The first of `values` (every element of `arg`, in its kind) outside the
/// domain the step keeps `arg` in, as "value nan at index 0 is outside [1,
/// 16777216], ..."; empty when all are inside or `arg` has no domain.
std::string outsideDomain(const ArgInfo &arg, const uint8_t *values);

/// Converts `count` elements from `fromKind` to `toKind`: floats among
/// floats, integers among integers (checked against the target's range).
/// Returns an empty string or what does not convert.
std::string convert(const uint8_t *from, ElementKind fromKind, uint8_t *to,
                    ElementKind toKind, int64_t count);

/// What the C API shows of one tensor: its name and shape, with the storage
/// the returned info borrows.
struct PublicTensor {
  std::string name;
  TensorShape shape;
  int64_t classes = 0;
  int64_t index = -1; // argument or result index in its function
  bool isParameter = false;
  int64_t tableRows = 0; // ids of an embedding must lie in [0, tableRows)
  // A label allowed besides [0, classes).
  std::optional<int64_t> ignoredLabel = std::nullopt;
};

mpt_status_t fillInfo(const PublicTensor &tensor, mpt_tensor_info_t *info);
const PublicTensor *findNamed(const std::vector<PublicTensor> &tensors,
                              const char *name);
/// "'a', 'b'", or "none".
std::string namesOf(const std::vector<PublicTensor> &tensors);

} // namespace mpt::runtime::api

#endif // MPT_RUNTIME_API_TENSORS_H
