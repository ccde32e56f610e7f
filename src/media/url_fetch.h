// Fetching an image URL under the URL rule (image.h). Internal to src/media.
#pragma once

#include <string>

#include "ragmeter/image.h"

namespace ragmeter {

// GETs `url` and returns the body. Each hop (the URL, then each redirect, at most
// options.max_redirects) is checked before it is requested: http or https only; the host
// resolved once (options.resolve, else getaddrinfo) and every address it gives must be
// public or in options.allowed_networks; libcurl is then told those addresses
// (CURLOPT_RESOLVE) so it never asks DNS itself, and its socket callback refuses any
// other address. No proxy is used (a proxy would resolve the host itself). The body is
// cut off past options.max_bytes. Errors as load_image's: InvalidArgument for a refusal,
// Unavailable for a failed transfer or an HTTP status other than 2xx/3xx,
// DeadlineExceeded past options.fetch_timeout_seconds. Never names the URL's query.
StatusOr<std::string> fetch_image_url(const std::string& url, const MediaOptions& options);

}  // namespace ragmeter
