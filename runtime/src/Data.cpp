//===- Data.cpp - Training data sources for the runtime ---------*- C++ -*-===//

#include "mpt/data.h"
#include "ParallelFor.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>

using namespace mpt::runtime;

namespace {

constexpr uint32_t kImagesMagic = 0x00000803;
constexpr uint32_t kLabelsMagic = 0x00000801;
constexpr int32_t kIdxClasses = 10;
constexpr double kTwoPi = 6.283185307179586476925;

// Independent random streams derived from one user seed, so that e.g. the
// prototypes of a synthetic set do not shift when its noise changes.
enum class Stream : uint32_t {
  Prototypes = 1,
  Noise = 2,
  EpochOrder = 3,
  TokenWindows = 4
};

// std::seed_seq and std::mt19937_64 are fully specified by the standard, so
// this engine produces the same sequence with every standard library (unlike
// the distributions, which are implementation-defined and therefore unused).
std::mt19937_64 makeEngine(uint64_t seed, Stream stream, uint64_t extra = 0) {
  std::seed_seq seq{static_cast<uint32_t>(seed),
                    static_cast<uint32_t>(seed >> 32),
                    static_cast<uint32_t>(stream), static_cast<uint32_t>(extra),
                    static_cast<uint32_t>(extra >> 32)};
  return std::mt19937_64(seq);
}

// Uniform in [0, 1) with 53 random bits.
double uniform01(std::mt19937_64 &engine) {
  return static_cast<double>(engine() >> 11) * 0x1.0p-53;
}

// Uniform in [0, bound) without modulo bias: draws below 2^64 mod bound are
// rejected so that the accepted range is a whole number of periods.
uint64_t uniformBelow(std::mt19937_64 &engine, uint64_t bound) {
  uint64_t threshold = (0 - bound) % bound;
  while (true) {
    uint64_t x = engine();
    if (x >= threshold)
      return x % bound;
  }
}

// Standard normal samples by the Box-Muller transform, using both outputs of
// each transform.
class Gaussian {
public:
  explicit Gaussian(std::mt19937_64 engine) : engine(engine) {}

  double next() {
    if (hasSpare) {
      hasSpare = false;
      return spare;
    }
    // 1 - u lies in (0, 1], keeping the logarithm finite.
    double radius = std::sqrt(-2.0 * std::log(1.0 - uniform01(engine)));
    double angle = kTwoPi * uniform01(engine);
    spare = radius * std::sin(angle);
    hasSpare = true;
    return radius * std::cos(angle);
  }

private:
  std::mt19937_64 engine;
  double spare = 0.0;
  bool hasSpare = false;
};

std::string hex32(uint32_t value) {
  char buffer[16];
  std::snprintf(buffer, sizeof(buffer), "0x%08x", value);
  return buffer;
}

// Reads a gzip stream, rejecting plain files and distinguishing truncation and
// corruption, with every error prefixed by the file name.
class GzReader {
public:
  explicit GzReader(std::string path) : path(std::move(path)) {}
  GzReader(const GzReader &) = delete;
  GzReader &operator=(const GzReader &) = delete;
  ~GzReader() {
    if (file)
      gzclose(file);
  }

  bool open(std::string &error) {
    errno = 0;
    file = gzopen(path.c_str(), "rb");
    if (!file)
      return fail(error, std::string("cannot open: ") +
                             (errno ? std::strerror(errno) : "out of memory"));
    // Without this check zlib would silently pass an uncompressed file through.
    if (gzdirect(file))
      return fail(error, "not a gzip file");
    return true;
  }

  bool readExact(void *destination, size_t size, const char *what,
                 std::string &error) {
    auto *bytes = static_cast<unsigned char *>(destination);
    while (size > 0) {
      unsigned chunk = static_cast<unsigned>(std::min<size_t>(size, 1u << 30));
      int got = gzread(file, bytes, chunk);
      if (got < 0)
        return failWithZlib(error);
      if (got == 0) {
        if (errorCode() != Z_OK)
          return failWithZlib(error);
        return fail(error, std::string("truncated while reading ") + what);
      }
      bytes += got;
      size -= static_cast<size_t>(got);
    }
    return true;
  }

  bool readBigEndian32(uint32_t &value, const char *what, std::string &error) {
    unsigned char bytes[4];
    if (!readExact(bytes, sizeof(bytes), what, error))
      return false;
    value = uint32_t(bytes[0]) << 24 | uint32_t(bytes[1]) << 16 |
            uint32_t(bytes[2]) << 8 | uint32_t(bytes[3]);
    return true;
  }

  // Reads `size` bytes in bounded chunks so that a corrupted header claiming
  // a huge count fails as truncated instead of allocating that much up front.
  bool readPayload(std::vector<uint8_t> &bytes, uint64_t size, const char *what,
                   std::string &error) {
    constexpr uint64_t kChunk = 1 << 22;
    bytes.clear();
    while (bytes.size() < size) {
      size_t offset = bytes.size();
      size_t chunk = static_cast<size_t>(std::min(kChunk, size - offset));
      bytes.resize(offset + chunk);
      if (!readExact(bytes.data() + offset, chunk, what, error))
        return false;
    }
    return true;
  }

  // Also consumes the gzip trailer, whose CRC check catches corruption and
  // whose absence reveals truncation right after the payload.
  bool expectEnd(std::string &error) {
    unsigned char extra;
    int got = gzread(file, &extra, 1);
    if (got < 0 || (got == 0 && errorCode() != Z_OK))
      return failWithZlib(error);
    if (got > 0)
      return fail(error, "unexpected data after the last item");
    return true;
  }

  bool fail(std::string &error, const std::string &problem) const {
    error = path + ": " + problem;
    return false;
  }

private:
  int errorCode() {
    int code = Z_OK;
    gzerror(file, &code);
    return code;
  }

  bool failWithZlib(std::string &error) {
    int code = Z_OK;
    const char *message = gzerror(file, &code);
    if (code == Z_BUF_ERROR)
      return fail(error, "truncated gzip stream");
    return fail(error, std::string("corrupt gzip data: ") + message);
  }

  std::string path;
  gzFile file = nullptr;
};

bool readIdxImages(const std::string &path, Dataset &images,
                   std::string &error) {
  GzReader reader(path);
  uint32_t magic, count, height, width;
  if (!reader.open(error) ||
      !reader.readBigEndian32(magic, "the header", error))
    return false;
  if (magic != kImagesMagic)
    return reader.fail(error, "expected magic " + hex32(kImagesMagic) +
                                  ", got " + hex32(magic));
  if (!reader.readBigEndian32(count, "the header", error) ||
      !reader.readBigEndian32(height, "the header", error) ||
      !reader.readBigEndian32(width, "the header", error))
    return false;

  // height * width cannot overflow 64 bits; the product with count and the
  // float size can, and must also fit the int64_t-indexed Dataset.
  uint64_t pixelsPerImage = uint64_t(height) * width;
  if (pixelsPerImage != 0 &&
      count > uint64_t(std::numeric_limits<int64_t>::max()) / sizeof(float) /
                  pixelsPerImage)
    return reader.fail(error, "image dimensions " + std::to_string(count) +
                                  "x" + std::to_string(height) + "x" +
                                  std::to_string(width) + " are too large");
  std::vector<uint8_t> pixels;
  if (!reader.readPayload(pixels, count * pixelsPerImage, "the pixels",
                          error) ||
      !reader.expectEnd(error))
    return false;

  images.count = count;
  images.height = height;
  images.width = width;
  images.images.resize(pixels.size());
  for (size_t i = 0; i < pixels.size(); ++i)
    images.images[i] = pixels[i] / 255.0f;
  return true;
}

bool readIdxLabels(const std::string &path, std::vector<int32_t> &labels,
                   std::string &error) {
  GzReader reader(path);
  uint32_t magic, count;
  if (!reader.open(error) ||
      !reader.readBigEndian32(magic, "the header", error))
    return false;
  if (magic != kLabelsMagic)
    return reader.fail(error, "expected magic " + hex32(kLabelsMagic) +
                                  ", got " + hex32(magic));
  std::vector<uint8_t> bytes;
  if (!reader.readBigEndian32(count, "the header", error) ||
      !reader.readPayload(bytes, count, "the labels", error) ||
      !reader.expectEnd(error))
    return false;

  for (size_t i = 0; i < bytes.size(); ++i)
    if (bytes[i] >= kIdxClasses)
      return reader.fail(error, "label " + std::to_string(bytes[i]) +
                                    " of item " + std::to_string(i) +
                                    " is outside [0, " +
                                    std::to_string(kIdxClasses) + ")");
  labels.assign(bytes.begin(), bytes.end());
  return true;
}

} // namespace

bool mpt::runtime::loadIdxDataset(const std::string &imagesPath,
                                  const std::string &labelsPath, Dataset &out,
                                  std::string &error) {
  Dataset data;
  if (!readIdxImages(imagesPath, data, error) ||
      !readIdxLabels(labelsPath, data.labels, error))
    return false;
  if (static_cast<int64_t>(data.labels.size()) != data.count) {
    error = labelsPath + ": holds " + std::to_string(data.labels.size()) +
            " labels but " + imagesPath + " holds " +
            std::to_string(data.count) + " images";
    return false;
  }
  out = std::move(data);
  return true;
}

bool mpt::runtime::loadFashionMnist(const std::string &directory,
                                    const std::string &split, Dataset &out,
                                    std::string &error) {
  std::string prefix;
  if (split == "train") {
    prefix = "train";
  } else if (split == "test") {
    prefix = "t10k";
  } else {
    error = "unknown Fashion-MNIST split '" + split +
            "' (expected \"train\" or \"test\")";
    return false;
  }
  std::string base =
      directory.empty() ? kDefaultFashionMnistDirectory : directory;
  if (base.back() != '/')
    base += '/';
  return loadIdxDataset(base + prefix + "-images-idx3-ubyte.gz",
                        base + prefix + "-labels-idx1-ubyte.gz", out, error);
}

Dataset mpt::runtime::makeSyntheticDataset(int64_t count, int64_t height,
                                           int64_t width, int64_t classes,
                                           uint64_t seed) {
  // Noise comparable to the spread of the prototypes makes any single pixel
  // unreliable, so a model has to combine many; over a whole image the classes
  // stay easily separable.
  constexpr double kNoiseStddev = 0.25;
  assert(count >= 0 && height > 0 && width > 0 && classes > 0 &&
         "invalid synthetic dataset shape");
  const size_t pixels = static_cast<size_t>(height * width);

  std::mt19937_64 prototypeEngine = makeEngine(seed, Stream::Prototypes);
  std::vector<double> prototypes(static_cast<size_t>(classes) * pixels);
  for (double &value : prototypes)
    value = uniform01(prototypeEngine);

  Dataset data;
  data.count = count;
  data.height = height;
  data.width = width;
  data.images.resize(static_cast<size_t>(count) * pixels);
  data.labels.resize(static_cast<size_t>(count));
  // One noise sequence consumed example after example keeps example i the same
  // whatever the count.
  Gaussian noise(makeEngine(seed, Stream::Noise));
  for (int64_t i = 0; i < count; ++i) {
    int64_t label = i % classes;
    data.labels[i] = static_cast<int32_t>(label);
    const double *prototype = &prototypes[label * pixels];
    float *image = &data.images[i * pixels];
    for (size_t p = 0; p < pixels; ++p)
      image[p] = static_cast<float>(prototype[p] + kNoiseStddev * noise.next());
  }
  return data;
}

std::vector<int64_t> mpt::runtime::epochOrder(int64_t count, uint64_t seed,
                                              int64_t epoch) {
  std::vector<int64_t> order(static_cast<size_t>(std::max<int64_t>(count, 0)));
  for (size_t i = 0; i < order.size(); ++i)
    order[i] = static_cast<int64_t>(i);
  std::mt19937_64 engine =
      makeEngine(seed, Stream::EpochOrder, static_cast<uint64_t>(epoch));
  // Fisher-Yates by hand: std::shuffle's output differs between libraries.
  for (size_t i = order.size(); i > 1; --i)
    std::swap(order[i - 1], order[uniformBelow(engine, i)]);
  return order;
}

namespace {
/// gatherBatch, with `copyExample(source, i)` writing the pixels of the
/// batch's example i from `source`.
template <typename CopyExample>
bool gatherExamples(const Dataset &data, const std::vector<int64_t> &order,
                    int64_t batch, int64_t batchSize, int32_t *labels,
                    CopyExample copyExample) {
  if (batchSize <= 0 || batch < 0 ||
      batch >= static_cast<int64_t>(order.size()) / batchSize)
    return false;
  const int64_t *indices = order.data() + batch * batchSize;
  if (std::any_of(indices, indices + batchSize, [&](int64_t index) {
        return index < 0 || index >= data.count;
      }))
    return false;
  const size_t pixels = static_cast<size_t>(data.height * data.width);
  auto gatherRange = [&](int64_t first, int64_t last) {
    for (int64_t i = first; i < last; ++i) {
      copyExample(data.images.data() + indices[i] * pixels, i);
      labels[i] = data.labels[indices[i]];
    }
  };
  // One thread copies a few GB/s: a batch of tens of MB (a GPU's) would
  // take milliseconds of every step. Threads share it from 4 MiB read, each
  // reading at least 1 MiB.
  constexpr size_t kBytesPerThread = size_t(1) << 20;
  size_t bytes = size_t(batchSize) * pixels * sizeof(float);
  int64_t threads =
      bytes < 4 * kBytesPerThread
          ? 1
          : std::min<int64_t>({int64_t(cpuThreads()), 8,
                               int64_t(bytes / kBytesPerThread), batchSize});
  int64_t perThread = (batchSize + threads - 1) / threads;
  parallelFor(threads, static_cast<int>(threads), [&](int64_t part) {
    gatherRange(std::min(batchSize, part * perThread),
                std::min(batchSize, (part + 1) * perThread));
  });
  return true;
}
} // namespace

bool mpt::runtime::gatherBatch(const Dataset &data,
                               const std::vector<int64_t> &order, int64_t batch,
                               int64_t batchSize, float *images,
                               int32_t *labels) {
  const size_t pixels = static_cast<size_t>(data.height * data.width);
  return gatherExamples(data, order, batch, batchSize, labels,
                        [&](const float *source, int64_t i) {
                          std::copy_n(source, pixels, images + i * pixels);
                        });
}

bool mpt::runtime::gatherBatch(const Dataset &data,
                               const std::vector<int64_t> &order, int64_t batch,
                               int64_t batchSize, uint16_t *images,
                               HalfKind kind, int32_t *labels) {
  const size_t pixels = static_cast<size_t>(data.height * data.width);
  return gatherExamples(data, order, batch, batchSize, labels,
                        [&](const float *source, int64_t i) {
                          roundFloats(source, images + i * pixels, pixels,
                                      kind);
                        });
}

TokenFile::~TokenFile() {
  if (bytes)
    munmap(const_cast<uint8_t *>(bytes), mappedBytes);
}

bool TokenFile::open(const std::string &path, int bytesPerToken,
                     int64_t vocabulary, std::string &error) {
  auto fail = [&](const std::string &problem) {
    error = path + ": " + problem;
    return false;
  };
  assert((bytesPerToken == 1 || bytesPerToken == 2) && "uint8 or uint16");
  width = bytesPerToken;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return fail(std::string("cannot open: ") + std::strerror(errno));
  struct stat info;
  bool statted = ::fstat(fd, &info) == 0;
  if (!statted || !S_ISREG(info.st_mode)) {
    ::close(fd);
    return fail(statted ? "not a regular file" : std::strerror(errno));
  }
  if (info.st_size % width != 0) {
    ::close(fd);
    return fail(std::to_string(info.st_size) +
                " bytes are not a whole number of uint16 tokens");
  }
  mappedBytes = size_t(info.st_size);
  void *mapped = mappedBytes
                     ? mmap(nullptr, mappedBytes, PROT_READ, MAP_PRIVATE, fd, 0)
                     : nullptr;
  ::close(fd);
  if (mapped == MAP_FAILED)
    return fail(std::string("cannot map: ") + std::strerror(errno));
  bytes = static_cast<const uint8_t *>(mapped);
  count = int64_t(mappedBytes) / width;
  // Checked once here, so that a bad token fails the run before it starts
  // rather than as an error of some step hours in.
  for (int64_t offset = 0; offset < count; ++offset)
    if (token(offset) >= vocabulary)
      return fail("token " + std::to_string(token(offset)) + " at offset " +
                  std::to_string(offset) + " is outside the vocabulary [0, " +
                  std::to_string(vocabulary) + ")");
  return true;
}

std::vector<int64_t>
mpt::runtime::tokenWindowOffsets(int64_t tokens, int64_t length, uint64_t seed,
                                 int64_t index, int64_t batchSize) {
  assert(tokens > length && length >= 1 && batchSize >= 0 &&
         "a window of length + 1 tokens must fit the file");
  std::mt19937_64 engine =
      makeEngine(seed, Stream::TokenWindows, static_cast<uint64_t>(index));
  std::vector<int64_t> offsets(static_cast<size_t>(batchSize));
  for (int64_t &offset : offsets)
    offset = static_cast<int64_t>(
        uniformBelow(engine, static_cast<uint64_t>(tokens - length)));
  return offsets;
}

void mpt::runtime::gatherTokenWindows(const TokenFile &file,
                                      const std::vector<int64_t> &offsets,
                                      int64_t length, int32_t *inputs,
                                      int32_t *targets) {
  for (size_t row = 0; row < offsets.size(); ++row)
    for (int64_t t = 0; t < length; ++t) {
      inputs[row * length + t] = int32_t(file.token(offsets[row] + t));
      targets[row * length + t] = int32_t(file.token(offsets[row] + t + 1));
    }
}
