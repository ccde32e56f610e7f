// A whole file mapped read-only into memory (mmap, MAP_PRIVATE): the model files of the
// local embedders are read in place, and pages are read from disk as they are touched.
// Immutable; safe to read from any number of threads while it lives.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "ragmeter/status.h"

namespace ragmeter::embed {

class MappedFile {
 public:
  // NotFound naming `path` when it cannot be opened; Unavailable when it cannot be mapped.
  // An empty file maps to size() 0 and a null data().
  static StatusOr<std::shared_ptr<const MappedFile>> open(const std::string& path);

  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const std::byte* data() const { return static_cast<const std::byte*>(map_); }
  std::size_t size() const { return size_; }
  const std::string& path() const { return path_; }

 private:
  MappedFile() = default;
  std::string path_;
  void* map_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace ragmeter::embed
