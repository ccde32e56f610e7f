// An image's bytes: the format from the signature, the size from the header (Leptonica),
// the identity from SHA-256, and base64 both ways (OpenSSL).
#include <leptonica/allheaders.h>
#include <openssl/evp.h>

#include <cctype>

#include "io/sha256.h"
#include "media/base64.h"
#include "ragmeter/image.h"

namespace ragmeter {
namespace {

// The first bytes, printable, for a refusal's reason.
std::string opening_of(std::string_view bytes) {
  std::string shown;
  for (unsigned char c : bytes.substr(0, 12)) {
    shown += std::isprint(c) ? static_cast<char>(c) : '.';
  }
  return shown;
}

}  // namespace

const char* image_mime_type(ImageFormat format) {
  switch (format) {
    case ImageFormat::kPng:
      return "image/png";
    case ImageFormat::kJpeg:
      return "image/jpeg";
    case ImageFormat::kGif:
      return "image/gif";
    case ImageFormat::kWebp:
      return "image/webp";
    case ImageFormat::kUnknown:
      break;
  }
  return "";
}

ImageFormat sniff_image_format(std::string_view bytes) {
  if (bytes.starts_with(std::string_view("\x89PNG\r\n\x1a\n", 8))) return ImageFormat::kPng;
  if (bytes.starts_with(std::string_view("\xff\xd8\xff", 3))) return ImageFormat::kJpeg;
  if (bytes.starts_with("GIF87a") || bytes.starts_with("GIF89a")) return ImageFormat::kGif;
  if (bytes.size() >= 12 && bytes.starts_with("RIFF") && bytes.substr(8, 4) == "WEBP") {
    return ImageFormat::kWebp;
  }
  return ImageFormat::kUnknown;
}

StatusOr<Image> image_from_bytes(std::string bytes) {
  Image image;
  image.format = sniff_image_format(bytes);
  if (image.format == ImageFormat::kUnknown) {
    if (bytes.empty()) return invalid_argument("not an image: it is empty");
    return invalid_argument("not an image: PNG, JPEG, GIF or WebP expected, the bytes start with '" +
                            opening_of(bytes) + "'");
  }
  l_int32 format = 0, width = 0, height = 0, bps = 0, spp = 0, colormap = 0;
  if (pixReadHeaderMem(reinterpret_cast<const l_uint8*>(bytes.data()), bytes.size(), &format,
                       &width, &height, &bps, &spp, &colormap) != 0 ||
      width <= 0 || height <= 0) {
    return invalid_argument(std::string("a ") + image_mime_type(image.format) +
                            " whose header cannot be read");
  }
  image.width = width;
  image.height = height;
  image.sha256 = sha256_hex(bytes);
  image.bytes = std::move(bytes);
  return image;
}

std::string Image::data_uri() const {
  return std::string("data:") + image_mime_type(format) + ";base64," + base64_encode(bytes);
}

std::string base64_encode(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3), '\0');
  const int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                      reinterpret_cast<const unsigned char*>(bytes.data()),
                                      static_cast<int>(bytes.size()));
  out.resize(written < 0 ? 0 : static_cast<std::size_t>(written));
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  std::string clean;
  clean.reserve(text.size());
  for (unsigned char c : text) {
    if (std::isspace(c)) continue;
    if (!std::isalnum(c) && c != '+' && c != '/' && c != '=') return std::nullopt;
    clean += static_cast<char>(c);
  }
  if (clean.size() % 4 != 0) return std::nullopt;
  std::string out(3 * (clean.size() / 4), '\0');
  const int written = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                      reinterpret_cast<const unsigned char*>(clean.data()),
                                      static_cast<int>(clean.size()));
  if (written < 0) return std::nullopt;
  // EVP_DecodeBlock counts the padding as zero bytes.
  std::size_t padding = 0;
  if (!clean.empty() && clean.back() == '=') ++padding;
  if (clean.size() > 1 && clean[clean.size() - 2] == '=') ++padding;
  out.resize(static_cast<std::size_t>(written) - padding);
  return out;
}

}  // namespace ragmeter
