//===- GemmBF16.h - bf16 products accumulated in f32 ------------*- C++ -*-===//
//
// The runtime's bf16 matmul kernel on CPUs with bf16 arithmetic: AMX tiles
// (TDPBF16PS) where Linux grants them, AVX512_BF16's VDPBF16PS elsewhere.
// Without either, bf16 operands widen to f32 for OpenBLAS's sgemm
// (CpuKernels.cpp), and the compiler widens them before the call.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_GEMMBF16_H
#define MPT_RUNTIME_GEMMBF16_H

#include <cstdint>

namespace mpt::runtime {

/// C (m x n, row stride ldc, unit column stride) += A B (with `accumulate`;
/// C = A B without, and C is not read) for k >= 1 and bf16 A (m x k)
/// and B (k x n) given as their bits, element (i, l) of A at a[i * a0 + l *
/// a1] and (l, j) of B at b[l * b0 + j * b1]. Each step adds exact bf16
/// products to an f32 accumulator, rounding to nearest even: the
/// f32-accumulated product the linalg op defines, in another summation order
/// than sgemm's, except that subnormal inputs and results count as zero
/// (magnitudes below 2^-126, far under any gradient loss scaling keeps).
using GemmBF16 = void (*)(const uint16_t *a, int64_t a0, int64_t a1,
                          const uint16_t *b, int64_t b0, int64_t b1, float *c,
                          int64_t ldc, int64_t m, int64_t n, int64_t k,
                          bool accumulate);

/// The bf16 product to use on this CPU, or null where widening to f32 for
/// sgemm is faster: AMX where the CPU has it and Linux grants the tiles;
/// VDPBF16PS on AMD's Zen 4, which issues it as often as a 512-bit FMA (bf16
/// steps 0.64-0.94x FP32 on an EPYC), but not on Intel's cores, which issue
/// two FMAs per cycle and one VDPBF16PS (on a Sapphire Rapids with AMX
/// unused, 1 thread, medians of 5 alternating runs: MLP bf16 3.02 ms with it,
/// 1.91 widened, FP32 1.70; transformer 3.01, 2.09, 1.98).
GemmBF16 preferredGemmBF16();

/// The bf16 product convolutions use on bf16 im2col matrices (the matmuls',
/// preferredGemmBF16), and the least depth (channels x kernel taps) from which
/// it beats widening for sgemm; a null product where they always widen. AMX
/// from depth 32, which it pads to: on a Sapphire Rapids, one thread, the CNN
/// example's first convolution (depth 9, 8 filters) took 389 us on AMX against
/// 194 widened, where its depths 72 and 144 took 538 and 943 us against 852 and
/// 1455 (fastest of 40 runs, in the best of three alternated rounds). VDPBF16PS
/// on AMD's cores at every depth: on a Zen 5 the CNN's bf16 step took 3.60 ms
/// with it from depth 32 against 4.11 widened on one thread, 2.50 against 3.34
/// on two, and from depth 1 3.24-3.31 against 3.32-3.46 from 32 on one thread
/// (medians of 5-7 alternating runs). Intel's cores without AMX widen, as their
/// matmuls do.
struct ConvolutionGemmBF16 {
  GemmBF16 product = nullptr;
  int64_t minDepth = 0;
};
ConvolutionGemmBF16 preferredConvolutionGemmBF16();

#if defined(__x86_64__)
/// Whether gemmBF16Dot and gemmBF16Amx may run here.
bool hasDotBF16();
bool hasAmxBF16();
/// With AVX512_BF16 (and BW, VL).
void gemmBF16Dot(const uint16_t *a, int64_t a0, int64_t a1, const uint16_t *b,
                 int64_t b0, int64_t b1, float *c, int64_t ldc, int64_t m,
                 int64_t n, int64_t k, bool accumulate);
/// With AMX-BF16 tiles (and AVX-512 for packing).
void gemmBF16Amx(const uint16_t *a, int64_t a0, int64_t a1, const uint16_t *b,
                 int64_t b0, int64_t b1, float *c, int64_t ldc, int64_t m,
                 int64_t n, int64_t k, bool accumulate);
#endif

} // namespace mpt::runtime

#endif // MPT_RUNTIME_GEMMBF16_H
