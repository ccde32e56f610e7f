// sacreBLEU's Python string semantics on UTF-8 text (see sacrebleu_text.h).
#include "metrics/sacrebleu_text.h"

#include <unicode/bytestream.h>
#include <unicode/casemap.h>
#include <unicode/stringpiece.h>

#include <algorithm>

namespace ragmeter::sacrebleu_internal {
namespace {

bool is_ascii(std::string_view text) {
  for (char c : text) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

}  // namespace

void python_lower(std::string_view text, std::string* out) {
  if (is_ascii(text)) {  // the common case needs no Unicode tables
    out->resize(text.size());
    std::transform(text.begin(), text.end(), out->begin(), [](char c) {
      return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    });
    return;
  }
  out->clear();
  out->reserve(text.size());
  icu::StringByteSink<std::string> sink(out);
  UErrorCode status = U_ZERO_ERROR;
  // The root locale ("") gives the language-independent mapping Python uses.
  icu::CaseMap::utf8ToLower("", 0, icu::StringPiece(text.data(), static_cast<int32_t>(text.size())),
                            sink, nullptr, status);
  if (U_FAILURE(status)) out->assign(text);
}

std::size_t non_ascii_space_length(std::string_view text, std::size_t pos) {
  const auto byte = [&](std::size_t i) -> unsigned char {
    return i < text.size() ? static_cast<unsigned char>(text[i]) : 0;
  };
  const unsigned char b1 = byte(pos + 1);
  const unsigned char b2 = byte(pos + 2);
  switch (byte(pos)) {
    case 0xC2:  // U+0085, U+00A0
      return (b1 == 0x85 || b1 == 0xA0) ? 2 : 0;
    case 0xE1:  // U+1680
      return (b1 == 0x9A && b2 == 0x80) ? 3 : 0;
    case 0xE2:  // U+2000-U+200A, U+2028, U+2029, U+202F; U+205F
      if (b1 == 0x80) {
        return (b2 >= 0x80 && b2 <= 0x8A) || b2 == 0xA8 || b2 == 0xA9 || b2 == 0xAF ? 3 : 0;
      }
      return (b1 == 0x81 && b2 == 0x9F) ? 3 : 0;
    case 0xE3:  // U+3000
      return (b1 == 0x80 && b2 == 0x80) ? 3 : 0;
    default:
      return 0;
  }
}

// A multi-byte space ends in a continuation byte: look back for its lead byte.
std::string_view python_rstrip(std::string_view text) {
  std::size_t end = text.size();
  while (end > 0) {
    std::size_t space = 0;
    for (std::size_t length = 1; length <= 3 && length <= end && space == 0; ++length) {
      if (python_space_length(text.substr(0, end), end - length) == length) space = length;
    }
    if (space == 0) break;
    end -= space;
  }
  return text.substr(0, end);
}

std::string_view python_lstrip(std::string_view text) {
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t space = python_space_length(text, start);
    if (space == 0) break;
    start += space;
  }
  return text.substr(start);
}

void python_split(std::string_view text, std::vector<std::string_view>* words) {
  words->clear();
  std::size_t word_start = 0;
  bool in_word = false;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t space = python_space_length(text, i);
    if (space == 0) {
      if (!in_word) word_start = i;
      in_word = true;
      ++i;
      continue;
    }
    if (in_word) words->push_back(text.substr(word_start, i - word_start));
    in_word = false;
    i += space;
  }
  if (in_word) words->push_back(text.substr(word_start));
}

}  // namespace ragmeter::sacrebleu_internal
