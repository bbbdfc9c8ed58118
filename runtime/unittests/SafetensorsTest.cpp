//===- SafetensorsTest.cpp - Tests for safetensors I/O ----------*- C++ -*-===//

#include "mpt/safetensors.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <sys/resource.h>

using namespace mpt::runtime;

namespace {

template <typename T>
std::vector<uint8_t> bytesOf(const std::vector<T> &values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

std::vector<uint8_t> readRaw(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeRaw(const std::string &path, const std::vector<uint8_t> &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
}

// The header, with its padding, of a safetensors file's `bytes`; empty when
// they are too short to hold it.
std::string headerOf(const std::vector<uint8_t> &bytes) {
  if (bytes.size() < 8)
    return {};
  uint64_t headerSize = 0;
  for (int i = 7; i >= 0; --i)
    headerSize = headerSize << 8 | bytes[i];
  if (headerSize > bytes.size() - 8)
    return {};
  return std::string(bytes.begin() + 8, bytes.begin() + 8 + headerSize);
}

// A safetensors file from a literal header and `dataSize` bytes of data.
std::vector<uint8_t> rawFile(const std::string &header, size_t dataSize) {
  std::vector<uint8_t> bytes(8 + header.size() + dataSize, 0xAB);
  for (int i = 0; i < 8; ++i)
    bytes[i] = static_cast<uint8_t>(uint64_t(header.size()) >> (8 * i));
  std::copy(header.begin(), header.end(), bytes.begin() + 8);
  return bytes;
}

// Every dtype, a scalar, an empty tensor, and bit patterns a float round trip
// would disturb (a NaN payload, a negative zero, a subnormal).
std::vector<TensorRecord> sampleTensors() {
  std::vector<TensorRecord> tensors;
  tensors.push_back({"weights.f32", "F32", {2, 3}, {}});
  uint32_t f32Bits[] = {0x7FC00123, 0x80000000, 0x00000001,
                        0x3F800000, 0xFF800000, 0x12345678};
  tensors.back().data.assign(reinterpret_cast<uint8_t *>(f32Bits),
                             reinterpret_cast<uint8_t *>(f32Bits) + 24);
  tensors.push_back(
      {"half", "F16", {3}, bytesOf<uint16_t>({0x7E01, 0x8000, 0x3C00})});
  tensors.push_back(
      {"brain", "BF16", {2, 1}, bytesOf<uint16_t>({0x7FC1, 0x0001})});
  tensors.push_back({"steps", "I64", {}, bytesOf<int64_t>({-1234567890123})});
  tensors.push_back(
      {"counts", "I32", {1, 2, 2}, bytesOf<int32_t>({1, -2, 3, -4})});
  tensors.push_back({"empty", "F32", {0, 4}, {}});
  tensors.push_back({"flags", "BOOL", {3}, {1, 0, 1}});
  tensors.push_back({"loss_scale", "F32", {}, bytesOf<float>({65536.0f})});
  return tensors;
}

class SafetensorsTest : public ::testing::Test {
protected:
  void SetUp() override {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "mpt-safetensors-test-XXXXXX")
            .string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    directory = pattern;
    path = directory + "/state.safetensors";
  }

  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(directory, ignored);
  }

  std::vector<std::string> directoryEntries() const {
    std::vector<std::string> names;
    for (const auto &entry : std::filesystem::directory_iterator(directory))
      names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

  // Reads `path` and expects failure with an error containing `needle`.
  void expectReadError(const std::string &needle) {
    std::vector<TensorRecord> tensors;
    std::map<std::string, std::string> metadata;
    std::string error;
    EXPECT_FALSE(readSafetensors(path, tensors, metadata, error));
    EXPECT_NE(error.find(needle), std::string::npos) << error;
    EXPECT_EQ(error.rfind(path, 0), 0u) << error;
  }

  void expectRawReadError(const std::string &header, size_t dataSize,
                          const std::string &needle) {
    writeRaw(path, rawFile(header, dataSize));
    expectReadError(needle);
  }

  std::string directory, path;
};

TEST_F(SafetensorsTest, RoundTripIsBitExact) {
  std::vector<TensorRecord> written = sampleTensors();
  std::map<std::string, std::string> metadata = {
      {"format", "pt"}, {"step", "1200"}, {"note", "ünïcode \"quoted\"\n"}};
  std::string error;
  ASSERT_TRUE(writeSafetensors(path, written, metadata, error)) << error;

  std::vector<TensorRecord> read;
  std::map<std::string, std::string> readMetadata;
  ASSERT_TRUE(readSafetensors(path, read, readMetadata, error)) << error;
  EXPECT_EQ(readMetadata, metadata);
  ASSERT_EQ(read.size(), written.size());
  for (size_t i = 0; i < read.size(); ++i) {
    SCOPED_TRACE(written[i].name);
    // Offset order is the write order, not the header's (sorted) key order.
    EXPECT_EQ(read[i].name, written[i].name);
    EXPECT_EQ(read[i].dtype, written[i].dtype);
    EXPECT_EQ(read[i].shape, written[i].shape);
    EXPECT_EQ(read[i].data, written[i].data);
  }
}

TEST_F(SafetensorsTest, FileLayout) {
  std::string error;
  ASSERT_TRUE(writeSafetensors(
      path,
      {{"b", "I32", {2}, bytesOf<int32_t>({1, 2})}, {"a", "BOOL", {}, {1}}}, {},
      error))
      << error;
  std::vector<uint8_t> bytes = readRaw(path);
  std::string header = headerOf(bytes);
  EXPECT_EQ(header.size() % 8, 0u);
  ASSERT_EQ(bytes.size(), 8 + header.size() + 9);
  EXPECT_EQ(header.substr(0, header.find_last_not_of(' ') + 1),
            R"({"a":{"data_offsets":[8,9],"dtype":"BOOL","shape":[]},)"
            R"("b":{"data_offsets":[0,8],"dtype":"I32","shape":[2]}})");
  EXPECT_EQ(
      std::vector<uint8_t>(bytes.begin() + 8 + header.size(), bytes.end()),
      (std::vector<uint8_t>{1, 0, 0, 0, 2, 0, 0, 0, 1}));
}

// The bytes of a header: keys in byte order, compact, integers, strings with
// only quotes, backslashes and control characters escaped (UTF-8 kept), as
// nlohmann-json wrote them before llvm::json did.
TEST_F(SafetensorsTest, HeaderBytes) {
  std::string error;
  ASSERT_TRUE(
      writeSafetensors(path,
                       {{"w\xc3\xa9", "F16", {1}, bytesOf<uint16_t>({1})},
                        {"B", "I64", {}, bytesOf<int64_t>({7})},
                        {"a.b", "F32", {1, 0}, {}}},
                       {{"position", "12"},
                        {"format", "mpt-checkpoint-1"},
                        {"note", "\"q\" \\ /\n\t\r\x01\x7f \xc3\xbc"}},
                       error))
      << error;
  EXPECT_EQ(
      headerOf(readRaw(path)),
      "{\"B\":{\"data_offsets\":[2,10],\"dtype\":\"I64\",\"shape\":[]},"
      "\"__metadata__\":{\"format\":\"mpt-checkpoint-1\",\"note\":\"\\\"q\\\" "
      "\\\\ /\\n\\t\\r\\u0001\x7f \xc3\xbc\",\"position\":\"12\"},"
      "\"a.b\":{\"data_offsets\":[10,10],\"dtype\":\"F32\",\"shape\":[1,0]},"
      "\"w\xc3\xa9\":{\"data_offsets\":[0,2],\"dtype\":\"F16\",\"shape\":[1]}}"
      "       ");
}

TEST_F(SafetensorsTest, NoTensors) {
  std::string error;
  ASSERT_TRUE(writeSafetensors(path, {}, {}, error)) << error;
  std::vector<TensorRecord> tensors = sampleTensors();
  std::map<std::string, std::string> metadata = {{"stale", "x"}};
  ASSERT_TRUE(readSafetensors(path, tensors, metadata, error)) << error;
  EXPECT_TRUE(tensors.empty());
  EXPECT_TRUE(metadata.empty());
}

TEST_F(SafetensorsTest, AtomicWriteLeavesNoTemporaryFiles) {
  std::string error;
  ASSERT_TRUE(writeSafetensors(path, sampleTensors(), {{"v", "1"}}, error));
  ASSERT_TRUE(writeSafetensors(path, {{"x", "F32", {}, bytesOf<float>({2.f})}},
                               {{"v", "2"}}, error))
      << error;
  EXPECT_EQ(directoryEntries(), std::vector<std::string>{"state.safetensors"});
  std::vector<TensorRecord> tensors;
  std::map<std::string, std::string> metadata;
  ASSERT_TRUE(readSafetensors(path, tensors, metadata, error)) << error;
  ASSERT_EQ(tensors.size(), 1u);
  EXPECT_EQ(tensors[0].name, "x");
  EXPECT_EQ(metadata.at("v"), "2");
}

TEST_F(SafetensorsTest, WriteToMissingDirectoryFails) {
  std::string missing = directory + "/no/such/dir/state.safetensors";
  std::string error;
  EXPECT_FALSE(writeSafetensors(missing, sampleTensors(), {}, error));
  EXPECT_EQ(error.rfind(missing + ": cannot create " + missing + ".tmp.", 0),
            0u)
      << error;
  EXPECT_FALSE(std::filesystem::exists(directory + "/no"));
}

TEST_F(SafetensorsTest, FailedWriteKeepsPreviousFile) {
  std::string error;
  ASSERT_TRUE(writeSafetensors(path, sampleTensors(), {{"v", "1"}}, error));
  std::vector<uint8_t> before = readRaw(path);

  // Fail in the middle of writing the data: the file size limit makes writes
  // past 4 KiB fail with EFBIG instead of raising SIGXFSZ.
  struct rlimit saved;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  auto *previousHandler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = saved;
  small.rlim_cur = 4096;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  std::vector<TensorRecord> big = {
      {"big", "F32", {1 << 16}, std::vector<uint8_t>(1 << 18, 0x11)}};
  bool written = writeSafetensors(path, big, {}, error);
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &saved), 0);
  std::signal(SIGXFSZ, previousHandler);

  EXPECT_FALSE(written);
  EXPECT_EQ(error.rfind(path + ": cannot ", 0), 0u) << error;
  EXPECT_NE(error.find("File too large"), std::string::npos) << error;
  EXPECT_EQ(readRaw(path), before);
  EXPECT_EQ(directoryEntries(), std::vector<std::string>{"state.safetensors"});
}

TEST_F(SafetensorsTest, InvalidTensorsAreNotWritten) {
  std::string error;
  ASSERT_TRUE(writeSafetensors(path, sampleTensors(), {}, error));
  std::vector<uint8_t> before = readRaw(path);
  struct Case {
    TensorRecord tensor;
    std::string message;
  } cases[] = {
      {{"w", "F32", {2}, {0, 0, 0, 0}},
       "tensor 'w': holds 4 bytes but F32 [2] needs 8"},
      {{"w", "F8", {1}, {0}}, "tensor 'w': unsupported dtype 'F8'"},
      {{"w", "I32", {-1}, {}}, "tensor 'w': invalid shape [-1]"},
      {{"w", "BOOL", {INT64_MAX, 2}, {}},
       "tensor 'w': invalid shape [9223372036854775807, 2]"},
      {{"", "BOOL", {}, {1}}, "tensor '': invalid name"},
      {{"__metadata__", "BOOL", {}, {1}},
       "tensor '__metadata__': invalid name"},
      {{"bad\xff", "BOOL", {}, {1}}, "tensor 'bad\xff': invalid name"},
  };
  for (const Case &c : cases) {
    EXPECT_FALSE(writeSafetensors(path, {c.tensor}, {}, error));
    EXPECT_EQ(error, path + ": " + c.message) << error;
  }
  TensorRecord one = {"w", "BOOL", {}, {1}};
  EXPECT_FALSE(writeSafetensors(path, {one, one}, {}, error));
  EXPECT_EQ(error, path + ": tensor 'w': duplicate name");
  EXPECT_FALSE(writeSafetensors(path, {}, {{"k", "\xc0\x80"}}, error));
  EXPECT_EQ(error, path + ": metadata 'k' is not valid UTF-8");
  EXPECT_EQ(readRaw(path), before);
  EXPECT_EQ(directoryEntries(), std::vector<std::string>{"state.safetensors"});
}

TEST_F(SafetensorsTest, MissingFile) {
  expectReadError(": cannot open: No such file or directory");
}

TEST_F(SafetensorsTest, TooShort) {
  writeRaw(path, {1, 2, 3});
  expectReadError("file of 3 bytes is too short for a safetensors header");
}

TEST_F(SafetensorsTest, HeaderLengthPastEnd) {
  std::vector<uint8_t> bytes = rawFile("{}      ", 0);
  bytes[0] = 9;
  writeRaw(path, bytes);
  expectReadError("header length 9 extends past the end of the 16-byte file");
  bytes[7] = 0xFF;
  writeRaw(path, bytes);
  expectReadError("extends past the end");
}

TEST_F(SafetensorsTest, CorruptedHeader) {
  std::string error;
  ASSERT_TRUE(writeSafetensors(path, sampleTensors(), {}, error));
  std::vector<uint8_t> bytes = readRaw(path);
  bytes[8 + 1] = ',';
  writeRaw(path, bytes);
  expectReadError("invalid JSON header: [1:2, byte=2]: Expected object key");

  expectRawReadError("", 0, "invalid JSON header");
  expectRawReadError("[1, 2]  ", 0, "header is not a JSON object");
  expectRawReadError(R"({"__metadata__": 3})", 0,
                     R"("__metadata__" is not an object)");
  expectRawReadError(R"({"__metadata__": {"k": 1}})", 0,
                     "metadata 'k' is not a string");
  expectRawReadError(R"({"t": [1]})", 0, "tensor 't': entry is not an object");
  expectRawReadError(R"({"t": {"shape": [], "data_offsets": [0, 4]}})", 4,
                     "tensor 't': missing or non-string \"dtype\"");
  expectRawReadError(R"({"t": {"dtype": "F32", "data_offsets": [0, 4]}})", 4,
                     "tensor 't': missing or non-array \"shape\"");
  expectRawReadError(R"({"t": {"dtype": "F32", "shape": [-1], )"
                     R"("data_offsets": [0, 4]}})",
                     4, "tensor 't': invalid \"shape\" [-1]");
  expectRawReadError(R"({"t": {"dtype": "F32", "shape": []}})", 4,
                     "tensor 't': \"data_offsets\" is not a pair");
  expectRawReadError(R"({"t": {"dtype": "F32", "shape": [], )"
                     R"("data_offsets": [0, -4]}})",
                     4, "tensor 't': \"data_offsets\" is not a pair");
}

TEST_F(SafetensorsTest, DuplicateKeyIsAnError) {
  expectRawReadError(R"({"t": {"dtype": "F32", "shape": [], )"
                     R"("data_offsets": [0, 4]}, )"
                     R"("t": {"dtype": "F32", "shape": [], )"
                     R"("data_offsets": [0, 4]}})",
                     4, "duplicate key 't' in the header");
  expectRawReadError(R"({"__metadata__": {"k": "a", "k": "b"}})", 0,
                     "duplicate key 'k' in the header");
}

TEST_F(SafetensorsTest, UnknownDtype) {
  expectRawReadError(R"({"t": {"dtype": "F8_E4M3", "shape": [2], )"
                     R"("data_offsets": [0, 2]}})",
                     2, "tensor 't': unknown dtype 'F8_E4M3'");
}

TEST_F(SafetensorsTest, BadOffsets) {
  expectRawReadError(R"({"t": {"dtype": "F32", "shape": [2], )"
                     R"("data_offsets": [0, 4]}})",
                     4,
                     "tensor 't': data_offsets [0, 4] do not match F32 [2] "
                     "(8 bytes)");
  expectRawReadError(R"({"t": {"dtype": "F32", "shape": [], )"
                     R"("data_offsets": [4, 0]}})",
                     4, "tensor 't': data_offsets [4, 0] do not match");
  expectRawReadError(R"({"t": {"dtype": "F32", "shape": [4000000000000000000],)"
                     R"( "data_offsets": [0, 4]}})",
                     4,
                     "tensor 't': \"shape\" [4000000000000000000] is too "
                     "large");
  expectRawReadError(R"({"a": {"dtype": "F32", "shape": [2], )"
                     R"("data_offsets": [0, 8]}, )"
                     R"("b": {"dtype": "I32", "shape": [1], )"
                     R"("data_offsets": [4, 8]}})",
                     8, "tensor 'b': data_offsets [4, 8] overlap tensor 'a'");
  expectRawReadError(R"({"a": {"dtype": "F32", "shape": [1], )"
                     R"("data_offsets": [0, 4]}, )"
                     R"("b": {"dtype": "I32", "shape": [1], )"
                     R"("data_offsets": [8, 12]}})",
                     12,
                     "tensor 'b': data_offsets [8, 12] leave a hole after "
                     "byte 4");
  expectRawReadError(R"({"t": {"dtype": "I64", "shape": [1], )"
                     R"("data_offsets": [8, 16]}})",
                     16, "tensor 't': data_offsets [8, 16] leave a hole");
  expectRawReadError(R"({"t": {"dtype": "I64", "shape": [2], )"
                     R"("data_offsets": [0, 16]}})",
                     12,
                     "tensor 't': data_offsets [0, 16] extend past the 12 "
                     "data bytes in the file (truncated?)");
  expectRawReadError(R"({"t": {"dtype": "BOOL", "shape": [2], )"
                     R"("data_offsets": [0, 2]}})",
                     3,
                     "the header describes 2 data bytes but the file holds "
                     "3");
}

TEST_F(SafetensorsTest, EveryTruncationIsAnError) {
  std::string error;
  ASSERT_TRUE(writeSafetensors(path, sampleTensors(), {{"a", "b"}}, error));
  std::vector<uint8_t> bytes = readRaw(path);
  for (size_t size = 0; size < bytes.size(); ++size) {
    SCOPED_TRACE(size);
    writeRaw(path, std::vector<uint8_t>(bytes.begin(), bytes.begin() + size));
    std::vector<TensorRecord> tensors;
    std::map<std::string, std::string> metadata;
    EXPECT_FALSE(readSafetensors(path, tensors, metadata, error));
    EXPECT_EQ(error.rfind(path + ": ", 0), 0u) << error;
  }
}

} // namespace
