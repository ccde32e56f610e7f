// Tesseract's language codes (ocr.h: tesseract_language), in every build: a build
// without Tesseract still names the code its message would need.
#include <array>
#include <utility>

#include "ragmeter/ocr.h"

namespace ragmeter {

std::string tesseract_language(std::string_view iso639_1) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 18> kCodes = {{
      {"en", "eng"},
      {"zh", "chi_sim"},
      {"ja", "jpn"},
      {"de", "deu"},
      {"ko", "kor"},
      {"da", "dan"},
      {"es", "spa"},
      {"fi", "fin"},
      {"fr", "fra"},
      {"hu", "hun"},
      {"id", "ind"},
      {"it", "ita"},
      {"nl", "nld"},
      {"no", "nor"},
      {"pt", "por"},
      {"ru", "rus"},
      {"sv", "swe"},
      {"und", "eng"},
  }};
  if (iso639_1.empty()) return "eng";
  for (const auto& [iso, code] : kCodes) {
    if (iso == iso639_1) return std::string(code);
  }
  return {};
}

}  // namespace ragmeter
