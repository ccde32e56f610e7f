// load_image (image.h): data URIs and files under the media root here, URLs in
// url_fetch.cc.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

#include "media/base64.h"
#include "media/url_fetch.h"
#include "ragmeter/image.h"

namespace ragmeter {
namespace {

std::string size_limit_text(std::size_t max_bytes) {
  return std::to_string(max_bytes) + " bytes (--max-image-bytes)";
}

StatusOr<Image> from_data_uri(const ImageRef& ref, const MediaOptions& options) {
  const std::size_t comma = ref.location.find(',');
  if (comma == std::string::npos) return invalid_argument("a data URI without ','");
  const std::string_view payload = std::string_view(ref.location).substr(comma + 1);
  if (payload.size() / 4 * 3 > options.max_bytes + 3) {
    return invalid_argument("a data URI image larger than " + size_limit_text(options.max_bytes));
  }
  auto bytes = base64_decode(payload);
  if (!bytes) return invalid_argument("a data URI whose base64 does not decode");
  if (bytes->size() > options.max_bytes) {
    return invalid_argument("a data URI image larger than " + size_limit_text(options.max_bytes));
  }
  return image_from_bytes(std::move(*bytes));
}

std::string real_path(const std::string& path, int* error) {
  char resolved[PATH_MAX];
  if (realpath(path.c_str(), resolved) == nullptr) {
    *error = errno;
    return {};
  }
  return resolved;
}

// The file's real path when it is under the media root, else the refusal.
StatusOr<std::string> path_under_root(const ImageRef& ref, const MediaOptions& options) {
  int error = 0;
  const std::string root = real_path(options.media_root, &error);
  if (root.empty()) {
    return invalid_argument("--media-root '" + options.media_root + "': " + std::strerror(error));
  }
  const std::string& location = ref.location;
  const std::string joined = !location.empty() && location.front() == '/'
                                 ? location
                                 : root + "/" + location;
  const std::string real = real_path(joined, &error);
  if (real.empty()) {
    if (error == ENOENT || error == ENOTDIR) return not_found("file '" + location + "' does not exist");
    return invalid_argument("file '" + location + "': " + std::strerror(error));
  }
  const bool under = real == root || real.starts_with(root == "/" ? root : root + "/");
  if (!under) {
    return invalid_argument("file '" + location + "' is outside --media-root '" + options.media_root +
                            "' (refused; symbolic links are resolved before the check)");
  }
  return real;
}

StatusOr<Image> from_file(const ImageRef& ref, const MediaOptions& options) {
  if (options.media_root.empty()) {
    return failed_precondition("file '" + ref.location + "' not read: reading image files needs "
                               "--media-root DIR (files under DIR only)");
  }
  RAGMETER_ASSIGN_OR_RETURN(std::string path, path_under_root(ref, options));
  // O_NOFOLLOW: the checked path's last component cannot have become a link since.
  const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return invalid_argument("file '" + ref.location + "': " + std::strerror(errno));
  struct stat info {};
  std::string bytes;
  Status status;
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    status = invalid_argument("file '" + ref.location + "' is not a regular file");
  } else if (static_cast<std::size_t>(info.st_size) > options.max_bytes) {
    status = invalid_argument("file '" + ref.location + "' is larger than " +
                              size_limit_text(options.max_bytes));
  } else {
    bytes.resize(static_cast<std::size_t>(info.st_size));
    std::size_t got = 0;
    while (got < bytes.size()) {
      const ssize_t n = read(fd, bytes.data() + got, bytes.size() - got);
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    bytes.resize(got);
  }
  close(fd);
  if (!status.ok()) return status;
  auto image = image_from_bytes(std::move(bytes));
  if (!image.ok()) return invalid_argument("file '" + ref.location + "': " + image.status().message());
  return image;
}

}  // namespace

StatusOr<Image> load_image(const ImageRef& ref, const MediaOptions& options) {
  switch (ref.source) {
    case ImageSource::kDataUri:
      return from_data_uri(ref, options);
    case ImageSource::kFile:
      return from_file(ref, options);
    case ImageSource::kUrl: {
      if (!options.allow_urls) {
        return failed_precondition(describe_image_ref(ref) +
                                   " not fetched: fetching images needs --allow-media-urls");
      }
      RAGMETER_ASSIGN_OR_RETURN(std::string bytes, fetch_image_url(ref.location, options));
      auto image = image_from_bytes(std::move(bytes));
      if (!image.ok()) {
        return invalid_argument(describe_image_ref(ref) + ": " + image.status().message());
      }
      return image;
    }
  }
  return internal_error("unknown image source");
}

}  // namespace ragmeter
