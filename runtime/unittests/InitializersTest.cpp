//===- InitializersTest.cpp - the distributions of initial state ----------===//
//
// An embedding table starts standard normal, as nn.Embedding's does: over
// 40000 values the mean and the standard deviation are those of N(0, 1)
// within five standard errors, and the same seed gives the same values.
//
//===----------------------------------------------------------------------===//

#include "api/Initializers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace mpt::runtime;

namespace {

std::vector<float> initialValues(const ArgInfo &arg, uint64_t seed) {
  api::HostBuffer host;
  int64_t count = arg.shape.numElements();
  EXPECT_TRUE(host.allocate(count * sizeof(float)));
  api::initialize(arg, /*index=*/3, seed, host);
  std::vector<float> values(count);
  std::memcpy(values.data(), host.get(), count * sizeof(float));
  return values;
}

TEST(Initializers, NormalIsStandardNormal) {
  ArgInfo table;
  table.shape.kind = ElementKind::F32;
  table.shape.dims = {200, 200};
  table.init = InitKind::Normal;
  std::vector<float> values = initialValues(table, 7);
  double n = double(values.size()), sum = 0.0, squares = 0.0;
  for (float v : values) {
    ASSERT_TRUE(std::isfinite(v));
    sum += v;
    squares += double(v) * v;
  }
  double mean = sum / n;
  double variance = squares / n - mean * mean;
  // Standard errors: 1/sqrt(n) for the mean, sqrt(2/n) for the variance.
  EXPECT_NEAR(mean, 0.0, 5.0 / std::sqrt(n));
  EXPECT_NEAR(variance, 1.0, 5.0 * std::sqrt(2.0 / n));
  EXPECT_EQ(initialValues(table, 7), values);
  EXPECT_NE(initialValues(table, 8), values);
}

} // namespace
