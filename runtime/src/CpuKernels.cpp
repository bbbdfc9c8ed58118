//===- CpuKernels.cpp - BLAS-backed kernels called by compiled code -------===//

#include "CpuKernels.h"

#include "Float16.h"

#include <cblas.h>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace {

/// The memref descriptor of the C interface, for rank `Rank`.
template <typename T, int Rank>
struct MemRef {
  T *allocated;
  T *aligned;
  int64_t offset;
  int64_t sizes[Rank];
  int64_t strides[Rank];
};

float widen(float value) { return value; }

float widen(uint16_t half) { return mpt::runtime::f16ToFloat(half); }

struct BF16 {
  uint16_t bits;
};

float widen(BF16 value) { return mpt::runtime::bf16ToFloat(value.bits); }

/// One 2-d product C += op(A) op(B) with row-major strided operands.
template <typename T>
void gemm(const T *a, const int64_t *aSizes, const int64_t *aStrides,
          const T *b, const int64_t *bSizes, const int64_t *bStrides, float *c,
          const int64_t *cSizes, const int64_t *cStrides, int64_t transposeA,
          int64_t transposeB, std::vector<float> &scratchA,
          std::vector<float> &scratchB) {
  int64_t m = cSizes[0], n = cSizes[1];
  int64_t k = transposeA ? aSizes[0] : aSizes[1];
  if (m == 0 || n == 0)
    return;
  // Widen (or gather) each input into a dense row-major f32 matrix; BLAS
  // wants unit column strides.
  auto dense = [](const T *src, const int64_t *sizes, const int64_t *strides,
                  std::vector<float> &dst) {
    dst.resize(sizes[0] * sizes[1]);
    for (int64_t i = 0; i < sizes[0]; ++i)
      for (int64_t j = 0; j < sizes[1]; ++j)
        dst[i * sizes[1] + j] = widen(src[i * strides[0] + j * strides[1]]);
    return dst.data();
  };
  const float *aData, *bData;
  int64_t lda, ldb;
  if constexpr (std::is_same_v<T, float>) {
    aData = aStrides[1] == 1 ? a : dense(a, aSizes, aStrides, scratchA);
    bData = bStrides[1] == 1 ? b : dense(b, bSizes, bStrides, scratchB);
    lda = aStrides[1] == 1 ? aStrides[0] : aSizes[1];
    ldb = bStrides[1] == 1 ? bStrides[0] : bSizes[1];
  } else {
    aData = dense(a, aSizes, aStrides, scratchA);
    bData = dense(b, bSizes, bStrides, scratchB);
    lda = aSizes[1];
    ldb = bSizes[1];
  }
  if (cStrides[1] != 1) {
    // A strided accumulator: compute densely, then add in.
    std::vector<float> dense(m * n, 0.0f);
    cblas_sgemm(CblasRowMajor, transposeA ? CblasTrans : CblasNoTrans,
                transposeB ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, aData,
                lda ? lda : 1, bData, ldb ? ldb : 1, 0.0f, dense.data(), n);
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j)
        c[i * cStrides[0] + j * cStrides[1]] += dense[i * n + j];
    return;
  }
  cblas_sgemm(CblasRowMajor, transposeA ? CblasTrans : CblasNoTrans,
              transposeB ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, aData,
              lda ? lda : 1, bData, ldb ? ldb : 1, 1.0f, c,
              cStrides[0] ? cStrides[0] : 1);
}

template <typename T>
void matmul2d(MemRef<T, 2> *a, MemRef<T, 2> *b, MemRef<float, 2> *c,
              int64_t transposeA, int64_t transposeB) {
  std::vector<float> scratchA, scratchB;
  gemm(a->aligned + a->offset, a->sizes, a->strides, b->aligned + b->offset,
       b->sizes, b->strides, c->aligned + c->offset, c->sizes, c->strides,
       transposeA, transposeB, scratchA, scratchB);
}

template <typename T>
void matmul3d(MemRef<T, 3> *a, MemRef<T, 3> *b, MemRef<float, 3> *c,
              int64_t transposeA, int64_t transposeB) {
  std::vector<float> scratchA, scratchB;
  for (int64_t batch = 0; batch < c->sizes[0]; ++batch)
    gemm(a->aligned + a->offset + batch * a->strides[0], a->sizes + 1,
         a->strides + 1, b->aligned + b->offset + batch * b->strides[0],
         b->sizes + 1, b->strides + 1,
         c->aligned + c->offset + batch * c->strides[0], c->sizes + 1,
         c->strides + 1, transposeA, transposeB, scratchA, scratchB);
}

} // namespace

extern "C" {
void _mlir_ciface_mpt_cpu_matmul_f32_2d(MemRef<float, 2> *a,
                                        MemRef<float, 2> *b,
                                        MemRef<float, 2> *c, int64_t ta,
                                        int64_t tb) {
  matmul2d(a, b, c, ta, tb);
}
void _mlir_ciface_mpt_cpu_matmul_f16_2d(MemRef<uint16_t, 2> *a,
                                        MemRef<uint16_t, 2> *b,
                                        MemRef<float, 2> *c, int64_t ta,
                                        int64_t tb) {
  matmul2d(a, b, c, ta, tb);
}
void _mlir_ciface_mpt_cpu_matmul_bf16_2d(MemRef<BF16, 2> *a,
                                         MemRef<BF16, 2> *b,
                                         MemRef<float, 2> *c, int64_t ta,
                                         int64_t tb) {
  matmul2d(a, b, c, ta, tb);
}
void _mlir_ciface_mpt_cpu_matmul_f32_3d(MemRef<float, 3> *a,
                                        MemRef<float, 3> *b,
                                        MemRef<float, 3> *c, int64_t ta,
                                        int64_t tb) {
  matmul3d(a, b, c, ta, tb);
}
void _mlir_ciface_mpt_cpu_matmul_f16_3d(MemRef<uint16_t, 3> *a,
                                        MemRef<uint16_t, 3> *b,
                                        MemRef<float, 3> *c, int64_t ta,
                                        int64_t tb) {
  matmul3d(a, b, c, ta, tb);
}
void _mlir_ciface_mpt_cpu_matmul_bf16_3d(MemRef<BF16, 3> *a,
                                         MemRef<BF16, 3> *b,
                                         MemRef<float, 3> *c, int64_t ta,
                                         int64_t tb) {
  matmul3d(a, b, c, ta, tb);
}
}

/// LLVM rounds f32 to bf16 through this compiler-rt routine, which GCC 12's
/// libgcc lacks; bf16 travels in an xmm register like _Float16.
extern "C" _Float16 mpt_truncsfbf2(float value) {
  uint16_t bits = mpt::runtime::floatToBF16(value);
  _Float16 result;
  std::memcpy(&result, &bits, sizeof(result));
  return result;
}

namespace mpt::runtime {
const std::vector<CpuKernel> &cpuKernels() {
#define MPT_KERNEL(NAME)                                                       \
  CpuKernel { "_mlir_ciface_" #NAME, reinterpret_cast<void *>(&_mlir_ciface_##NAME) }
  static const std::vector<CpuKernel> kernels = {
      MPT_KERNEL(mpt_cpu_matmul_f32_2d), MPT_KERNEL(mpt_cpu_matmul_f16_2d),
      MPT_KERNEL(mpt_cpu_matmul_bf16_2d), MPT_KERNEL(mpt_cpu_matmul_f32_3d),
      MPT_KERNEL(mpt_cpu_matmul_f16_3d), MPT_KERNEL(mpt_cpu_matmul_bf16_3d),
      CpuKernel{"__truncsfbf2", reinterpret_cast<void *>(&mpt_truncsfbf2)}};
#undef MPT_KERNEL
  return kernels;
}
} // namespace mpt::runtime
