//===- ReduceTest.cpp - Tests for the reductions of float buffers -*- C++
//-*-===//
//
// combineFloats, which the MPI transport sums and maxes f32, f16 and bf16
// with, against the exact sum of two values rounded once to nearest even in
// double (half_reference.h), on random pairs over every binade (subnormals,
// cancellation, overflow), at the overflow boundary, and on non-finite
// values, in both orders of the operands.
//
//===----------------------------------------------------------------------===//

#include "comm/Reduce.h"

#include "half_reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using namespace mpt::runtime::comm;

namespace {

/// `op` of `a` and `b` (16-bit patterns of `dtype`), as combineFloats
/// computes it with `a` as the incoming operand.
uint16_t combineHalf(mpt_reduce_op_t op, mpt_dtype_t dtype, uint16_t a,
                     uint16_t b) {
  combineFloats(op, dtype, &a, &b, 1);
  return b;
}

float combineF32(mpt_reduce_op_t op, float a, float b) {
  combineFloats(op, MPT_DTYPE_F32, &a, &b, 1);
  return b;
}

uint32_t bitsOf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

/// Random finite patterns of `format`, every exponent equally likely.
std::vector<uint16_t> randomFinite(HalfFormat format, size_t count) {
  std::mt19937 random(42);
  int maxField = 2 * format.maxExponent; // all ones is inf/nan
  std::vector<uint16_t> patterns;
  while (patterns.size() < count) {
    uint16_t bits = uint16_t(random());
    if (((bits & 0x7fff) >> format.mantissaBits) <= maxField)
      patterns.push_back(bits);
  }
  return patterns;
}

/// Sums and maxes of random pairs: the sum of two values of a 16-bit
/// format is exact in double, so roundHalf gives the correctly rounded sum.
void checkRandomPairs(mpt_dtype_t dtype, HalfFormat format) {
  std::vector<uint16_t> values = randomFinite(format, 400001);
  int sumMismatches = 0, maxMismatches = 0;
  for (size_t i = 0; i + 1 < values.size(); ++i) {
    uint16_t a = values[i], b = values[i + 1];
    double x = decodeHalf(a, format), y = decodeHalf(b, format);
    uint16_t sum = combineHalf(MPT_REDUCE_SUM, dtype, a, b);
    double expected = roundHalf(x + y, format);
    // -0 + +0 and x + -x are +0 (round to nearest).
    if (decodeHalf(sum, format) != expected ||
        std::signbit(decodeHalf(sum, format)) != std::signbit(expected))
      if (++sumMismatches <= 5)
        ADD_FAILURE() << std::hex << a << " + " << b << " gave " << sum
                      << ", expected " << expected;
    uint16_t max = combineHalf(MPT_REDUCE_MAX, dtype, a, b);
    if (decodeHalf(max, format) != std::max(x, y))
      if (++maxMismatches <= 5)
        ADD_FAILURE() << std::hex << "max(" << a << ", " << b << ") gave "
                      << max;
    EXPECT_EQ(sum, combineHalf(MPT_REDUCE_SUM, dtype, b, a));
    EXPECT_EQ(max, combineHalf(MPT_REDUCE_MAX, dtype, b, a));
  }
  EXPECT_EQ(sumMismatches, 0);
  EXPECT_EQ(maxMismatches, 0);
}

TEST(ReduceTest, F16RandomPairs) {
  checkRandomPairs(MPT_DTYPE_F16, kF16Format);
}

TEST(ReduceTest, BF16RandomPairs) {
  checkRandomPairs(MPT_DTYPE_BF16, kBF16Format);
}

TEST(ReduceTest, F16SumOverflowsToInfinity) {
  constexpr uint16_t k60000 = 0x7b53, kMax = 0x7bff, kInf = 0x7c00;
  ASSERT_EQ(decodeHalf(k60000, kF16Format), 60000.0);
  EXPECT_EQ(combineHalf(MPT_REDUCE_SUM, MPT_DTYPE_F16, k60000, k60000), kInf);
  EXPECT_EQ(combineHalf(MPT_REDUCE_SUM, MPT_DTYPE_F16, k60000 | 0x8000,
                        k60000 | 0x8000),
            kInf | 0x8000);
  // 65504 + 8 = 65512 rounds down to 65504; 65504 + 16 = 65520, halfway to
  // 2^16, rounds to the even neighbour: infinity.
  constexpr uint16_t k8 = 0x4800, k16 = 0x4c00;
  EXPECT_EQ(combineHalf(MPT_REDUCE_SUM, MPT_DTYPE_F16, kMax, k8), kMax);
  EXPECT_EQ(combineHalf(MPT_REDUCE_SUM, MPT_DTYPE_F16, kMax, k16), kInf);
}

TEST(ReduceTest, BF16SumOverflowsToInfinity) {
  constexpr uint16_t k3e38 = 0x7f62, kInf = 0x7f80;
  EXPECT_EQ(combineHalf(MPT_REDUCE_SUM, MPT_DTYPE_BF16, k3e38, k3e38), kInf);
}

/// Non-finite operands in both orders give the same bits: a NaN is the
/// positive quiet NaN, whatever NaN or infinities made it.
TEST(ReduceTest, NonFiniteValuesAndOrder) {
  float nan = std::nanf(""), negativeNaN = -std::nanf("0x1234");
  float inf = INFINITY;
  uint32_t quietNaN = bitsOf(std::numeric_limits<float>::quiet_NaN());
  for (auto [a, b] : {std::pair(nan, negativeNaN), std::pair(nan, 1.0f),
                      std::pair(negativeNaN, inf)}) {
    EXPECT_EQ(bitsOf(combineF32(MPT_REDUCE_SUM, a, b)), quietNaN);
    EXPECT_EQ(bitsOf(combineF32(MPT_REDUCE_SUM, b, a)), quietNaN);
    EXPECT_EQ(bitsOf(combineF32(MPT_REDUCE_MAX, a, b)), quietNaN);
    EXPECT_EQ(bitsOf(combineF32(MPT_REDUCE_MAX, b, a)), quietNaN);
  }
  // inf + -inf is x86's negative NaN, made the positive one.
  EXPECT_EQ(bitsOf(combineF32(MPT_REDUCE_SUM, inf, -inf)), quietNaN);
  EXPECT_EQ(bitsOf(combineF32(MPT_REDUCE_SUM, -inf, inf)), quietNaN);
  EXPECT_EQ(combineF32(MPT_REDUCE_MAX, inf, -inf), inf);
  EXPECT_EQ(combineF32(MPT_REDUCE_SUM, inf, 1.0f), inf);
  EXPECT_EQ(combineF32(MPT_REDUCE_MAX, -inf, 3.0f), 3.0f);
  // max(-0, +0) is +0 in either order.
  EXPECT_EQ(bitsOf(combineF32(MPT_REDUCE_MAX, -0.0f, 0.0f)), 0u);
  EXPECT_EQ(bitsOf(combineF32(MPT_REDUCE_MAX, 0.0f, -0.0f)), 0u);

  constexpr uint16_t kF16Inf = 0x7c00, kF16NaN = 0x7e00, kF16NegNaN = 0xfe01;
  EXPECT_EQ(combineHalf(MPT_REDUCE_SUM, MPT_DTYPE_F16, kF16Inf, 0xfc00),
            kF16NaN);
  EXPECT_EQ(combineHalf(MPT_REDUCE_SUM, MPT_DTYPE_F16, kF16NegNaN, 0x3c00),
            kF16NaN);
  EXPECT_EQ(combineHalf(MPT_REDUCE_MAX, MPT_DTYPE_F16, 0x3c00, kF16NegNaN),
            kF16NaN);
  constexpr uint16_t kBF16NaN = 0x7fc0;
  EXPECT_EQ(combineHalf(MPT_REDUCE_SUM, MPT_DTYPE_BF16, 0x7f80, 0xff80),
            kBF16NaN);
  EXPECT_EQ(combineHalf(MPT_REDUCE_MAX, MPT_DTYPE_BF16, 0xffc1, 0x3f80),
            kBF16NaN);
}

/// A buffer combines elementwise, the incoming operand first.
TEST(ReduceTest, Buffers) {
  std::vector<float> in = {1, -2, 3.5f, 1e30f}, inout = {4, 5, -6, 1e30f};
  combineFloats(MPT_REDUCE_SUM, MPT_DTYPE_F32, in.data(), inout.data(), 4);
  EXPECT_EQ(inout, (std::vector<float>{5, 3, -2.5f, 2e30f}));
  combineFloats(MPT_REDUCE_MAX, MPT_DTYPE_F32, in.data(), inout.data(), 3);
  EXPECT_EQ(inout, (std::vector<float>{5, 3, 3.5f, 2e30f}));
}

} // namespace
