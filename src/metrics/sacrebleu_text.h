// Text handling shared by BLEU and chrF, reproducing sacreBLEU's Python string
// semantics (str.lower, str.split, str.isspace) and its n-gram matching. Internal to
// src/metrics: not part of the public API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ragmeter {

// sacreBLEU works on Python `str`: these give its semantics on UTF-8 text.
namespace sacrebleu_internal {

// Python's str.lower() (full Unicode lowercase mapping, final sigma included).
std::string python_lower(std::string_view text);

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

// Python's str.split() without arguments.
std::vector<std::string_view> python_split(std::string_view text);

// A sequence of units (tokens or characters) whose n-grams are compared by content.
struct NGramSequence {
  // Equal units have equal keys. A unit of up to 7 bytes has short_unit_key(unit), so
  // equal keys mean equal units; a longer one has a hash with this bit set, and its
  // bytes must be compared.
  static constexpr std::uint64_t kHashedKey = std::uint64_t{1} << 63;

  std::vector<std::uint64_t> keys;  // one per unit
  // The units' bytes, needed for hashed keys only (characters leave them empty).
  std::string text;
  std::vector<std::uint32_t> starts;  // offset of each unit in `text`, then text.size()

  std::size_t size() const { return keys.size(); }
  std::string_view unit(std::size_t i) const {
    return std::string_view(text).substr(starts[i], starts[i + 1] - starts[i]);
  }
};

// The key of a unit of up to 7 bytes: its bytes and its length.
inline std::uint64_t short_unit_key(std::string_view unit) {
  std::uint64_t key = static_cast<std::uint64_t>(unit.size()) << 56;
  for (std::size_t k = 0; k < unit.size(); ++k) {
    key |= static_cast<std::uint64_t>(static_cast<unsigned char>(unit[k])) << (8 * k);
  }
  return key;
}

// Appends `word` (non-empty) to a sequence of words.
void append_word(std::string_view word, NGramSequence* sequence);

// How many n-grams of a hypothesis (orders 1..max_order) its references contain.
struct NGramMatches {
  int max_order = 0;
  // [r * max_order + n - 1]: sum over n-grams of min(count in hypothesis, count in
  // reference r), as chrF counts.
  std::vector<int> per_reference;
  // [n - 1]: sum over n-grams of min(count in hypothesis, highest count in any
  // reference), as BLEU counts.
  std::vector<int> max_reference;
};

// Counts the matches of all references in one pass per order.
NGramMatches match_ngrams(const NGramSequence& hypothesis,
                          std::span<const NGramSequence> references, int max_order);

}  // namespace sacrebleu_internal

}  // namespace ragmeter
