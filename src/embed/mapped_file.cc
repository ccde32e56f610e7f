// Read-only memory-mapped files (mapped_file.h).
#include "embed/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ragmeter::embed {

MappedFile::~MappedFile() {
  if (map_ != nullptr) munmap(map_, size_);
}

StatusOr<std::shared_ptr<const MappedFile>> MappedFile::open(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return not_found("cannot open " + path + ": " + std::strerror(errno));
  struct stat info {};
  if (fstat(fd, &info) != 0) {
    const int error = errno;
    ::close(fd);
    return unavailable("cannot read " + path + ": " + std::strerror(error));
  }
  std::shared_ptr<MappedFile> file(new MappedFile());
  file->path_ = path;
  file->size_ = static_cast<std::size_t>(info.st_size);
  if (file->size_ > 0) {
    void* map = mmap(nullptr, file->size_, PROT_READ, MAP_PRIVATE, fd, 0);
    const int error = errno;
    ::close(fd);
    if (map == MAP_FAILED) return unavailable("cannot map " + path + ": " + std::strerror(error));
    file->map_ = map;
  } else {
    ::close(fd);
  }
  return std::shared_ptr<const MappedFile>(std::move(file));
}

}  // namespace ragmeter::embed
