// String similarity measures equal to rapidfuzz 3.x (rapidfuzz.distance.*), on code points.
//
// Levenshtein: unit-cost edit distance d, computed with Myers' bit-vector algorithm
//   (G. Myers, "A fast bit-vector algorithm for approximate string matching based on
//   dynamic programming", JACM 1999) in blocks of 64 rows for the shorter string;
//   similarity 1 - d / max(|a|, |b|), 1 for two empty strings.
// Jaro: characters match when equal and at most floor(max(|a|,|b|) / 2) - 1 apart, each
//   character of a taking the first free match in b; with m matches and t half the number
//   of matched pairs out of order, (m/|a| + m/|b| + (m - t)/m) / 3; 1 for two empty
//   strings, 0 for one empty string or no match; two one-character strings score 1 or 0.
// Jaro-Winkler: with Jaro similarity s > 0.7 and a common prefix of l <= 4 code points,
//   s + l * prefix_weight * (1 - s), at most 1 (W. E. Winkler, 1990; rapidfuzz's threshold).
// Hamming (padded): mismatches over the common length plus the length difference;
//   similarity 1 - d / max(|a|, |b|), 1 for two empty strings.
//
// Invalid UTF-8 bytes decode as Python's 'surrogateescape' does (byte b -> U+DC00 + b), so
// each is one unit, equal only to the same invalid byte.
#include "ragmeter/string_similarity.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ragmeter {
namespace {

char32_t escaped_byte(unsigned char byte) { return 0xDC00 + byte; }

// One well-formed UTF-8 sequence (Unicode Table 3-7) at `i`: its code point and length.
std::pair<char32_t, std::size_t> decode_one(std::string_view s, std::size_t i) {
  const auto lead = static_cast<unsigned char>(s[i]);
  if (lead < 0x80) return {lead, 1};
  std::size_t length = 0;
  char32_t code_point = 0;
  unsigned char second_low = 0x80;
  unsigned char second_high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    code_point = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    code_point = lead & 0x0F;
    if (lead == 0xE0) second_low = 0xA0;   // no overlong forms
    if (lead == 0xED) second_high = 0x9F;  // no surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    code_point = lead & 0x07;
    if (lead == 0xF0) second_low = 0x90;   // no overlong forms
    if (lead == 0xF4) second_high = 0x8F;  // nothing above U+10FFFF
  } else {
    return {escaped_byte(lead), 1};
  }
  if (i + length > s.size()) return {escaped_byte(lead), 1};
  for (std::size_t k = 1; k < length; ++k) {
    const auto byte = static_cast<unsigned char>(s[i + k]);
    const unsigned char low = k == 1 ? second_low : 0x80;
    const unsigned char high = k == 1 ? second_high : 0xBF;
    if (byte < low || byte > high) return {escaped_byte(lead), 1};
    code_point = (code_point << 6) | (byte & 0x3F);
  }
  return {code_point, length};
}

std::u32string decode_utf8(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    auto [code_point, length] = decode_one(s, i);
    out.push_back(code_point);
    i += length;
  }
  return out;
}

bool is_ascii(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

// Calls fn with both strings as spans of code points: the bytes themselves when both are
// ASCII (no decoding, no allocation), decoded UTF-32 otherwise.
template <typename Fn>
auto on_code_points(std::string_view a, std::string_view b, Fn&& fn) {
  if (is_ascii(a) && is_ascii(b)) {
    return fn(std::span(reinterpret_cast<const unsigned char*>(a.data()), a.size()),
              std::span(reinterpret_cast<const unsigned char*>(b.data()), b.size()));
  }
  const std::u32string decoded_a = decode_utf8(a);
  const std::u32string decoded_b = decode_utf8(b);
  return fn(std::span<const char32_t>(decoded_a), std::span<const char32_t>(decoded_b));
}

// For each character of a string, the bit mask of its positions, `words()` 64-bit words per
// character; a character absent from the string has an all-zero mask.
class PositionMasks {
 public:
  template <typename CharT>
  explicit PositionMasks(std::span<const CharT> s) : words_((s.size() + 63) / 64) {
    masks_.assign(words_, 0);  // slot 0: absent characters
    small_slots_.fill(0);
    for (std::size_t i = 0; i < s.size(); ++i) {
      masks_[slot_for(s[i]) * words_ + i / 64] |= std::uint64_t{1} << (i % 64);
    }
  }

  std::size_t words() const { return words_; }

  const std::uint64_t* find(char32_t c) const {
    std::size_t slot = 0;
    if (c < small_slots_.size()) {
      slot = small_slots_[c];
    } else if (auto it = large_slots_.find(c); it != large_slots_.end()) {
      slot = it->second;
    }
    return &masks_[slot * words_];
  }

 private:
  std::size_t slot_for(char32_t c) {
    std::uint32_t* slot = nullptr;
    if (c < small_slots_.size()) {
      slot = &small_slots_[c];
    } else {
      slot = &large_slots_.try_emplace(c, 0).first->second;
    }
    if (*slot == 0) {
      *slot = static_cast<std::uint32_t>(masks_.size() / words_);
      masks_.resize(masks_.size() + words_, 0);
    }
    return *slot;
  }

  std::size_t words_;
  std::vector<std::uint64_t> masks_;
  std::array<std::uint32_t, 256> small_slots_;
  std::unordered_map<char32_t, std::uint32_t> large_slots_;
};

// Vertical deltas of one 64-row block of the edit-distance matrix column: bit i of
// positive (negative) set when D[i+1][j] - D[i][j] is +1 (-1).
struct Block {
  std::uint64_t positive = ~std::uint64_t{0};
  std::uint64_t negative = 0;
};

// The horizontal delta D[i][j] - D[i][j-1] at a block's edge row, as two bits.
struct HorizontalDelta {
  std::uint64_t plus = 0;
  std::uint64_t minus = 0;
};

// Myers' advance_block without branches: moves the block one column on, given `match`
// (the rows whose character equals the column's) and the delta entering at its top row;
// returns the delta leaving at row `out_row` (63, or the last row of a partial block).
HorizontalDelta advance_block(Block& block, std::uint64_t match, HorizontalDelta in,
                              unsigned out_row) {
  const std::uint64_t pv = block.positive;
  const std::uint64_t mv = block.negative;
  const std::uint64_t xv = match | mv;
  match |= in.minus;  // a -1 entering acts as a match in the top row
  const std::uint64_t xh = (((match & pv) + pv) ^ pv) | match;
  const std::uint64_t ph = mv | ~(xh | pv);
  const std::uint64_t mh = pv & xh;
  const HorizontalDelta out{(ph >> out_row) & 1, (mh >> out_row) & 1};
  const std::uint64_t ph_shifted = (ph << 1) | in.plus;
  const std::uint64_t mh_shifted = (mh << 1) | in.minus;
  block.positive = mh_shifted | ~(xv | ph_shifted);
  block.negative = ph_shifted & xv;
  return out;
}

// A common prefix or suffix never changes the edit distance.
template <typename CharT>
void trim_common_affixes(std::span<const CharT>& a, std::span<const CharT>& b) {
  auto [end_a, end_b] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  std::size_t prefix = static_cast<std::size_t>(end_a - a.begin());
  a = a.subspan(prefix);
  b = b.subspan(prefix);
  auto [rend_a, rend_b] = std::mismatch(a.rbegin(), a.rend(), b.rbegin(), b.rend());
  std::size_t suffix = static_cast<std::size_t>(rend_a - a.rbegin());
  a = a.first(a.size() - suffix);
  b = b.first(b.size() - suffix);
}

template <typename CharT>
std::size_t levenshtein_code_points(std::span<const CharT> a, std::span<const CharT> b) {
  trim_common_affixes(a, b);
  if (a.size() > b.size()) std::swap(a, b);
  if (a.empty()) return b.size();
  const PositionMasks masks(a);
  const std::size_t words = masks.words();
  const unsigned last_row = static_cast<unsigned>((a.size() - 1) % 64);
  std::vector<Block> blocks(words);
  std::ptrdiff_t distance = static_cast<std::ptrdiff_t>(a.size());
  for (CharT c : b) {
    const std::uint64_t* match = masks.find(c);
    HorizontalDelta delta{1, 0};  // the top row D[0][j] = j grows by one per column
    for (std::size_t w = 0; w + 1 < words; ++w) delta = advance_block(blocks[w], match[w], delta, 63);
    delta = advance_block(blocks[words - 1], match[words - 1], delta, last_row);
    distance += static_cast<std::ptrdiff_t>(delta.plus) - static_cast<std::ptrdiff_t>(delta.minus);
  }
  return static_cast<std::size_t>(distance);
}

// Lowest set bit of `bits` within positions [low, high], or -1.
std::ptrdiff_t first_in_range(const std::uint64_t* bits, const std::vector<std::uint64_t>& taken,
                              std::size_t low, std::size_t high) {
  for (std::size_t w = low / 64; w <= high / 64; ++w) {
    std::uint64_t candidates = bits[w] & ~taken[w];
    if (w == low / 64) candidates &= ~std::uint64_t{0} << (low % 64);
    if (w == high / 64 && high % 64 != 63) candidates &= (std::uint64_t{2} << (high % 64)) - 1;
    if (candidates != 0) return static_cast<std::ptrdiff_t>(w * 64 + std::countr_zero(candidates));
  }
  return -1;
}

double jaro_formula(std::size_t len_a, std::size_t len_b, std::size_t common,
                    std::size_t transpositions) {
  // Same operation order as rapidfuzz, so results agree to the bit.
  const double m = static_cast<double>(common);
  double sim = 0.0;
  sim += m / static_cast<double>(len_a);
  sim += m / static_cast<double>(len_b);
  sim += (m - static_cast<double>(transpositions / 2)) / m;
  return sim / 3.0;
}

template <typename CharT>
double jaro_code_points(std::span<const CharT> a, std::span<const CharT> b) {
  if (a.empty() && b.empty()) return 1.0;
  if (a.empty() || b.empty()) return 0.0;
  const std::size_t len_a = a.size();
  const std::size_t len_b = b.size();
  if (len_a == 1 && len_b == 1) return a[0] == b[0] ? 1.0 : 0.0;
  // Past position shorter + bound of the longer string nothing can match.
  const std::size_t bound = std::max(len_a, len_b) / 2 - 1;
  if (len_b > len_a) {
    b = b.first(std::min(len_b, len_a + bound));
  } else {
    a = a.first(std::min(len_a, len_b + bound));
  }
  const PositionMasks masks_b(b);
  std::vector<std::uint64_t> taken_b(masks_b.words(), 0);
  std::vector<char> matched_a(a.size(), 0);
  std::size_t common = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const std::size_t low = i > bound ? i - bound : 0;
    const std::size_t high = std::min(i + bound, b.size() - 1);
    if (low > high) continue;
    std::ptrdiff_t j = first_in_range(masks_b.find(a[i]), taken_b, low, high);
    if (j < 0) continue;
    taken_b[static_cast<std::size_t>(j) / 64] |= std::uint64_t{1} << (j % 64);
    matched_a[i] = 1;
    ++common;
  }
  if (common == 0) return 0.0;
  // Pair the matched characters of a and b in order; count the unequal pairs.
  std::size_t transpositions = 0;
  std::size_t word = 0;
  std::uint64_t remaining = taken_b[0];
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!matched_a[i]) continue;
    while (remaining == 0) remaining = taken_b[++word];
    const std::size_t j = word * 64 + static_cast<std::size_t>(std::countr_zero(remaining));
    remaining &= remaining - 1;
    if (a[i] != b[j]) ++transpositions;
  }
  return jaro_formula(len_a, len_b, common, transpositions);
}

template <typename CharT>
std::size_t hamming_code_points(std::span<const CharT> a, std::span<const CharT> b) {
  const std::size_t common = std::min(a.size(), b.size());
  std::size_t distance = std::max(a.size(), b.size()) - common;
  for (std::size_t i = 0; i < common; ++i) distance += a[i] != b[i] ? 1 : 0;
  return distance;
}

// 1 - distance / max length, 1 for two empty strings (rapidfuzz's normalized_similarity).
double normalized_similarity(std::size_t distance, std::size_t max_length) {
  if (max_length == 0) return 1.0;
  return 1.0 - static_cast<double>(distance) / static_cast<double>(max_length);
}

}  // namespace

std::size_t levenshtein_distance(std::string_view a, std::string_view b) {
  return on_code_points(a, b, [](auto x, auto y) { return levenshtein_code_points(x, y); });
}

double levenshtein_similarity(std::string_view a, std::string_view b) {
  return on_code_points(a, b, [](auto x, auto y) {
    return normalized_similarity(levenshtein_code_points(x, y), std::max(x.size(), y.size()));
  });
}

double jaro_similarity(std::string_view a, std::string_view b) {
  return on_code_points(a, b, [](auto x, auto y) { return jaro_code_points(x, y); });
}

double jaro_winkler_similarity(std::string_view a, std::string_view b, double prefix_weight) {
  if (!(prefix_weight >= 0.0 && prefix_weight <= 1.0)) {
    throw std::invalid_argument("jaro_winkler_similarity: prefix_weight must be in [0, 1]");
  }
  return on_code_points(a, b, [prefix_weight](auto x, auto y) {
    const std::size_t max_prefix = std::min<std::size_t>({x.size(), y.size(), 4});
    std::size_t prefix = 0;
    while (prefix < max_prefix && x[prefix] == y[prefix]) ++prefix;
    double sim = jaro_code_points(x, y);
    // rapidfuzz boosts only above 0.7, strictly.
    if (sim > 0.7) sim = std::min(1.0, sim + static_cast<double>(prefix) * prefix_weight * (1.0 - sim));
    return sim;
  });
}

std::size_t hamming_distance(std::string_view a, std::string_view b) {
  return on_code_points(a, b, [](auto x, auto y) { return hamming_code_points(x, y); });
}

double hamming_similarity(std::string_view a, std::string_view b) {
  return on_code_points(a, b, [](auto x, auto y) {
    return normalized_similarity(hamming_code_points(x, y), std::max(x.size(), y.size()));
  });
}

}  // namespace ragmeter
