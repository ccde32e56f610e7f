// A PDF page without a text layer is read by OCR (LoadOptions::ocr; docs/images.md): the
// real Tesseract on tests/data/images/scanned.pdf, a page Pillow drew with known text.
#include <gtest/gtest.h>

#include <string>

#include "ragmeter/documents.h"
#include "ragmeter/ocr.h"
#include "tests/unit/test_paths.h"

namespace ragmeter {
namespace {

std::string scanned_pdf() { return std::string(RAGMETER_SOURCE_DIR) + "/tests/data/images/scanned.pdf"; }

TEST(ScannedPdfTest, WithoutOcrThePageHasNoText) {
  LoadResult loaded = load_documents(scanned_pdf());
  ASSERT_EQ(loaded.problems.size(), 1u);
  EXPECT_NE(loaded.problems[0].reason.find("no text layer"), std::string::npos);
}

TEST(ScannedPdfTest, OcrReadsTheScannedPageIntoParagraphs) {
  OcrOptions ocr;
  ocr.cache.mode = llm::CacheMode::kOff;
  LoadOptions options;
  options.ocr = make_tesseract_reader(ocr);
  LoadResult loaded = load_documents(scanned_pdf(), options);
  ASSERT_TRUE(loaded.problems.empty()) << loaded.problems[0].reason;
  ASSERT_EQ(loaded.documents.size(), 1u);
  std::string text;
  for (const DocumentBlock& block : loaded.documents[0].blocks) {
    EXPECT_EQ(block.page, 1);
    text += block.text + "\n";
  }
  EXPECT_NE(text.find("The lighthouse at Cape Wrath was built in 1828."), std::string::npos) << text;
  EXPECT_NE(text.find("22 nautical miles"), std::string::npos) << text;
}

}  // namespace
}  // namespace ragmeter
