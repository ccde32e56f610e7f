// N-gram matching shared by BLEU and chrF: how many n-grams of a hypothesis its
// references contain, clipped as sacreBLEU counts them. Internal to src/metrics: not
// part of the public API.
#pragma once

#include <bit>
#include <cstddef>
#include <cstring>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace ragmeter::sacrebleu_internal {

// A sequence of units (tokens or characters) whose n-grams are compared by content.
// clear() keeps the buffers, so a sequence reused across calls stops allocating.
struct NGramSequence {
  // Equal units have equal keys. A unit of up to 7 bytes has short_unit_key(unit), so
  // equal keys mean equal units; a longer one has a hash with this bit set, and its
  // bytes must be compared.
  static constexpr std::uint64_t kHashedKey = std::uint64_t{1} << 63;

  std::vector<std::uint64_t> keys;  // one per unit
  // The units' bytes, one per key, needed for hashed keys only (character sequences,
  // whose units are at most 4 bytes, leave it empty). Views: the text they point into
  // must outlive the matching.
  std::vector<std::string_view> units;

  std::size_t size() const { return keys.size(); }
  std::string_view unit(std::size_t i) const { return units[i]; }
  void clear() {
    keys.clear();
    units.clear();
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

// The key of any unit: short_unit_key up to 7 bytes, else a hash with kHashedKey set.
std::uint64_t unit_key(std::string_view unit);

// unit_key of the unit text[start, start + length) (length > 0). A short unit with 8
// bytes of `text` from its start is read in one load instead of byte by byte.
inline std::uint64_t unit_key_in(std::string_view text, std::size_t start, std::size_t length) {
  if constexpr (std::endian::native == std::endian::little) {
    if (length <= 7 && start + 8 <= text.size()) {
      std::uint64_t bytes;
      std::memcpy(&bytes, text.data() + start, 8);
      const std::uint64_t mask = (std::uint64_t{1} << (8 * length)) - 1;
      return (bytes & mask) | (static_cast<std::uint64_t>(length) << 56);
    }
  }
  return unit_key(std::string_view(text.data() + start, length));
}

// Appends `word` (non-empty; a view that must outlive the matching) to a sequence of
// words.
inline void append_word(std::string_view word, NGramSequence* sequence) {
  sequence->keys.push_back(unit_key(word));
  sequence->units.push_back(word);
}

// Appends the word text[start, start + length) (length > 0); `text` must outlive the
// matching.
inline void append_word_in(std::string_view text, std::size_t start, std::size_t length,
                           NGramSequence* sequence) {
  sequence->keys.push_back(unit_key_in(text, start, length));
  sequence->units.emplace_back(text.data() + start, length);
}

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

// Counts the matches of all references in one pass per order into `*matches` (whose
// buffers are reused). The working memory is per thread and kept between calls.
void match_ngrams(const NGramSequence& hypothesis, std::span<const NGramSequence> references,
                  int max_order, NGramMatches* matches);

}  // namespace ragmeter::sacrebleu_internal
