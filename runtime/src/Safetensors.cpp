//===- Safetensors.cpp - Reading and writing safetensors files --*- C++ -*-===//
//
// Headers are written and read with llvm::json. Its printer sorts object keys
// and writes integers and compact JSON as the files' other writers do; its
// parser keeps the last of a repeated key, so repeated keys are looked for
// separately.
//
//===----------------------------------------------------------------------===//

#include "mpt/safetensors.h"
#include "mpt/Contract/Contract.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <tuple>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace mpt::runtime;

namespace {

constexpr const char *kMetadataKey = "__metadata__";

std::string inQuotes(const std::string &name) { return "'" + name + "'"; }

std::string systemError(const std::string &what) {
  return what + ": " + std::strerror(errno);
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
  llvm::json::Object root;
  uint64_t offset = 0;
  for (const TensorRecord &tensor : tensors) {
    std::string prefix = path + ": tensor " + inQuotes(tensor.name) + ": ";
    if (tensor.name.empty() || tensor.name == kMetadataKey ||
        !llvm::json::isUTF8(tensor.name)) {
      error = prefix + "invalid name";
      return false;
    }
    if (root.get(tensor.name)) {
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
    root[tensor.name] = llvm::json::Object{
        {"dtype", tensor.dtype},
        {"shape", llvm::json::Array(tensor.shape)},
        {"data_offsets", llvm::json::Array{offset, offset + bytes}}};
    offset += bytes;
  }
  if (!metadata.empty()) {
    llvm::json::Object entries;
    for (const auto &[key, value] : metadata) {
      if (!llvm::json::isUTF8(key) || !llvm::json::isUTF8(value)) {
        error = path + ": metadata " + inQuotes(key) + " is not valid UTF-8";
        return false;
      }
      entries[key] = value;
    }
    root[kMetadataKey] = std::move(entries);
  }
  llvm::raw_string_ostream(header) << llvm::json::Value(std::move(root));
  // The format pads the header with spaces so the data starts 8-byte aligned.
  header.resize((header.size() + 7) / 8 * 8, ' ');
  return true;
}

bool parseEntry(const std::string &path, const std::string &name,
                const llvm::json::Value &value, TensorEntry &entry,
                std::string &error) {
  std::string prefix = path + ": tensor " + inQuotes(name) + ": ";
  auto fail = [&](const std::string &problem) {
    error = prefix + problem;
    return false;
  };
  const llvm::json::Object *object = value.getAsObject();
  if (!object)
    return fail("entry is not an object");
  std::optional<llvm::StringRef> dtype = object->getString("dtype");
  const llvm::json::Value *shape = object->get("shape");
  const llvm::json::Array *offsets = object->getArray("data_offsets");
  if (!dtype)
    return fail("missing or non-string \"dtype\"");
  if (!shape || !shape->getAsArray())
    return fail("missing or non-array \"shape\"");
  std::optional<uint64_t> begin, end;
  if (offsets && offsets->size() == 2) {
    begin = (*offsets)[0].getAsUINT64();
    end = (*offsets)[1].getAsUINT64();
  }
  if (!begin || !end)
    return fail("\"data_offsets\" is not a pair of non-negative integers");

  entry.name = name;
  entry.dtype = dtype->str();
  int64_t elementSize = safetensorsDtypeSize(entry.dtype);
  if (elementSize == 0)
    return fail("unknown dtype " + inQuotes(entry.dtype));
  for (const llvm::json::Value &dim : *shape->getAsArray()) {
    std::optional<uint64_t> size = dim.getAsUINT64();
    if (!size ||
        *size > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return fail("invalid \"shape\" " + llvm::formatv("{0}", *shape).str());
    entry.shape.push_back(static_cast<int64_t>(*size));
  }
  int64_t bytes;
  if (!byteSize(entry.shape, elementSize, bytes))
    return fail("\"shape\" " + shapeString(entry.shape) + " is too large");
  entry.begin = *begin;
  entry.end = *end;
  std::string range = "[" + std::to_string(entry.begin) + ", " +
                      std::to_string(entry.end) + "]";
  if (entry.end < entry.begin || entry.end - entry.begin != uint64_t(bytes))
    return fail("data_offsets " + range + " do not match " + entry.dtype + " " +
                shapeString(entry.shape) + " (" + std::to_string(bytes) +
                " bytes)");
  return true;
}

/// The first key that an object of the valid JSON `text` repeats. A header
/// that names a tensor or a metadata key twice is corrupt, whichever value
/// is right.
std::optional<std::string> repeatedKey(llvm::StringRef text) {
  std::vector<llvm::StringSet<>> openObjects;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '{') {
      openObjects.emplace_back();
    } else if (text[i] == '}') {
      openObjects.pop_back();
    } else if (text[i] == '"') {
      size_t close = i + 1;
      while (text[close] != '"')
        close += text[close] == '\\' ? 2 : 1;
      llvm::StringRef quoted = text.slice(i, close + 1);
      i = close;
      size_t next = text.find_first_not_of(" \t\r\n", close + 1);
      if (next == llvm::StringRef::npos || text[next] != ':')
        continue; // a value, not a key
      // Parsed on its own, the key's escapes are decoded.
      std::string key =
          llvm::cantFail(llvm::json::parse(quoted)).getAsString()->str();
      if (!openObjects.back().insert(key).second)
        return key;
    }
  }
  return std::nullopt;
}

bool parseMetadata(const std::string &path, const llvm::json::Value &value,
                   std::map<std::string, std::string> &metadata,
                   std::string &error) {
  const llvm::json::Object *object = value.getAsObject();
  if (!object) {
    error = path + ": \"__metadata__\" is not an object";
    return false;
  }
  for (const auto &[key, item] : *object) {
    std::optional<llvm::StringRef> text = item.getAsString();
    if (!text) {
      error = path + ": metadata " + inQuotes(key.str()) + " is not a string";
      return false;
    }
    metadata[key.str()] = text->str();
  }
  return true;
}

bool parseHeader(const std::string &path, const std::string &text,
                 std::vector<TensorEntry> &entries,
                 std::map<std::string, std::string> &metadata,
                 std::string &error) {
  llvm::Expected<llvm::json::Value> root = llvm::json::parse(text);
  if (!root) {
    error = path + ": invalid JSON header: " + llvm::toString(root.takeError());
    return false;
  }
  if (std::optional<std::string> key = repeatedKey(text)) {
    error = path + ": duplicate key " + inQuotes(*key) + " in the header";
    return false;
  }
  const llvm::json::Object *object = root->getAsObject();
  if (!object) {
    error = path + ": header is not a JSON object";
    return false;
  }
  // In key order, so that the error a header reports and the order of empty
  // tensors at one offset do not depend on hashing.
  std::vector<const llvm::json::Object::value_type *> items;
  for (const auto &item : *object)
    items.push_back(&item);
  llvm::sort(items,
             [](const auto *a, const auto *b) { return a->first < b->first; });
  for (const auto *item : items) {
    std::string name = item->first.str();
    if (name == kMetadataKey) {
      if (!parseMetadata(path, item->second, metadata, error))
        return false;
      continue;
    }
    entries.emplace_back();
    if (!parseEntry(path, name, item->second, entries.back(), error))
      return false;
  }
  return true;
}

// Offsets must tile [0, dataSize) exactly, as in the reference implementation.
bool checkLayout(const std::string &path, std::vector<TensorEntry> &entries,
                 uint64_t dataSize, std::string &error) {
  // Names break ties, as the header's key order did: entries come sorted by
  // name, and names are unique.
  llvm::sort(entries, [](const TensorEntry &a, const TensorEntry &b) {
    return std::tie(a.begin, a.end, a.name) < std::tie(b.begin, b.end, b.name);
  });
  uint64_t position = 0;
  const TensorEntry *previous = nullptr;
  for (const TensorEntry &entry : entries) {
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

/// Reads `size` bytes at `offset` of `fd`; false at an error or the end of
/// the file.
bool readAt(int fd, void *data, size_t size, uint64_t offset) {
  auto *bytes = static_cast<char *>(data);
  while (size > 0) {
    ssize_t got = ::pread(fd, bytes, size, off_t(offset));
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      return false;
    bytes += got;
    size -= size_t(got);
    offset += uint64_t(got);
  }
  return true;
}

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

SafetensorsFile::~SafetensorsFile() {
  if (fd >= 0)
    ::close(fd);
}

bool SafetensorsFile::open(const std::string &filePath, std::string &error) {
  path = filePath;
  fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    error = systemError(path + ": cannot open");
    return false;
  }
  struct stat info;
  if (::fstat(fd, &info) != 0) {
    error = systemError(path + ": cannot stat");
    return false;
  }
  if (S_ISDIR(info.st_mode)) {
    error = path + ": is a directory, not a safetensors file";
    return false;
  }
  uint64_t fileSize = static_cast<uint64_t>(info.st_size);
  unsigned char length[8];
  if (fileSize < sizeof(length) || !readAt(fd, length, sizeof(length), 0)) {
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
  if (!readAt(fd, text.data(), text.size(), sizeof(length))) {
    error = path + ": cannot read the header";
    return false;
  }
  dataStart = sizeof(length) + headerSize;
  return parseHeader(path, text, entries, metadataEntries, error) &&
         checkLayout(path, entries, fileSize - dataStart, error);
}

bool SafetensorsFile::read(const TensorEntry &tensor, void *data,
                           std::string &error) const {
  if (readAt(fd, data, tensor.end - tensor.begin, dataStart + tensor.begin))
    return true;
  error = path + ": tensor " + inQuotes(tensor.name) +
          ": cannot read its data (file changed while reading?)";
  return false;
}

bool mpt::runtime::readSafetensors(const std::string &path,
                                   std::vector<TensorRecord> &tensors,
                                   std::map<std::string, std::string> &metadata,
                                   std::string &error) {
  SafetensorsFile file;
  if (!file.open(path, error))
    return false;
  std::vector<TensorRecord> records;
  for (const TensorEntry &entry : file.tensors()) {
    TensorRecord &record = records.emplace_back();
    record.name = entry.name;
    record.dtype = entry.dtype;
    record.shape = entry.shape;
    record.data.resize(entry.end - entry.begin);
    if (!file.read(entry, record.data.data(), error))
      return false;
  }
  tensors = std::move(records);
  metadata = file.metadata();
  return true;
}
