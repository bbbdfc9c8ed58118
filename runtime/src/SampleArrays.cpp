//===- SampleArrays.cpp - the user's tensors from .npy and safetensors ----===//

#include "mpt/data.h"
#include "mpt/safetensors.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>

using namespace mpt::runtime;

namespace {

enum class Element { F16, BF16, F32, F64, I32, I64, U8, U16 };

int64_t elementSize(Element element) {
  switch (element) {
  case Element::U8:
    return 1;
  case Element::F16:
  case Element::BF16:
  case Element::U16:
    return 2;
  case Element::F32:
  case Element::I32:
    return 4;
  case Element::F64:
  case Element::I64:
    return 8;
  }
  return 0;
}

bool isInteger(Element element) {
  return element == Element::I32 || element == Element::I64 ||
         element == Element::U8 || element == Element::U16;
}

template <typename T> T loadLittleEndian(const uint8_t *bytes) {
  static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
                "the element conversions assume a little-endian host");
  T value;
  std::memcpy(&value, bytes, sizeof(T));
  return value;
}

/// Converts `count` elements of `bytes` into `out`'s f32 or i32 values; false
/// with `error` naming the file and the first value that does not convert.
bool convertElements(const uint8_t *bytes, int64_t count, Element element,
                     const std::string &path, SampleArray &out,
                     std::string &error) {
  out.isInteger = isInteger(element);
  const int64_t size = elementSize(element);
  auto outOfRange = [&](int64_t index, const std::string &value,
                        const char *type) {
    error = path + ": value " + value + " at index " + std::to_string(index) +
            " does not fit " + type;
    return false;
  };
  if (out.isInteger) {
    out.ints.resize(count);
    for (int64_t i = 0; i < count; ++i) {
      const uint8_t *at = bytes + i * size;
      int64_t value = element == Element::U8    ? *at
                      : element == Element::U16 ? loadLittleEndian<uint16_t>(at)
                      : element == Element::I32 ? loadLittleEndian<int32_t>(at)
                                                : loadLittleEndian<int64_t>(at);
      if (value < std::numeric_limits<int32_t>::min() ||
          value > std::numeric_limits<int32_t>::max())
        return outOfRange(i, std::to_string(value), "i32");
      out.ints[i] = static_cast<int32_t>(value);
    }
    return true;
  }
  out.floats.resize(count);
  for (int64_t i = 0; i < count; ++i) {
    const uint8_t *at = bytes + i * size;
    switch (element) {
    case Element::F16:
      out.floats[i] = f16ToFloat(loadLittleEndian<uint16_t>(at));
      break;
    case Element::BF16:
      out.floats[i] = bf16ToFloat(loadLittleEndian<uint16_t>(at));
      break;
    case Element::F32:
      out.floats[i] = loadLittleEndian<float>(at);
      break;
    default: {
      double value = loadLittleEndian<double>(at);
      out.floats[i] = static_cast<float>(value);
      if (std::isfinite(value) && !std::isfinite(out.floats[i])) {
        char text[32];
        std::snprintf(text, sizeof(text), "%g", value);
        return outOfRange(i, text, "f32");
      }
    }
    }
  }
  return true;
}

/// The elements of a .npy header's 'descr'; the error says why not.
std::optional<Element> npyElement(const std::string &descr,
                                  std::string &problem) {
  if (descr.size() < 3 || (descr[0] != '<' && descr[0] != '|' &&
                           descr[0] != '>' && descr[0] != '=')) {
    problem = "unsupported element type '" + descr + "'";
    return std::nullopt;
  }
  std::string kind = descr.substr(1);
  static const std::pair<const char *, Element> kinds[] = {
      {"f2", Element::F16}, {"f4", Element::F32}, {"f8", Element::F64},
      {"i4", Element::I32}, {"i8", Element::I64}, {"u1", Element::U8},
      {"u2", Element::U16}};
  for (auto [name, element] : kinds) {
    if (kind != name)
      continue;
    if (descr[0] == '>' && elementSize(element) > 1) {
      problem = "big-endian elements ('" + descr +
                "') are not supported; save the array little-endian "
                "(array.astype(array.dtype.newbyteorder('<')))";
      return std::nullopt;
    }
    return element;
  }
  problem = "unsupported element type '" + descr +
            "' (expected little-endian f2, f4, f8, i4, i8, u1 or u2)";
  return std::nullopt;
}

/// The value of `key` in a .npy header, a Python dict literal such as
/// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }: the text
/// after "'key':" up to the next ',' at the top level (or the closing '}').
std::optional<std::string> npyHeaderValue(const std::string &header,
                                          const std::string &key) {
  size_t at = header.find("'" + key + "'");
  if (at == std::string::npos)
    return std::nullopt;
  at = header.find(':', at);
  if (at == std::string::npos)
    return std::nullopt;
  size_t end = ++at;
  for (int depth = 0; end < header.size(); ++end) {
    char c = header[end];
    if (c == '(')
      ++depth;
    else if (c == ')')
      --depth;
    else if ((c == ',' && depth == 0) || c == '}')
      break;
  }
  std::string value = header.substr(at, end - at);
  size_t first = value.find_first_not_of(" ");
  size_t last = value.find_last_not_of(" ");
  return first == std::string::npos ? ""
                                    : value.substr(first, last - first + 1);
}

/// Parses "(3, 4)", "(3,)" or "()".
std::optional<std::vector<int64_t>> parseShape(const std::string &text) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')')
    return std::nullopt;
  std::vector<int64_t> shape;
  const char *at = text.c_str() + 1;
  while (true) {
    while (*at == ' ' || *at == ',')
      ++at;
    if (*at == ')')
      return shape;
    char *end;
    errno = 0;
    long long dimension = std::strtoll(at, &end, 10);
    if (end == at || errno || dimension < 0)
      return std::nullopt;
    shape.push_back(dimension);
    at = end;
  }
}

/// The whole of `path`; false with `error` naming it.
bool readFile(const std::string &path, std::vector<uint8_t> &bytes,
              std::string &error) {
  FILE *file = std::fopen(path.c_str(), "rb");
  if (!file) {
    error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  bytes.clear();
  uint8_t buffer[1 << 16];
  size_t got;
  while ((got = std::fread(buffer, 1, sizeof(buffer), file)) > 0)
    bytes.insert(bytes.end(), buffer, buffer + got);
  bool failed = std::ferror(file);
  std::fclose(file);
  if (failed)
    error = path + ": cannot read (a directory?)";
  return !failed;
}

/// The number of elements of `shape`, or nullopt when it overflows.
std::optional<int64_t> elementCount(const std::vector<int64_t> &shape,
                                    int64_t elementBytes) {
  int64_t count = 1;
  for (int64_t dimension : shape) {
    if (dimension != 0 &&
        count > std::numeric_limits<int64_t>::max() / elementBytes / dimension)
      return std::nullopt;
    count *= dimension;
  }
  return count;
}

bool loadNpy(const std::string &path, SampleArray &out, std::string &error) {
  auto fail = [&](const std::string &problem) {
    error = path + ": " + problem;
    return false;
  };
  std::vector<uint8_t> bytes;
  if (!readFile(path, bytes, error))
    return false;
  static const char kMagic[] = "\x93NUMPY";
  if (bytes.size() < 10 || std::memcmp(bytes.data(), kMagic, 6) != 0)
    return fail("not a NumPy .npy file (no \\x93NUMPY magic)");
  int major = bytes[6];
  if (major < 1 || major > 3)
    return fail("unsupported .npy format version " + std::to_string(major) +
                "." + std::to_string(bytes[7]));
  // Version 1.0 has a 2-byte header length; 2.0 and 3.0 (UTF-8) 4 bytes.
  size_t headerStart = major == 1 ? 10 : 12;
  if (bytes.size() < headerStart)
    return fail("truncated header");
  size_t headerLength = major == 1 ? loadLittleEndian<uint16_t>(&bytes[8])
                                   : loadLittleEndian<uint32_t>(&bytes[8]);
  if (bytes.size() - headerStart < headerLength)
    return fail("truncated header");
  std::string header(bytes.begin() + headerStart,
                     bytes.begin() + headerStart + headerLength);
  std::optional<std::string> descr = npyHeaderValue(header, "descr");
  std::optional<std::string> fortran = npyHeaderValue(header, "fortran_order");
  std::optional<std::string> shapeText = npyHeaderValue(header, "shape");
  if (!descr || !fortran || !shapeText || descr->size() < 2 ||
      descr->front() != '\'' || descr->back() != '\'')
    return fail("invalid header " + header);
  std::string problem;
  std::optional<Element> element =
      npyElement(descr->substr(1, descr->size() - 2), problem);
  if (!element)
    return fail(problem);
  if (*fortran == "True")
    return fail("Fortran-order arrays are not supported; save a C-order one "
                "(numpy.ascontiguousarray)");
  std::optional<std::vector<int64_t>> shape = parseShape(*shapeText);
  if (*fortran != "False" || !shape)
    return fail("invalid header " + header);
  int64_t size = elementSize(*element);
  std::optional<int64_t> count = elementCount(*shape, size);
  if (!count)
    return fail("shape " + *shapeText + " is too large");
  size_t dataBytes = bytes.size() - headerStart - headerLength;
  if (dataBytes != uint64_t(*count * size))
    return fail((dataBytes < uint64_t(*count * size) ? "truncated: "
                                                     : "trailing data: ") +
                std::string("shape ") + *shapeText + " of '" +
                descr->substr(1, descr->size() - 2) + "' needs " +
                std::to_string(*count * size) +
                " bytes of data, the file has " + std::to_string(dataBytes));
  SampleArray array;
  array.shape = std::move(*shape);
  array.elementType = descr->substr(1, descr->size() - 2);
  if (!convertElements(bytes.data() + headerStart + headerLength, *count,
                       *element, path, array, error))
    return false;
  out = std::move(array);
  return true;
}

bool loadSafetensorsTensor(const std::string &path, const std::string &name,
                           SampleArray &out, std::string &error) {
  SafetensorsFile file;
  if (!file.open(path, error))
    return false;
  const std::vector<TensorEntry> &tensors = file.tensors();
  const TensorEntry *tensor = nullptr;
  for (const TensorEntry &entry : tensors)
    if (entry.name == name)
      tensor = &entry;
  if (!tensor && tensors.size() == 1)
    tensor = &tensors.front();
  if (!tensor) {
    error = path + ": holds no tensor named '" + name + "' among its " +
            std::to_string(tensors.size()) + " tensors";
    return false;
  }
  static const std::pair<const char *, Element> kinds[] = {
      {"F16", Element::F16},
      {"BF16", Element::BF16},
      {"F32", Element::F32},
      {"I32", Element::I32},
      {"I64", Element::I64}};
  std::optional<Element> element;
  for (auto [kind, candidate] : kinds)
    if (tensor->dtype == kind)
      element = candidate;
  if (!element) {
    error = path + ": tensor '" + tensor->name + "' is " + tensor->dtype +
            "; data tensors are F16, BF16, F32, I32 or I64";
    return false;
  }
  std::vector<uint8_t> bytes(tensor->end - tensor->begin);
  if (!file.read(*tensor, bytes.data(), error))
    return false;
  SampleArray array;
  array.shape = tensor->shape;
  array.elementType = tensor->dtype;
  if (!convertElements(bytes.data(),
                       int64_t(bytes.size()) / elementSize(*element), *element,
                       path, array, error))
    return false;
  out = std::move(array);
  return true;
}

} // namespace

bool mpt::runtime::loadSampleArray(const std::string &path,
                                   const std::string &tensor, SampleArray &out,
                                   std::string &error) {
  constexpr const char kSafetensors[] = ".safetensors";
  constexpr size_t kSuffix = sizeof(kSafetensors) - 1;
  bool isSafetensors =
      path.size() >= kSuffix &&
      path.compare(path.size() - kSuffix, kSuffix, kSafetensors) == 0;
  SampleArray array;
  if (!(isSafetensors ? loadSafetensorsTensor(path, tensor, array, error)
                      : loadNpy(path, array, error)))
    return false;
  if (array.shape.empty()) {
    error = path + ": holds a scalar; its first dimension must count the "
                   "samples";
    return false;
  }
  out = std::move(array);
  return true;
}
