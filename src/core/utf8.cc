// Strict UTF-8 validation (Unicode 15, table 3-7 "well-formed UTF-8 byte sequences"):
// no overlong forms, no surrogates (U+D800..U+DFFF), nothing above U+10FFFF.

#include <cstdint>
#include <cstring>
#include <string_view>

#include "ragmeter/utf8.h"

namespace ragmeter {
namespace {

constexpr std::uint64_t kHighBits = 0x8080808080808080ULL;

// The length of the well-formed sequence at the start of s[0..size) (s[0] >= 0x80),
// or 0 when it is not well formed.
std::size_t sequence_length(const unsigned char* s, std::size_t size) {
  const unsigned char lead = s[0];
  std::size_t length = 0;
  // The second byte's range is narrower than 80..BF for some leads: that is what
  // excludes overlongs (E0, F0), surrogates (ED) and code points past U+10FFFF (F4).
  unsigned char second_min = 0x80;
  unsigned char second_max = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) second_min = 0xA0;
    if (lead == 0xED) second_max = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) second_min = 0x90;
    if (lead == 0xF4) second_max = 0x8F;
  } else {
    return 0;  // a continuation byte, C0/C1 (always overlong) or F5..FF
  }
  if (size < length || s[1] < second_min || s[1] > second_max) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if (s[i] < 0x80 || s[i] > 0xBF) return 0;
  }
  return length;
}

}  // namespace

bool is_valid_utf8(std::string_view text, std::size_t* bad_offset) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t size = text.size();
  std::size_t i = 0;
  while (i < size) {
    // Most dataset text is ASCII: skip it eight bytes at a time.
    while (i + 8 <= size) {
      std::uint64_t word;
      std::memcpy(&word, bytes + i, sizeof word);
      if (word & kHighBits) break;
      i += 8;
    }
    if (i == size) break;
    if (bytes[i] < 0x80) {
      ++i;
      continue;
    }
    const std::size_t length = sequence_length(bytes + i, size - i);
    if (length == 0) {
      if (bad_offset != nullptr) *bad_offset = i;
      return false;
    }
    i += length;
  }
  return true;
}

}  // namespace ragmeter
