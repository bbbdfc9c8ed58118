//===- Safetensors.h - Reading and writing safetensors files ----*- C++ -*-===//
//
// Checkpoints and initial state are safetensors files: an 8-byte
// little-endian header length, a JSON header describing every tensor, then
// the raw tensor bytes. Writes are atomic so that a crash mid-checkpoint never
// destroys the previous checkpoint.
//
//===----------------------------------------------------------------------===//

#ifndef MPT_RUNTIME_SAFETENSORS_H
#define MPT_RUNTIME_SAFETENSORS_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mpt::runtime {

struct TensorRecord {
  std::string name;
  std::string dtype;          // "F32", "F16", "BF16", "I64", "I32", "BOOL"
  std::vector<int64_t> shape; // empty for a scalar
  std::vector<uint8_t> data; // little-endian, row-major, numel*dtype size bytes
};

/// The size in bytes of one element of `dtype`, or 0 for an unsupported dtype.
int64_t safetensorsDtypeSize(const std::string &dtype);

/// Writes `tensors` in the given order (offsets increasing) and `metadata`
/// (the "__metadata__" entry, omitted when empty) to `path`. The file is
/// written as "<path>.tmp.<pid>", flushed and fsync'ed, renamed over `path`,
/// and the directory is fsync'ed. Temporaries of `path` left by writers that
/// no longer run (killed mid-save) are removed first. On failure returns false
/// with an error naming the path (and the tensor, if one is at fault); unless
/// the failure is the final directory sync, the previous file at `path` is
/// intact and no temporary file remains.
bool writeSafetensors(const std::string &path,
                      const std::vector<TensorRecord> &tensors,
                      const std::map<std::string, std::string> &metadata,
                      std::string &error);

/// A tensor as a safetensors header describes it: where its bytes lie in the
/// data section that follows the header.
struct TensorEntry {
  std::string name;
  std::string dtype;
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;
};

/// A safetensors file read header first: open() reads and checks the header,
/// which read() then takes tensors from one at a time, so that a caller checks
/// names, dtypes and shapes before reading gigabytes of another model's data.
class SafetensorsFile {
public:
  SafetensorsFile() = default;
  SafetensorsFile(const SafetensorsFile &) = delete;
  SafetensorsFile &operator=(const SafetensorsFile &) = delete;
  ~SafetensorsFile();

  /// Opens `path` and checks its header as readSafetensors does, reading no
  /// tensor's data; on failure returns false with an error naming the file
  /// (and the tensor, if one is at fault). Called once.
  bool open(const std::string &path, std::string &error);
  /// The tensors, in data offset order.
  const std::vector<TensorEntry> &tensors() const { return entries; }
  /// The "__metadata__" entry; empty when there is none.
  const std::map<std::string, std::string> &metadata() const {
    return metadataEntries;
  }
  /// Reads the end - begin bytes of `tensor`, one of tensors(), into `data`;
  /// on failure returns false with an error naming the file and the tensor.
  bool read(const TensorEntry &tensor, void *data, std::string &error) const;

private:
  std::string path;
  int fd = -1;
  uint64_t dataStart = 0;
  std::vector<TensorEntry> entries;
  std::map<std::string, std::string> metadataEntries;
};

/// Reads and validates `path`, returning the tensors in data offset order.
/// A file shorter than 8 bytes, a header length past the end of the file,
/// invalid JSON, an unknown dtype, data offsets out of range, overlapping,
/// leaving holes or not matching numel*dtype size, and a data section whose
/// size differs from what the header describes (truncation), and a directory
/// all return false with an error naming the file and the tensor; the outputs
/// are then left unchanged.
bool readSafetensors(const std::string &path,
                     std::vector<TensorRecord> &tensors,
                     std::map<std::string, std::string> &metadata,
                     std::string &error);

} // namespace mpt::runtime

#endif // MPT_RUNTIME_SAFETENSORS_H
