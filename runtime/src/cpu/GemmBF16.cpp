//===- GemmBF16.cpp - bf16 products accumulated in f32 ----------*- C++ -*-===//

#include "cpu/GemmBF16.h"

#include "ParallelFor.h"
#include "Scratch.h"
#include "cpu/CpuIsa.h"

#include <algorithm>
#include <cblas.h>
#include <cstring>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace mpt::runtime {
namespace {

//===- VDPBF16PS ----------------------------------------------------------===//
//
// Against widening to f32 for sgemm, it moves half the bytes and does twice
// the multiply-adds per instruction.
//
// B is packed once per call into panels of 32 columns of k pairs (the two
// bf16 of a pair share a 32-bit lane); A per block of kRows rows, each pair
// broadcast against a panel. The usual layouts pack with vector
// instructions: B with unit column stride (two rows interleaved by one
// permute) or unit row stride (16 x 16 transposes of pairs), A with unit
// row or column stride; the shapes of a training step are small enough (k
// of 32 to 256) that scalar packing took as long as the products, and a
// filter gradient's (k over the whole batch, as many pairs as products) more.
//
//===----------------------------------------------------------------------===//

constexpr int64_t kRows = 8, kPanel = 32, kTranspose = 16;

#define MPT_BF16_TARGET "avx512f,avx512bw,avx512vl,avx512bf16"

// GCC 12's unpack and shuffle intrinsics pass _mm512_undefined_epi32() as
// the unused source of their masked builtins, which it defines as `__Y = __Y`
// and then warns is uninitialized (GCC bug 105593, fixed in GCC 13).
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#define MPT_GCC_UNDEFINED_INTRINSICS_WARN
#endif

/// dst (16 rows dstStride apart) = the transpose of src (16 rows srcStride
/// apart, the rows from `srcRows` on read as zeros), 32-bit elements.
__attribute__((target(MPT_BF16_TARGET))) void
transpose16x16(const uint32_t *src, int64_t srcStride, int64_t srcRows,
               uint32_t *dst, int64_t dstStride) {
  __m512i row[16], mixed[16];
  for (int i = 0; i < 16; ++i)
    row[i] = i < srcRows ? _mm512_loadu_si512(src + i * srcStride)
                         : _mm512_setzero_si512();
  // After these two steps, row[4q + c] holds elements c, c + 4, c + 8 and
  // c + 12 of source rows 4q..4q+3, one 128-bit lane each.
  for (int i = 0; i < 16; i += 2) {
    mixed[i] = _mm512_unpacklo_epi32(row[i], row[i + 1]);
    mixed[i + 1] = _mm512_unpackhi_epi32(row[i], row[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {
    row[i] = _mm512_unpacklo_epi64(mixed[i], mixed[i + 2]);
    row[i + 1] = _mm512_unpackhi_epi64(mixed[i], mixed[i + 2]);
    row[i + 2] = _mm512_unpacklo_epi64(mixed[i + 1], mixed[i + 3]);
    row[i + 3] = _mm512_unpackhi_epi64(mixed[i + 1], mixed[i + 3]);
  }
  // Gather the lanes: output row c + 4h takes lane h of row[c], row[4 + c],
  // row[8 + c] and row[12 + c].
  for (int c = 0; c < 4; ++c) {
    __m512i even = _mm512_shuffle_i32x4(row[c], row[4 + c], 0x88);
    __m512i odd = _mm512_shuffle_i32x4(row[c], row[4 + c], 0xdd);
    __m512i evenHigh = _mm512_shuffle_i32x4(row[8 + c], row[12 + c], 0x88);
    __m512i oddHigh = _mm512_shuffle_i32x4(row[8 + c], row[12 + c], 0xdd);
    _mm512_storeu_si512(dst + c * dstStride,
                        _mm512_shuffle_i32x4(even, evenHigh, 0x88));
    _mm512_storeu_si512(dst + (c + 8) * dstStride,
                        _mm512_shuffle_i32x4(even, evenHigh, 0xdd));
    _mm512_storeu_si512(dst + (c + 4) * dstStride,
                        _mm512_shuffle_i32x4(odd, oddHigh, 0x88));
    _mm512_storeu_si512(dst + (c + 12) * dstStride,
                        _mm512_shuffle_i32x4(odd, oddHigh, 0xdd));
  }
}

#ifdef MPT_GCC_UNDEFINED_INTRINSICS_WARN
#pragma GCC diagnostic pop
#undef MPT_GCC_UNDEFINED_INTRINSICS_WARN
#endif

/// Columns [first, first + columns) of B as pairs of rows: for every pair p,
/// 32 lanes (l = 2p, l = 2p + 1) per column, zero past k and past columns.
__attribute__((target(MPT_BF16_TARGET))) void
packPanelB(const uint16_t *b, int64_t b0, int64_t b1, int64_t k, int64_t first,
           int64_t columns, uint16_t *dst) {
  const int64_t pairs = (k + 1) / 2;
  if (b1 == 1) {
    // Element e of the result takes e/2 from row l and e/2 from row l + 1,
    // alternately: one two-source permute per 32 outputs.
    alignas(64) static const uint16_t lowIndices[32] = {
        0, 32, 1, 33, 2,  34, 3,  35, 4,  36, 5,  37, 6,  38, 7,  39,
        8, 40, 9, 41, 10, 42, 11, 43, 12, 44, 13, 45, 14, 46, 15, 47};
    const __m512i low = _mm512_load_si512(lowIndices);
    const __m512i high = _mm512_add_epi16(low, _mm512_set1_epi16(16));
    const __mmask32 mask =
        columns >= 32 ? ~__mmask32(0) : __mmask32((1u << columns) - 1);
    for (int64_t p = 0; p < pairs; ++p) {
      const uint16_t *row = b + 2 * p * b0 + first;
      __m512i even = _mm512_maskz_loadu_epi16(mask, row);
      __m512i odd = 2 * p + 1 < k ? _mm512_maskz_loadu_epi16(mask, row + b0)
                                  : _mm512_setzero_si512();
      _mm512_storeu_si512(dst + p * 64,
                          _mm512_permutex2var_epi16(even, low, odd));
      _mm512_storeu_si512(dst + p * 64 + 32,
                          _mm512_permutex2var_epi16(even, high, odd));
    }
    return;
  }
  int64_t p = 0;
  if (b0 == 1 && b1 % 2 == 0) {
    // B transposed in memory (a filter gradient's im2col matrix): each
    // column's pairs are its consecutive 32-bit units, and a panel's rows of
    // pairs are their transpose, 16 pairs by 16 columns at a time.
    auto *out = reinterpret_cast<uint32_t *>(dst);
    for (; p + kTranspose <= k / 2; p += kTranspose)
      for (int64_t j = 0; j < kPanel; j += kTranspose)
        transpose16x16(
            reinterpret_cast<const uint32_t *>(b + (first + j) * b1 + 2 * p),
            b1 / 2, std::clamp<int64_t>(columns - j, 0, kTranspose),
            out + p * kPanel + j, kPanel);
  }
  std::fill(dst + p * kPanel * 2, dst + pairs * kPanel * 2, 0);
  for (int64_t l = 2 * p; l < k; ++l)
    for (int64_t j = 0; j < columns; ++j)
      dst[(l / 2) * kPanel * 2 + j * 2 + l % 2] = b[l * b0 + (first + j) * b1];
}

/// Rows [row, row + rows) of A as pairs: dst[p * kRows + i] holds
/// (A(i, 2p), A(i, 2p + 1)), zero past k and past rows.
__attribute__((target(MPT_BF16_TARGET))) void
packRowsA(const uint16_t *a, int64_t a0, int64_t a1, int64_t k, int64_t row,
          int64_t rows, uint32_t *dst) {
  const int64_t pairs = (k + 1) / 2;
  if (a0 == 1 && rows == kRows) {
    // A transposed in memory: the block's kRows values of one column are
    // contiguous; two columns interleave into kRows pairs.
    for (int64_t p = 0; p < pairs; ++p) {
      __m128i even = _mm_loadu_si128(
          reinterpret_cast<const __m128i *>(a + row + 2 * p * a1));
      __m128i odd = 2 * p + 1 < k
                        ? _mm_loadu_si128(reinterpret_cast<const __m128i *>(
                              a + row + (2 * p + 1) * a1))
                        : _mm_setzero_si128();
      _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + p * kRows),
                       _mm_unpacklo_epi16(even, odd));
      _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + p * kRows + 4),
                       _mm_unpackhi_epi16(even, odd));
    }
    return;
  }
  int64_t first = 0;
  if (a1 == 1 && a0 % 2 == 0 && rows == kRows) {
    // Rows with k contiguous (a filter gradient's k runs over the whole
    // batch): the block's pairs are 32-bit units of its rows, transposed 16
    // pairs at a time.
    alignas(64) uint32_t block[kTranspose * kTranspose];
    const auto *source = reinterpret_cast<const uint32_t *>(a + row * a0);
    for (; first + kTranspose <= k / 2; first += kTranspose) {
      transpose16x16(source + first, a0 / 2, kRows, block, kTranspose);
      for (int64_t q = 0; q < kTranspose; ++q)
        std::memcpy(dst + (first + q) * kRows, block + q * kTranspose,
                    kRows * sizeof(uint32_t));
    }
  }
  std::fill(dst + first * kRows, dst + pairs * kRows, 0);
  for (int64_t i = 0; i < rows; ++i) {
    const uint16_t *source = a + (row + i) * a0;
    if (a1 == 1) {
      // A pair is one unaligned 32-bit load.
      for (int64_t p = first; p < k / 2; ++p)
        std::memcpy(dst + p * kRows + i, source + 2 * p, sizeof(uint32_t));
      if (k % 2)
        dst[(k / 2) * kRows + i] = source[k - 1];
      continue;
    }
    for (int64_t l = 0; l < k; ++l)
      dst[(l / 2) * kRows + i] |= uint32_t(source[l * a1]) << (16 * (l % 2));
  }
}

/// C rows [row, row + rows) += (or =, without `accumulate`) the packed A rows
/// times one packed panel of B, whose first 16 (Halves 1) or 32 (Halves 2)
/// columns are in range: a panel of at most 16 columns (n = 16, or the last of
/// n = 49) skips the half that would multiply the padding.
template <int Halves>
__attribute__((target(MPT_BF16_TARGET), always_inline)) inline void
multiplyPanel(const int32_t *pairsA, const uint16_t *panelB, int64_t pairs,
              float *c, int64_t ldc, int64_t rows, int64_t columns,
              bool accumulate) {
  __m512 acc[kRows][Halves];
  for (int i = 0; i < kRows; ++i)
    for (int h = 0; h < Halves; ++h)
      acc[i][h] = _mm512_setzero_ps();
  for (int64_t p = 0; p < pairs; ++p) {
    __m512bh half[Halves];
    for (int h = 0; h < Halves; ++h)
      half[h] = (__m512bh)_mm512_loadu_si512(panelB + p * kPanel * 2 + h * 32);
    for (int i = 0; i < kRows; ++i) {
      __m512bh pair = (__m512bh)_mm512_set1_epi32(pairsA[p * kRows + i]);
      for (int h = 0; h < Halves; ++h)
        acc[i][h] = _mm512_dpbf16_ps(acc[i][h], pair, half[h]);
    }
  }
  __mmask16 masks[Halves];
  for (int h = 0; h < Halves; ++h) {
    int64_t inHalf = std::clamp<int64_t>(columns - 16 * h, 0, 16);
    masks[h] = inHalf == 16 ? 0xffff : __mmask16((1u << inHalf) - 1);
  }
  // A constant trip count keeps the accumulators in registers; a loop to
  // `rows` made GCC spill all of them to the stack.
  for (int i = 0; i < kRows; ++i) {
    if (i >= rows)
      break;
    for (int h = 0; h < Halves; ++h) {
      float *out = c + i * ldc + 16 * h;
      __m512 sum =
          accumulate
              ? _mm512_add_ps(_mm512_maskz_loadu_ps(masks[h], out), acc[i][h])
              : acc[i][h];
      _mm512_mask_storeu_ps(out, masks[h], sum);
    }
  }
}

/// C rows [row, row + kRows) += (or =) A rows times the packed panels of B.
__attribute__((target(MPT_BF16_TARGET))) void
multiplyRowBlock(const uint16_t *a, int64_t a0, int64_t a1,
                 const uint16_t *packedB, float *c, int64_t ldc, int64_t m,
                 int64_t n, int64_t k, int64_t row, bool accumulate) {
  const int64_t pairs = (k + 1) / 2, panels = (n + kPanel - 1) / kPanel;
  const int64_t rows = std::min(kRows, m - row);
  thread_local std::vector<uint32_t> packedABuffer;
  uint32_t *packedA = scratchBuffer(packedABuffer, pairs * kRows);
  packRowsA(a, a0, a1, k, row, rows, packedA);
  const auto *pairsA = reinterpret_cast<const int32_t *>(packedA);
  for (int64_t panel = 0; panel < panels; ++panel) {
    const uint16_t *panelB = packedB + panel * pairs * kPanel * 2;
    const int64_t first = panel * kPanel;
    const int64_t columns = std::min(kPanel, n - first);
    float *out = c + row * ldc + first;
    if (columns > 16)
      multiplyPanel<2>(pairsA, panelB, pairs, out, ldc, rows, columns,
                       accumulate);
    else
      multiplyPanel<1>(pairsA, panelB, pairs, out, ldc, rows, columns,
                       accumulate);
  }
}

/// Products of at least this many multiply-adds (about 80 microseconds on
/// one core with VDPBF16PS, 150 to 200 with AMX tiles and their packing) are
/// split by rows over OpenBLAS's thread count. Waking a worker costs tens of
/// microseconds here: at 2^22 the transformer's 4M-element products got
/// slower on two threads.
constexpr int64_t kParallelProduct = int64_t(1) << 24;

} // namespace

__attribute__((target(MPT_BF16_TARGET))) void
gemmBF16Dot(const uint16_t *a, int64_t a0, int64_t a1, const uint16_t *b,
            int64_t b0, int64_t b1, float *c, int64_t ldc, int64_t m, int64_t n,
            int64_t k, bool accumulate) {
  const int64_t pairs = (k + 1) / 2, panels = (n + kPanel - 1) / kPanel;
  thread_local std::vector<uint16_t> packedB;
  uint16_t *packed = scratchBuffer(packedB, panels * pairs * kPanel * 2);
  for (int64_t panel = 0; panel < panels; ++panel)
    packPanelB(b, b0, b1, k, panel * kPanel,
               std::min(kPanel, n - panel * kPanel),
               packed + panel * pairs * kPanel * 2);
  int threads = m * n * k >= kParallelProduct ? cpuThreads() : 1;
  mpt::runtime::parallelFor((m + kRows - 1) / kRows, threads,
                            [&](int64_t block) {
                              multiplyRowBlock(a, a0, a1, packed, c, ldc, m, n,
                                               k, block * kRows, accumulate);
                            });
}

//===- AMX ----------------------------------------------------------------===//
//
// TDPBF16PS multiplies a tile of 16 rows of 32 bf16 of A by a tile of 16
// pairs of rows of B (16 columns, the two bf16 of a pair in one 32-bit lane)
// into 16 x 16 f32 accumulators: 8192 multiply-adds per instruction, 16 times
// the 512-bit FMAs of a cycle. Each thread computes blocks of 32 x 32 of C in
// four accumulator tiles, from two tiles of A (32 rows) and two of B (one
// panel of 32 columns, as VDPBF16PS packs it). Packing pads k to a multiple
// of 32 with zeros, so every tile is full and the padding adds zero
// products. The tiles of a block at the edge of C are configured to its rows
// and columns, so they load and store C in place and never read the rows of
// A past m or the columns of B past n, which packing leaves as they were.
//
// A wants its rows with k contiguous, B its pairs of rows with the columns
// contiguous. The layouts the other way round (a transposed operand, as in
// every weight and input gradient) pack the other form with vector
// instructions and transpose it in blocks of 16 x 16 pairs.
//
//===----------------------------------------------------------------------===//

namespace {

#define MPT_AMX_TARGET "amx-tile,amx-bf16,avx512f,avx512bw,avx512vl,avx512bf16"

constexpr int64_t kTile = 16, kBlockRows = 32, kPairsPerStep = 16;

/// The operand of LDTILECFG (palette 1) for a block of C of `rows` x
/// `columns` (each at most 32): tiles 0-3 its accumulators, top left, top
/// right, bottom left, bottom right, with exactly the block's rows and
/// columns, so that they load and store C in place; tiles 4-5 the rows of A
/// for the top and bottom halves, tiles 6-7 B's pairs for the left and right
/// halves. The tiles an edge block does not need keep no rows.
struct alignas(64) TileConfig {
  uint8_t palette = 1;
  uint8_t startRow = 0;
  uint8_t reserved[14] = {};
  uint16_t bytesPerRow[16] = {};
  uint8_t rows[16] = {};

  TileConfig(int64_t blockRows, int64_t blockColumns) {
    const int64_t top = std::min<int64_t>(blockRows, 16),
                  bottom = blockRows - top;
    const int64_t left = std::min<int64_t>(blockColumns, 16),
                  right = blockColumns - left;
    auto set = [&](int tile, int64_t tileRows, int64_t bytes) {
      if (tileRows == 0 || bytes == 0)
        return;
      rows[tile] = tileRows;
      bytesPerRow[tile] = bytes;
    };
    set(0, top, left * 4);
    set(1, top, right * 4);
    set(2, bottom, left * 4);
    set(3, bottom, right * 4);
    set(4, top, 64);
    set(5, bottom, 64);
    set(6, 16, left * 4);
    set(7, 16, right * 4);
  }
};

/// `count` rows of bf16 with k contiguous (row r at src + r * stride) as rows
/// of `paddedK` (a multiple of 32), zero past k. Rows from `count` to 32 keep
/// what they held (zeroing them took a quarter of a bf16 convolution with 8
/// filters).
void packRowsWithContiguousK(const uint16_t *src, int64_t stride, int64_t count,
                             int64_t k, int64_t paddedK, uint16_t *dst) {
  for (int64_t r = 0; r < count; ++r) {
    std::memcpy(dst + r * paddedK, src + r * stride, k * sizeof(uint16_t));
    std::fill(dst + r * paddedK + k, dst + (r + 1) * paddedK, 0);
  }
}

/// Rows [row, row + rows) of A, padded to 32 rows of paddedK.
__attribute__((target(MPT_AMX_TARGET))) void
packBlockA(const uint16_t *a, int64_t a0, int64_t a1, int64_t k,
           int64_t paddedK, int64_t row, int64_t rows, uint16_t *dst) {
  if (a1 == 1) {
    packRowsWithContiguousK(a + row * a0, a0, rows, k, paddedK, dst);
    return;
  }
  const int64_t paddedPairs = paddedK / 2;
  if (a0 == 1) {
    // Rows contiguous: A's columns of this block as pairs of rows over 32
    // lanes, as the B panels are, then transposed.
    thread_local std::vector<uint16_t> pairsBuffer;
    uint16_t *pairs = scratchBuffer(pairsBuffer, paddedPairs * kPanel * 2);
    packPanelB(a, a1, 1, k, row, rows, pairs);
    std::fill(pairs + (k + 1) / 2 * kPanel * 2,
              pairs + paddedPairs * kPanel * 2, 0);
    const auto *source = reinterpret_cast<const uint32_t *>(pairs);
    auto *target = reinterpret_cast<uint32_t *>(dst);
    for (int64_t half = 0; half * kTile < rows; ++half)
      for (int64_t p = 0; p < paddedPairs; p += kTile)
        transpose16x16(source + p * kPanel + half * kTile, kPanel, kTile,
                       target + half * kTile * paddedPairs + p, paddedPairs);
    return;
  }
  std::fill(dst, dst + kBlockRows * paddedK, 0);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t l = 0; l < k; ++l)
      dst[i * paddedK + l] = a[(row + i) * a0 + l * a1];
}

/// Columns [first, first + columns) of B as a panel of paddedK / 2 pairs of
/// rows over 32 columns.
__attribute__((target(MPT_AMX_TARGET))) void
packPanelAmx(const uint16_t *b, int64_t b0, int64_t b1, int64_t k,
             int64_t paddedK, int64_t first, int64_t columns, uint16_t *dst) {
  const int64_t paddedPairs = paddedK / 2;
  if (b0 == 1 && b1 != 1) {
    // k contiguous in each column: the columns as rows, then transposed.
    thread_local std::vector<uint16_t> rowsOfKBuffer;
    uint16_t *rowsOfK = scratchBuffer(rowsOfKBuffer, kPanel * paddedK);
    packRowsWithContiguousK(b + first * b1, b1, columns, k, paddedK, rowsOfK);
    const auto *source = reinterpret_cast<const uint32_t *>(rowsOfK);
    auto *target = reinterpret_cast<uint32_t *>(dst);
    for (int64_t half = 0; half * kTile < columns; ++half)
      for (int64_t p = 0; p < paddedPairs; p += kTile)
        transpose16x16(source + half * kTile * paddedPairs + p, paddedPairs,
                       kTile, target + p * kPanel + half * kTile, kPanel);
    return;
  }
  packPanelB(b, b0, b1, k, first, columns, dst);
  std::fill(dst + (k + 1) / 2 * kPanel * 2, dst + paddedPairs * kPanel * 2, 0);
}

/// The block of C at `block` (row stride ldc) += the rows of A at `rowsA`
/// (32 bf16 of k per step, rows rowStrideA apart) times one packed panel of B,
/// in the tiles the configuration loaded for it: the bottom half of the
/// accumulators only where the block has more than 16 rows, the right half only
/// where it has more than 16 columns (a TDPBF16PS takes time in proportion to
/// its rows).
template <bool Bottom, bool Right>
__attribute__((target(MPT_AMX_TARGET), always_inline)) inline void
multiplyPanelAmx(const uint16_t *rowsA, int64_t rowStrideA,
                 const uint16_t *panelB, int64_t paddedK, float *block,
                 int64_t ldc) {
  const int64_t strideA = rowStrideA * sizeof(uint16_t);
  const int64_t strideB = kPanel * 2 * sizeof(uint16_t);
  const int64_t strideC = ldc * sizeof(float);
  _tile_loadd(0, block, strideC);
  if constexpr (Right)
    _tile_loadd(1, block + kTile, strideC);
  if constexpr (Bottom)
    _tile_loadd(2, block + kTile * ldc, strideC);
  if constexpr (Bottom && Right)
    _tile_loadd(3, block + kTile * ldc + kTile, strideC);
  for (int64_t l = 0; l < paddedK; l += 2 * kPairsPerStep) {
    _tile_loadd(4, rowsA + l, strideA);
    _tile_loadd(6, panelB + l * kPanel, strideB);
    _tile_dpbf16ps(0, 4, 6);
    if constexpr (Right) {
      _tile_loadd(7, panelB + l * kPanel + 2 * kTile, strideB);
      _tile_dpbf16ps(1, 4, 7);
    }
    if constexpr (Bottom) {
      _tile_loadd(5, rowsA + kTile * rowStrideA + l, strideA);
      _tile_dpbf16ps(2, 5, 6);
    }
    if constexpr (Bottom && Right)
      _tile_dpbf16ps(3, 5, 7);
  }
  _tile_stored(0, block, strideC);
  if constexpr (Right)
    _tile_stored(1, block + kTile, strideC);
  if constexpr (Bottom)
    _tile_stored(2, block + kTile * ldc, strideC);
  if constexpr (Bottom && Right)
    _tile_stored(3, block + kTile * ldc + kTile, strideC);
}

/// C rows [row, row + rows) += those rows of A (at `rowsA`, rowStrideA
/// apart) times the packed panels of B, 32 columns at a time, the tiles
/// configured for each shape of block: full panels, then the last one if it is
/// narrower (a configuration also clears the tiles, so it is loaded once per
/// shape, not per block).
__attribute__((target(MPT_AMX_TARGET))) void
multiplyBlockAmx(const uint16_t *rowsA, int64_t rowStrideA,
                 const uint16_t *packedB, int64_t paddedK, float *c,
                 int64_t ldc, int64_t n, int64_t row, int64_t rows,
                 int64_t &configuredRows, int64_t &configuredColumns) {
  const int64_t panelSize = paddedK / 2 * kPanel * 2;
  for (int64_t first = 0; first < n; first += kPanel) {
    const int64_t columns = std::min(kPanel, n - first);
    if (rows != configuredRows || columns != configuredColumns) {
      const TileConfig config(rows, columns);
      _tile_loadconfig(&config);
      configuredRows = rows;
      configuredColumns = columns;
    }
    const uint16_t *panelB = packedB + first / kPanel * panelSize;
    float *block = c + row * ldc + first;
    const bool bottom = rows > kTile, right = columns > kTile;
    if (bottom && right)
      multiplyPanelAmx<true, true>(rowsA, rowStrideA, panelB, paddedK, block,
                                   ldc);
    else if (bottom)
      multiplyPanelAmx<true, false>(rowsA, rowStrideA, panelB, paddedK, block,
                                    ldc);
    else if (right)
      multiplyPanelAmx<false, true>(rowsA, rowStrideA, panelB, paddedK, block,
                                    ldc);
    else
      multiplyPanelAmx<false, false>(rowsA, rowStrideA, panelB, paddedK, block,
                                     ldc);
  }
}

/// Row blocks [firstBlock, endBlock) of C += (or =) A times the packed panels
/// of B, on one thread, which releases its tiles at the end (a thread holding
/// tile state makes every context switch save 8 KB more).
__attribute__((target(MPT_AMX_TARGET))) void
multiplyBlocksAmx(const uint16_t *a, int64_t a0, int64_t a1,
                  const uint16_t *packedB, float *c, int64_t ldc, int64_t m,
                  int64_t n, int64_t k, int64_t firstBlock, int64_t endBlock,
                  bool accumulate) {
  const int64_t paddedK = (k + 31) / 32 * 32;
  // Rows of A with k contiguous, k a multiple of 32, load as tiles where they
  // are (the filters of a convolution, the activations of a forward matmul).
  const bool inPlace = a1 == 1 && k == paddedK;
  thread_local std::vector<uint16_t> packedABuffer;
  uint16_t *packedA =
      inPlace ? nullptr : scratchBuffer(packedABuffer, kBlockRows * paddedK);
  int64_t configuredRows = 0, configuredColumns = 0;
  for (int64_t block = firstBlock; block < endBlock; ++block) {
    const int64_t row = block * kBlockRows;
    const int64_t rows = std::min(kBlockRows, m - row);
    if (!inPlace)
      packBlockA(a, a0, a1, k, paddedK, row, rows, packedA);
    // The tiles load C to add to it: a block written, not added to, starts
    // from zeros, cleared here while its rows are about to be loaded.
    if (!accumulate)
      for (int64_t i = row; i < row + rows; ++i)
        std::fill(c + i * ldc, c + i * ldc + n, 0.0f);
    multiplyBlockAmx(inPlace ? a + row * a0 : packedA, inPlace ? a0 : paddedK,
                     packedB, paddedK, c, ldc, n, row, rows, configuredRows,
                     configuredColumns);
  }
  _tile_release();
}

#define ARCH_REQ_XCOMP_PERM 0x1023
#define XFEATURE_XTILEDATA 18

/// Linux hands out the 8 KB of tile state only to processes that ask for it
/// (since 5.16).
bool requestTiles() {
  return __builtin_cpu_supports("amx-tile") &&
         __builtin_cpu_supports("amx-bf16") && hasDotBF16() &&
         syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) == 0;
}

} // namespace

void gemmBF16Amx(const uint16_t *a, int64_t a0, int64_t a1, const uint16_t *b,
                 int64_t b0, int64_t b1, float *c, int64_t ldc, int64_t m,
                 int64_t n, int64_t k, bool accumulate) {
  const int64_t paddedK = (k + 31) / 32 * 32;
  const int64_t panels = (n + kPanel - 1) / kPanel;
  const int64_t panelSize = paddedK / 2 * kPanel * 2;
  thread_local std::vector<uint16_t> packedB;
  uint16_t *packed = scratchBuffer(packedB, panels * panelSize);
  for (int64_t panel = 0; panel < panels; ++panel)
    packPanelAmx(b, b0, b1, k, paddedK, panel * kPanel,
                 std::min(kPanel, n - panel * kPanel),
                 packed + panel * panelSize);
  const int64_t blocks = (m + kBlockRows - 1) / kBlockRows;
  const int64_t threads = std::min<int64_t>(
      m * n * k >= kParallelProduct ? cpuThreads() : 1, blocks);
  if (threads <= 1) {
    multiplyBlocksAmx(a, a0, a1, packed, c, ldc, m, n, k, 0, blocks,
                      accumulate);
    return;
  }
  parallelFor(threads, threads, [&](int64_t slice) {
    multiplyBlocksAmx(a, a0, a1, packed, c, ldc, m, n, k,
                      blocks * slice / threads, blocks * (slice + 1) / threads,
                      accumulate);
  });
}

bool hasDotBF16() {
  static const bool available =
      maxCpuIsa() == CpuIsa::Native && __builtin_cpu_supports("avx512bf16") &&
      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl");
  return available;
}

bool hasAmxBF16() {
  static const bool granted = requestTiles();
  return granted;
}

} // namespace mpt::runtime
#endif

namespace mpt::runtime {

GemmBF16 preferredGemmBF16() {
#if defined(__x86_64__)
  if (hasAmxBF16())
    return gemmBF16Amx;
  if (hasDotBF16() && !__builtin_cpu_is("intel"))
    return gemmBF16Dot;
#endif
  return nullptr;
}

ConvolutionGemmBF16 preferredConvolutionGemmBF16() {
  ConvolutionGemmBF16 preferred{preferredGemmBF16(), /*minDepth=*/1};
#if defined(__x86_64__)
  // AMX pads the depth to 32.
  if (preferred.product == gemmBF16Amx)
    preferred.minDepth = 32;
#endif
  return preferred;
}

} // namespace mpt::runtime
