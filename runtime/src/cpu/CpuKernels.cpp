//===- CpuKernels.cpp - BLAS-backed kernels called by compiled code -------===//

#include "cpu/CpuKernels.h"

#include "ParallelFor.h"
#include "Scratch.h"
#include "StepMemory.h"
#include "cpu/GemmBF16.h"
#include "cpu/StepAllocator.h"
#include "mpt/Contract/Contract.h"
#include "mpt/float16.h"

#include <algorithm>
#include <cblas.h>
#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

using mpt::runtime::scratchBuffer;

namespace {

/// The memref descriptor of the C interface, for rank `Rank`.
template <typename T, int Rank> struct MemRef {
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

#if defined(__x86_64__)
/// f16 to f32 with F16C, 8 at a time: the conversion is exact, like
/// f16ToFloat, but im2col of f16 activations would otherwise spend most of a
/// convolution in the scalar decoding.
__attribute__((target("avx,f16c"))) void widenF16C(const uint16_t *src,
                                                   int64_t count, float *dst) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8)
    _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128(
                                  reinterpret_cast<const __m128i *>(src + i))));
  if (i == count)
    return;
  // Rows are short (14 wide in the CNN example), so decoding the remainder one
  // by one would cost about as much as the vectors: convert the last 8 again,
  // overlapping, or a padded copy of a row shorter than 8.
  if (count >= 8) {
    _mm256_storeu_ps(dst + count - 8,
                     _mm256_cvtph_ps(_mm_loadu_si128(
                         reinterpret_cast<const __m128i *>(src + count - 8))));
    return;
  }
  alignas(16) uint16_t tail[8] = {};
  std::memcpy(tail, src, count * sizeof(uint16_t));
  alignas(32) float wide[8];
  _mm256_store_ps(wide, _mm256_cvtph_ps(_mm_load_si128(
                            reinterpret_cast<const __m128i *>(tail))));
  std::memcpy(dst, wide, count * sizeof(float));
}

/// bf16 to f32 with AVX2: the bf16 bits are the high half of the f32.
__attribute__((target("avx2"))) void widenBF16AVX2(const BF16 *src,
                                                   int64_t count, float *dst) {
  int64_t i = 0;
  for (; i + 8 <= count; i += 8) {
    __m256i wide = _mm256_cvtepu16_epi32(
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i)));
    _mm256_storeu_ps(dst + i, _mm256_castsi256_ps(_mm256_slli_epi32(wide, 16)));
  }
  if (i == count)
    return;
  // As for f16: rows are short, so redo the last 8 rather than the remainder
  // one by one.
  if (count >= 8) {
    __m256i wide = _mm256_cvtepu16_epi32(
        _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + count - 8)));
    _mm256_storeu_ps(dst + count - 8,
                     _mm256_castsi256_ps(_mm256_slli_epi32(wide, 16)));
    return;
  }
  for (; i < count; ++i)
    dst[i] = widen(src[i]);
}

const bool hasF16C = __builtin_cpu_supports("f16c");
const bool hasAVX2 = __builtin_cpu_supports("avx2");
#endif

/// Copies a contiguous row of `bytes` (at least `Move`) in `Move`-byte moves,
/// the last one overlapping the one before: im2col copies rows of 7 to 28
/// elements (in the CNN example), for which a call to memcpy costs more than
/// the copy. Rows of more than 8 moves go to memcpy.
template <int64_t Move>
void copyRowInMoves(const void *src, int64_t bytes, void *dst) {
  if (bytes > 8 * Move) {
    std::memcpy(dst, src, bytes);
    return;
  }
  const char *from = static_cast<const char *>(src);
  char *to = static_cast<char *>(dst);
  int64_t i = 0;
  for (; i + Move <= bytes; i += Move)
    std::memcpy(to + i, from + i, Move);
  if (i < bytes)
    std::memcpy(to + bytes - Move, from + bytes - Move, Move);
}

/// Widens `count` elements `stride` apart into consecutive floats; unit
/// strides get loops the compiler can vectorize.
template <typename T>
void widenRow(const T *src, int64_t stride, int64_t count, float *dst) {
  if (stride != 1) {
    for (int64_t i = 0; i < count; ++i)
      dst[i] = widen(src[i * stride]);
    return;
  }
  if constexpr (std::is_same_v<T, float>) {
    if (count * sizeof(float) < 32)
      std::memcpy(dst, src, count * sizeof(float));
    else
      copyRowInMoves<32>(src, count * sizeof(float), dst);
    return;
  }
#if defined(__x86_64__)
  if constexpr (std::is_same_v<T, uint16_t>) {
    if (hasF16C) {
      widenF16C(src, count, dst);
      return;
    }
  }
  if constexpr (std::is_same_v<T, BF16>) {
    if (hasAVX2) {
      widenBF16AVX2(src, count, dst);
      return;
    }
  }
#endif
  for (int64_t i = 0; i < count; ++i)
    dst[i] = widen(src[i]);
}

/// Scratch reused across calls (no allocation per kernel call): im2col
/// buffers are megabytes and the kernels run several times a step. Indices:
/// 0 and 1 the widened operands, 2 the im2col matrix or a product to add in,
/// 3 an f16 or bf16 image widened before im2col, 4 a product to round, 5 an
/// operand widened once for all the threads.
std::vector<float> &scratch(int index) {
  thread_local std::vector<float> buffers[6];
  return buffers[index];
}

/// Kernel scratch of `bytes`, counted as step workspace while this lives
/// (countKernelScratch).
class ScratchInUse {
public:
  explicit ScratchInUse(int64_t bytes) : bytes(bytes) {
    mpt::runtime::countKernelScratch(bytes);
  }
  ~ScratchInUse() { mpt::runtime::countKernelScratch(-bytes); }
  ScratchInUse(const ScratchInUse &) = delete;
  ScratchInUse &operator=(const ScratchInUse &) = delete;

private:
  int64_t bytes;
};

/// Rounds the dense rows x cols f32 `product` to f16 (uint16_t) or bf16 into
/// `out`, whose rows are `rowStride` and columns `columnStride` elements
/// apart, as the compiled code's truncf would.
template <typename O>
void roundInto(const float *product, int64_t rows, int64_t cols, O *out,
               int64_t rowStride, int64_t columnStride) {
  using mpt::runtime::HalfKind;
  constexpr HalfKind kind =
      std::is_same_v<O, BF16> ? HalfKind::BF16 : HalfKind::F16;
  auto *bits = reinterpret_cast<uint16_t *>(out);
  if (columnStride == 1 && (rowStride == cols || rows == 1)) {
    mpt::runtime::roundFloats(product, bits, rows * cols, kind);
    return;
  }
  for (int64_t i = 0; i < rows; ++i) {
    if (columnStride == 1) {
      mpt::runtime::roundFloats(product + i * cols, bits + i * rowStride, cols,
                                kind);
      continue;
    }
    for (int64_t j = 0; j < cols; ++j) {
      float value = product[i * cols + j];
      bits[i * rowStride + j * columnStride] =
          kind == HalfKind::BF16 ? mpt::runtime::floatToBF16(value)
                                 : mpt::runtime::floatToF16(value);
    }
  }
}

/// Elements of a GEMM operand from which widening it runs over the threads,
/// as mpt-outline-parallel-linalg's default threshold for the generated loops.
constexpr int64_t kParallelWidening = 65536;

/// The leading dimension BLAS needs for a row-major matrix with dense rows
/// `stride` apart, or 0 if rows overlap (a single row may carry any stride).
int64_t leadingDimension(int64_t rows, int64_t cols, int64_t stride) {
  if (rows == 1)
    return std::max<int64_t>(cols, 1);
  return stride >= cols ? stride : 0;
}

/// The row stride BLAS can take for a row-major matrix with these sizes and
/// strides (its columns contiguous, or only one); 0 where BLAS cannot read or
/// write it in place.
int64_t rowStride(const int64_t *sizes, const int64_t *strides) {
  if (strides[1] != 1 && sizes[1] != 1)
    return 0;
  return leadingDimension(sizes[0], sizes[1], strides[0]);
}

/// The rows x cols matrix at `src` (sizes[0] x sizes[1], any strides) widened
/// (or gathered) into a dense row-major f32 matrix in `buffer`.
template <typename T>
const float *widenMatrix(const T *src, const int64_t *sizes,
                         const int64_t *strides, std::vector<float> &buffer) {
  const int64_t rows = sizes[0], cols = sizes[1];
  float *dst = scratchBuffer(buffer, rows * cols);
  // Large operands widen over the threads that sgemm then runs on: on one,
  // the two-thread MLP's f16 and bf16 steps took 1.44x its FP32 step (Zen
  // 3, AVX2), where sgemm split and the widening did not.
  const int threads =
      rows * cols >= kParallelWidening ? mpt::runtime::cpuThreads() : 1;
  // A contiguous matrix widens in slices of the whole: on 64-wide rows, a
  // call per row cost as much as the conversions.
  if (strides[1] == 1 && (strides[0] == cols || rows == 1)) {
    mpt::runtime::parallelFor(threads, threads, [&](int64_t slice) {
      int64_t begin = rows * cols * slice / threads,
              end = rows * cols * (slice + 1) / threads;
      widenRow(src + begin, 1, end - begin, dst + begin);
    });
    return dst;
  }
  mpt::runtime::parallelFor(threads, threads, [&](int64_t slice) {
    for (int64_t i = rows * slice / threads, end = rows * (slice + 1) / threads;
         i < end; ++i)
      widenRow(src + i * strides[0], strides[1], cols, dst + i * cols);
  });
  return dst;
}

/// Depth of the blocks of f16 or bf16 operands widened for one sgemm. Widened
/// whole, an operand's f32 copy was twice the size of the activation the
/// backward reads (2 MB for a 2048x256 f16 tensor).
constexpr int64_t kWidenedDepth = 256;

/// Rows of the product of f16 or bf16 operands that one thread computes at a
/// time, from the shape alone: between 16 and 256 rows, such that a block of
/// the product and of A's widened depth block each hold at most 16384 floats
/// (64 KB, in L2 until gemmRounded rounds the product). gemm and gemmRounded
/// split a product into the same blocks, each the same sgemm calls, so a
/// product has the same value whether its rounding is computed by the GEMM's
/// kernel or by its readers (mpt-recompute moves products, and with them that
/// choice).
int64_t productRowBlock(int64_t m, int64_t n, int64_t k) {
  const int64_t widest = std::max({n, std::min(k, kWidenedDepth), int64_t(1)});
  return std::min(m, std::clamp<int64_t>(16384 / widest, 16, 256));
}

/// The runtime's bf16 product for this CPU (AMX, VDPBF16PS), or null where
/// sgemm multiplies bf16 operands widened, as it does f16 ones.
mpt::runtime::GemmBF16 nativeGemmBF16() {
  static const mpt::runtime::GemmBF16 native =
      mpt::runtime::preferredGemmBF16();
  return native;
}

/// Whether gemm widens operands of type T for sgemm into a dense C (the bf16
/// kernel writes only dense rows).
template <typename T> bool readsWidened() {
  if constexpr (std::is_same_v<T, float>)
    return false;
  else if constexpr (std::is_same_v<T, BF16>)
    return !nativeGemmBF16();
  else
    return true;
}

/// Elements of op(B) up to which it is widened once for all the row blocks of
/// its product (a weight, which every block reads: 256 KB of f32). A larger B
/// (an activation, in a weight gradient, whose product has few rows) is
/// widened a depth block at a time within each row block.
constexpr int64_t kSharedWidenedElements = 65536;

/// An f16 or bf16 B widened once for all the row blocks of its product, where
/// it is small (data then non-null); its scratch counts while this lives.
/// sgemm reads the same values from it as from a block widened on its own.
class SharedWidenedB {
public:
  template <typename T>
  SharedWidenedB(const T *b, const int64_t *bSizes, const int64_t *bStrides)
      : shared(bSizes[0] * bSizes[1] <= kSharedWidenedElements),
        inUse(shared ? bSizes[0] * bSizes[1] * int64_t(sizeof(float)) : 0),
        data(shared ? widenMatrix(b, bSizes, bStrides, scratch(5)) : nullptr),
        ld(shared ? bSizes[1] : 0) {}

private:
  bool shared;
  ScratchInUse inUse;

public:
  const float *data;
  const int64_t ld;
};

/// Runs body(block) for each of `blocks` blocks of a product's rows: on the
/// caller for one, where the BLAS splits it over the threads; else over the
/// threads, each block single-threaded in the BLAS (OpenBLAS's OpenMP build
/// runs a call from a parallel region on its caller). Splitting each block
/// instead started and joined a team per block: a quarter of an f16
/// transformer step. The blocks' scratch is counted in the caller's step.
template <typename Body> void forEachRowBlock(int64_t blocks, Body body) {
  if (blocks == 1)
    return body(0);
  mpt::runtime::StepMemory *memory = mpt::runtime::countingStepMemory;
  mpt::runtime::parallelFor(
      blocks, mpt::runtime::cpuThreads(), [&](int64_t block) {
        mpt::runtime::StepMemory *outer = mpt::runtime::countingStepMemory;
        mpt::runtime::countingStepMemory = memory;
        body(block);
        mpt::runtime::countingStepMemory = outer;
      });
}

/// C (+)= op(A) op(B) (dense rows `ldc` apart) for f16 or bf16 operands,
/// which sgemm reads widened: blocks of op(A)'s rows, and of the inner
/// dimension within each, each block one sgemm that adds into C.
template <typename T>
void gemmWidenedInBlocks(const T *a, const int64_t *aStrides, const T *b,
                         const int64_t *bStrides, const SharedWidenedB &sharedB,
                         float *c, int64_t ldc, int64_t m, int64_t n, int64_t k,
                         int64_t transposeA, int64_t transposeB,
                         bool accumulate) {
  const int64_t depthBlock = std::min(k, kWidenedDepth),
                rowBlock = productRowBlock(m, n, k);
  // Stored, A is m x k (k x m when transposed) and B k x n (n x k).
  const int64_t aRowStride = transposeA ? aStrides[1] : aStrides[0],
                aDepthStride = transposeA ? aStrides[0] : aStrides[1],
                bDepthStride = transposeB ? bStrides[1] : bStrides[0];
  forEachRowBlock((m + rowBlock - 1) / rowBlock, [&](int64_t block) {
    const int64_t i = block * rowBlock, rows = std::min(rowBlock, m - i);
    ScratchInUse inUse(
        ((sharedB.data ? 0 : depthBlock * n) + rows * depthBlock) *
        int64_t(sizeof(float)));
    for (int64_t l = 0; l < k; l += depthBlock) {
      const int64_t depth = std::min(depthBlock, k - l);
      const int64_t bSizes[2] = {transposeB ? n : depth,
                                 transposeB ? depth : n};
      const int64_t aSizes[2] = {transposeA ? depth : rows,
                                 transposeA ? rows : depth};
      const float *bWide =
          sharedB.data
              ? sharedB.data + (transposeB ? l : l * sharedB.ld)
              : widenMatrix(b + l * bDepthStride, bSizes, bStrides, scratch(1));
      const int64_t ldb = sharedB.data ? sharedB.ld : bSizes[1];
      const float *aWide = widenMatrix(a + i * aRowStride + l * aDepthStride,
                                       aSizes, aStrides, scratch(0));
      cblas_sgemm(CblasRowMajor, transposeA ? CblasTrans : CblasNoTrans,
                  transposeB ? CblasTrans : CblasNoTrans, rows, n, depth, 1.0f,
                  aWide, aSizes[1], bWide, ldb,
                  accumulate || l > 0 ? 1.0f : 0.0f, c + i * ldc, ldc);
    }
  });
}

/// One 2-d product C += op(A) op(B) (with `accumulate`; C = op(A) op(B)
/// without, and C is not read) with row-major strided operands.
template <typename T>
void gemm(const T *a, const int64_t *aSizes, const int64_t *aStrides,
          const T *b, const int64_t *bSizes, const int64_t *bStrides, float *c,
          const int64_t *cSizes, const int64_t *cStrides, int64_t transposeA,
          int64_t transposeB, int64_t accumulate) {
  int64_t m = cSizes[0], n = cSizes[1];
  int64_t k = transposeA ? aSizes[0] : aSizes[1];
  if (m == 0 || n == 0)
    return;
  if (k == 0) {
    // An empty sum: C keeps its values, or is zero; A and B may have no
    // storage at all.
    if (!accumulate)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j)
          c[i * cStrides[0] + j * cStrides[1]] = 0.0f;
    return;
  }
  const int64_t ldc = rowStride(cSizes, cStrides);
  if constexpr (std::is_same_v<T, BF16>) {
    const mpt::runtime::GemmBF16 native = nativeGemmBF16();
    if (native && ldc) {
      // op(A)(i, l) and op(B)(l, j) as strides over the stored matrices.
      native(reinterpret_cast<const uint16_t *>(a),
             transposeA ? aStrides[1] : aStrides[0],
             transposeA ? aStrides[0] : aStrides[1],
             reinterpret_cast<const uint16_t *>(b),
             transposeB ? bStrides[1] : bStrides[0],
             transposeB ? bStrides[0] : bStrides[1], c, ldc, m, n, k,
             accumulate);
      return;
    }
  }
  // BLAS wants dense rows with unit column strides: a strided C is
  // computed densely, then added or copied in.
  const int64_t ldTarget = ldc ? ldc : n;
  ScratchInUse denseInUse(ldc ? 0 : m * n * int64_t(sizeof(float)));
  float *target = ldc ? c : scratchBuffer(scratch(2), m * n);
  const bool addToTarget = accumulate && ldc;
  if constexpr (std::is_same_v<T, float>) {
    int64_t lda = rowStride(aSizes, aStrides);
    int64_t ldb = rowStride(bSizes, bStrides);
    ScratchInUse widenedInUse(((lda ? 0 : aSizes[0] * aSizes[1]) +
                               (ldb ? 0 : bSizes[0] * bSizes[1])) *
                              int64_t(sizeof(float)));
    const float *aData = lda ? a : widenMatrix(a, aSizes, aStrides, scratch(0));
    const float *bData = ldb ? b : widenMatrix(b, bSizes, bStrides, scratch(1));
    lda = lda ? lda : aSizes[1];
    ldb = ldb ? ldb : bSizes[1];
    cblas_sgemm(CblasRowMajor, transposeA ? CblasTrans : CblasNoTrans,
                transposeB ? CblasTrans : CblasNoTrans, m, n, k, 1.0f, aData,
                lda ? lda : 1, bData, ldb ? ldb : 1, addToTarget ? 1.0f : 0.0f,
                target, ldTarget);
  } else {
    SharedWidenedB sharedB(b, bSizes, bStrides);
    gemmWidenedInBlocks(a, aStrides, b, bStrides, sharedB, target, ldTarget, m,
                        n, k, transposeA, transposeB, addToTarget);
  }
  if (!ldc)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float &element = c[i * cStrides[0] + j * cStrides[1]];
        element = accumulate ? element + target[i * n + j] : target[i * n + j];
      }
}

template <typename T>
void matmul2d(MemRef<T, 2> *a, MemRef<T, 2> *b, MemRef<float, 2> *c,
              int64_t transposeA, int64_t transposeB, int64_t accumulate) {
  gemm(a->aligned + a->offset, a->sizes, a->strides, b->aligned + b->offset,
       b->sizes, b->strides, c->aligned + c->offset, c->sizes, c->strides,
       transposeA, transposeB, accumulate);
}

template <typename T>
void matmul3d(MemRef<T, 3> *a, MemRef<T, 3> *b, MemRef<float, 3> *c,
              int64_t transposeA, int64_t transposeB, int64_t accumulate) {
  for (int64_t batch = 0; batch < c->sizes[0]; ++batch)
    gemm(a->aligned + a->offset + batch * a->strides[0], a->sizes + 1,
         a->strides + 1, b->aligned + b->offset + batch * b->strides[0],
         b->sizes + 1, b->strides + 1,
         c->aligned + c->offset + batch * c->strides[0], c->sizes + 1,
         c->strides + 1, transposeA, transposeB, accumulate);
}

/// C = op(A) op(B) rounded to C's f16 or bf16: the f32 product goes to a
/// dense scratch matrix and is rounded from there while still in cache,
/// instead of through memory and a separate loop of the compiled code.
template <typename T, typename O>
void gemmRounded(const T *a, const int64_t *aSizes, const int64_t *aStrides,
                 const T *b, const int64_t *bSizes, const int64_t *bStrides,
                 O *c, const int64_t *cSizes, const int64_t *cStrides,
                 int64_t transposeA, int64_t transposeB) {
  const int64_t m = cSizes[0], n = cSizes[1];
  const int64_t k = transposeA ? aSizes[0] : aSizes[1];
  // Blocks of rows (gemm's, for widened operands), each rounded by its thread
  // while it is in cache; the f32 product held is a block's per thread. f32
  // operands (sgemm reads them in place) make one block: the same sgemm call
  // as gemm's.
  const bool widened = readsWidened<T>() && k > 0;
  const int64_t rowBlock =
      std::is_same_v<T, float> ? m : productRowBlock(m, n, k);
  const int64_t aRowStride = transposeA ? aStrides[1] : aStrides[0];
  const int64_t blocks = (m + rowBlock - 1) / rowBlock;
  std::optional<SharedWidenedB> sharedB;
  if (widened)
    sharedB.emplace(b, bSizes, bStrides);
  forEachRowBlock(blocks, [&](int64_t block) {
    const int64_t i = block * rowBlock, rows = std::min(rowBlock, m - i);
    ScratchInUse inUse(rows * n * int64_t(sizeof(float)));
    float *product = scratchBuffer(scratch(4), rows * n);
    if (widened) {
      gemmWidenedInBlocks(a + i * aRowStride, aStrides, b, bStrides, *sharedB,
                          product, n, rows, n, k, transposeA, transposeB,
                          /*accumulate=*/false);
    } else {
      const int64_t blockSizes[2] = {rows, n}, denseStrides[2] = {n, 1};
      const int64_t aBlockSizes[2] = {transposeA ? aSizes[0] : rows,
                                      transposeA ? rows : aSizes[1]};
      gemm(a + i * aRowStride, aBlockSizes, aStrides, b, bSizes, bStrides,
           product, blockSizes, denseStrides, transposeA, transposeB,
           /*accumulate=*/0);
    }
    O *out = c + i * cStrides[0];
    // One block: over the threads when large, as the loop it replaces ran.
    const int threads = blocks == 1 && rows * n >= kParallelWidening
                            ? mpt::runtime::cpuThreads()
                            : 1;
    mpt::runtime::parallelFor(threads, threads, [&](int64_t slice) {
      int64_t begin = rows * slice / threads,
              end = rows * (slice + 1) / threads;
      roundInto(product + begin * n, end - begin, n, out + begin * cStrides[0],
                cStrides[0], cStrides[1]);
    });
  });
}

template <typename T, typename O>
void matmul2dRounded(MemRef<T, 2> *a, MemRef<T, 2> *b, MemRef<O, 2> *c,
                     int64_t transposeA, int64_t transposeB) {
  gemmRounded(a->aligned + a->offset, a->sizes, a->strides,
              b->aligned + b->offset, b->sizes, b->strides,
              c->aligned + c->offset, c->sizes, c->strides, transposeA,
              transposeB);
}

template <typename T, typename O>
void matmul3dRounded(MemRef<T, 3> *a, MemRef<T, 3> *b, MemRef<O, 3> *c,
                     int64_t transposeA, int64_t transposeB) {
  for (int64_t batch = 0; batch < c->sizes[0]; ++batch)
    gemmRounded(a->aligned + a->offset + batch * a->strides[0], a->sizes + 1,
                a->strides + 1, b->aligned + b->offset + batch * b->strides[0],
                b->sizes + 1, b->strides + 1,
                c->aligned + c->offset + batch * c->strides[0], c->sizes + 1,
                c->strides + 1, transposeA, transposeB);
}

/// Whether dimensions [first, rank) of a memref form one dense row-major
/// block, so that their elements sit at consecutive addresses (dimensions of
/// size 1 may carry any stride).
bool isDenseBlock(const int64_t *sizes, const int64_t *strides, int first,
                  int rank) {
  int64_t expected = 1;
  for (int dim = rank - 1; dim >= first; --dim) {
    if (sizes[dim] != 1 && strides[dim] != expected)
      return false;
    expected *= sizes[dim];
  }
  return true;
}

/// Where the windows of one image of a convolution lie, for im2col. The
/// innermost copy runs along the longer of the output and kernel rows: col
/// (depth x OH*OW) when the output is wider, its transpose (OH*OW x depth)
/// when the kernel is, as in a filter gradient written as a convolution over
/// the batch.
struct ConvWindows {
  int64_t channels, kernelH, kernelW, outH, outW;
  int64_t channelStride, stepH, stepW, tapH, tapW;
  bool transposed;

  ConvWindows(const int64_t *inputStrides, const int64_t *filterSizes,
              const int64_t *outputSizes, int64_t strideH, int64_t strideW,
              int64_t dilationH, int64_t dilationW)
      : channels(filterSizes[1]), kernelH(filterSizes[2]),
        kernelW(filterSizes[3]), outH(outputSizes[2]), outW(outputSizes[3]),
        channelStride(inputStrides[1]), stepH(strideH * inputStrides[2]),
        stepW(strideW * inputStrides[3]), tapH(dilationH * inputStrides[2]),
        tapW(dilationW * inputStrides[3]), transposed(kernelW > outW) {}

  /// Unrolls the windows of `image` into `dst`, each run of a row moved by
  /// copyRun(source, stride, count, destination). The depth rows of col are
  /// `rowPitch` apart, so that images can sit side by side; the transposed
  /// layout's rows are depth long and dense, so images stack one after another.
  template <typename Source, typename Target, typename CopyRun>
  void unroll(const Source *image, Target *dst, int64_t rowPitch,
              CopyRun copyRun) const {
    // A local copy: stores through dst could alias the members, which the
    // compiler would otherwise reload for every run.
    const ConvWindows w = *this;
    if (w.transposed) {
      for (int64_t oh = 0; oh < w.outH; ++oh)
        for (int64_t ow = 0; ow < w.outW; ++ow)
          for (int64_t c = 0; c < w.channels; ++c) {
            const Source *row =
                image + oh * w.stepH + ow * w.stepW + c * w.channelStride;
            for (int64_t kh = 0; kh < w.kernelH;
                 ++kh, row += w.tapH, dst += w.kernelW)
              copyRun(row, w.tapW, w.kernelW, dst);
          }
      return;
    }
    for (int64_t c = 0; c < w.channels; ++c)
      for (int64_t kh = 0; kh < w.kernelH; ++kh)
        for (int64_t kw = 0; kw < w.kernelW; ++kw, dst += rowPitch) {
          const Source *row =
              image + c * w.channelStride + kh * w.tapH + kw * w.tapW;
          Target *run = dst;
          for (int64_t oh = 0; oh < w.outH; ++oh, row += w.stepH, run += w.outW)
            copyRun(row, w.stepW, w.outW, run);
        }
  }

  /// Unrolls `count` images, image i read from imageAt(i), into one col
  /// matrix whose columns are theirs side by side (depth x count*OH*OW), or
  /// its transpose, for one product over all of them.
  template <typename Target, typename ImageAt, typename CopyRun>
  void unrollImages(int64_t count, ImageAt imageAt, Target *col,
                    CopyRun copyRun) const {
    const int64_t positions = outH * outW;
    const int64_t depth = channels * kernelH * kernelW;
    for (int64_t i = 0; i < count; ++i)
      unroll(imageAt(i), col + i * (transposed ? positions * depth : positions),
             count * positions, copyRun);
  }
};

/// Output columns below which a convolution's product takes several images:
/// one product per image of ResNet's 2x2 and 1x1 stages packed the whole
/// filter again for 4 or 1 columns, and took most of its step.
constexpr int64_t kMinConvolutionColumns = 256;

/// Runs body(first, count) over groups of consecutive images, each one
/// product, over the threads. The groups depend only on the shapes, so each
/// product, and so the results, are the same for any thread count where there
/// are several groups; a single group runs on the caller, where the BLAS may
/// split its product over the threads, as it does the step's matmuls. Each
/// group's body holds `bytesPerColumn` of scratch per output column and
/// `bytesPerGroup` more, counted for the groups that run at once.
template <typename Body>
void forEachImageGroup(int64_t batch, int64_t positions, int64_t bytesPerColumn,
                       int64_t bytesPerGroup, Body body) {
  const int64_t group = std::clamp<int64_t>(
      (kMinConvolutionColumns + positions - 1) / positions, 1, batch);
  const int64_t groups = (batch + group - 1) / group;
  ScratchInUse inUse(std::min<int64_t>(groups, mpt::runtime::cpuThreads()) *
                     (group * positions * bytesPerColumn + bytesPerGroup));
  mpt::runtime::parallelFor(
      groups, mpt::runtime::cpuThreads(), [&](int64_t index) {
        body(index * group, std::min(group, batch - index * group));
      });
}

/// Image `n` of `input` (C x H x W, any strides) widened into a dense f32
/// block in `dst`.
template <typename T>
void widenImage(const MemRef<T, 4> *input, int64_t n, float *dst) {
  const T *image = input->aligned + input->offset + n * input->strides[0];
  const int64_t *sizes = input->sizes, *strides = input->strides;
  if (isDenseBlock(sizes, strides, 1, 4)) {
    widenRow(image, 1, sizes[1] * sizes[2] * sizes[3], dst);
    return;
  }
  for (int64_t c = 0; c < sizes[1]; ++c)
    for (int64_t h = 0; h < sizes[2]; ++h, dst += sizes[3])
      widenRow(image + c * strides[1] + h * strides[2], strides[3], sizes[3],
               dst);
}

/// The filter (F x C x KH x KW) as a dense F x (C*KH*KW) matrix in `dst`,
/// each row of the kernel moved by copyRun(source, stride, count,
/// destination).
template <typename Source, typename Target, typename CopyRun>
void gatherFilter(const MemRef<Source, 4> *filter, Target *dst,
                  CopyRun copyRun) {
  const Source *data = filter->aligned + filter->offset;
  const int64_t *sizes = filter->sizes, *fs = filter->strides;
  for (int64_t f = 0; f < sizes[0]; ++f)
    for (int64_t c = 0; c < sizes[1]; ++c)
      for (int64_t kh = 0; kh < sizes[2]; ++kh, dst += sizes[3])
        copyRun(data + f * fs[0] + c * fs[1] + kh * fs[2], fs[3], sizes[3],
                dst);
}

/// Copies `count` bf16 values `stride` apart to consecutive ones, contiguous
/// rows in 16-byte moves (copyRowInMoves).
void copyRow(const BF16 *src, int64_t stride, int64_t count, uint16_t *dst) {
  if (stride != 1 || count * sizeof(uint16_t) < 16) {
    for (int64_t i = 0; i < count; ++i)
      dst[i] = src[i * stride].bits;
    return;
  }
  copyRowInMoves<16>(src, count * sizeof(uint16_t), dst);
}

/// Adds (with `accumulate`) or copies an F x OH*OW product, its rows
/// `productStride` apart, into the image of `output` at `out`, which the
/// product could not write in place; an f16 or bf16 output gets the product
/// rounded (and is never added to).
template <typename O>
void storeImage(const float *product, int64_t productStride,
                const MemRef<O, 4> *output, O *out, int64_t accumulate) {
  const int64_t *sizes = output->sizes, *os = output->strides;
  const int64_t positions = sizes[2] * sizes[3];
  if constexpr (!std::is_same_v<O, float>) {
    if (productStride == positions && os[3] == 1 &&
        (os[2] == sizes[3] || sizes[2] == 1)) {
      roundInto(product, sizes[1], positions, out, os[1], 1);
      return;
    }
    for (int64_t f = 0; f < sizes[1]; ++f)
      roundInto(product + f * productStride, sizes[2], sizes[3],
                out + f * os[1], os[2], os[3]);
  } else {
    // Runs of contiguous output: a whole image row, or all of its positions.
    const bool denseImage = os[3] == 1 && (os[2] == sizes[3] || sizes[2] == 1);
    const int64_t rows = denseImage ? 1 : sizes[2],
                  run = denseImage ? positions : sizes[3];
    for (int64_t f = 0; f < sizes[1]; ++f)
      for (int64_t oh = 0; oh < rows; ++oh) {
        float *element = out + f * os[1] + oh * os[2];
        const float *value = product + f * productStride + oh * sizes[3];
        if (os[3] != 1) {
          for (int64_t ow = 0; ow < run; ++ow)
            element[ow * os[3]] =
                accumulate ? element[ow * os[3]] + value[ow] : value[ow];
        } else if (accumulate) {
          for (int64_t ow = 0; ow < run; ++ow)
            element[ow] += value[ow];
        } else {
          std::copy(value, value + run, element);
        }
      }
  }
}

/// Stores the `count` images side by side in an F x count*OH*OW product into
/// `output` from image `first` on (storeImage).
template <typename O>
void storeImages(const float *product, int64_t first, int64_t count,
                 const MemRef<O, 4> *output, int64_t accumulate) {
  const int64_t positions = output->sizes[2] * output->sizes[3];
  O *out = output->aligned + output->offset + first * output->strides[0];
  for (int64_t i = 0; i < count; ++i)
    storeImage(product + i * positions, count * positions, output,
               out + i * output->strides[0], accumulate);
}

/// The row stride with which a product can write the images of `output`
/// (F x OH*OW each) in place: f32 outputs whose (oh, ow) are contiguous; 0
/// for the others, which go through a dense product (rounded on the way for
/// f16 and bf16 outputs).
template <typename O>
int64_t outputRowStride(const MemRef<O, 4> *output, int64_t numFilters,
                        int64_t positions) {
  if (!std::is_same_v<O, float> ||
      !isDenseBlock(output->sizes, output->strides, 2, 4))
    return 0;
  return leadingDimension(numFilters, positions, output->strides[1]);
}

/// conv2d (below) where the CPU has a bf16 product for convolutions
/// (preferredConvolutionGemmBF16): the filter and the im2col matrix stay bf16,
/// copies of the bits at half the bytes of widened ones.
/// The groups of images are independent products, each too small to split
/// (8-16 filters in the CNN example), so they run over the threads sgemm would
/// use (forEachImageGroup).
template <typename O>
void conv2dNativeBF16(mpt::runtime::GemmBF16 product, MemRef<BF16, 4> *input,
                      MemRef<BF16, 4> *filter, MemRef<O, 4> *output,
                      int64_t strideH, int64_t strideW, int64_t dilationH,
                      int64_t dilationW, int64_t accumulate) {
  const int64_t batch = output->sizes[0], numFilters = output->sizes[1],
                outH = output->sizes[2], outW = output->sizes[3];
  const int64_t channels = filter->sizes[1], kernelH = filter->sizes[2],
                kernelW = filter->sizes[3];
  const int64_t positions = outH * outW, depth = channels * kernelH * kernelW;

  const BF16 *filterData = filter->aligned + filter->offset;
  const int64_t *fs = filter->strides;
  const uint16_t *weights = nullptr;
  int64_t ldWeights = 0;
  if (isDenseBlock(filter->sizes, fs, 1, 4)) {
    weights = reinterpret_cast<const uint16_t *>(filterData);
    ldWeights = fs[0];
  }
  ScratchInUse filterInUse(weights ? 0 : numFilters * depth * 2);
  if (!weights) {
    thread_local std::vector<uint16_t> denseBuffer;
    uint16_t *dense = scratchBuffer(denseBuffer, numFilters * depth);
    gatherFilter(filter, dense, copyRow);
    weights = dense;
    ldWeights = depth;
  }

  const int64_t ldOut = outputRowStride(output, numFilters, positions);
  const ConvWindows windows(input->strides, filter->sizes, output->sizes,
                            strideH, strideW, dilationH, dilationW);
  const bool transposedCol = windows.transposed;
  // Per column, a bf16 column of the unrolled windows and an f32 sum.
  forEachImageGroup(
      batch, positions, depth * 2 + numFilters * 4, 0,
      [&](int64_t first, int64_t count) {
        const int64_t columns = count * positions;
        thread_local std::vector<uint16_t> colBuffer;
        uint16_t *col = scratchBuffer(colBuffer, depth * columns);
        windows.unrollImages(
            count,
            [&](int64_t i) {
              return input->aligned + input->offset +
                     (first + i) * input->strides[0];
            },
            col, copyRow);
        // Element (l, j) of the col matrix, as the product's strides.
        const int64_t colRow = transposedCol ? 1 : columns,
                      colColumn = transposedCol ? depth : 1;
        if constexpr (std::is_same_v<O, float>) {
          if (ldOut && count == 1) {
            product(weights, ldWeights, 1, col, colRow, colColumn,
                    output->aligned + output->offset +
                        first * output->strides[0],
                    ldOut, numFilters, columns, depth, accumulate);
            return;
          }
        }
        thread_local std::vector<float> sumBuffer;
        float *sum = scratchBuffer(sumBuffer, numFilters * columns);
        product(weights, ldWeights, 1, col, colRow, colColumn, sum, columns,
                numFilters, columns, depth, /*accumulate=*/false);
        storeImages(sum, first, count, output, accumulate);
      });
}

/// The filter as a row-major F x depth f32 matrix (leading dimension `ld`):
/// in place for f32 with contiguous (c, kh, kw), else widened over the threads
/// when large (a filter gradient's is the output gradient, 600K elements).
template <typename T>
const float *filterMatrix(MemRef<T, 4> *filter, int64_t numFilters,
                          int64_t depth, int64_t &ld) {
  const T *filterData = filter->aligned + filter->offset;
  ld = isDenseBlock(filter->sizes, filter->strides, 1, 4)
           ? leadingDimension(numFilters, depth, filter->strides[0])
           : 0;
  if (!ld) {
    float *dense = scratchBuffer(scratch(0), numFilters * depth);
    gatherFilter(filter, dense, widenRow<T>);
    ld = depth;
    return dense;
  }
  if constexpr (std::is_same_v<T, float>)
    return filterData;
  const int64_t sizes[2] = {numFilters, depth}, strides[2] = {ld, 1};
  ld = depth;
  return widenMatrix(filterData, sizes, strides, scratch(0));
}

/// output[n, f, oh, ow] += sum_{c, kh, kw}
///     input[n, c, oh*sh + kh*dh, ow*sw + kw*dw] * filter[f, c, kh, kw]
/// (= without `accumulate`) as one sgemm per image: out_n (F x OH*OW) += W
/// (F x C*KH*KW) * col_n, with col_n the input windows unrolled (im2col),
/// widened to f32 on the way.
template <typename T, typename O>
void conv2d(MemRef<T, 4> *input, MemRef<T, 4> *filter, MemRef<O, 4> *output,
            int64_t strideH, int64_t strideW, int64_t dilationH,
            int64_t dilationW, int64_t accumulate) {
  const int64_t batch = output->sizes[0], numFilters = output->sizes[1],
                outH = output->sizes[2], outW = output->sizes[3];
  const int64_t channels = filter->sizes[1], kernelH = filter->sizes[2],
                kernelW = filter->sizes[3];
  const int64_t positions = outH * outW, depth = channels * kernelH * kernelW;
  if (batch == 0 || numFilters == 0 || positions == 0)
    return;
  if (depth == 0) {
    // An empty sum: the output keeps its values, or is zero.
    if (!accumulate) {
      const std::vector<float> zeros(numFilters * positions);
      for (int64_t n = 0; n < batch; ++n)
        storeImage(zeros.data(), positions, output,
                   output->aligned + output->offset + n * output->strides[0],
                   /*accumulate=*/false);
    }
    return;
  }
  if constexpr (std::is_same_v<T, BF16>) {
    static const mpt::runtime::ConvolutionGemmBF16 native =
        mpt::runtime::preferredConvolutionGemmBF16();
    if (native.product && depth >= native.minDepth)
      return conv2dNativeBF16(native.product, input, filter, output, strideH,
                              strideW, dilationH, dilationW, accumulate);
  }

  int64_t ldWeights = 0;
  const float *weights = filterMatrix(filter, numFilters, depth, ldWeights);
  // Unless read in place, the filter was widened or gathered into scratch.
  ScratchInUse filterInUse(static_cast<const void *>(weights) ==
                                   filter->aligned + filter->offset
                               ? 0
                               : numFilters * depth * int64_t(sizeof(float)));

  // An output image as F x OH*OW, written in place when it can be;
  // otherwise through a product added in, or rounded, afterwards.
  const int64_t ldOut = outputRowStride(output, numFilters, positions);

  // f16 and bf16 images are widened once, then unrolled from f32 like f32
  // ones: im2col reads each element up to KH*KW times, and widening it at
  // every read cost more than the copies themselves.
  const int64_t imageSize = input->sizes[1] * input->sizes[2] * input->sizes[3];
  const int64_t wideStrides[4] = {imageSize, input->sizes[2] * input->sizes[3],
                                  input->sizes[3], 1};
  const ConvWindows windows(
      std::is_same_v<T, float> ? input->strides : wideStrides, filter->sizes,
      output->sizes, strideH, strideW, dilationH, dilationW);
  const bool transposedCol = windows.transposed;
  // Each group of images on one thread, with its own scratch (the weights
  // stay in the calling thread's): OpenBLAS's OpenMP build runs an sgemm
  // called inside a parallel region on its caller, and these products (8-16
  // filters in the CNN example) are too small to split well.
  // Per column, an f32 column of the unrolled windows and of the product;
  // an f16 or bf16 image widened before it is unrolled.
  forEachImageGroup(
      batch, positions, (depth + numFilters) * int64_t(sizeof(float)),
      std::is_same_v<T, float> ? 0 : imageSize * int64_t(sizeof(float)),
      [&](int64_t first, int64_t count) {
        const int64_t columns = count * positions;
        float *col = scratchBuffer(scratch(2), depth * columns);
        windows.unrollImages(
            count,
            [&](int64_t i) -> const float * {
              if constexpr (std::is_same_v<T, float>) {
                return input->aligned + input->offset +
                       (first + i) * input->strides[0];
              } else {
                float *image = scratchBuffer(scratch(3), imageSize);
                widenImage(input, first + i, image);
                return image;
              }
            },
            col, widenRow<float>);

        // One image of a dense f32 output is written in place.
        const bool inPlace = ldOut && count == 1;
        float *target = nullptr;
        if constexpr (std::is_same_v<O, float>)
          if (inPlace)
            target =
                output->aligned + output->offset + first * output->strides[0];
        if (!inPlace)
          target = scratchBuffer(scratch(1), numFilters * columns);
        cblas_sgemm(CblasRowMajor, CblasNoTrans,
                    transposedCol ? CblasTrans : CblasNoTrans, numFilters,
                    columns, depth, 1.0f, weights, ldWeights, col,
                    transposedCol ? depth : columns,
                    inPlace && accumulate ? 1.0f : 0.0f, target,
                    inPlace ? ldOut : columns);
        if (!inPlace)
          storeImages(target, first, count, output, accumulate);
      });
}

} // namespace

// Storage types of the element types the compiled code passes, by the name
// mpt-convert-linalg-to-cpu-kernels puts in the kernel symbol.
#define MPT_FOR_EACH_KERNEL_TYPE(X)                                            \
  X(float, f32)                                                                \
  X(uint16_t, f16)                                                             \
  X(BF16, bf16)

#define MPT_DEFINE_KERNELS(TYPE, NAME)                                         \
  extern "C" void _mlir_ciface_mpt_cpu_matmul_##NAME##_2d(                     \
      MemRef<TYPE, 2> *a, MemRef<TYPE, 2> *b, MemRef<float, 2> *c,             \
      int64_t transposeA, int64_t transposeB, int64_t accumulate) {            \
    matmul2d(a, b, c, transposeA, transposeB, accumulate);                     \
  }                                                                            \
  extern "C" void _mlir_ciface_mpt_cpu_matmul_##NAME##_3d(                     \
      MemRef<TYPE, 3> *a, MemRef<TYPE, 3> *b, MemRef<float, 3> *c,             \
      int64_t transposeA, int64_t transposeB, int64_t accumulate) {            \
    matmul3d(a, b, c, transposeA, transposeB, accumulate);                     \
  }                                                                            \
  extern "C" void _mlir_ciface_mpt_cpu_conv2d_##NAME(                          \
      MemRef<TYPE, 4> *input, MemRef<TYPE, 4> *filter,                         \
      MemRef<float, 4> *output, int64_t sh, int64_t sw, int64_t dh,            \
      int64_t dw, int64_t accumulate) {                                        \
    conv2d(input, filter, output, sh, sw, dh, dw, accumulate);                 \
  }
MPT_FOR_EACH_KERNEL_TYPE(MPT_DEFINE_KERNELS)
#undef MPT_DEFINE_KERNELS

// The same products rounded to an f16 or bf16 output, which they overwrite
// (mpt-convert-linalg-to-cpu-kernels calls them for a product whose only reader
// rounds it).
#define MPT_FOR_EACH_ROUNDED_TYPE(X, TYPE, NAME)                               \
  X(TYPE, NAME, uint16_t, f16)                                                 \
  X(TYPE, NAME, BF16, bf16)

#define MPT_DEFINE_ROUNDED_KERNELS(TYPE, NAME, OUT, OUT_NAME)                  \
  extern "C" void _mlir_ciface_mpt_cpu_matmul_##NAME##_2d_to_##OUT_NAME(       \
      MemRef<TYPE, 2> *a, MemRef<TYPE, 2> *b, MemRef<OUT, 2> *c,               \
      int64_t transposeA, int64_t transposeB) {                                \
    matmul2dRounded(a, b, c, transposeA, transposeB);                          \
  }                                                                            \
  extern "C" void _mlir_ciface_mpt_cpu_matmul_##NAME##_3d_to_##OUT_NAME(       \
      MemRef<TYPE, 3> *a, MemRef<TYPE, 3> *b, MemRef<OUT, 3> *c,               \
      int64_t transposeA, int64_t transposeB) {                                \
    matmul3dRounded(a, b, c, transposeA, transposeB);                          \
  }                                                                            \
  extern "C" void _mlir_ciface_mpt_cpu_conv2d_##NAME##_to_##OUT_NAME(          \
      MemRef<TYPE, 4> *input, MemRef<TYPE, 4> *filter, MemRef<OUT, 4> *output, \
      int64_t sh, int64_t sw, int64_t dh, int64_t dw) {                        \
    conv2d(input, filter, output, sh, sw, dh, dw, /*accumulate=*/0);           \
  }
#define MPT_DEFINE_ROUNDED_KERNELS_FROM(TYPE, NAME)                            \
  MPT_FOR_EACH_ROUNDED_TYPE(MPT_DEFINE_ROUNDED_KERNELS, TYPE, NAME)
MPT_FOR_EACH_KERNEL_TYPE(MPT_DEFINE_ROUNDED_KERNELS_FROM)
#undef MPT_DEFINE_ROUNDED_KERNELS_FROM
#undef MPT_DEFINE_ROUNDED_KERNELS

/// LLVM rounds f32 to bf16 through this compiler-rt routine, which GCC 12's
/// libgcc lacks; bf16 travels in an xmm register like _Float16.
extern "C" _Float16 mpt_truncsfbf2(float value) {
  uint16_t bits = mpt::runtime::floatToBF16(value);
  _Float16 result;
  std::memcpy(&result, &bits, sizeof(result));
  return result;
}

/// Runs entry(context, begin, end) over [0, count) in one contiguous slice per
/// thread, on cpuThreads() threads (mpt-outline-parallel-linalg).
extern "C" void mpt_cpu_parallel_for(void (*entry)(void *, int64_t, int64_t),
                                     void *context, int64_t count) {
  int64_t threads = std::min<int64_t>(mpt::runtime::cpuThreads(), count);
  if (threads <= 1) {
    entry(context, 0, count);
    return;
  }
  mpt::runtime::parallelFor(threads, threads, [&](int64_t slice) {
    entry(context, count * slice / threads, count * (slice + 1) / threads);
  });
}

namespace mpt::runtime {
const std::vector<CpuKernel> &cpuKernels() {
#define MPT_KERNEL(NAME)                                                       \
  CpuKernel{"_mlir_ciface_" #NAME,                                             \
            reinterpret_cast<void *>(&_mlir_ciface_##NAME)},
#define MPT_REGISTER_KERNELS(TYPE, NAME)                                       \
  MPT_KERNEL(mpt_cpu_matmul_##NAME##_2d)                                       \
  MPT_KERNEL(mpt_cpu_matmul_##NAME##_3d)                                       \
  MPT_KERNEL(mpt_cpu_conv2d_##NAME)
#define MPT_REGISTER_ROUNDED_KERNELS(TYPE, NAME, OUT, OUT_NAME)                \
  MPT_KERNEL(mpt_cpu_matmul_##NAME##_2d_to_##OUT_NAME)                         \
  MPT_KERNEL(mpt_cpu_matmul_##NAME##_3d_to_##OUT_NAME)                         \
  MPT_KERNEL(mpt_cpu_conv2d_##NAME##_to_##OUT_NAME)
#define MPT_REGISTER_ROUNDED_KERNELS_FROM(TYPE, NAME)                          \
  MPT_FOR_EACH_ROUNDED_TYPE(MPT_REGISTER_ROUNDED_KERNELS, TYPE, NAME)
  static const std::vector<CpuKernel> kernels = {
      MPT_FOR_EACH_KERNEL_TYPE(MPT_REGISTER_KERNELS)
          MPT_FOR_EACH_KERNEL_TYPE(MPT_REGISTER_ROUNDED_KERNELS_FROM) CpuKernel{
              "__truncsfbf2", reinterpret_cast<void *>(&mpt_truncsfbf2)},
      CpuKernel{mpt::contract::kernel::ParallelFor,
                reinterpret_cast<void *>(&mpt_cpu_parallel_for)}};
#undef MPT_REGISTER_ROUNDED_KERNELS_FROM
#undef MPT_REGISTER_ROUNDED_KERNELS
#undef MPT_REGISTER_KERNELS
#undef MPT_KERNEL
  return kernels;
}
} // namespace mpt::runtime
