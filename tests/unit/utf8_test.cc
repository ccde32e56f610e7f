#include <cstdint>
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "ragmeter/dataset.h"

namespace ragmeter {
namespace {

// Encodes any value up to 0x1FFFFF with the UTF-8 bit pattern, surrogates included,
// so that the validator can be shown to reject what should not be encoded.
std::string encode(std::uint32_t c) {
  std::string out;
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
  return out;
}

// A deliberately naive reference: decode by the bit patterns, then reject overlong
// forms, surrogates and values past U+10FFFF.
bool reference_valid(const std::string& s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto b = static_cast<unsigned char>(s[i]);
    std::size_t n = 0;
    std::uint32_t c = 0;
    if (b < 0x80) { n = 1; c = b; }
    else if ((b & 0xE0) == 0xC0) { n = 2; c = b & 0x1F; }
    else if ((b & 0xF0) == 0xE0) { n = 3; c = b & 0x0F; }
    else if ((b & 0xF8) == 0xF0) { n = 4; c = b & 0x07; }
    else return false;
    if (i + n > s.size()) return false;
    for (std::size_t k = 1; k < n; ++k) {
      const auto t = static_cast<unsigned char>(s[i + k]);
      if ((t & 0xC0) != 0x80) return false;
      c = (c << 6) | (t & 0x3F);
    }
    const std::uint32_t minimum[] = {0, 0, 0x80, 0x800, 0x10000};
    if (c < minimum[n] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return false;
    i += n;
  }
  return true;
}

std::size_t bad_offset_of(std::string_view text) {
  std::size_t offset = 12345;
  EXPECT_FALSE(is_valid_utf8(text, &offset));
  return offset;
}

TEST(Utf8Test, EmptyAndAsciiAreValid) {
  EXPECT_TRUE(is_valid_utf8(""));
  EXPECT_TRUE(is_valid_utf8("plain ASCII text, longer than eight bytes\n\t\x01\x7F"));
}

TEST(Utf8Test, BoundaryCodePointsAreValid) {
  for (std::uint32_t c : {0x0u, 0x7Fu, 0x80u, 0x7FFu, 0x800u, 0xD7FFu, 0xE000u, 0xFFFDu, 0xFFFFu,
                          0x10000u, 0x10FFFFu}) {
    EXPECT_TRUE(is_valid_utf8(encode(c))) << std::hex << c;
  }
}

TEST(Utf8Test, OverlongFormsAreRejected) {
  EXPECT_FALSE(is_valid_utf8("\xC0\x80"));          // U+0000 in two bytes
  EXPECT_FALSE(is_valid_utf8("\xC1\xBF"));          // U+007F in two bytes
  EXPECT_FALSE(is_valid_utf8("\xE0\x80\x80"));      // in three bytes
  EXPECT_FALSE(is_valid_utf8("\xE0\x9F\xBF"));      // U+07FF in three bytes
  EXPECT_FALSE(is_valid_utf8("\xF0\x8F\xBF\xBF"));  // U+FFFF in four bytes
}

TEST(Utf8Test, SurrogatesAreRejected) {
  EXPECT_FALSE(is_valid_utf8(encode(0xD800)));
  EXPECT_FALSE(is_valid_utf8(encode(0xDBFF) + encode(0xDC00)));  // CESU-8 pair
  EXPECT_FALSE(is_valid_utf8(encode(0xDFFF)));
}

TEST(Utf8Test, CodePointsAboveU10FFFFAreRejected) {
  EXPECT_FALSE(is_valid_utf8(encode(0x110000)));
  EXPECT_FALSE(is_valid_utf8("\xF5\x80\x80\x80"));
  EXPECT_FALSE(is_valid_utf8("\xFF"));
}

TEST(Utf8Test, TruncatedAndStrayBytesAreRejected) {
  EXPECT_FALSE(is_valid_utf8("\xE2\x82"));   // € cut short
  EXPECT_FALSE(is_valid_utf8("\x80"));       // lone continuation byte
  EXPECT_FALSE(is_valid_utf8("\xC3" "a"));   // lead byte followed by ASCII
}

TEST(Utf8Test, BadOffsetIsTheStartOfTheFirstInvalidSequence) {
  EXPECT_EQ(bad_offset_of("\xFF"), 0u);
  EXPECT_EQ(bad_offset_of("caf\xE9"), 3u);
  EXPECT_EQ(bad_offset_of("\xC3\xA9\xE2\x82\xAC\xE2\x82"), 5u);
  // Past the eight-byte ASCII fast path, and at each alignment after it.
  for (std::size_t prefix = 0; prefix < 40; ++prefix) {
    EXPECT_EQ(bad_offset_of(std::string(prefix, 'a') + "\xED\xA0\x80" + "tail"), prefix);
  }
}

TEST(Utf8Test, EveryCodePointEncodingIsAcceptedExceptSurrogates) {
  for (std::uint32_t c = 0; c <= 0x10FFFF; ++c) {
    const bool surrogate = c >= 0xD800 && c <= 0xDFFF;
    ASSERT_EQ(is_valid_utf8(encode(c)), !surrogate) << std::hex << c;
  }
}

TEST(Utf8Test, AgreesWithNaiveDecoderOnAllTwoByteInputs) {
  for (int a = 0; a < 256; ++a) {
    for (int b = 0; b < 256; ++b) {
      const std::string s{static_cast<char>(a), static_cast<char>(b)};
      ASSERT_EQ(is_valid_utf8(s), reference_valid(s)) << a << " " << b;
    }
  }
}

TEST(Utf8Test, AgreesWithNaiveDecoderOnRandomInputs) {
  std::mt19937 random(42);
  // Bytes mostly from the interesting ranges, so that valid sequences turn up often.
  const unsigned char pool[] = {'a',  0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2,
                                0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE, 0xEF, 0xF0, 0xF1, 0xF3, 0xF4,
                                0xF5, 0xFF};
  std::uniform_int_distribution<std::size_t> pick(0, sizeof pool - 1);
  std::uniform_int_distribution<std::size_t> length(1, 12);
  for (int i = 0; i < 200000; ++i) {
    std::string s(length(random), ' ');
    for (char& c : s) c = static_cast<char>(pool[pick(random)]);
    ASSERT_EQ(is_valid_utf8(s), reference_valid(s));
  }
}

}  // namespace
}  // namespace ragmeter
