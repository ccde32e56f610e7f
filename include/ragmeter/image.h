// Images among the retrieved contexts: where one comes from (ImageRef), its bytes once
// read (Image), and the rules for reading them (MediaOptions). docs/images.md.
//
// A retrieved context is an image when the row says so (an object item of
// `retrieved_contexts`, image_ref_from_json) or, as ragas 0.4 reads plain strings, when
// the whole string is a data URI of an image, an http(s) URL or a path ending with an
// image extension (image_ref_from_string). An image is identified by the SHA-256 of its
// bytes, never by where it came from: the same picture from a file and from a URL is one
// image, and two different pictures at one URL on two days are two.
//
// Reading is refused unless allowed: files only under MediaOptions::media_root, URLs
// only with MediaOptions::allow_urls and never to a loopback, private, link-local or
// other non-public address (checked after DNS resolution and again on every redirect;
// the connection goes to the address that was checked, so a second DNS answer cannot
// change it). The type comes from the bytes (PNG, JPEG, GIF and WebP signatures), never
// from a name, a data URI's media type or a server's Content-Type.
//
// Thread-safety: every function here is thread-safe; the types are plain values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/status.h"

namespace ragmeter {

// Where an image is read from.
enum class ImageSource {
  kDataUri,  // "data:image/png;base64,..." in the row itself
  kFile,     // a path, relative to MediaOptions::media_root or absolute under it
  kUrl,      // an http or https URL
};

struct ImageRef {
  ImageSource source = ImageSource::kDataUri;
  std::string location;  // the data URI, the path or the URL, as the row gave it

  bool operator==(const ImageRef&) const = default;
};

// An image at its place among a sample's retrieved contexts: `rank` is its index in the
// row's retrieved_contexts list (text and images together, from 0).
struct RetrievedImage {
  std::size_t rank = 0;
  ImageRef ref;

  bool operator==(const RetrievedImage&) const = default;
};

// A plain string item as ragas 0.4 reads it: an image when the whole string (no white
// space) is a data URI with an image media type (or none: "data:;base64,"), an http(s)
// URL whose path ends with .png, .jpg, .jpeg, .gif, .webp or .bmp (case-insensitive), or
// a path ending so. Anything else is text (std::nullopt). Never fails.
std::optional<ImageRef> image_ref_from_string(std::string_view item);

// An item of retrieved_contexts: a string (image_ref_from_string), or an object of one of
//   {"type": "image", "url": "data:..." | "https://..."}   (also "image": ...)
//   {"type": "image", "path": "figures/p3.png"}
//   {"type": "image_url", "image_url": {"url": "..."}}     (an OpenAI content part)
//   {"type": "text", "text": "..."}                        (text: *text is set)
// Returns the image, or std::nullopt for text (then `*text` holds it). InvalidArgument
// for anything else (another type, an object without a usable field, a non-string url),
// naming what was wrong.
StatusOr<std::optional<ImageRef>> image_ref_from_json(const nlohmann::ordered_json& item,
                                                      std::string* text);

// A short description for reasons and reports: "data URI (1234 bytes)", "file
// 'figures/p3.png'", "URL https://example.com/a.png" (a data URI is never repeated).
std::string describe_image_ref(const ImageRef& ref);

// The formats an image may have; anything else is refused.
enum class ImageFormat { kUnknown, kPng, kJpeg, kGif, kWebp };

// "image/png", "image/jpeg", "image/gif", "image/webp"; "" for kUnknown.
const char* image_mime_type(ImageFormat format);

// The format the bytes' signature says: PNG (89 50 4E 47 0D 0A 1A 0A), JPEG (FF D8 FF),
// GIF ("GIF87a" / "GIF89a"), WebP ("RIFF" size "WEBP"); kUnknown otherwise.
ImageFormat sniff_image_format(std::string_view bytes);

// An image's bytes, read and checked.
struct Image {
  std::string bytes;
  ImageFormat format = ImageFormat::kUnknown;
  std::string sha256;  // lowercase hex SHA-256 of `bytes`: the image's identity
  int width = 0;       // pixels, from the header
  int height = 0;

  // "data:image/png;base64,..." of the bytes.
  std::string data_uri() const;
};

// Checks `bytes` as an image: the signature (sniff_image_format) and a header that gives
// the size (read with Leptonica). InvalidArgument naming what is wrong ("not an image: the
// bytes start with '<!DOCTYPE' ...", "a PNG whose header cannot be read").
StatusOr<Image> image_from_bytes(std::string bytes);

// A small copy of `image` for a report: scaled down (never up) to fit `max_side` pixels
// each way, transparency on white, as a JPEG data URI (quality 85). Empty when the image
// cannot be decoded.
std::string image_thumbnail(const Image& image, int max_side = 240);

// The rules for reading images. Plain values; the defaults read data URIs only.
struct MediaOptions {
  // Files are read only under this directory (symbolic links resolved before the check);
  // a relative path is taken relative to it. Empty: no file is read (--media-root).
  std::string media_root;
  // URLs are fetched only when true (--allow-media-urls), and then only from public
  // addresses. Each fetch is a network request to a host the data names.
  bool allow_urls = false;
  // The largest image, in bytes, from any source (decoded, for a data URI). ragas 0.4's
  // limit. A larger one is refused without reading the rest.
  std::size_t max_bytes = 10 * 1024 * 1024;
  // A URL fetch's limit, redirects included, and the redirects it follows.
  double fetch_timeout_seconds = 10.0;
  int max_redirects = 5;
  // Networks exempt from the public-address rule, as CIDR ("10.1.0.0/16", "::1/128") or
  // single addresses: an intranet image server (--allow-media-network). Every other
  // non-public address stays refused.
  std::vector<std::string> allowed_networks;
  // How a host name becomes addresses (numeric, "10.0.0.1" or "::1"); null: the system
  // resolver (getaddrinfo). For tests; must be thread-safe.
  std::function<StatusOr<std::vector<std::string>>(const std::string& host)> resolve;
};

// Reads the image `ref` points to under `options`. Errors, each naming the image:
//  - FailedPrecondition when the options do not allow its source at all (a file without
//    a media root, a URL without allow_urls): the caller reports the metric `skipped`;
//  - InvalidArgument when it is refused (outside the media root, a non-public address,
//    a scheme other than http/https, larger than max_bytes, not PNG/JPEG/GIF/WebP, a bad
//    data URI, an unreadable header);
//  - NotFound (no such file), Unavailable (a fetch that failed: connection, HTTP status,
//    too many redirects), DeadlineExceeded (a fetch past its limit).
StatusOr<Image> load_image(const ImageRef& ref, const MediaOptions& options);

// ---- Addresses (the URL rule) -----------------------------------------------------

// Why a numeric address may not be fetched from: "loopback", "private", "link-local",
// "unspecified", "multicast", "shared address space (carrier-grade NAT)", "reserved",
// "unique local", ... (IPv4-mapped and NAT64 IPv6 addresses are judged by the IPv4
// address inside them); empty for a public address. "not an IP address" for text that
// does not parse.
std::string non_public_address_reason(std::string_view address);

// Whether `address` is in one of `networks` (CIDR or single addresses as in
// MediaOptions::allowed_networks). InvalidArgument for a network that does not parse.
StatusOr<bool> address_in_networks(std::string_view address,
                                   const std::vector<std::string>& networks);

}  // namespace ragmeter
