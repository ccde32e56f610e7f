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
// The buffers only grow: clear() and reserve() keep them, so a sequence reused across
// calls stops allocating, and appending a unit is two stores.
class NGramSequence {
 public:
  // Equal units have equal keys. A unit of up to 7 bytes has short_unit_key(unit), so
  // equal keys mean equal units; a longer one has a hash with this bit set
  // (long_unit_key), and its bytes must be compared.
  static constexpr std::uint64_t kHashedKey = std::uint64_t{1} << 63;

  std::size_t size() const { return size_; }
  std::uint64_t key(std::size_t i) const { return keys_[i]; }
  // The unit's bytes: only sequences built with append() have them (character
  // sequences, whose units are at most 4 bytes, are built with keys_for()). A view:
  // the text it points into must outlive the matching.
  std::string_view unit(std::size_t i) const { return units_[i]; }

  // Whether unit() is available (append() was used, not keys_for()).
  bool has_units() const { return has_units_; }

  void clear() { size_ = 0; }
  // Room for `count` more units.
  void reserve(std::size_t count) {
    if (keys_.size() < size_ + count) {
      keys_.resize(size_ + count);
      units_.resize(size_ + count);
    }
  }
  // Appends a unit; reserve() must have made room.
  void append(std::uint64_t key, std::string_view unit) {
    keys_[size_] = key;
    units_[size_] = unit;
    ++size_;
    has_units_ = true;
  }
  // For a sequence of keys only: clears it and returns room for `count` keys, of which
  // the caller fills the first n and then calls set_size(n).
  std::uint64_t* keys_for(std::size_t count) {
    if (keys_.size() < count) keys_.resize(count);
    size_ = 0;
    has_units_ = false;
    return keys_.data();
  }
  void set_size(std::size_t count) { size_ = count; }

 private:
  std::vector<std::uint64_t> keys_;
  std::vector<std::string_view> units_;
  std::size_t size_ = 0;
  bool has_units_ = false;
};

// The key of a unit of up to 7 bytes: its bytes and its length.
inline std::uint64_t short_unit_key(std::string_view unit) {
  std::uint64_t key = static_cast<std::uint64_t>(unit.size()) << 56;
  for (std::size_t k = 0; k < unit.size(); ++k) {
    key |= static_cast<std::uint64_t>(static_cast<unsigned char>(unit[k])) << (8 * k);
  }
  return key;
}

// The key of a unit of 8 bytes or more, from its first and its last 8 bytes (which
// overlap below 16 bytes) and its length: a hash, with kHashedKey set, that needs no
// loop over the bytes. Units that differ only in between have equal keys; their
// bytes are compared then.
inline std::uint64_t long_unit_key(std::uint64_t first8, std::uint64_t last8, std::size_t length) {
  const std::uint64_t mixed = (first8 * 0x9E3779B97F4A7C15ULL) ^ (last8 * 0xC2B2AE3D27D4EB4FULL);
  const std::uint64_t clamped_length = length < 127 ? length : 127;
  return (mixed >> 8) | (clamped_length << 56) | NGramSequence::kHashedKey;
}

// The key of any unit: short_unit_key up to 7 bytes, else long_unit_key.
std::uint64_t unit_key(std::string_view unit);

// unit_key of the unit text[start, start + length) (length > 0). With 8 bytes of `text`
// from the unit's start, either key comes from two 8-byte loads, no loop over the
// bytes. (GCC compiles the choice between them to a branch; a forced branch-free
// select was measured and was slower.)
inline std::uint64_t unit_key_in(std::string_view text, std::size_t start, std::size_t length) {
  if constexpr (std::endian::native == std::endian::little) {
    if (start + 8 <= text.size()) {
      std::uint64_t first8;
      std::uint64_t last8;
      std::memcpy(&first8, text.data() + start, 8);
      // A short unit's last 8 bytes may begin before the text; it does not use them.
      const std::size_t last_at = start + length >= 8 ? start + length - 8 : 0;
      std::memcpy(&last8, text.data() + last_at, 8);
      const std::size_t kept = length < 7 ? length : 7;
      const std::uint64_t mask = (std::uint64_t{1} << (8 * kept)) - 1;
      const std::uint64_t short_key = (first8 & mask) | (static_cast<std::uint64_t>(length) << 56);
      const std::uint64_t long_key = long_unit_key(first8, last8, length);
      return length <= 7 ? short_key : long_key;
    }
  }
  return unit_key(std::string_view(text.data() + start, length));
}

// Appends `word` (non-empty; a view that must outlive the matching) to a sequence of
// words.
inline void append_word(std::string_view word, NGramSequence* sequence) {
  sequence->reserve(1);
  sequence->append(unit_key(word), word);
}

// Appends the word text[start, start + length) (length > 0); `text` must outlive the
// matching, and reserve() must have made room.
inline void append_word_in(std::string_view text, std::size_t start, std::size_t length,
                           NGramSequence* sequence) {
  sequence->append(unit_key_in(text, start, length), std::string_view(text.data() + start, length));
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
