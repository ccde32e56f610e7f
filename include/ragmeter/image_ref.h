// Where an image among a sample's retrieved contexts comes from (ImageRef), and how a row's
// items are read as images (image_ref_from_string, image_ref_from_json): the part of
// docs/images.md a sample needs. Reading an image's bytes is media's (image.h).
//
// Thread-safety: every function here is thread-safe; the types are plain values.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

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

}  // namespace ragmeter
