// OCR results as text and JSON (ocr.h). Internal to src/media.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ragmeter/ocr.h"

namespace ragmeter {

// A Tesseract paragraph's lines as one line: each line trimmed, joined with a space,
// without one between two CJK characters (and, for Chinese and Japanese, the spaces
// Tesseract puts between two CJK characters taken out).
std::string join_ocr_lines(std::string_view text, std::string_view tesseract_code);

// The Debian package with a Tesseract language's data: "chi_sim" -> "tesseract-ocr-chi-sim".
std::string tesseract_package(std::string_view tesseract_code);

// The inverse of OcrResult::to_json; nullopt when `json` is not of that form.
std::optional<OcrResult> ocr_result_from_json(const nlohmann::ordered_json& json);

}  // namespace ragmeter
