// Which items of retrieved_contexts are images, and where they come from (image.h).
#include <algorithm>
#include <array>
#include <cctype>

#include "ragmeter/image.h"

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool has_space(std::string_view text) {
  return std::any_of(text.begin(), text.end(),
                     [](unsigned char c) { return std::isspace(c) != 0; });
}

// ragas 0.4's COMMON_IMAGE_EXTENSIONS.
bool has_image_extension(std::string_view path) {
  static constexpr std::array<std::string_view, 6> kExtensions = {".png", ".jpg", ".jpeg",
                                                                  ".gif", ".webp", ".bmp"};
  const std::string folded = lower(path);
  return std::any_of(kExtensions.begin(), kExtensions.end(),
                     [&folded](std::string_view ext) { return folded.ends_with(ext); });
}

bool is_http_url(std::string_view text) {
  const std::string folded = lower(text.substr(0, 8));
  return folded.starts_with("http://") || folded.starts_with("https://");
}

// "data:" then a media type that is an image's or none, then ";base64,".
bool is_image_data_uri(std::string_view text) {
  if (!lower(text.substr(0, 5)).starts_with("data:")) return false;
  const std::size_t comma = text.find(',');
  if (comma == std::string_view::npos) return false;
  const std::string header = lower(text.substr(5, comma - 5));
  if (!header.ends_with(";base64")) return false;
  const std::string type = header.substr(0, header.size() - 7);
  return type.empty() || type.starts_with("image/") || type == "application/octet-stream";
}

// The URL path of an http(s) URL, without query or fragment.
std::string_view url_path(std::string_view url) {
  const std::size_t authority = url.find("//");
  const std::size_t slash = url.find('/', authority + 2);
  if (slash == std::string_view::npos) return {};
  std::string_view path = url.substr(slash);
  return path.substr(0, path.find_first_of("?#"));
}

// An image named by a string that the row says is one (an object's url or path):
// data URI, http(s) URL or file, whatever its extension.
StatusOr<ImageRef> declared_image(std::string_view location, bool is_path) {
  if (location.empty()) return invalid_argument("the image's location is empty");
  if (is_path) return ImageRef{ImageSource::kFile, std::string(location)};
  if (lower(location.substr(0, 5)).starts_with("data:")) {
    if (!is_image_data_uri(location)) {
      return invalid_argument("a data URI of an image must be data:image/...;base64,...");
    }
    return ImageRef{ImageSource::kDataUri, std::string(location)};
  }
  if (is_http_url(location)) return ImageRef{ImageSource::kUrl, std::string(location)};
  if (location.find("://") != std::string_view::npos) {
    return invalid_argument("an image URL must be http or https");
  }
  return ImageRef{ImageSource::kFile, std::string(location)};
}

const Json* string_member(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? &*it : nullptr;
}

}  // namespace

std::optional<ImageRef> image_ref_from_string(std::string_view item) {
  if (item.empty() || has_space(item)) return std::nullopt;
  if (is_image_data_uri(item)) return ImageRef{ImageSource::kDataUri, std::string(item)};
  if (is_http_url(item)) {
    if (!has_image_extension(url_path(item))) return std::nullopt;
    return ImageRef{ImageSource::kUrl, std::string(item)};
  }
  if (item.find("://") != std::string_view::npos) return std::nullopt;
  if (has_image_extension(item)) return ImageRef{ImageSource::kFile, std::string(item)};
  return std::nullopt;
}

StatusOr<std::optional<ImageRef>> image_ref_from_json(const Json& item, std::string* text) {
  if (item.is_string()) {
    const std::string& value = item.get_ref<const std::string&>();
    if (auto image = image_ref_from_string(value)) return std::optional<ImageRef>(std::move(*image));
    *text = value;
    return std::optional<ImageRef>();
  }
  if (!item.is_object()) return invalid_argument("expected a string or an object");
  const Json* type = string_member(item, "type");
  if (type == nullptr) return invalid_argument("an object item needs a \"type\" (\"image\" or \"text\")");
  const std::string& kind = type->get_ref<const std::string&>();
  if (kind == "text") {
    const Json* value = string_member(item, "text");
    if (value == nullptr) return invalid_argument("a text item needs a string \"text\"");
    *text = value->get<std::string>();
    return std::optional<ImageRef>();
  }
  const Json* location = nullptr;
  bool is_path = false;
  if (kind == "image_url") {
    auto part = item.find("image_url");
    if (part != item.end() && part->is_object()) location = string_member(*part, "url");
    if (part != item.end() && part->is_string()) location = &*part;
  } else if (kind == "image") {
    location = string_member(item, "url");
    if (location == nullptr) location = string_member(item, "image");
    if (location == nullptr) {
      location = string_member(item, "path");
      is_path = location != nullptr;
    }
  } else {
    return invalid_argument("unknown item type '" + kind + "' (expected \"image\", \"image_url\" or \"text\")");
  }
  if (location == nullptr) {
    return invalid_argument("an image item needs a string \"url\" or \"path\"" +
                            std::string(kind == "image_url" ? " (image_url.url)" : ""));
  }
  RAGMETER_ASSIGN_OR_RETURN(ImageRef ref,
                            declared_image(location->get_ref<const std::string&>(), is_path));
  return std::optional<ImageRef>(std::move(ref));
}

std::string describe_image_ref(const ImageRef& ref) {
  switch (ref.source) {
    case ImageSource::kDataUri:
      return "data URI (" + std::to_string(ref.location.size()) + " characters)";
    case ImageSource::kFile:
      return "file '" + ref.location + "'";
    case ImageSource::kUrl:  // a query string may hold a signature: never repeated
      return "URL " + ref.location.substr(0, ref.location.find_first_of("?#"));
  }
  return "image";
}

}  // namespace ragmeter
