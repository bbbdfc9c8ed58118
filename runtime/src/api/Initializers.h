//===- Initializers.h - the initial state of a session ----------*- C++ -*-===//

#ifndef MPT_RUNTIME_API_INITIALIZERS_H
#define MPT_RUNTIME_API_INITIALIZERS_H

#include "Signature.h"
#include "api/Memory.h"

#include <cstddef>
#include <cstdint>

namespace mpt::runtime::api {

/// Writes the initial value of parameter or state argument `arg`, number
/// `index` of the training step, into `host` (zeroed, of its size): its
/// initializer from the signature, seeded by `seed`. Working copies are left
/// for their master to write.
void initialize(const ArgInfo &arg, size_t index, uint64_t seed,
                HostBuffer &host);

} // namespace mpt::runtime::api

#endif // MPT_RUNTIME_API_INITIALIZERS_H
