// OCR results as text and JSON: line joining, the evidence's form and its inverse.
#include "media/ocr_text.h"

#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/utf8.h>

namespace ragmeter {
namespace {

bool is_cjk(UChar32 c) {
  UErrorCode error = U_ZERO_ERROR;
  const UScriptCode script = uscript_getScript(c, &error);
  return script == USCRIPT_HAN || script == USCRIPT_HIRAGANA || script == USCRIPT_KATAKANA ||
         script == USCRIPT_HANGUL || (c >= 0x3000 && c <= 0x303F) || (c >= 0xFF00 && c <= 0xFFEF);
}

// The first and last code points of `text` (U_SENTINEL for an empty text).
UChar32 first_code_point(std::string_view text) {
  if (text.empty()) return U_SENTINEL;
  int32_t at = 0;
  UChar32 c = 0;
  U8_NEXT(reinterpret_cast<const uint8_t*>(text.data()), at, static_cast<int32_t>(text.size()), c);
  return c;
}

UChar32 last_code_point(std::string_view text) {
  if (text.empty()) return U_SENTINEL;
  int32_t at = static_cast<int32_t>(text.size());
  UChar32 c = 0;
  U8_PREV(reinterpret_cast<const uint8_t*>(text.data()), 0, at, c);
  return c;
}

std::string_view trim(std::string_view text) {
  const std::size_t begin = text.find_first_not_of(" \t\r\f\v");
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(" \t\r\f\v") + 1 - begin);
}

// Text with the spaces between two CJK characters taken out.
std::string without_cjk_spaces(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == ' ' && !out.empty() && i + 1 < text.size() && is_cjk(last_code_point(out)) &&
        is_cjk(first_code_point(std::string_view(text).substr(i + 1)))) {
      continue;
    }
    out += text[i];
  }
  return out;
}

}  // namespace

std::string join_ocr_lines(std::string_view text, std::string_view tesseract_code) {
  std::string out;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = trim(text.substr(start, end - start));
    if (!line.empty()) {
      if (!out.empty() && !(is_cjk(last_code_point(out)) && is_cjk(first_code_point(line)))) out += ' ';
      out += line;
    }
    start = end + 1;
  }
  const bool cjk_language = tesseract_code.find("chi") != std::string_view::npos ||
                            tesseract_code.find("jpn") != std::string_view::npos;
  return cjk_language ? without_cjk_spaces(out) : out;
}

std::string tesseract_package(std::string_view tesseract_code) {
  std::string package = "tesseract-ocr-" + std::string(tesseract_code.substr(0, tesseract_code.find('+')));
  for (char& c : package) c = c == '_' ? '-' : c;
  return package;
}

std::string OcrResult::text() const {
  std::string out;
  for (const OcrPassage& passage : passages) {
    if (!out.empty()) out += "\n\n";
    out += passage.text;
  }
  return out;
}

nlohmann::ordered_json OcrResult::to_json() const {
  nlohmann::ordered_json passages_json = nlohmann::ordered_json::array();
  for (const OcrPassage& passage : passages) {
    passages_json.push_back({{"text", passage.text},
                             {"box", {passage.box.left, passage.box.top, passage.box.width, passage.box.height}},
                             {"confidence", passage.confidence}});
  }
  return {{"image", image_sha256}, {"language", language}, {"engine", engine}, {"passages", passages_json}};
}

std::optional<OcrResult> ocr_result_from_json(const nlohmann::ordered_json& json) {
  try {
    OcrResult result;
    result.image_sha256 = json.at("image").get<std::string>();
    result.language = json.at("language").get<std::string>();
    result.engine = json.at("engine").get<std::string>();
    for (const auto& item : json.at("passages")) {
      OcrPassage passage;
      passage.text = item.at("text").get<std::string>();
      const auto& box = item.at("box");
      passage.box = {box.at(0).get<int>(), box.at(1).get<int>(), box.at(2).get<int>(), box.at(3).get<int>()};
      passage.confidence = item.at("confidence").get<double>();
      result.passages.push_back(std::move(passage));
    }
    return result;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

}  // namespace ragmeter
