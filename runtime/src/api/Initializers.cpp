//===- Initializers.cpp - the initial state of a session -------*- C++ -*-===//
//
// PyTorch's module defaults, as the signature describes them, from a
// generator that gives the same state on every platform for a given seed.
//
//===----------------------------------------------------------------------===//

#include "api/Initializers.h"

#include "api/Tensors.h"

#include <cmath>

namespace mpt::runtime::api {

namespace {

/// splitmix64: a small, fully specified generator, so that initial state is
/// the same on every platform for a given seed.
class Random {
public:
  explicit Random(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }

private:
  uint64_t state;
};

} // namespace

void initialize(const ArgInfo &arg, size_t index, uint64_t seed,
                HostBuffer &host) {
  int64_t count = arg.shape.numElements();
  auto store = [&](int64_t e, double value) {
    if (isFloatKind(arg.shape.kind))
      storeFloat(host.get(), arg.shape.kind, e, value);
    else
      storeInteger(host.get(), arg.shape.kind, e, int64_t(value));
  };
  switch (arg.init) {
  case InitKind::Zeros:
  case InitKind::Copy: // written from the master (writeWorkingCopies)
    return;
  case InitKind::Ones:
    for (int64_t e = 0; e < count; ++e)
      store(e, 1.0);
    return;
  case InitKind::Value:
    for (int64_t e = 0; e < count; ++e)
      store(e, arg.initValues[arg.initValues.size() == 1 ? 0 : e]);
    return;
  case InitKind::Uniform: {
    // Each tensor has its own stream, so adding a tensor leaves the others.
    Random random(seed * 0x100000001b3ull + index);
    for (int64_t e = 0; e < count; ++e)
      store(e, float((2.0 * random.uniform() - 1.0) * arg.bound));
    return;
  }
  case InitKind::Normal: {
    // Box-Muller: each pair of uniforms gives two independent normals; 1 - u
    // is in (0, 1], where the logarithm is finite.
    Random random(seed * 0x100000001b3ull + index);
    for (int64_t e = 0; e < count; e += 2) {
      double radius = std::sqrt(-2.0 * std::log(1.0 - random.uniform()));
      double angle = 2.0 * M_PI * random.uniform();
      store(e, float(radius * std::cos(angle)));
      if (e + 1 < count)
        store(e + 1, float(radius * std::sin(angle)));
    }
    return;
  }
  }
}

} // namespace mpt::runtime::api
