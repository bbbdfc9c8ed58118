//===- Data.h - Training data sources for the runtime -----------*- C++ -*-===//
//
// Datasets the runtime binds batches from: gzip'd IDX files (Fashion-MNIST),
// a learnable synthetic set, the user's tensors (.npy or safetensors) and
// token files, plus the seeded per-epoch example order and token windows.
// Everything here is deterministic and independent of the standard library
// implementation, so that a resumed run sees exactly the batches it would have
// seen without the interruption.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_DATA_H
#define MPT_RUNTIME_DATA_H

#include "mpt/float16.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mpt::runtime {

struct Dataset {
  int64_t count = 0, height = 0, width = 0;
  std::vector<float> images;   // count*height*width, pixel / 255.0f
  std::vector<int32_t> labels; // count, in [0, classes)
};

/// Where loadFashionMnist looks when given an empty directory.
inline constexpr const char *kDefaultFashionMnistDirectory =
    "/usr/share/datasets/fashion-mnist";

/// Reads a gzip-compressed IDX image file (magic 0x00000803, big-endian
/// count/height/width) and label file (magic 0x00000801, big-endian count).
/// On a missing file, a file that is not gzip or is truncated, a wrong magic,
/// a count mismatch between images and labels or a label outside [0, 10),
/// returns false and sets `error` to "<file>: <problem>"; `out` is then left
/// unchanged.
bool loadIdxDataset(const std::string &imagesPath,
                    const std::string &labelsPath, Dataset &out,
                    std::string &error);

/// Loads the Fashion-MNIST split "train" or "test" from `directory` (empty
/// means kDefaultFashionMnistDirectory), which holds the four standard files
/// train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz,
/// t10k-images-idx3-ubyte.gz and t10k-labels-idx1-ubyte.gz.
bool loadFashionMnist(const std::string &directory, const std::string &split,
                      Dataset &out, std::string &error);

/// A learnable synthetic classification set: every class has a fixed random
/// prototype image with pixels uniform in [0, 1), and example i has label
/// i % classes and is its class prototype plus N(0, 0.25^2) noise per pixel.
/// Deterministic in `seed`; example i does not depend on `count`.
/// Requires count >= 0 and height, width, classes > 0.
Dataset makeSyntheticDataset(int64_t count, int64_t height, int64_t width,
                             int64_t classes, uint64_t seed);

/// The example order of `epoch`: a permutation of [0, count) from a
/// Fisher-Yates shuffle driven by std::mt19937_64, a pure function of
/// (count, seed, epoch).
std::vector<int64_t> epochOrder(int64_t count, uint64_t seed, int64_t epoch);

/// Copies batch number `batch` (examples order[batch*batchSize ...] ) into
/// `images` (batchSize*height*width floats) and `labels` (batchSize int32).
/// Only full batches exist: returns false, writing nothing, for a batch past
/// the last full one, a non-positive batchSize, or an order entry outside
/// [0, data.count). A batch of 4 MiB or more is copied by several threads.
bool gatherBatch(const Dataset &data, const std::vector<int64_t> &order,
                 int64_t batch, int64_t batchSize, float *images,
                 int32_t *labels);
/// The same, with the images rounded to f16 or bf16 (floatToF16 or
/// floatToBF16) as they are copied.
bool gatherBatch(const Dataset &data, const std::vector<int64_t> &order,
                 int64_t batch, int64_t batchSize, uint16_t *images,
                 HalfKind kind, int32_t *labels);

//===-- The user's own data -------------------------------------------===//

/// A tensor of samples read from a file: its first dimension counts them.
/// Floating-point elements are held as f32 and integers as i32: f16, bf16
/// and u8/u16 convert exactly, f64 rounds to the nearest f32 (a finite value
/// beyond f32's range is an error), and i64 must lie in i32's range.
struct SampleArray {
  std::vector<int64_t> shape;
  bool isInteger = false;
  std::vector<float> floats; // when !isInteger
  std::vector<int32_t> ints; // when isInteger
  std::string elementType;   // as the file names it: "<f8", "I64", ...
};

/// Reads `path`: a NumPy .npy file (format 1.0, 2.0 or 3.0; C order;
/// little-endian f2, f4, f8, i4, i8, u1 or u2) or, for a name ending in
/// ".safetensors", the tensor `tensor` of that file, or its only tensor when
/// it holds no tensor of that name (F16, BF16, F32, I32 or I64). A missing or
/// truncated file, another format or element type, Fortran order, a scalar
/// (no sample dimension) or a value that does not convert returns false with
/// `error` naming the file; `out` is then left unchanged.
bool loadSampleArray(const std::string &path, const std::string &tensor,
                     SampleArray &out, std::string &error);

/// A flat binary file of uint8 or uint16 tokens (nanoGPT's train.bin),
/// mapped into memory.
class TokenFile {
public:
  TokenFile() = default;
  TokenFile(const TokenFile &) = delete;
  TokenFile &operator=(const TokenFile &) = delete;
  ~TokenFile();

  /// Maps `path`, of tokens `bytesPerToken` (1 or 2) bytes wide,
  /// little-endian, and checks every token is below `vocabulary`; on failure
  /// returns false with `error` naming the file (and the offset of a token out
  /// of range, counted in tokens). Called once.
  bool open(const std::string &path, int bytesPerToken, int64_t vocabulary,
            std::string &error);
  int64_t size() const { return count; }
  int64_t token(int64_t offset) const {
    return width == 1 ? bytes[offset]
                      : int64_t(bytes[2 * offset]) | bytes[2 * offset + 1] << 8;
  }

private:
  const uint8_t *bytes = nullptr;
  size_t mappedBytes = 0;
  int64_t count = 0;
  int width = 1;
};

/// The offsets of batch `index`'s `batchSize` windows of `length + 1` tokens
/// in a file of `tokens`: each uniform in [0, tokens - length - 1], drawn by
/// a generator seeded by (seed, index), so batch i is the same whichever
/// batches came before it (a resumed run draws what it would have drawn).
/// Requires tokens > length >= 1 and batchSize >= 0.
std::vector<int64_t> tokenWindowOffsets(int64_t tokens, int64_t length,
                                        uint64_t seed, int64_t index,
                                        int64_t batchSize);

/// Copies window i (starting at offsets[i]) into row i of `inputs` (its first
/// `length` tokens) and of `targets` (the `length` tokens after its first),
/// both offsets.size() x length.
void gatherTokenWindows(const TokenFile &file,
                        const std::vector<int64_t> &offsets, int64_t length,
                        int32_t *inputs, int32_t *targets);

} // namespace mpt::runtime

#endif // MPT_RUNTIME_DATA_H
