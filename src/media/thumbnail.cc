// image_thumbnail (image.h): decode, flatten, scale down, encode as JPEG (Leptonica).
#include <leptonica/allheaders.h>

#include <algorithm>
#include <cstdlib>
#include <memory>

#include "media/base64.h"
#include "media/pix.h"
#include "ragmeter/image.h"

namespace ragmeter {
std::string image_thumbnail(const Image& image, int max_side) {
  PixPtr flat = max_side > 0 ? decode_on_white(image) : PixPtr();
  PixPtr colour(flat ? pixConvertTo32(flat.get()) : nullptr);
  if (!colour) return {};
  const int longest = std::max(pixGetWidth(colour.get()), pixGetHeight(colour.get()));
  const float scale =
      longest > max_side ? static_cast<float>(max_side) / static_cast<float>(longest) : 1.0f;
  PixPtr scaled(scale < 1.0f ? pixScale(colour.get(), scale, scale) : pixClone(colour.get()));
  if (!scaled) return {};
  l_uint8* data = nullptr;
  size_t size = 0;
  if (pixWriteMemJpeg(&data, &size, scaled.get(), 85, 0) != 0 || data == nullptr) return {};
  std::string uri = "data:image/jpeg;base64," +
                    base64_encode(std::string_view(reinterpret_cast<const char*>(data), size));
  lept_free(data);
  return uri;
}

}  // namespace ragmeter
