// check_output_path (results.h): an output that cannot be written is found before the
// judge is paid, with the operating system's reason.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ragmeter/results.h"

namespace ragmeter {

Status check_output_path(const std::string& path, const std::string& flag) {
  struct stat info {};
  const bool existed = ::stat(path.c_str(), &info) == 0;
  if (existed && S_ISDIR(info.st_mode)) {
    return invalid_argument("cannot write " + flag + " " + path + ": " + std::strerror(EISDIR));
  }
  // No O_TRUNC: an existing file is left as it is until the run writes it.
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
  if (fd < 0) {
    return invalid_argument("cannot write " + flag + " " + path + ": " + std::strerror(errno));
  }
  ::close(fd);
  if (!existed) ::unlink(path.c_str());
  return ok_status();
}

}  // namespace ragmeter
