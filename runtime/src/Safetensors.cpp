//===- Safetensors.cpp - Reading and writing safetensors files --*- C++ -*-===//
//
// The project builds without C++ exceptions, so nlohmann::json is only used
// through its non-throwing entry points: parsing with allow_exceptions=false,
// type checks before every access, and UTF-8 validation before dump().
//
//===----------------------------------------------------------------------===//

#include "mpt/safetensors.h"
#include "mpt/Contract/Contract.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <set>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace mpt::runtime;
using nlohmann::json;

namespace {

constexpr const char *kMetadataKey = "__metadata__";

std::string inQuotes(const std::string &name) { return "'" + name + "'"; }

std::string systemError(const std::string &what) {
  return what + ": " + std::strerror(errno);
}

// dump() would abort on invalid UTF-8 (it throws, and exceptions are off), so
// strings are checked up front: well-formed, shortest form, no surrogates,
// nothing above U+10FFFF.
bool isValidUtf8(const std::string &text) {
  size_t i = 0, size = text.size();
  while (i < size) {
    auto byte = static_cast<unsigned char>(text[i]);
    size_t length;
    uint32_t codePoint;
    if (byte < 0x80) {
      ++i;
      continue;
    }
    if ((byte & 0xE0) == 0xC0) {
      length = 2;
      codePoint = byte & 0x1F;
    } else if ((byte & 0xF0) == 0xE0) {
      length = 3;
      codePoint = byte & 0x0F;
    } else if ((byte & 0xF8) == 0xF0) {
      length = 4;
      codePoint = byte & 0x07;
    } else {
      return false;
    }
    if (size - i < length)
      return false;
    for (size_t k = 1; k < length; ++k) {
      auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0) != 0x80)
        return false;
      codePoint = codePoint << 6 | (next & 0x3F);
    }
    static constexpr uint32_t kMinimum[] = {0, 0, 0x80, 0x800, 0x10000};
    if (codePoint < kMinimum[length] || codePoint > 0x10FFFF ||
        (codePoint >= 0xD800 && codePoint <= 0xDFFF))
      return false;
    i += length;
  }
  return true;
}

// numel * element size in bytes, or false when it does not fit in int64_t.
bool byteSize(const std::vector<int64_t> &shape, int64_t elementSize,
              int64_t &bytes) {
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) {
    bytes = 0;
    return true;
  }
  int64_t product = elementSize;
  for (int64_t dim : shape)
    if (dim < 0 || __builtin_mul_overflow(product, dim, &product))
      return false;
  bytes = product;
  return true;
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string result = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    result += (i ? ", " : "") + std::to_string(shape[i]);
  return result + "]";
}

// Records the message of the first parse error; used only to explain a header
// that the non-throwing DOM parse already rejected.
class ParseErrorCollector : public nlohmann::json_sax<json> {
public:
  std::string message;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t &) override { return true; }
  bool string(string_t &) override { return true; }
  bool binary(binary_t &) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t &) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string &,
                   const nlohmann::detail::exception &ex) override {
    message = ex.what();
    return false;
  }
};

// Closes the file and removes the temporary unless released after the rename.
class TemporaryFile {
public:
  explicit TemporaryFile(std::string path) : path(std::move(path)) {}
  TemporaryFile(const TemporaryFile &) = delete;
  TemporaryFile &operator=(const TemporaryFile &) = delete;
  ~TemporaryFile() {
    if (file)
      std::fclose(file);
    if (!released)
      std::remove(path.c_str());
  }

  bool open() {
    file = std::fopen(path.c_str(), "wb");
    return file != nullptr;
  }
  bool write(const void *bytes, size_t size) {
    return size == 0 || std::fwrite(bytes, 1, size, file) == size;
  }
  bool flushAndSync() {
    return std::fflush(file) == 0 && ::fsync(fileno(file)) == 0;
  }
  bool close() {
    int result = std::fclose(file);
    file = nullptr;
    return result == 0;
  }
  void release() { released = true; }

  const std::string path;

private:
  std::FILE *file = nullptr;
  bool released = false;
};

bool syncDirectoryOf(const std::string &path, std::string &error) {
  size_t slash = path.rfind('/');
  std::string directory = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : path.substr(0, slash);
  int fd = ::open(directory.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) {
    error = systemError(path + ": cannot open directory " + directory);
    return false;
  }
  // Some file systems cannot sync a directory (EINVAL); the rename is then as
  // durable as that file system makes it, which is not an error of ours.
  bool ok = ::fsync(fd) == 0 || errno == EINVAL;
  if (!ok)
    error = systemError(path + ": cannot sync directory " + directory);
  ::close(fd);
  return ok;
}

bool buildHeader(const std::string &path,
                 const std::vector<TensorRecord> &tensors,
                 const std::map<std::string, std::string> &metadata,
                 std::string &header, std::string &error) {
  json root = json::object();
  uint64_t offset = 0;
  for (const TensorRecord &tensor : tensors) {
    std::string prefix = path + ": tensor " + inQuotes(tensor.name) + ": ";
    if (tensor.name.empty() || tensor.name == kMetadataKey ||
        !isValidUtf8(tensor.name)) {
      error = prefix + "invalid name";
      return false;
    }
    if (root.contains(tensor.name)) {
      error = prefix + "duplicate name";
      return false;
    }
    int64_t elementSize = safetensorsDtypeSize(tensor.dtype);
    if (elementSize == 0) {
      error = prefix + "unsupported dtype " + inQuotes(tensor.dtype);
      return false;
    }
    int64_t bytes;
    if (!byteSize(tensor.shape, elementSize, bytes)) {
      error = prefix + "invalid shape " + shapeString(tensor.shape);
      return false;
    }
    if (static_cast<uint64_t>(bytes) != tensor.data.size()) {
      error = prefix + "holds " + std::to_string(tensor.data.size()) +
              " bytes but " + tensor.dtype + " " + shapeString(tensor.shape) +
              " needs " + std::to_string(bytes);
      return false;
    }
    json entry = json::object();
    entry["dtype"] = tensor.dtype;
    entry["shape"] = tensor.shape;
    entry["data_offsets"] = json::array({offset, offset + bytes});
    root[tensor.name] = std::move(entry);
    offset += bytes;
  }
  if (!metadata.empty()) {
    for (const auto &[key, value] : metadata) {
      if (!isValidUtf8(key) || !isValidUtf8(value)) {
        error = path + ": metadata " + inQuotes(key) + " is not valid UTF-8";
        return false;
      }
    }
    root[kMetadataKey] = metadata;
  }
  header = root.dump();
  // The format pads the header with spaces so the data starts 8-byte aligned.
  header.resize((header.size() + 7) / 8 * 8, ' ');
  return true;
}

struct Entry {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  uint64_t begin, end;
};

bool parseEntry(const std::string &path, const std::string &name,
                const json &value, Entry &entry, std::string &error) {
  std::string prefix = path + ": tensor " + inQuotes(name) + ": ";
  auto fail = [&](const std::string &problem) {
    error = prefix + problem;
    return false;
  };
  if (!value.is_object())
    return fail("entry is not an object");
  auto dtype = value.find("dtype");
  auto shape = value.find("shape");
  auto offsets = value.find("data_offsets");
  if (dtype == value.end() || !dtype->is_string())
    return fail("missing or non-string \"dtype\"");
  if (shape == value.end() || !shape->is_array())
    return fail("missing or non-array \"shape\"");
  if (offsets == value.end() || !offsets->is_array() || offsets->size() != 2 ||
      !(*offsets)[0].is_number_unsigned() ||
      !(*offsets)[1].is_number_unsigned())
    return fail("\"data_offsets\" is not a pair of non-negative integers");

  entry.name = name;
  entry.dtype = dtype->get_ref<const std::string &>();
  int64_t elementSize = safetensorsDtypeSize(entry.dtype);
  if (elementSize == 0)
    return fail("unknown dtype " + inQuotes(entry.dtype));
  for (const json &dim : *shape) {
    if (!dim.is_number_unsigned() ||
        dim.get<uint64_t>() >
            static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return fail("invalid \"shape\" " + shape->dump());
    entry.shape.push_back(static_cast<int64_t>(dim.get<uint64_t>()));
  }
  int64_t bytes;
  if (!byteSize(entry.shape, elementSize, bytes))
    return fail("\"shape\" " + shapeString(entry.shape) + " is too large");
  entry.begin = (*offsets)[0].get<uint64_t>();
  entry.end = (*offsets)[1].get<uint64_t>();
  std::string range = "[" + std::to_string(entry.begin) + ", " +
                      std::to_string(entry.end) + "]";
  if (entry.end < entry.begin || entry.end - entry.begin != uint64_t(bytes))
    return fail("data_offsets " + range + " do not match " + entry.dtype + " " +
                shapeString(entry.shape) + " (" + std::to_string(bytes) +
                " bytes)");
  return true;
}

bool parseHeader(const std::string &path, const std::string &text,
                 std::vector<Entry> &entries,
                 std::map<std::string, std::string> &metadata,
                 std::string &error) {
  // nlohmann keeps the last of duplicate keys; a header that names a tensor
  // or a metadata key twice is corrupt, whichever value is right.
  std::vector<std::set<std::string>> openObjects;
  std::string duplicate;
  auto findDuplicates = [&](int, json::parse_event_t event, json &parsed) {
    if (event == json::parse_event_t::object_start)
      openObjects.emplace_back();
    else if (event == json::parse_event_t::object_end)
      openObjects.pop_back();
    else if (event == json::parse_event_t::key && duplicate.empty() &&
             !openObjects.back().insert(parsed.get<std::string>()).second)
      duplicate = parsed.get<std::string>();
    return true;
  };
  json root = json::parse(text, findDuplicates, /*allow_exceptions=*/false);
  if (!root.is_discarded() && !duplicate.empty()) {
    error = path + ": duplicate key " + inQuotes(duplicate) + " in the header";
    return false;
  }
  if (root.is_discarded()) {
    ParseErrorCollector collector;
    json::sax_parse(text, &collector);
    error = path + ": invalid JSON header: " + collector.message;
    return false;
  }
  if (!root.is_object()) {
    error = path + ": header is not a JSON object";
    return false;
  }
  for (const auto &[name, value] : root.items()) {
    if (name != kMetadataKey) {
      entries.emplace_back();
      if (!parseEntry(path, name, value, entries.back(), error))
        return false;
      continue;
    }
    if (!value.is_object()) {
      error = path + ": \"__metadata__\" is not an object";
      return false;
    }
    for (const auto &[key, item] : value.items()) {
      if (!item.is_string()) {
        error = path + ": metadata " + inQuotes(key) + " is not a string";
        return false;
      }
      metadata[key] = item.get_ref<const std::string &>();
    }
  }
  return true;
}

// Offsets must tile [0, dataSize) exactly, as in the reference implementation.
bool checkLayout(const std::string &path, std::vector<Entry> &entries,
                 uint64_t dataSize, std::string &error) {
  std::stable_sort(
      entries.begin(), entries.end(), [](const Entry &a, const Entry &b) {
        return a.begin < b.begin || (a.begin == b.begin && a.end < b.end);
      });
  uint64_t position = 0;
  const Entry *previous = nullptr;
  for (const Entry &entry : entries) {
    std::string prefix = path + ": tensor " + inQuotes(entry.name) + ": ";
    std::string range = "data_offsets [" + std::to_string(entry.begin) + ", " +
                        std::to_string(entry.end) + "]";
    if (entry.begin < position) {
      error = prefix + range + " overlap tensor " + inQuotes(previous->name);
      return false;
    }
    if (entry.begin > position) {
      error = prefix + range + " leave a hole after byte " +
              std::to_string(position);
      return false;
    }
    if (entry.end > dataSize) {
      error = prefix + range + " extend past the " + std::to_string(dataSize) +
              " data bytes in the file (truncated?)";
      return false;
    }
    position = entry.end;
    previous = &entry;
  }
  if (position != dataSize) {
    error = path + ": the header describes " + std::to_string(position) +
            " data bytes but the file holds " + std::to_string(dataSize);
    return false;
  }
  return true;
}

struct FileCloser {
  void operator()(std::FILE *file) const { std::fclose(file); }
};

uint64_t readLittleEndian64(const unsigned char *bytes) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i)
    value = value << 8 | bytes[i];
  return value;
}

} // namespace

int64_t mpt::runtime::safetensorsDtypeSize(const std::string &dtype) {
  namespace names = contract::dtype;
  static const std::map<std::string, int64_t> kSizes = {
      {names::F32, 4}, {names::F16, 2}, {names::BF16, 2},
      {names::I64, 8}, {names::I32, 4}, {names::Bool, 1}};
  auto it = kSizes.find(dtype);
  return it == kSizes.end() ? 0 : it->second;
}

namespace {
/// Removes "<path>.tmp.<pid>" files that writers killed mid-save left behind:
/// those of processes that no longer exist. A live writer's temporary (or
/// ours) is left alone.
void removeStaleTemporaries(const std::string &path) {
  std::string directory = ".", prefix = path + ".tmp.";
  if (size_t slash = path.rfind('/'); slash != std::string::npos)
    directory = slash == 0 ? "/" : path.substr(0, slash);
  std::string base = prefix.substr(prefix.rfind('/') + 1);
  std::unique_ptr<DIR, int (*)(DIR *)> dir(::opendir(directory.c_str()),
                                           &::closedir);
  if (!dir)
    return;
  while (struct dirent *entry = ::readdir(dir.get())) {
    std::string name = entry->d_name;
    if (name.compare(0, base.size(), base) != 0 || name.size() == base.size())
      continue;
    std::string pidText = name.substr(base.size());
    if (pidText.find_first_not_of("0123456789") != std::string::npos ||
        pidText.size() > 9)
      continue;
    pid_t pid = pid_t(std::stol(pidText));
    if (pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH)
      continue;
    std::string stale = directory + "/" + name;
    ::unlink(stale.c_str());
  }
}
} // namespace

bool mpt::runtime::writeSafetensors(
    const std::string &path, const std::vector<TensorRecord> &tensors,
    const std::map<std::string, std::string> &metadata, std::string &error) {
  std::string header;
  if (!buildHeader(path, tensors, metadata, header, error))
    return false;
  unsigned char length[8];
  for (int i = 0; i < 8; ++i)
    length[i] = static_cast<unsigned char>(uint64_t(header.size()) >> (8 * i));

  removeStaleTemporaries(path);
  TemporaryFile temporary(path + ".tmp." + std::to_string(::getpid()));
  auto fail = [&](const std::string &what) {
    error = systemError(path + ": " + what + " " + temporary.path);
    return false;
  };
  if (!temporary.open())
    return fail("cannot create");
  bool written = temporary.write(length, sizeof(length)) &&
                 temporary.write(header.data(), header.size());
  for (const TensorRecord &tensor : tensors)
    written =
        written && temporary.write(tensor.data.data(), tensor.data.size());
  if (!written)
    return fail("cannot write");
  if (!temporary.flushAndSync())
    return fail("cannot sync");
  if (!temporary.close())
    return fail("cannot close");
  if (std::rename(temporary.path.c_str(), path.c_str()) != 0)
    return fail("cannot rename over it");
  temporary.release();
  return syncDirectoryOf(path, error);
}

bool mpt::runtime::readSafetensors(const std::string &path,
                                   std::vector<TensorRecord> &tensors,
                                   std::map<std::string, std::string> &metadata,
                                   std::string &error) {
  std::FILE *file = std::fopen(path.c_str(), "rb");
  if (!file) {
    error = systemError(path + ": cannot open");
    return false;
  }
  std::unique_ptr<std::FILE, FileCloser> closer(file);
  struct stat info;
  if (::fstat(fileno(file), &info) != 0) {
    error = systemError(path + ": cannot stat");
    return false;
  }
  uint64_t fileSize = static_cast<uint64_t>(info.st_size);
  unsigned char length[8];
  if (fileSize < sizeof(length) ||
      std::fread(length, 1, sizeof(length), file) != sizeof(length)) {
    error = path + ": file of " + std::to_string(fileSize) +
            " bytes is too short for a safetensors header";
    return false;
  }
  uint64_t headerSize = readLittleEndian64(length);
  if (headerSize > fileSize - sizeof(length)) {
    error = path + ": header length " + std::to_string(headerSize) +
            " extends past the end of the " + std::to_string(fileSize) +
            "-byte file";
    return false;
  }
  std::string text(headerSize, '\0');
  if (std::fread(text.data(), 1, text.size(), file) != text.size()) {
    error = path + ": cannot read the header";
    return false;
  }

  std::vector<Entry> entries;
  std::map<std::string, std::string> readMetadata;
  if (!parseHeader(path, text, entries, readMetadata, error) ||
      !checkLayout(path, entries, fileSize - sizeof(length) - headerSize,
                   error))
    return false;

  // The layout check guarantees the tensors follow each other in this order.
  std::vector<TensorRecord> records(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    Entry &entry = entries[i];
    TensorRecord &record = records[i];
    record.name = std::move(entry.name);
    record.dtype = std::move(entry.dtype);
    record.shape = std::move(entry.shape);
    record.data.resize(entry.end - entry.begin);
    if (std::fread(record.data.data(), 1, record.data.size(), file) !=
        record.data.size()) {
      error = path + ": tensor " + inQuotes(record.name) +
              ": cannot read its data (file changed while reading?)";
      return false;
    }
  }
  tensors = std::move(records);
  metadata = std::move(readMetadata);
  return true;
}
