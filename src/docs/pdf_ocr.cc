// A scanned PDF page's text: poppler renders the page, Leptonica encodes it as PNG (the
// image's identity for the OCR cache), the OCR reader reads it (ocr.h). Paragraphs are
// separated by blank lines, as the text layer's are.
#include <leptonica/allheaders.h>
#include <poppler/cpp/poppler-image.h>
#include <poppler/cpp/poppler-page-renderer.h>
#include <poppler/cpp/poppler-page.h>

#include <cstring>
#include <memory>

#include "docs/document_formats.h"
#include "media/pix.h"
#include "ragmeter/ocr.h"

namespace ragmeter::docs {
namespace {

// poppler's ARGB32 image (native-endian 0xAARRGGBB words) as a Leptonica RGB pix.
PixPtr to_pix(const poppler::image& image) {
  const int width = image.width(), height = image.height();
  PixPtr pix(pixCreate(width, height, 32));
  if (!pix) return pix;
  for (int y = 0; y < height; ++y) {
    const char* row = image.const_data() + static_cast<std::ptrdiff_t>(y) * image.bytes_per_row();
    l_uint32* line = pixGetData(pix.get()) + static_cast<std::ptrdiff_t>(y) * pixGetWpl(pix.get());
    for (int x = 0; x < width; ++x) {
      std::uint32_t argb = 0;
      std::memcpy(&argb, row + 4 * x, 4);
      composeRGBPixel((argb >> 16) & 0xff, (argb >> 8) & 0xff, argb & 0xff, &line[x]);
    }
  }
  return pix;
}

}  // namespace

StatusOr<std::string> ocr_pdf_page(const poppler::page& page, OcrReader& ocr,
                                   const std::string& language, double dpi) {
  poppler::page_renderer renderer;
  renderer.set_image_format(poppler::image::format_argb32);
  renderer.set_render_hint(poppler::page_renderer::antialiasing, true);
  renderer.set_render_hint(poppler::page_renderer::text_antialiasing, true);
  const poppler::image rendered = renderer.render_page(&page, dpi, dpi);
  if (!rendered.is_valid()) return invalid_argument("the page could not be rendered for OCR");
  auto pix = to_pix(rendered);
  if (!pix) return invalid_argument("the rendered page could not be converted for OCR");
  pixSetResolution(pix.get(), static_cast<l_int32>(dpi), static_cast<l_int32>(dpi));
  l_uint8* data = nullptr;
  size_t size = 0;
  if (pixWriteMemPng(&data, &size, pix.get(), 0.0f) != 0 || data == nullptr) {
    return invalid_argument("the rendered page could not be encoded for OCR");
  }
  std::string bytes(reinterpret_cast<const char*>(data), size);
  lept_free(data);
  RAGMETER_ASSIGN_OR_RETURN(Image image, image_from_bytes(std::move(bytes)));
  RAGMETER_ASSIGN_OR_RETURN(OcrResult read, ocr.read(image, language));
  return read.text();
}

}  // namespace ragmeter::docs
