//===- Float16Test.cpp - Tests for converting many floats at once -*- C++
//-*-===//
//
// widenHalves against the scalar widening on every pattern, and roundFloats,
// which the CPU kernels round whole products with, against
// round-to-nearest-even computed here from the two bf16 neighbours of each
// value (their distances are exact in double), on every high half of an f32
// with low halves 0, 1, 0x7fff, 0x8000 (a tie), 0x8001 and 0xffff: both
// signs, subnormals, the largest values (which overflow to infinity),
// infinities and NaNs. The count is not a multiple of any vector width.
//
//===----------------------------------------------------------------------===//

#include "mpt/float16.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

using namespace mpt::runtime;

namespace {

constexpr uint32_t kLows[] = {0x0000, 0x0001, 0x7fff, 0x8000, 0x8001, 0xffff};

std::vector<float> everyHighHalf() {
  std::vector<float> values;
  for (uint32_t high = 0; high < 0x10000; ++high)
    for (uint32_t low : kLows)
      values.push_back(bitsFloat(high << 16 | low));
  values.push_back(1.0f); // a tail past any vector width
  return values;
}

/// The bf16 nearest to `value`, ties to the even one (not for NaN).
uint16_t nearestEvenBF16(float value) {
  uint32_t bits = floatBits(value);
  if (std::isnan(value))
    return 0;
  uint32_t below = bits >> 16, above = below + 1;
  if ((below & 0x7fff) == 0x7f80) // infinity
    return below;
  // Magnitudes: the next code up from the largest finite one is infinity,
  // which rounding reaches from 2^128 on.
  auto magnitude = [](uint32_t code) {
    code &= 0x7fff;
    return code == 0x7f80 ? std::ldexp(1.0, 128)
                          : double(bitsFloat(code << 16));
  };
  double x = std::fabs(double(value));
  double down = x - magnitude(below), up = magnitude(above) - x;
  return down < up || (down == up && below % 2 == 0) ? below : above;
}

/// roundFloats to `kind` on every input of everyHighHalf against
/// `reference`; a NaN only has to stay a NaN (`widen` reads it back).
void checkRoundFloats(HalfKind kind, uint16_t (*reference)(float),
                      float (*widen)(uint16_t)) {
  std::vector<float> values = everyHighHalf();
  std::vector<uint16_t> rounded(values.size());
  roundFloats(values.data(), rounded.data(), values.size(), kind);
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::isnan(values[i])) {
      EXPECT_TRUE(std::isnan(widen(rounded[i])))
          << "input bits " << std::hex << floatBits(values[i]);
      continue;
    }
    ASSERT_EQ(rounded[i], reference(values[i]))
        << "input bits " << std::hex << floatBits(values[i]);
  }
}

TEST(Float16Test, RoundFloatsToBF16IsNearestEven) {
  checkRoundFloats(HalfKind::BF16, nearestEvenBF16, bf16ToFloat);
}

/// f16 (F16C where the CPU has it) as the scalar floatToF16.
TEST(Float16Test, RoundFloatsToF16IsTheScalarRounding) {
  checkRoundFloats(HalfKind::F16, floatToF16, f16ToFloat);
}

/// widenHalves on every 16-bit pattern (and one more, past any vector width)
/// as the scalar widening; a NaN only has to stay a NaN.
void checkWidenHalves(HalfKind kind, float (*widen)(uint16_t)) {
  std::vector<uint16_t> patterns;
  for (uint32_t bits = 0; bits <= 0x10000; ++bits)
    patterns.push_back(uint16_t(bits));
  std::vector<float> widened(patterns.size());
  widenHalves(patterns.data(), widened.data(), patterns.size(), kind);
  for (size_t i = 0; i < patterns.size(); ++i) {
    float expected = widen(patterns[i]);
    if (std::isnan(expected))
      EXPECT_TRUE(std::isnan(widened[i])) << std::hex << patterns[i];
    else
      ASSERT_EQ(floatBits(widened[i]), floatBits(expected))
          << std::hex << patterns[i];
  }
}

TEST(Float16Test, WidenHalvesIsTheScalarWidening) {
  checkWidenHalves(HalfKind::F16, f16ToFloat);
  checkWidenHalves(HalfKind::BF16, bf16ToFloat);
}

} // namespace
