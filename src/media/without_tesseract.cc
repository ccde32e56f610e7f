// The OCR reader of a build without Tesseract (RAGMETER_WITH_TESSERACT=OFF; docs/library.md,
// "Building without a dependency"): every read fails with the reason, so an image read
// by OCR is `skipped` or `failed` saying so, never read as empty.
#include "ragmeter/ocr.h"

namespace ragmeter {
namespace {

class ReaderWithoutTesseract : public OcrReader {
 public:
  StatusOr<OcrResult> read(const Image&, std::string_view) override {
    return failed_precondition(
        "OCR needs Tesseract, which this ragmeter was built without (RAGMETER_WITH_TESSERACT=OFF)");
  }
  std::string engine() const override { return "none (built without Tesseract)"; }
};

}  // namespace

std::shared_ptr<OcrReader> make_tesseract_reader(const OcrOptions&) {
  return std::make_shared<ReaderWithoutTesseract>();
}

}  // namespace ragmeter
