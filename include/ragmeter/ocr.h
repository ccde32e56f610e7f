// Reading the text in an image (OCR), for the offline judge and for scanned PDF pages:
// Tesseract through its C++ API, the result cut into passages (Tesseract's paragraphs),
// each with where it is in the image, and cached by the image's SHA-256. docs/images.md.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/image.h"
#include "ragmeter/llm.h"
#include "ragmeter/status.h"

namespace ragmeter {

// A rectangle in image pixels, from the top-left corner.
struct OcrBox {
  int left = 0;
  int top = 0;
  int width = 0;
  int height = 0;

  bool operator==(const OcrBox&) const = default;
};

// One paragraph of text found in an image. Lines are joined with a space (without one
// between two CJK characters).
struct OcrPassage {
  std::string text;
  OcrBox box;
  double confidence = 0.0;  // Tesseract's mean word confidence, 0..100

  bool operator==(const OcrPassage&) const = default;
};

struct OcrResult {
  std::string image_sha256;  // the image read (Image::sha256)
  std::string language;      // Tesseract's language code(s) used, e.g. "eng", "chi_sim"
  std::string engine;        // "tesseract 5.3.0"
  std::vector<OcrPassage> passages;  // in Tesseract's reading order; empty: no text found
  bool from_cache = false;

  // The passages' texts joined by blank lines: what a judge reads as the image's text.
  std::string text() const;
  // {"image": sha256, "language", "engine", "passages": [{"text", "box": [l, t, w, h],
  // "confidence"}]} (the evidence's form).
  nlohmann::ordered_json to_json() const;
};

struct OcrOptions {
  // The cache of OCR results (kind "ocr", keyed by the image's SHA-256, the language and
  // the engine's version). Empty path: ${RAGMETER_CACHE:-~/.cache/ragmeter}/ocr.sqlite.
  // kOff reads every image again.
  llm::CacheOptions cache;
  // Tesseract's language(s) for every image ("eng", "deu+eng"); empty: from the sample's
  // language (tesseract_language), English when it has none. --ocr-language.
  std::string language;
  // Where the traineddata files are; empty: Tesseract's default (Debian:
  // /usr/share/tesseract-ocr/5/tessdata).
  std::string tessdata;
};

// Tesseract's code for an ISO 639-1 language ("en" -> "eng", "zh" -> "chi_sim", "ja" ->
// "jpn", "de" -> "deu", "ko" -> "kor", and the other languages the offline judge covers);
// "eng" for "und" and an empty code; "" for a language without a code here.
std::string tesseract_language(std::string_view iso639_1);

// Reads images' text. Thread-safe: several threads may read at once (each with its own
// Tesseract instance, kept for reuse).
class OcrReader {
 public:
  virtual ~OcrReader() = default;
  // The text of `image`, for a sample in `language` (ISO 639-1, or "" / "und").
  // FailedPrecondition when Tesseract has no data for the language ("install
  // tesseract-ocr-kor"); InvalidArgument when the image cannot be decoded.
  virtual StatusOr<OcrResult> read(const Image& image, std::string_view language) = 0;
  // "tesseract 5.3.0".
  virtual std::string engine() const = 0;
};

// The Tesseract reader. Opens nothing until the first read (the cache file then).
std::shared_ptr<OcrReader> make_tesseract_reader(const OcrOptions& options = {});

}  // namespace ragmeter
