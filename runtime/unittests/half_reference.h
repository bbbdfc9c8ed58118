/* f16 and bf16 for the tests of reductions, computed in double and written
   independently of mpt/float16.h: decoding a bit pattern, and rounding a
   double once to nearest even. Plain C, for the C tests too. */
#ifndef MPT_RUNTIME_UNITTESTS_HALF_REFERENCE_H
#define MPT_RUNTIME_UNITTESTS_HALF_REFERENCE_H

#include <math.h>
#include <stdint.h>

/* A binary floating-point format: its significand bits after the leading one
   and the exponents of its smallest and largest normal binades. */
typedef struct HalfFormat {
  int mantissaBits;
  int minExponent;
  int maxExponent;
} HalfFormat;

static const HalfFormat kF16Format = {10, -14, 15};
static const HalfFormat kBF16Format = {7, -126, 127};

/* The value of a 16-bit pattern (sign, 15 - mantissaBits exponent bits,
   mantissa) of `format`. */
static inline double decodeHalf(uint16_t bits, HalfFormat format) {
  int bias = format.maxExponent;
  int exponent = (bits & 0x7fff) >> format.mantissaBits;
  double mantissa = bits & ((1u << format.mantissaBits) - 1);
  double sign = bits & 0x8000 ? -1.0 : 1.0;
  if (exponent == 2 * bias + 1)
    return mantissa != 0 ? NAN : sign * INFINITY;
  if (exponent == 0) /* zero or subnormal */
    return sign * ldexp(mantissa, format.minExponent - format.mantissaBits);
  return sign * ldexp(mantissa + ldexp(1.0, format.mantissaBits),
                      exponent - bias - format.mantissaBits);
}

/* `value` rounded to `format`, nearest even, as a double: infinity from
   2^(maxExponent + 1) on, subnormals below 2^minExponent. Exact for values
   with at most 52 significant bits below their quantum. */
static inline double roundHalf(double value, HalfFormat format) {
  if (value == 0 || isnan(value) || isinf(value))
    return value;
  int exponent;
  frexp(fabs(value), &exponent); /* |value| in [2^(exponent-1), 2^exponent) */
  int binade =
      exponent - 1 < format.minExponent ? format.minExponent : exponent - 1;
  double quantum = ldexp(1.0, binade - format.mantissaBits);
  double units = fabs(value) / quantum, whole = floor(units);
  double fraction = units - whole;
  if (fraction > 0.5 || (fraction == 0.5 && fmod(whole, 2.0) == 1.0))
    whole += 1.0;
  double rounded = whole * quantum;
  if (rounded >= ldexp(1.0, format.maxExponent + 1))
    rounded = INFINITY;
  return copysign(rounded, value);
}

#endif /* MPT_RUNTIME_UNITTESTS_HALF_REFERENCE_H */
