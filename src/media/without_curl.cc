// Image URLs in a build without libcurl (RAGMETER_WITH_CURL=OFF; docs/library.md,
// "Building without a dependency"): each is refused with the reason.
#include "media/url_fetch.h"

namespace ragmeter {

StatusOr<std::string> fetch_image_url(const std::string&, const MediaOptions&) {
  return failed_precondition(
      "fetching an image URL needs libcurl, which this ragmeter was built without "
      "(RAGMETER_WITH_CURL=OFF)");
}

}  // namespace ragmeter
