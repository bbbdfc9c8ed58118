//===- CpuKernelsTest.cpp - Tests for the BLAS-backed kernels ---*- C++ -*-===//
//
// The matmul kernels against a double-precision product of the same inputs:
// the result must be the f32-accumulated product, i.e. within the error bound
// of k f32 additions, |c - exact| <= k * 2^-24 * sum_l |a_il b_lj| (plus what
// C held before, or nothing where the kernel writes C without reading it).
// Shapes are odd and not multiples of any blocking (m = 13,
// n = 37, k = 29), so a transposed operand, a wrong stride or a dropped edge
// row, column or odd k changes results by O(1).
//
//===----------------------------------------------------------------------===//

#include "cpu/CpuKernels.h"
#include "cpu/GemmBF16.h"
#include "mpt/float16.h"

#include <cblas.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace mpt::runtime;

namespace {

template <typename T> struct MemRef2d {
  T *allocated;
  T *aligned;
  int64_t offset;
  int64_t sizes[2];
  int64_t strides[2];
};

// Compiled code calls the kernels by symbol with opaque descriptor pointers,
// and so does this test; UBSan's function-type check would compare against
// the kernels' internal descriptor types, which it cannot see.
#if defined(__clang__)
#define MPT_CALLS_KERNEL_BY_SYMBOL __attribute__((no_sanitize("function")))
#else
#define MPT_CALLS_KERNEL_BY_SYMBOL
#endif

/// Calls the matmul kernel `name` as compiled code does; false if there is
/// no such kernel.
MPT_CALLS_KERNEL_BY_SYMBOL bool runMatmul(const std::string &name, void *a,
                                          void *b, void *c, int64_t transposeA,
                                          int64_t transposeB,
                                          int64_t accumulate) {
  using MatmulFn = void (*)(void *, void *, void *, int64_t, int64_t, int64_t);
  for (const CpuKernel &entry : cpuKernels())
    if (entry.name == "_mlir_ciface_" + name) {
      reinterpret_cast<MatmulFn>(entry.address)(a, b, c, transposeA, transposeB,
                                                accumulate);
      return true;
    }
  return false;
}

/// Calls the convolution kernel `name` as compiled code does, with the same
/// stride and dilation in both dimensions; false if there is no such kernel.
MPT_CALLS_KERNEL_BY_SYMBOL bool runConv2d(const std::string &name, void *input,
                                          void *filter, void *output,
                                          int64_t stride, int64_t dilation,
                                          int64_t accumulate) {
  using ConvFn = void (*)(void *, void *, void *, int64_t, int64_t, int64_t,
                          int64_t, int64_t);
  for (const CpuKernel &entry : cpuKernels())
    if (entry.name == "_mlir_ciface_" + name) {
      reinterpret_cast<ConvFn>(entry.address)(input, filter, output, stride,
                                              stride, dilation, dilation,
                                              accumulate);
      return true;
    }
  return false;
}

/// Calls the kernel `name` that writes its product rounded: (a, b, c,
/// transposeA, transposeB) for matmuls; false if there is no such kernel.
MPT_CALLS_KERNEL_BY_SYMBOL bool runRoundedMatmul(const std::string &name,
                                                 void *a, void *b, void *c,
                                                 int64_t transposeA,
                                                 int64_t transposeB) {
  using MatmulFn = void (*)(void *, void *, void *, int64_t, int64_t);
  for (const CpuKernel &entry : cpuKernels())
    if (entry.name == "_mlir_ciface_" + name) {
      reinterpret_cast<MatmulFn>(entry.address)(a, b, c, transposeA,
                                                transposeB);
      return true;
    }
  return false;
}

/// The same for a rounded convolution: (input, filter, output, strides,
/// dilations).
MPT_CALLS_KERNEL_BY_SYMBOL bool runRoundedConv2d(const std::string &name,
                                                 void *input, void *filter,
                                                 void *output, int64_t stride,
                                                 int64_t dilation) {
  using ConvFn =
      void (*)(void *, void *, void *, int64_t, int64_t, int64_t, int64_t);
  for (const CpuKernel &entry : cpuKernels())
    if (entry.name == "_mlir_ciface_" + name) {
      reinterpret_cast<ConvFn>(entry.address)(input, filter, output, stride,
                                              stride, dilation, dilation);
      return true;
    }
  return false;
}

/// `value` rounded to nearest even as f16 or bf16 bits (finite values).
uint16_t roundTo(float value, bool bf16) {
  return bf16 ? floatToBF16(value) : floatToF16(value);
}

/// A row-major rows x cols matrix of the type's bits with values exactly
/// representable in it, and their doubles.
struct Matrix {
  int64_t rows, cols;
  std::vector<uint16_t> bits;
  std::vector<double> values;
};

Matrix randomMatrix(int64_t rows, int64_t cols, bool bf16, std::mt19937 &rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Matrix matrix{rows, cols, {}, {}};
  for (int64_t i = 0; i < rows * cols; ++i) {
    float value = normal(rng);
    uint16_t bits = bf16 ? floatToBF16(value) : floatToF16(value);
    matrix.bits.push_back(bits);
    matrix.values.push_back(bf16 ? bf16ToFloat(bits) : f16ToFloat(bits));
  }
  return matrix;
}

/// A's or B's memref: rows `pitch` elements apart (pitch >= cols), the
/// columns in between never read.
MemRef2d<uint16_t> stridedView(const Matrix &matrix, int64_t pitch,
                               std::vector<uint16_t> &storage) {
  storage.assign(matrix.rows * pitch, 0xFFFF); // NaN in both formats
  for (int64_t i = 0; i < matrix.rows; ++i)
    std::copy_n(matrix.bits.begin() + i * matrix.cols, matrix.cols,
                storage.begin() + i * pitch);
  return {storage.data(),
          storage.data(),
          0,
          {matrix.rows, matrix.cols},
          {pitch, 1}};
}

/// Computes C += op(A) op(B) (C = op(A) op(B) without `accumulate`) for the
/// memrefs of A, B and C.
using Multiply = std::function<void(MemRef2d<uint16_t> &, MemRef2d<uint16_t> &,
                                    MemRef2d<float> &, bool transposeA,
                                    bool transposeB, bool accumulate)>;

/// The kernel `name`, called as compiled code calls it.
Multiply kernel(const std::string &name) {
  return [name](MemRef2d<uint16_t> &a, MemRef2d<uint16_t> &b,
                MemRef2d<float> &c, bool transposeA, bool transposeB,
                bool accumulate) {
    ASSERT_TRUE(runMatmul(name, &a, &b, &c, transposeA, transposeB, accumulate))
        << name;
  };
}

/// How the product reaches C: added to 0.5 everywhere, or written over NaN
/// (which adding, or reading C at all, would keep); C's rows contiguous, or
/// C stored column by column (a strided accumulator).
struct Output {
  bool accumulate, columnMajor;
};

/// Runs op(A) op(B) into C (m x n) as `output` says and checks every element
/// against the exact product. The shapes cover full and partial blocks of
/// rows and columns, odd and even k, and rows that are not contiguous.
void checkMatmul(const std::string &name, const Multiply &multiply, bool bf16,
                 bool transposeA, bool transposeB, int64_t m, int64_t n,
                 int64_t k, int64_t padding, Output output = {true, false}) {
  std::mt19937 rng(std::hash<std::string>()(name) + transposeA * 2 +
                   transposeB + m);
  Matrix a = transposeA ? randomMatrix(k, m, bf16, rng)
                        : randomMatrix(m, k, bf16, rng);
  Matrix b = transposeB ? randomMatrix(n, k, bf16, rng)
                        : randomMatrix(k, n, bf16, rng);
  const double initial = output.accumulate ? 0.5 : 0.0;
  std::vector<float> c(m * n, output.accumulate ? 0.5f : NAN);
  std::vector<uint16_t> aStorage, bStorage;
  MemRef2d<uint16_t> aRef = stridedView(a, a.cols + padding, aStorage);
  MemRef2d<uint16_t> bRef = stridedView(b, b.cols + padding, bStorage);
  const int64_t rowStride = output.columnMajor ? 1 : n,
                columnStride = output.columnMajor ? m : 1;
  MemRef2d<float> cRef{
      c.data(), c.data(), 0, {m, n}, {rowStride, columnStride}};
  multiply(aRef, bRef, cRef, transposeA, transposeB, output.accumulate);

  auto opA = [&](int64_t i, int64_t l) {
    return transposeA ? a.values[l * m + i] : a.values[i * k + l];
  };
  auto opB = [&](int64_t l, int64_t j) {
    return transposeB ? b.values[j * k + l] : b.values[l * n + j];
  };
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double exact = initial, magnitude = initial;
      for (int64_t l = 0; l < k; ++l) {
        exact += opA(i, l) * opB(l, j);
        magnitude += std::fabs(opA(i, l) * opB(l, j));
      }
      double bound = (k + 1) * std::ldexp(1.0, -24) * magnitude;
      EXPECT_NEAR(c[i * rowStride + j * columnStride], exact, bound)
          << name << " transposeA " << transposeA << " transposeB "
          << transposeB << " accumulate " << output.accumulate
          << " column-major C " << output.columnMajor << " at (" << i << ", "
          << j << ")";
    }
}

struct MatmulShape {
  int64_t m, n, k, padding;
};
/// The bf16 kernel's panels of 32 columns end full (64), past 16 (49: 17
/// left), at 16 (16) and below (37, 70, 5, 300). k of 64 and 96 lets AMX read
/// untransposed rows of A in place, from dense and from padded rows. The last
/// shape but two is large enough (m n k >= 2^24) for the bf16 kernel to split
/// its rows over OpenBLAS's threads; the last has k = 0, an empty sum, which
/// leaves C as it was or writes zeros. f16 operands are widened in blocks of
/// 256 of depth and of up to 256 rows (32768 / n, at least 16), on the
/// threads: 277 and 300 end a second depth block early, 600 rows of 7 columns
/// make three row blocks, 203 of 300 two.
constexpr MatmulShape kMatmulShapes[] = {
    {13, 37, 29, 0},  {16, 64, 64, 0}, {24, 70, 33, 5}, {1, 5, 1, 0},
    {49, 49, 16, 0},  {49, 16, 49, 2}, {40, 45, 96, 3}, {203, 300, 277, 3},
    {600, 7, 300, 1}, {3, 5, 0, 0}};

/// Every way the kernels write C.
constexpr Output kOutputs[] = {
    {true, false}, {false, false}, {true, true}, {false, true}};

TEST(CpuKernelsTest, BF16MatmulIsTheF32AccumulatedProduct) {
  // Two threads whatever the environment says, so that the large shape takes
  // the split path.
  int threads = openblas_get_num_threads();
  openblas_set_num_threads(2);
  for (MatmulShape shape : kMatmulShapes)
    for (bool transposeA : {false, true})
      for (bool transposeB : {false, true})
        for (Output output : kOutputs)
          checkMatmul("mpt_cpu_matmul_bf16_2d",
                      kernel("mpt_cpu_matmul_bf16_2d"),
                      /*bf16=*/true, transposeA, transposeB, shape.m, shape.n,
                      shape.k, shape.padding, output);
  openblas_set_num_threads(threads);
}

#if defined(__x86_64__)
/// One of GemmBF16.h's products, on the strides the kernel passes.
Multiply direct(GemmBF16 gemm) {
  return
      [gemm](MemRef2d<uint16_t> &a, MemRef2d<uint16_t> &b, MemRef2d<float> &c,
             bool transposeA, bool transposeB, bool accumulate) {
        gemm(a.aligned, a.strides[transposeA], a.strides[!transposeA],
             b.aligned, b.strides[transposeB], b.strides[!transposeB],
             c.aligned, c.strides[0], c.sizes[0], c.sizes[1],
             transposeA ? a.sizes[0] : a.sizes[1], accumulate);
      };
}

/// Both bf16 products, whichever the kernel prefers on this CPU, adding to C
/// and writing it (their C has contiguous rows); the large shape splits its
/// rows over two threads in either. k = 0 is the kernel's (CpuKernels.cpp),
/// not theirs.
void checkGemmBF16(const std::string &name, GemmBF16 gemm) {
  int threads = openblas_get_num_threads();
  openblas_set_num_threads(2);
  for (MatmulShape shape : kMatmulShapes)
    if (shape.k > 0)
      for (bool transposeA : {false, true})
        for (bool transposeB : {false, true})
          for (bool accumulate : {true, false})
            checkMatmul(name, direct(gemm), /*bf16=*/true, transposeA,
                        transposeB, shape.m, shape.n, shape.k, shape.padding,
                        {accumulate, /*columnMajor=*/false});
  openblas_set_num_threads(threads);
}

TEST(CpuKernelsTest, BF16DotProductIsTheF32AccumulatedProduct) {
  if (!hasDotBF16())
    GTEST_SKIP() << "no AVX512_BF16 on this CPU";
  checkGemmBF16("gemmBF16Dot", gemmBF16Dot);
}

TEST(CpuKernelsTest, BF16AmxProductIsTheF32AccumulatedProduct) {
  if (!hasAmxBF16())
    GTEST_SKIP() << "no AMX-BF16 tiles on this CPU (or Linux refused them)";
  checkGemmBF16("gemmBF16Amx", gemmBF16Amx);
}
#endif

TEST(CpuKernelsTest, F16MatmulIsTheF32AccumulatedProduct) {
  for (MatmulShape shape : kMatmulShapes)
    for (bool transposeA : {false, true})
      for (bool transposeB : {false, true})
        for (Output output : kOutputs)
          checkMatmul("mpt_cpu_matmul_f16_2d", kernel("mpt_cpu_matmul_f16_2d"),
                      /*bf16=*/false, transposeA, transposeB, shape.m, shape.n,
                      shape.k, shape.padding, output);
}

/// Infinities and NaN reach the result, so that the loss scaler sees the
/// overflow.
TEST(CpuKernelsTest, BF16MatmulPropagatesNonFinite) {
  const int64_t m = 3, n = 17, k = 5;
  std::vector<uint16_t> a(m * k, floatToBF16(1.0f)),
      b(k * n, floatToBF16(2.0f));
  a[1 * k + 4] = floatToBF16(INFINITY);
  b[0 * n + 16] = floatToBF16(NAN);
  std::vector<float> c(m * n, 0.0f);
  MemRef2d<uint16_t> aRef{a.data(), a.data(), 0, {m, k}, {k, 1}};
  MemRef2d<uint16_t> bRef{b.data(), b.data(), 0, {k, n}, {n, 1}};
  MemRef2d<float> cRef{c.data(), c.data(), 0, {m, n}, {n, 1}};
  ASSERT_TRUE(
      runMatmul("mpt_cpu_matmul_bf16_2d", &aRef, &bRef, &cRef, 0, 0, 1));
  EXPECT_EQ(c[0 * n + 0], 10.0f);
  EXPECT_TRUE(std::isinf(c[1 * n + 0]) && c[1 * n + 0] > 0);
  EXPECT_TRUE(std::isnan(c[0 * n + 16]));
  EXPECT_TRUE(std::isnan(c[2 * n + 16]));
}

/// The kernels that write their product rounded to f16 or bf16 (for a
/// product whose only reader rounds it) against the f32 kernels of the same
/// inputs, rounded to nearest even here: bit for bit, on every shape and
/// transpose, into C with contiguous rows, padded rows and C stored column by
/// column, for 16-bit inputs and for f32 ones (the widened operands of f16
/// steps). The f32 kernels are checked against the exact product above. The
/// last shape (more than 65536 elements) rounds over the threads.
TEST(CpuKernelsTest, RoundedMatmulIsTheRoundedF32Product) {
  std::mt19937 rng(11);
  std::vector<MatmulShape> shapes(std::begin(kMatmulShapes),
                                  std::end(kMatmulShapes));
  shapes.push_back({301, 257, 7, 1});
  for (const char *input : {"f16", "bf16", "f32"})
    for (bool bf16Out : {false, true})
      for (MatmulShape shape : shapes)
        for (bool transposeA : {false, true})
          for (bool transposeB : {false, true})
            for (int layout = 0; layout < 3; ++layout) {
              const std::string in = input;
              const bool bf16In = in == "bf16";
              const int64_t m = shape.m, n = shape.n, k = shape.k;
              Matrix a = transposeA ? randomMatrix(k, m, bf16In, rng)
                                    : randomMatrix(m, k, bf16In, rng);
              Matrix b = transposeB ? randomMatrix(n, k, bf16In, rng)
                                    : randomMatrix(k, n, bf16In, rng);
              std::vector<uint16_t> aStorage, bStorage;
              MemRef2d<uint16_t> aRef =
                  stridedView(a, a.cols + shape.padding, aStorage);
              MemRef2d<uint16_t> bRef =
                  stridedView(b, b.cols + shape.padding, bStorage);
              // f32 inputs: the same values, with the same strides.
              std::vector<float> aWide(aStorage.size()), bWide(bStorage.size());
              for (size_t i = 0; i < aStorage.size(); ++i)
                aWide[i] =
                    bf16In ? bf16ToFloat(aStorage[i]) : f16ToFloat(aStorage[i]);
              for (size_t i = 0; i < bStorage.size(); ++i)
                bWide[i] =
                    bf16In ? bf16ToFloat(bStorage[i]) : f16ToFloat(bStorage[i]);
              MemRef2d<float> aWideRef{aWide.data(),
                                       aWide.data(),
                                       0,
                                       {aRef.sizes[0], aRef.sizes[1]},
                                       {aRef.strides[0], 1}};
              MemRef2d<float> bWideRef{bWide.data(),
                                       bWide.data(),
                                       0,
                                       {bRef.sizes[0], bRef.sizes[1]},
                                       {bRef.strides[0], 1}};
              void *aArg = in == "f32" ? static_cast<void *>(&aWideRef)
                                       : static_cast<void *>(&aRef);
              void *bArg = in == "f32" ? static_cast<void *>(&bWideRef)
                                       : static_cast<void *>(&bRef);

              std::vector<float> product(m * n, NAN);
              MemRef2d<float> productRef{
                  product.data(), product.data(), 0, {m, n}, {n, 1}};
              ASSERT_TRUE(runMatmul("mpt_cpu_matmul_" + in + "_2d", aArg, bArg,
                                    &productRef, transposeA, transposeB, 0));

              // Contiguous rows, rows 3 apart from the next, column-major.
              const int64_t rowStride = layout == 2 ? 1 : n + (layout ? 3 : 0),
                            columnStride = layout == 2 ? m : 1;
              std::vector<uint16_t> rounded(m * (n + 3), 0x7E00);
              MemRef2d<uint16_t> roundedRef{rounded.data(),
                                            rounded.data(),
                                            0,
                                            {m, n},
                                            {rowStride, columnStride}};
              const std::string name = "mpt_cpu_matmul_" + in + "_2d_to_" +
                                       (bf16Out ? "bf16" : "f16");
              ASSERT_TRUE(runRoundedMatmul(name, aArg, bArg, &roundedRef,
                                           transposeA, transposeB))
                  << name;
              for (int64_t i = 0; i < m; ++i)
                for (int64_t j = 0; j < n; ++j)
                  ASSERT_EQ(rounded[i * rowStride + j * columnStride],
                            roundTo(product[i * n + j], bf16Out))
                      << name << " " << m << "x" << n << "x" << k
                      << " transposeA " << transposeA << " transposeB "
                      << transposeB << " layout " << layout << " at (" << i
                      << ", " << j << ")";
            }
}

/// A batched product rounded, each batch at its own offset.
TEST(CpuKernelsTest, RoundedBatchMatmulRoundsEveryBatch) {
  const int64_t batches = 3, m = 5, n = 7, k = 9;
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> a(batches * m * k), b(batches * k * n),
      product(batches * m * n, NAN);
  for (float &value : a)
    value = normal(rng);
  for (float &value : b)
    value = normal(rng);
  struct MemRef3d {
    void *allocated, *aligned;
    int64_t offset, sizes[3], strides[3];
  };
  MemRef3d aRef{a.data(), a.data(), 0, {batches, m, k}, {m * k, k, 1}};
  MemRef3d bRef{b.data(), b.data(), 0, {batches, k, n}, {k * n, n, 1}};
  MemRef3d productRef{
      product.data(), product.data(), 0, {batches, m, n}, {m * n, n, 1}};
  ASSERT_TRUE(
      runMatmul("mpt_cpu_matmul_f32_3d", &aRef, &bRef, &productRef, 0, 0, 0));
  std::vector<uint16_t> rounded(batches * m * n, 0x7E00);
  MemRef3d roundedRef{
      rounded.data(), rounded.data(), 0, {batches, m, n}, {m * n, n, 1}};
  ASSERT_TRUE(runRoundedMatmul("mpt_cpu_matmul_f32_3d_to_f16", &aRef, &bRef,
                               &roundedRef, 0, 0));
  for (int64_t i = 0; i < batches * m * n; ++i)
    ASSERT_EQ(rounded[i], floatToF16(product[i])) << "element " << i;
}

template <typename T> struct MemRef4d {
  T *allocated;
  T *aligned;
  int64_t offset;
  int64_t sizes[4];
  int64_t strides[4];
};

/// A dense NCHW memref over `storage` whose innermost rows are `pitch` >=
/// sizes[3] apart (the elements in between NaN, never read), filled with
/// random bf16 (or f16) values; `values` gets their doubles in dense order.
MemRef4d<uint16_t> randomTensor(const int64_t (&sizes)[4], int64_t pitch,
                                bool bf16, std::mt19937 &rng,
                                std::vector<uint16_t> &storage,
                                std::vector<double> &values) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int64_t rows = sizes[0] * sizes[1] * sizes[2];
  storage.assign(rows * pitch, 0xFFFF);
  values.clear();
  for (int64_t row = 0; row < rows; ++row)
    for (int64_t x = 0; x < sizes[3]; ++x) {
      float value = normal(rng);
      uint16_t bits = bf16 ? floatToBF16(value) : floatToF16(value);
      storage[row * pitch + x] = bits;
      values.push_back(bf16 ? bf16ToFloat(bits) : f16ToFloat(bits));
    }
  return {storage.data(),
          storage.data(),
          0,
          {sizes[0], sizes[1], sizes[2], sizes[3]},
          {sizes[1] * sizes[2] * pitch, sizes[2] * pitch, pitch, 1}};
}

struct ConvShape {
  int64_t input[4], filter[4], stride, dilation;
  int64_t pitch; // > the row length: the filter and output are not dense
};
/// The CNN example's convolutions at a smaller batch: forward (depth 72),
/// input gradient (depth 144), filter gradient (a kernel wider than the
/// output, depth 500), the first layer's depth of 9 (widened for sgemm on
/// every CPU), a depth of 32 (filters read in place), a filter gradient's
/// filter of more than 65536 elements (widened over the threads); then
/// strides, dilations and non-square kernels, and filters and outputs with
/// rows that are not contiguous; last, no channels (an empty sum).
constexpr ConvShape kConvShapes[] = {
    {{3, 8, 16, 16}, {16, 8, 3, 3}, 1, 1, 0},
    {{2, 8, 7, 9}, {20, 8, 2, 2}, 1, 1, 0},
    {{3, 16, 16, 16}, {8, 16, 3, 3}, 1, 1, 0},
    {{2, 5, 12, 12}, {6, 5, 10, 10}, 1, 1, 0},
    {{3, 1, 30, 30}, {8, 1, 3, 3}, 1, 1, 0},
    {{1, 64, 16, 16}, {8, 64, 14, 14}, 1, 1, 0},
    {{2, 6, 13, 11}, {5, 6, 3, 2}, 2, 2, 0},
    {{4, 7, 9, 10}, {33, 7, 2, 3}, 1, 2, 3},
    {{2, 9, 11, 12}, {4, 9, 3, 3}, 2, 1, 2},
    {{2, 0, 5, 5}, {3, 0, 3, 3}, 1, 1, 1}};

/// The output's height (`dim` 2) or width (3) of a convolution of `shape`.
int64_t outputLength(const ConvShape &shape, int dim) {
  return (shape.input[dim] - shape.dilation * (shape.filter[dim] - 1) - 1) /
             shape.stride +
         1;
}

/// The bf16 and f16 convolution kernels (the bf16 product where the CPU has
/// one, sgemm on widened inputs for f16), adding to an output at 0.5
/// everywhere and writing over NaN, against the exact convolution of the same
/// inputs, element by element, within the error bound of depth f32
/// additions. Two threads, so that the images may run on both.
TEST(CpuKernelsTest, ConvolutionIsTheF32AccumulatedConvolution) {
  int threads = openblas_get_num_threads();
  openblas_set_num_threads(2);
  std::mt19937 rng(7);
  for (bool bf16 : {true, false})
    for (bool accumulate : {true, false})
      for (const ConvShape &shape : kConvShapes) {
        const std::string name =
            bf16 ? "mpt_cpu_conv2d_bf16" : "mpt_cpu_conv2d_f16";
        const int64_t *in = shape.input, *f = shape.filter;
        const int64_t outH = outputLength(shape, 2),
                      outW = outputLength(shape, 3);
        std::vector<uint16_t> inputStorage, filterStorage;
        std::vector<double> input, filter, unused;
        MemRef4d<uint16_t> inputRef =
            randomTensor(shape.input, in[3], bf16, rng, inputStorage, input);
        MemRef4d<uint16_t> filterRef = randomTensor(
            shape.filter, f[3] + shape.pitch, bf16, rng, filterStorage, filter);
        const int64_t outPitch = outW + shape.pitch;
        const double initial = accumulate ? 0.5 : 0.0;
        std::vector<float> output(in[0] * f[0] * outH * outPitch,
                                  accumulate ? 0.5f : NAN);
        MemRef4d<float> outputRef{
            output.data(),
            output.data(),
            0,
            {in[0], f[0], outH, outW},
            {f[0] * outH * outPitch, outH * outPitch, outPitch, 1}};
        ASSERT_TRUE(runConv2d(name, &inputRef, &filterRef, &outputRef,
                              shape.stride, shape.dilation, accumulate));
        for (int64_t n = 0; n < in[0]; ++n)
          for (int64_t k = 0; k < f[0]; ++k)
            for (int64_t y = 0; y < outH; ++y)
              for (int64_t x = 0; x < outW; ++x) {
                double exact = initial, magnitude = initial;
                for (int64_t c = 0; c < in[1]; ++c)
                  for (int64_t i = 0; i < f[2]; ++i)
                    for (int64_t j = 0; j < f[3]; ++j) {
                      double product =
                          input[((n * in[1] + c) * in[2] + y * shape.stride +
                                 i * shape.dilation) *
                                    in[3] +
                                x * shape.stride + j * shape.dilation] *
                          filter[((k * f[1] + c) * f[2] + i) * f[3] + j];
                      exact += product;
                      magnitude += std::fabs(product);
                    }
                double bound = (in[1] * f[2] * f[3] + 1) *
                               std::ldexp(1.0, -24) * magnitude;
                ASSERT_NEAR(output[((n * f[0] + k) * outH + y) * outPitch + x],
                            exact, bound)
                    << name << " accumulate " << accumulate << " input "
                    << in[0] << "x" << in[1] << "x" << in[2] << "x" << in[3]
                    << " filter " << f[0] << "x" << f[1] << "x" << f[2] << "x"
                    << f[3] << " at (" << n << ", " << k << ", " << y << ", "
                    << x << ")";
              }
      }
  openblas_set_num_threads(threads);
}

/// The convolutions that write their output rounded, against the f32 ones
/// rounded here: bit for bit, into outputs with padded rows (written through
/// a dense product) and, with `pitch` 0, dense ones, on two threads.
TEST(CpuKernelsTest, RoundedConvolutionIsTheRoundedF32Convolution) {
  int threads = openblas_get_num_threads();
  openblas_set_num_threads(2);
  std::mt19937 rng(13);
  for (bool bf16 : {true, false})
    for (const ConvShape &shape : kConvShapes) {
      const std::string type = bf16 ? "bf16" : "f16";
      const int64_t *in = shape.input, *f = shape.filter;
      const int64_t outH = outputLength(shape, 2),
                    outW = outputLength(shape, 3);
      std::vector<uint16_t> inputStorage, filterStorage;
      std::vector<double> unused;
      MemRef4d<uint16_t> inputRef =
          randomTensor(shape.input, in[3], bf16, rng, inputStorage, unused);
      MemRef4d<uint16_t> filterRef = randomTensor(
          shape.filter, f[3] + shape.pitch, bf16, rng, filterStorage, unused);
      const int64_t outputSize = in[0] * f[0] * outH * outW;
      std::vector<float> product(outputSize, NAN);
      MemRef4d<float> productRef{product.data(),
                                 product.data(),
                                 0,
                                 {in[0], f[0], outH, outW},
                                 {f[0] * outH * outW, outH * outW, outW, 1}};
      ASSERT_TRUE(runConv2d("mpt_cpu_conv2d_" + type, &inputRef, &filterRef,
                            &productRef, shape.stride, shape.dilation, 0));
      const int64_t outPitch = outW + shape.pitch;
      std::vector<uint16_t> rounded(in[0] * f[0] * outH * outPitch, 0x7E00);
      MemRef4d<uint16_t> roundedRef{
          rounded.data(),
          rounded.data(),
          0,
          {in[0], f[0], outH, outW},
          {f[0] * outH * outPitch, outH * outPitch, outPitch, 1}};
      const std::string name = "mpt_cpu_conv2d_" + type + "_to_" + type;
      ASSERT_TRUE(runRoundedConv2d(name, &inputRef, &filterRef, &roundedRef,
                                   shape.stride, shape.dilation));
      for (int64_t image = 0; image < in[0] * f[0]; ++image)
        for (int64_t y = 0; y < outH; ++y)
          for (int64_t x = 0; x < outW; ++x)
            ASSERT_EQ(rounded[(image * outH + y) * outPitch + x],
                      roundTo(product[(image * outH + y) * outW + x], bf16))
                << name << " input " << in[0] << "x" << in[1] << "x" << in[2]
                << "x" << in[3] << " filter " << f[0] << "x" << f[1] << "x"
                << f[2] << "x" << f[3] << " at (" << image << ", " << y << ", "
                << x << ")";
    }
  openblas_set_num_threads(threads);
}

} // namespace
