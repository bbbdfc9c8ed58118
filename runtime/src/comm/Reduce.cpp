//===- Reduce.cpp - elementwise reductions of float buffers -----*- C++ -*-===//

#include "comm/Reduce.h"

#include "mpt/float16.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace mpt::runtime;

namespace {

/// x86 gives an invalid operation's NaN the sign bit, and an operation on two
/// NaNs the first one's payload: both depend on the order of the operands.
float canonicalNaN(float value) {
  return std::isnan(value) ? std::numeric_limits<float>::quiet_NaN() : value;
}

float sum(float a, float b) { return canonicalNaN(a + b); }

float max(float a, float b) {
  if (std::isnan(a) || std::isnan(b))
    return std::numeric_limits<float>::quiet_NaN();
  // -0 == +0: take +0 whichever comes first.
  if (a == b)
    return std::signbit(a) ? b : a;
  return a > b ? a : b;
}

/// Elements combined per block: widened into two f32 arrays on the stack,
/// combined there and rounded back, each step a loop that vectorizes (F16C
/// for f16: 8 times faster than element by element).
constexpr int64_t kBlock = 512;

template <float (*combine)(float, float)>
void combineBlock(const float *in, float *inout, int64_t count) {
  for (int64_t i = 0; i < count; ++i)
    inout[i] = combine(in[i], inout[i]);
}

template <HalfKind kind, float (*combine)(float, float)>
void combineHalves(const void *in, void *inout, int64_t count) {
  const uint16_t *from = static_cast<const uint16_t *>(in);
  uint16_t *to = static_cast<uint16_t *>(inout);
  float wideIn[kBlock], wideInout[kBlock];
  for (int64_t start = 0; start < count; start += kBlock) {
    size_t size = size_t(std::min(kBlock, count - start));
    widenHalves(from + start, wideIn, size, kind);
    widenHalves(to + start, wideInout, size, kind);
    combineBlock<combine>(wideIn, wideInout, int64_t(size));
    roundFloats(wideInout, to + start, size, kind);
  }
}

template <float (*combine)(float, float)>
void combineDtype(mpt_dtype_t dtype, const void *in, void *inout,
                  int64_t count) {
  switch (dtype) {
  case MPT_DTYPE_F32:
    return combineBlock<combine>(static_cast<const float *>(in),
                                 static_cast<float *>(inout), count);
  case MPT_DTYPE_F16:
    return combineHalves<HalfKind::F16, combine>(in, inout, count);
  case MPT_DTYPE_BF16:
    return combineHalves<HalfKind::BF16, combine>(in, inout, count);
  }
}

} // namespace

void mpt::runtime::comm::combineFloats(mpt_reduce_op_t op, mpt_dtype_t dtype,
                                       const void *in, void *inout,
                                       int64_t count) {
  if (op == MPT_REDUCE_SUM)
    combineDtype<sum>(dtype, in, inout, count);
  else
    combineDtype<max>(dtype, in, inout, count);
}
