//===- Float16.h - f16 and bf16 conversions for host code --------*- C++
//-*-===//
//
// Exact widening and round-to-nearest-even narrowing, with subnormals, so that
// state written or read by the host matches what the compiled code computes.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_FLOAT16_H
#define MPT_RUNTIME_FLOAT16_H

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace mpt::runtime {

inline uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

inline float bitsFloat(uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

inline float f16ToFloat(uint16_t half) {
  uint32_t sign = uint32_t(half & 0x8000u) << 16;
  uint32_t exponent = (half >> 10) & 0x1fu;
  uint32_t mantissa = half & 0x3ffu;
  if (exponent == 0x1f)
    return bitsFloat(sign | 0x7f800000u | (mantissa << 13));
  if (exponent != 0)
    return bitsFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
  // Zero or subnormal: mantissa * 2^-24, exact in f32.
  float magnitude = float(mantissa) * 5.9604644775390625e-8f;
  return sign ? -magnitude : magnitude;
}

inline uint16_t floatToF16(float value) {
  uint32_t bits = floatBits(value);
  uint16_t sign = uint16_t((bits >> 16) & 0x8000u);
  uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude >= 0x7f800000u) // inf or nan
    return sign | 0x7c00u | (magnitude > 0x7f800000u ? 0x200u : 0);
  if (magnitude >= 0x477ff000u) // rounds to at least 65520: inf
    return sign | 0x7c00u;
  if (magnitude < 0x38800000u) { // below the smallest normal, 2^-14
    // Round magnitude / 2^-24 to nearest even: subnormal or zero.
    float scaled = bitsFloat(magnitude) * 16777216.0f;
    uint32_t whole = uint32_t(scaled);
    float fraction = scaled - float(whole);
    if (fraction > 0.5f || (fraction == 0.5f && (whole & 1)))
      ++whole;
    return sign | uint16_t(whole);
  }
  uint32_t rounded = magnitude + 0xfffu + ((magnitude >> 13) & 1);
  return sign | uint16_t((rounded - 0x38000000u) >> 13);
}

inline float bf16ToFloat(uint16_t value) {
  return bitsFloat(uint32_t(value) << 16);
}

inline uint16_t floatToBF16(float value) {
  uint32_t bits = floatBits(value);
  if ((bits & 0x7fffffffu) > 0x7f800000u) // nan stays a quiet nan
    return uint16_t((bits >> 16) | 0x40u);
  return uint16_t((bits + 0x7fffu + ((bits >> 16) & 1)) >> 16);
}

enum class HalfKind { F16, BF16 };

/// floatToF16 or floatToBF16 of each of `count` values, several at a time
/// (F16C where the CPU has it): a GPU's batch is rounded on the host as it is
/// staged. Results are those of the scalar functions, but for the payload of
/// a NaN, which stays a NaN.
void roundFloats(const float *from, uint16_t *to, size_t count, HalfKind kind);

/// f16ToFloat or bf16ToFloat of each of `count` values, several at a time
/// (F16C where the CPU has it). Results are those of the scalar functions,
/// but for a signaling NaN, which may come out quiet.
void widenHalves(const uint16_t *from, float *to, size_t count, HalfKind kind);

} // namespace mpt::runtime

#endif // MPT_RUNTIME_FLOAT16_H
