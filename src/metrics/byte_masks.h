// Eight bytes at a time ("SIMD within a register"): tests on all bytes of a 64-bit word
// at once, for the tokenizers' hot loops. Internal to src/metrics: not public API.
#pragma once

#include <cstdint>

namespace ragmeter::byte_masks {

inline constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
inline constexpr std::uint64_t kHighs = 0x8080808080808080ULL;

// The high bit of each byte of `bytes` (eight bytes of text, the first in the low byte)
// that is an ASCII letter or digit, [A-Za-z0-9]. Exact per byte: with the high bits
// cleared first, no addition carries into the next byte.
inline std::uint64_t ascii_alnum(std::uint64_t bytes) {
  const std::uint64_t low = bytes & ~kHighs;
  // High bit set where a byte below 0x80 is in [lo, hi).
  const auto in_range = [](std::uint64_t b, std::uint64_t lo, std::uint64_t hi) {
    return (b + kOnes * (0x80 - lo)) & ~(b + kOnes * (0x80 - hi)) & kHighs;
  };
  // Setting 0x20 maps A-Z onto a-z and nothing else onto a-z.
  const std::uint64_t letters = in_range(low | (kOnes * 0x20), 'a', 'z' + 1);
  const std::uint64_t digits = in_range(low, '0', '9' + 1);
  return (letters | digits) & ~bytes;
}

// The high bit of each byte of `bytes` that is zero (exact for the lowest such byte;
// a byte above a zero byte may be marked too, which only matters to callers that need
// more than "is there one" or "where is the first").
inline std::uint64_t zero_bytes(std::uint64_t bytes) { return (bytes - kOnes) & ~bytes & kHighs; }

}  // namespace ragmeter::byte_masks
