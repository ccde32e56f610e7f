// A read-only view of a safetensors file: the 8-byte little-endian header length, the
// header (JSON: name -> {"dtype", "shape", "data_offsets": [begin, end]} relative to the
// data that follows the header, plus an optional "__metadata__"), then the tensor bytes.
// The file is memory-mapped; tensors are pointers into the mapping, valid while the
// SafetensorsFile lives. Immutable after open(): safe to read from any number of threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "embed/mapped_file.h"
#include "ragmeter/status.h"

namespace ragmeter::embed {

struct TensorView {
  std::string dtype;                // "F32", "F16", "I64", ...
  std::vector<std::int64_t> shape;  // empty for a scalar
  const std::byte* data = nullptr;  // into the mapping
  std::size_t bytes = 0;

  std::int64_t elements() const;
};

class SafetensorsFile {
 public:
  // Maps `path` and reads its header. NotFound when the file cannot be opened;
  // InvalidArgument naming the file (and the tensor) for a header that is not JSON,
  // a dtype of unknown size, a shape whose size disagrees with its data_offsets, or
  // offsets outside the file.
  static StatusOr<std::shared_ptr<const SafetensorsFile>> open(const std::string& path);

  ~SafetensorsFile();
  SafetensorsFile(const SafetensorsFile&) = delete;
  SafetensorsFile& operator=(const SafetensorsFile&) = delete;

  const std::string& path() const { return path_; }
  const std::map<std::string, TensorView>& tensors() const { return tensors_; }
  // The float32 tensor `name` with exactly `shape`: its elements in row-major order.
  // InvalidArgument naming the file and the tensor when it is absent, not F32, of
  // another shape, or not 4-byte aligned.
  StatusOr<const float*> f32(const std::string& name, const std::vector<std::int64_t>& shape) const;

 private:
  SafetensorsFile() = default;
  std::string path_;
  std::shared_ptr<const MappedFile> map_;
  std::map<std::string, TensorView> tensors_;
};

}  // namespace ragmeter::embed
