// Text handling shared by BLEU, chrF and the SQuAD token metrics, reproducing Python's string
// semantics (str.lower, str.split, str.isspace) on UTF-8 text. Internal to
// src/metrics: not part of the public API.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ragmeter::sacrebleu_internal {

// Python's str.lower() (full Unicode lowercase mapping, final sigma included), into
// `*out` (replacing its contents, reusing its buffer).
void python_lower(std::string_view text, std::string* out);

// python_space_length for a non-ASCII byte at `text[pos]`.
std::size_t non_ascii_space_length(std::string_view text, std::size_t pos);

// Byte length of the character at `text[pos]` if Python's str.isspace() holds for it
// (ASCII \t\n\v\f\r, \x1c-\x1f, space, U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028,
// U+2029, U+202F, U+205F, U+3000), else 0. `pos` must be < text.size(). Inline: the
// ASCII case is on every hot loop.
inline std::size_t python_space_length(std::string_view text, std::size_t pos) {
  const auto c = static_cast<unsigned char>(text[pos]);
  if (c < 0x80) return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) ? 1 : 0;
  return non_ascii_space_length(text, pos);
}

// Python's str.rstrip(), str.lstrip() and str.strip() without arguments: views of `text`.
std::string_view python_rstrip(std::string_view text);
std::string_view python_lstrip(std::string_view text);
inline std::string_view python_strip(std::string_view text) {
  return python_lstrip(python_rstrip(text));
}

// Python's str.split() without arguments, into `*words` (replacing its contents).
void python_split(std::string_view text, std::vector<std::string_view>* words);

}  // namespace ragmeter::sacrebleu_internal
