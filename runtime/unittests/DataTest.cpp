//===- DataTest.cpp - Tests for the runtime data sources --------*- C++ -*-===//

#include "mpt/data.h"
#include "mpt/safetensors.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numeric>
#include <random>

using namespace mpt::runtime;

namespace {

std::vector<uint8_t> bigEndian32(std::initializer_list<uint32_t> values) {
  std::vector<uint8_t> bytes;
  for (uint32_t value : values)
    for (int shift = 24; shift >= 0; shift -= 8)
      bytes.push_back(static_cast<uint8_t>(value >> shift));
  return bytes;
}

std::vector<uint8_t> concat(std::vector<uint8_t> a,
                            const std::vector<uint8_t> &b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

void writeGzip(const std::string &path, const std::vector<uint8_t> &bytes) {
  gzFile file = gzopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr) << path;
  ASSERT_EQ(gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size())),
            static_cast<int>(bytes.size()));
  ASSERT_EQ(gzclose(file), Z_OK);
}

std::vector<uint8_t> readRaw(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeRaw(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
}

/// A fresh temporary directory per test, removed after it.
class TemporaryDirectoryTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "mpt-data-test-XXXXXX")
            .string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    directory = pattern;
  }

  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(directory, ignored);
  }

  std::string directory;
};

class IdxTest : public TemporaryDirectoryTest {
protected:
  void SetUp() override {
    TemporaryDirectoryTest::SetUp();
    if (HasFatalFailure())
      return;
    images = directory + "/images.gz";
    labels = directory + "/labels.gz";
    // Three 2x3 images whose pixels are 10*image + pixel.
    for (uint8_t i = 0; i < 3; ++i)
      for (uint8_t p = 0; p < 6; ++p)
        pixels.push_back(10 * i + p);
    imageBytes = concat(bigEndian32({0x803, 3, 2, 3}), pixels);
    labelBytes = concat(bigEndian32({0x801, 3}), {7, 0, 9});
    writeGzip(images, imageBytes);
    writeGzip(labels, labelBytes);
  }

  // Loads and expects failure with an error containing `needle`.
  void expectError(const std::string &needle) {
    Dataset data;
    std::string error;
    EXPECT_FALSE(loadIdxDataset(images, labels, data, error));
    EXPECT_NE(error.find(needle), std::string::npos) << error;
    EXPECT_EQ(data.count, 0);
  }

  std::string images, labels;
  std::vector<uint8_t> pixels, imageBytes, labelBytes;
};

TEST_F(IdxTest, RoundTrip) {
  Dataset data;
  std::string error;
  ASSERT_TRUE(loadIdxDataset(images, labels, data, error)) << error;
  EXPECT_EQ(data.count, 3);
  EXPECT_EQ(data.height, 2);
  EXPECT_EQ(data.width, 3);
  ASSERT_EQ(data.images.size(), 18u);
  for (size_t i = 0; i < pixels.size(); ++i)
    EXPECT_EQ(data.images[i], pixels[i] / 255.0f);
  EXPECT_EQ(data.labels, (std::vector<int32_t>{7, 0, 9}));
}

TEST_F(IdxTest, MissingFile) {
  images = directory + "/missing.gz";
  expectError(images + ": cannot open: No such file or directory");
}

TEST_F(IdxTest, NotGzip) {
  writeRaw(labels, labelBytes);
  expectError(labels + ": not a gzip file");
}

TEST_F(IdxTest, TruncatedGzipStream) {
  std::vector<uint8_t> compressed = readRaw(images);
  compressed.resize(compressed.size() / 2);
  writeRaw(images, compressed);
  expectError(images + ": truncated");
}

TEST_F(IdxTest, MissingGzipTrailer) {
  std::vector<uint8_t> compressed = readRaw(labels);
  compressed.resize(compressed.size() - 8);
  writeRaw(labels, compressed);
  expectError(labels + ": truncated gzip stream");
}

TEST_F(IdxTest, CorruptGzipChecksum) {
  std::vector<uint8_t> compressed = readRaw(images);
  compressed[compressed.size() - 8] ^= 0xFF;
  writeRaw(images, compressed);
  expectError(images + ": corrupt gzip data");
}

TEST_F(IdxTest, TruncatedHeader) {
  writeGzip(images, bigEndian32({0x803, 3}));
  expectError(images + ": truncated while reading the header");
}

TEST_F(IdxTest, TruncatedPixels) {
  imageBytes.resize(imageBytes.size() - 1);
  writeGzip(images, imageBytes);
  expectError(images + ": truncated while reading the pixels");
}

TEST_F(IdxTest, TrailingData) {
  labelBytes.push_back(1);
  writeGzip(labels, labelBytes);
  expectError(labels + ": unexpected data after the last item");
}

TEST_F(IdxTest, WrongImageMagic) {
  std::swap(images, labels);
  expectError(images + ": expected magic 0x00000803, got 0x00000801");
}

TEST_F(IdxTest, WrongLabelMagic) {
  writeGzip(labels, imageBytes);
  expectError(labels + ": expected magic 0x00000801, got 0x00000803");
}

TEST_F(IdxTest, HugeDimensions) {
  writeGzip(images, bigEndian32({0x803, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF}));
  expectError(images + ": image dimensions 4294967295x4294967295x4294967295 "
                       "are too large");
}

TEST_F(IdxTest, HugeCountIsTruncatedNotAllocated) {
  writeGzip(images, concat(bigEndian32({0x803, 0x7FFFFFFF, 28, 28}), pixels));
  expectError(images + ": truncated while reading the pixels");
}

TEST_F(IdxTest, CountMismatch) {
  writeGzip(labels, concat(bigEndian32({0x801, 2}), {1, 2}));
  expectError(labels + ": holds 2 labels but " + images + " holds 3 images");
}

TEST_F(IdxTest, LabelOutOfRange) {
  writeGzip(labels, concat(bigEndian32({0x801, 3}), {1, 10, 2}));
  expectError(labels + ": label 10 of item 1 is outside [0, 10)");
}

TEST_F(IdxTest, FashionMnistFileNames) {
  std::filesystem::copy_file(images, directory + "/t10k-images-idx3-ubyte.gz");
  std::filesystem::copy_file(labels, directory + "/t10k-labels-idx1-ubyte.gz");
  Dataset data;
  std::string error;
  ASSERT_TRUE(loadFashionMnist(directory + "/", "test", data, error)) << error;
  EXPECT_EQ(data.count, 3);

  EXPECT_FALSE(loadFashionMnist(directory, "train", data, error));
  EXPECT_NE(error.find(directory + "/train-images-idx3-ubyte.gz: cannot open"),
            std::string::npos)
      << error;
  EXPECT_FALSE(loadFashionMnist(directory, "validation", data, error));
  EXPECT_EQ(error, "unknown Fashion-MNIST split 'validation' (expected "
                   "\"train\" or \"test\")");
}

TEST(FashionMnistTest, RealDataset) {
  if (!std::filesystem::exists(kDefaultFashionMnistDirectory))
    GTEST_SKIP() << kDefaultFashionMnistDirectory << " is not installed";
  Dataset train, test;
  std::string error;
  ASSERT_TRUE(loadFashionMnist("", "train", train, error)) << error;
  ASSERT_TRUE(
      loadFashionMnist(kDefaultFashionMnistDirectory, "test", test, error))
      << error;
  EXPECT_EQ(train.count, 60000);
  EXPECT_EQ(test.count, 10000);
  for (const Dataset *data : {&train, &test}) {
    EXPECT_EQ(data->height, 28);
    EXPECT_EQ(data->width, 28);
    EXPECT_EQ(data->images.size(), size_t(data->count) * 28 * 28);
    EXPECT_EQ(data->labels.size(), size_t(data->count));
  }
  std::vector<int64_t> histogram(10);
  for (int32_t label : train.labels)
    ++histogram.at(label);
  EXPECT_EQ(histogram, std::vector<int64_t>(10, 6000));

  // Reference values read with Python's gzip module: both first examples are
  // ankle boots (9); center pixels 217 and 110; pixel sums 76247 and 33456.
  EXPECT_EQ(train.labels[0], 9);
  EXPECT_EQ(test.labels[0], 9);
  EXPECT_EQ(train.images[14 * 28 + 14], 217 / 255.0f);
  EXPECT_EQ(test.images[14 * 28 + 14], 110 / 255.0f);
  EXPECT_EQ(train.images[99], 13 / 255.0f);
  double trainSum = 0, testSum = 0;
  for (int i = 0; i < 28 * 28; ++i) {
    trainSum += std::lround(train.images[i] * 255.0f);
    testSum += std::lround(test.images[i] * 255.0f);
  }
  EXPECT_EQ(trainSum, 76247);
  EXPECT_EQ(testSum, 33456);
}

bool isPermutation(const std::vector<int64_t> &order, int64_t count) {
  std::vector<int64_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> identity(count);
  std::iota(identity.begin(), identity.end(), 0);
  return sorted == identity;
}

TEST(EpochOrderTest, PermutationDeterministicAndVarying) {
  std::vector<int64_t> order = epochOrder(1000, 42, 0);
  EXPECT_TRUE(isPermutation(order, 1000));
  EXPECT_EQ(order, epochOrder(1000, 42, 0));
  EXPECT_NE(order, epochOrder(1000, 42, 1));
  EXPECT_NE(order, epochOrder(1000, 43, 0));
  EXPECT_TRUE(isPermutation(epochOrder(1000, 42, 1), 1000));
  std::vector<int64_t> identity(1000);
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_NE(order, identity);
}

TEST(EpochOrderTest, Degenerate) {
  EXPECT_TRUE(epochOrder(0, 1, 0).empty());
  EXPECT_TRUE(epochOrder(-5, 1, 0).empty());
  EXPECT_EQ(epochOrder(1, 1, 0), std::vector<int64_t>{0});
}

// Pins the exact sequence: a resumed run must see the same order as the
// original, across builds and standard libraries. The values were checked
// against an independent Python implementation of std::seed_seq,
// std::mt19937_64 and the Fisher-Yates loop.
TEST(EpochOrderTest, Golden) {
  EXPECT_EQ(epochOrder(10, 42, 0),
            (std::vector<int64_t>{5, 0, 2, 8, 6, 3, 1, 9, 4, 7}));
  EXPECT_EQ(epochOrder(10, 42, 3),
            (std::vector<int64_t>{0, 3, 4, 1, 7, 9, 5, 2, 8, 6}));
}

TEST(EpochOrderTest, ShufflesUniformly) {
  // Over many epochs every example lands in position 0 about equally often.
  constexpr int kCount = 8, kEpochs = 8000;
  std::vector<int> firsts(kCount);
  for (int epoch = 0; epoch < kEpochs; ++epoch)
    ++firsts[epochOrder(kCount, 7, epoch)[0]];
  for (int hits : firsts)
    EXPECT_NEAR(hits, kEpochs / kCount, 150);
}

Dataset smallDataset() {
  Dataset data;
  data.count = 5;
  data.height = 1;
  data.width = 2;
  for (int i = 0; i < 5; ++i) {
    data.images.push_back(i);
    data.images.push_back(i + 0.5f);
    data.labels.push_back(i % 3);
  }
  return data;
}

TEST(GatherBatchTest, CopiesFollowingOrder) {
  Dataset data = smallDataset();
  std::vector<int64_t> order = {4, 2, 0, 1, 3};
  float images[4];
  int32_t labels[2];
  ASSERT_TRUE(gatherBatch(data, order, 0, 2, images, labels));
  EXPECT_EQ(std::vector<float>(images, images + 4),
            (std::vector<float>{4, 4.5f, 2, 2.5f}));
  EXPECT_EQ(std::vector<int32_t>(labels, labels + 2),
            (std::vector<int32_t>{1, 2}));
  ASSERT_TRUE(gatherBatch(data, order, 1, 2, images, labels));
  EXPECT_EQ(std::vector<float>(images, images + 4),
            (std::vector<float>{0, 0.5f, 1, 1.5f}));
  EXPECT_EQ(std::vector<int32_t>(labels, labels + 2),
            (std::vector<int32_t>{0, 1}));
}

// 2048 examples of 784 pixels are 6.4 MB: copied by several threads where
// the machine has several cores. Example e holds e * 1000 + pixel and label
// e % 10, so a misplaced or skipped range shows.
TEST(GatherBatchTest, LargeBatchesFollowOrder) {
  constexpr int64_t kExamples = 4096, kPixels = 784, kBatch = 2048;
  Dataset data;
  data.count = kExamples;
  data.height = 28;
  data.width = 28;
  for (int64_t e = 0; e < kExamples; ++e) {
    for (int64_t p = 0; p < kPixels; ++p)
      data.images.push_back(float(e * 1000 + p));
    data.labels.push_back(int32_t(e % 10));
  }
  std::vector<int64_t> order = epochOrder(kExamples, 7, 0);
  std::vector<float> images(kBatch * kPixels, -1.0f);
  std::vector<int32_t> labels(kBatch, -1);
  ASSERT_TRUE(
      gatherBatch(data, order, 1, kBatch, images.data(), labels.data()));
  int64_t wrong = 0;
  for (int64_t i = 0; i < kBatch; ++i) {
    int64_t example = order[kBatch + i];
    wrong += labels[i] != example % 10;
    for (int64_t p = 0; p < kPixels; ++p)
      wrong += images[i * kPixels + p] != float(example * 1000 + p);
  }
  EXPECT_EQ(wrong, 0);
}

/// bf16 rounding by f32 arithmetic, independent of Float16.h's bit trick:
/// adding and removing 3·2^(e+15) (e the exponent of a normal `value`, well
/// inside f32's range) leaves `value` rounded to nearest even at 8
/// significant bits.
float roundToBF16ByArithmetic(float value) {
  int exponent;
  std::frexp(value, &exponent); // value = m·2^exponent, 0.5 <= |m| < 1
  volatile float shift = std::ldexp(3.0f, exponent - 1 + 15);
  volatile float sum = value + shift;
  return sum - shift;
}

// A batch gathered for an f16 or bf16 input is rounded as it is copied:
// edge values (ties, f16's subnormals and overflow, infinities, NaN) and
// random ones, in rows of an odd length so that both the 8-wide and the
// scalar code run. The f16 reference is the compiler's _Float16 conversion.
TEST(GatherBatchTest, RoundsToHalfTypes) {
  std::vector<float> values = {0.0f,
                               -0.0f,
                               1.0f,
                               1.0f + 0x1p-11f,
                               1.0f + 3 * 0x1p-11f,
                               1.0f + 0x1p-8f,
                               1.0f + 3 * 0x1p-8f,
                               0x1p-24f,
                               0x1p-25f,
                               0x1.8p-25f,
                               0x1p-15f + 0x1p-25f,
                               65504.0f,
                               65519.0f,
                               65520.0f,
                               -1e6f,
                               INFINITY,
                               -INFINITY,
                               NAN,
                               1e-40f,
                               0x1.fffffep127f};
  std::mt19937 engine(7);
  constexpr size_t kWidth = 1031;
  while (values.size() < 2 * kWidth) {
    uint32_t bits = engine();
    float value;
    std::memcpy(&value, &bits, sizeof(value));
    // Alternately any bit pattern and a value of f16's range.
    values.push_back(
        values.size() % 2
            ? value
            : std::ldexp(float(bits % 4096) - 2048.0f, int(bits >> 27) - 24));
  }
  Dataset data;
  data.count = 2;
  data.height = 1;
  data.width = kWidth;
  data.images = values;
  data.labels = {3, 4};
  std::vector<int64_t> order = {1, 0};
  std::vector<uint16_t> f16(values.size()), bf16(values.size());
  int32_t labels[2];
  ASSERT_TRUE(
      gatherBatch(data, order, 0, 2, f16.data(), HalfKind::F16, labels));
  EXPECT_EQ(labels[0], 4);
  ASSERT_TRUE(
      gatherBatch(data, order, 0, 2, bf16.data(), HalfKind::BF16, labels));
  int64_t wrongF16 = 0, wrongBF16 = 0, checkedByArithmetic = 0;
  for (size_t i = 0; i < 2; ++i) {
    for (size_t p = 0; p < kWidth; ++p) {
      float value = values[order[i] * kWidth + p];
      uint16_t gotF16 = f16[i * kWidth + p], gotBF16 = bf16[i * kWidth + p];
      if (std::isnan(value)) {
        wrongF16 += (gotF16 & 0x7c00u) != 0x7c00u || !(gotF16 & 0x3ffu);
        wrongBF16 += (gotBF16 & 0x7f80u) != 0x7f80u || !(gotBF16 & 0x7fu);
        continue;
      }
      _Float16 half = static_cast<_Float16>(value);
      uint16_t expected;
      std::memcpy(&expected, &half, sizeof(expected));
      wrongF16 += gotF16 != expected;
      wrongBF16 += gotBF16 != floatToBF16(value);
      if (std::isnormal(value) && std::fabs(value) < 0x1p100f &&
          std::fabs(value) > 0x1p-100f) {
        ++checkedByArithmetic;
        wrongBF16 += bf16ToFloat(gotBF16) != roundToBF16ByArithmetic(value);
      }
    }
  }
  EXPECT_EQ(wrongF16, 0);
  EXPECT_EQ(wrongBF16, 0);
  EXPECT_GT(checkedByArithmetic, int64_t(kWidth));
}

TEST(GatherBatchTest, OnlyFullBatches) {
  Dataset data = smallDataset();
  std::vector<int64_t> order = epochOrder(5, 1, 0);
  float images[10] = {-1};
  int32_t labels[5] = {-1};
  // The fifth example would only make a partial third batch.
  EXPECT_FALSE(gatherBatch(data, order, 2, 2, images, labels));
  EXPECT_FALSE(gatherBatch(data, order, -1, 2, images, labels));
  EXPECT_FALSE(gatherBatch(data, order, 0, 0, images, labels));
  EXPECT_FALSE(gatherBatch(data, order, 0, 6, images, labels));
  EXPECT_EQ(images[0], -1);
  EXPECT_EQ(labels[0], -1);
  EXPECT_TRUE(gatherBatch(data, order, 0, 5, images, labels));
  EXPECT_FALSE(gatherBatch(data, order, 1, 5, images, labels));
}

TEST(GatherBatchTest, RejectsOutOfRangeIndices) {
  Dataset data = smallDataset();
  float images[4];
  int32_t labels[2];
  EXPECT_FALSE(gatherBatch(data, {0, 5}, 0, 2, images, labels));
  EXPECT_FALSE(gatherBatch(data, {-1, 0}, 0, 2, images, labels));
}

TEST(SyntheticTest, DeterministicInSeed) {
  Dataset a = makeSyntheticDataset(50, 4, 5, 3, 11);
  Dataset b = makeSyntheticDataset(50, 4, 5, 3, 11);
  Dataset c = makeSyntheticDataset(50, 4, 5, 3, 12);
  EXPECT_EQ(a.count, 50);
  EXPECT_EQ(a.height, 4);
  EXPECT_EQ(a.width, 5);
  ASSERT_EQ(a.images.size(), 50u * 20);
  EXPECT_EQ(a.images, b.images);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_NE(a.images, c.images);
  for (float pixel : a.images)
    EXPECT_TRUE(std::isfinite(pixel));

  // A longer set starts with the shorter one.
  Dataset longer = makeSyntheticDataset(80, 4, 5, 3, 11);
  EXPECT_TRUE(
      std::equal(a.images.begin(), a.images.end(), longer.images.begin()));
}

TEST(SyntheticTest, ClassBalanced) {
  Dataset data = makeSyntheticDataset(103, 2, 2, 10, 5);
  std::vector<int> histogram(10);
  for (int32_t label : data.labels)
    ++histogram.at(label);
  for (int count : histogram) {
    EXPECT_GE(count, 10);
    EXPECT_LE(count, 11);
  }
}

TEST(SyntheticTest, Learnable) {
  // Nearest class mean, fitted on the first half, classifies the second half.
  constexpr int64_t kCount = 400, kClasses = 10, kPixels = 8 * 8;
  Dataset data = makeSyntheticDataset(kCount, 8, 8, kClasses, 3);
  std::vector<double> means(kClasses * kPixels);
  std::vector<int> counts(kClasses);
  for (int64_t i = 0; i < kCount / 2; ++i) {
    ++counts[data.labels[i]];
    for (int64_t p = 0; p < kPixels; ++p)
      means[data.labels[i] * kPixels + p] += data.images[i * kPixels + p];
  }
  for (int64_t k = 0; k < kClasses * kPixels; ++k)
    means[k] /= counts[k / kPixels];
  int correct = 0;
  for (int64_t i = kCount / 2; i < kCount; ++i) {
    int64_t best = -1;
    double bestDistance = 0;
    for (int64_t c = 0; c < kClasses; ++c) {
      double distance = 0;
      for (int64_t p = 0; p < kPixels; ++p) {
        double d = data.images[i * kPixels + p] - means[c * kPixels + p];
        distance += d * d;
      }
      if (best < 0 || distance < bestDistance) {
        best = c;
        bestDistance = distance;
      }
    }
    correct += best == data.labels[i];
  }
  EXPECT_GE(correct, kCount / 2 * 95 / 100);
}

//===-- The user's tensors --------------------------------------------===//

template <typename T> std::vector<uint8_t> bytesOf(std::vector<T> values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

/// A .npy file of format `major`.0 as numpy.save writes it.
std::vector<uint8_t> npyFile(int major, const std::string &descr,
                             const std::string &shape,
                             const std::vector<uint8_t> &data,
                             const char *fortran = "False") {
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': " + fortran +
                       ", 'shape': " + shape + ", }";
  size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64)
    header += ' ';
  header += '\n';
  std::vector<uint8_t> bytes = {0x93,           'N', 'U', 'M', 'P', 'Y',
                                uint8_t(major), 0};
  for (int i = 0; i < (major == 1 ? 2 : 4); ++i)
    bytes.push_back(uint8_t(header.size() >> (8 * i)));
  bytes.insert(bytes.end(), header.begin(), header.end());
  return concat(bytes, data);
}

class SampleArrayTest : public TemporaryDirectoryTest {
protected:
  SampleArray load(const std::vector<uint8_t> &bytes,
                   const std::string &name = "a.npy") {
    std::string path = directory + "/" + name;
    writeRaw(path, bytes);
    SampleArray array;
    std::string error;
    EXPECT_TRUE(loadSampleArray(path, "x", array, error)) << error;
    return array;
  }

  // Loads `bytes` and expects an error naming the file and containing
  // `needle`.
  void expectError(const std::vector<uint8_t> &bytes, const std::string &needle,
                   const std::string &name = "a.npy") {
    std::string path = directory + "/" + name;
    writeRaw(path, bytes);
    SampleArray array;
    std::string error;
    EXPECT_FALSE(loadSampleArray(path, "x", array, error));
    EXPECT_EQ(error.rfind(path + ": ", 0), 0u) << error;
    EXPECT_NE(error.find(needle), std::string::npos) << error;
    EXPECT_TRUE(array.shape.empty());
  }
};

TEST_F(SampleArrayTest, ReadsEveryFormatVersion) {
  std::vector<float> values = {1.5f, -2.0f, 0.25f, 3.0f, 4.0f, -0.5f};
  for (int major : {1, 2, 3}) {
    SampleArray array = load(npyFile(major, "<f4", "(2, 3)", bytesOf(values)));
    EXPECT_EQ(array.shape, (std::vector<int64_t>{2, 3})) << major;
    EXPECT_FALSE(array.isInteger);
    EXPECT_EQ(array.floats, values);
    EXPECT_EQ(array.elementType, "<f4");
  }
}

TEST_F(SampleArrayTest, ConvertsFloats) {
  // f16 0x3c00 = 1, 0xc000 = -2; f64 rounds to the nearest f32.
  SampleArray half = load(npyFile(
      1, "<f2", "(2,)", bytesOf(std::vector<uint16_t>{0x3c00, 0xc000})));
  EXPECT_EQ(half.floats, (std::vector<float>{1.0f, -2.0f}));
  SampleArray wide =
      load(npyFile(1, "<f8", "(2,)", bytesOf(std::vector<double>{0.1, -1e-3})));
  EXPECT_EQ(wide.floats, (std::vector<float>{0.1f, -1e-3f}));
}

TEST_F(SampleArrayTest, ConvertsIntegers) {
  EXPECT_EQ(load(npyFile(1, "|u1", "(3,)", {0, 7, 255})).ints,
            (std::vector<int32_t>{0, 7, 255}));
  EXPECT_EQ(
      load(npyFile(1, "<u2", "(2,)", bytesOf(std::vector<uint16_t>{65535, 3})))
          .ints,
      (std::vector<int32_t>{65535, 3}));
  SampleArray longs = load(npyFile(
      1, "<i8", "(2, 1)", bytesOf(std::vector<int64_t>{-2147483648LL, 9})));
  EXPECT_TRUE(longs.isInteger);
  EXPECT_EQ(longs.shape, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(longs.ints, (std::vector<int32_t>{-2147483647 - 1, 9}));
  EXPECT_EQ(
      load(npyFile(1, "<i4", "(1,)", bytesOf(std::vector<int32_t>{-4}))).ints,
      (std::vector<int32_t>{-4}));
}

TEST_F(SampleArrayTest, ValuesThatDoNotConvert) {
  expectError(
      npyFile(1, "<i8", "(2,)", bytesOf(std::vector<int64_t>{1, 2147483648LL})),
      "value 2147483648 at index 1 does not fit i32");
  expectError(npyFile(1, "<f8", "(1,)", bytesOf(std::vector<double>{1e300})),
              "value 1e+300 at index 0 does not fit f32");
}

TEST_F(SampleArrayTest, LayoutErrors) {
  std::vector<uint8_t> data = bytesOf(std::vector<float>{1, 2, 3, 4});
  expectError(npyFile(1, "<f4", "(2, 2)", data, "True"),
              "Fortran-order arrays are not supported");
  expectError(npyFile(1, ">f4", "(2, 2)", data), "big-endian elements");
  expectError(npyFile(1, "<c8", "(2,)", data), "unsupported element type");
  expectError(npyFile(1, "<f4", "()", bytesOf(std::vector<float>{1})),
              "holds a scalar");
}

TEST_F(SampleArrayTest, TruncatedAndTrailingData) {
  std::vector<uint8_t> data = bytesOf(std::vector<float>{1, 2, 3});
  expectError(npyFile(1, "<f4", "(4,)", data),
              "truncated: shape (4,) of '<f4' needs 16 bytes of data, the "
              "file has 12");
  expectError(npyFile(1, "<f4", "(2,)", data), "trailing data");
  std::vector<uint8_t> file = npyFile(1, "<f4", "(3,)", data);
  expectError({file.begin(), file.begin() + 20}, "truncated header");
  expectError({'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0, 0}, "not a NumPy .npy file");
}

TEST_F(SampleArrayTest, MissingFile) {
  SampleArray array;
  std::string error;
  EXPECT_FALSE(loadSampleArray(directory + "/none.npy", "x", array, error));
  EXPECT_EQ(error, directory + "/none.npy: cannot open: No such file or "
                               "directory");
}

TEST_F(SampleArrayTest, SafetensorsTensorByNameOrOnlyOne) {
  std::string path = directory + "/data.safetensors", error;
  TensorRecord x{"x", "F32", {2, 1}, bytesOf(std::vector<float>{1, 2})};
  TensorRecord y{"y", "I64", {2}, bytesOf(std::vector<int64_t>{3, 4})};
  ASSERT_TRUE(writeSafetensors(path, {x, y}, {}, error)) << error;
  SampleArray array;
  ASSERT_TRUE(loadSampleArray(path, "y", array, error)) << error;
  EXPECT_EQ(array.ints, (std::vector<int32_t>{3, 4}));
  EXPECT_EQ(array.elementType, "I64");
  EXPECT_FALSE(loadSampleArray(path, "z", array, error));
  EXPECT_EQ(error, path + ": holds no tensor named 'z' among its 2 tensors");

  ASSERT_TRUE(writeSafetensors(path, {x}, {}, error)) << error;
  ASSERT_TRUE(loadSampleArray(path, "images", array, error)) << error;
  EXPECT_EQ(array.floats, (std::vector<float>{1, 2}));
  TensorRecord flags{"x", "BOOL", {2}, {0, 1}};
  ASSERT_TRUE(writeSafetensors(path, {flags}, {}, error)) << error;
  EXPECT_FALSE(loadSampleArray(path, "x", array, error));
  EXPECT_EQ(error, path + ": tensor 'x' is BOOL; data tensors are F16, BF16, "
                          "F32, I32 or I64");
}

TEST_F(SampleArrayTest, TokenFiles) {
  std::string path = directory + "/train.bin", error;
  std::vector<uint16_t> tokens(1000);
  for (size_t i = 0; i < tokens.size(); ++i)
    tokens[i] = uint16_t(i * 37 % 1000);
  writeRaw(path, bytesOf(tokens));
  TokenFile file;
  ASSERT_TRUE(file.open(path, 2, 1000, error)) << error;
  ASSERT_EQ(file.size(), 1000);
  EXPECT_EQ(file.token(999), 999 * 37 % 1000);

  constexpr int64_t kLength = 8;
  std::vector<int64_t> offsets = tokenWindowOffsets(1000, kLength, 5, 3, 4);
  EXPECT_EQ(offsets, tokenWindowOffsets(1000, kLength, 5, 3, 4));
  EXPECT_NE(offsets, tokenWindowOffsets(1000, kLength, 5, 4, 4));
  EXPECT_NE(offsets, tokenWindowOffsets(1000, kLength, 6, 3, 4));
  std::vector<int32_t> inputs(4 * kLength), targets(4 * kLength);
  gatherTokenWindows(file, offsets, kLength, inputs.data(), targets.data());
  for (int64_t row = 0; row < 4; ++row)
    for (int64_t t = 0; t < kLength; ++t) {
      EXPECT_EQ(inputs[row * kLength + t], tokens[offsets[row] + t]);
      EXPECT_EQ(targets[row * kLength + t], tokens[offsets[row] + t + 1]);
    }
  // Every offset a window fits at is drawn, and none past it.
  std::vector<int64_t> many = tokenWindowOffsets(10, kLength, 1, 0, 200);
  EXPECT_EQ(*std::min_element(many.begin(), many.end()), 0);
  EXPECT_EQ(*std::max_element(many.begin(), many.end()), 10 - kLength - 1);
}

TEST_F(SampleArrayTest, TokenFileErrors) {
  std::string path = directory + "/train.bin", error;
  writeRaw(path, {1, 2, 200, 3});
  TokenFile bytes;
  EXPECT_FALSE(bytes.open(path, 1, 100, error));
  EXPECT_EQ(error, path + ": token 200 at offset 2 is outside the vocabulary "
                          "[0, 100)");
  writeRaw(path, {1, 0, 2});
  TokenFile halves;
  EXPECT_FALSE(halves.open(path, 2, 100, error));
  EXPECT_EQ(error, path + ": 3 bytes are not a whole number of uint16 tokens");
  TokenFile missing;
  EXPECT_FALSE(missing.open(directory + "/none.bin", 2, 100, error));
  EXPECT_EQ(error, directory + "/none.bin: cannot open: No such file or "
                               "directory");
}

} // namespace
