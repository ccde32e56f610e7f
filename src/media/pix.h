// Leptonica images owned by a unique_ptr, and an image decoded for reading. Internal.
#pragma once

#include <leptonica/allheaders.h>

#include <memory>

#include "ragmeter/image.h"

namespace ragmeter {

struct PixDeleter {
  void operator()(Pix* pix) const { pixDestroy(&pix); }
};
using PixPtr = std::unique_ptr<Pix, PixDeleter>;

// `image` decoded, a transparent background blended onto white as a viewer shows it (OCR
// would otherwise read the colour behind the alpha channel). Null when it cannot be decoded.
inline PixPtr decode_on_white(const Image& image) {
  PixPtr decoded(
      pixReadMem(reinterpret_cast<const l_uint8*>(image.bytes.data()), image.bytes.size()));
  if (!decoded) return decoded;
  return PixPtr(pixGetDepth(decoded.get()) == 32 ? pixRemoveAlpha(decoded.get())
                                                 : pixClone(decoded.get()));
}

}  // namespace ragmeter
