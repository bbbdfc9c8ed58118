//===- Data.h - Training data sources for the runtime -----------*- C++ -*-===//
//
// Datasets the runtime binds batches from: gzip'd IDX files (Fashion-MNIST)
// and a learnable synthetic set, plus the seeded per-epoch example order.
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

} // namespace mpt::runtime

#endif // MPT_RUNTIME_DATA_H
