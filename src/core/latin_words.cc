// The Latin fast path for ragmeter's words: a class and a key per covered character, read
// from ICU once, and UAX #29's rules between letters, digits and the marks that join
// them. Behaviour and coverage: latin_words.h.
#include "core/latin_words.h"

#include <array>
#include <cstdint>

#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include "core/words_icu.h"

namespace ragmeter::latin_words {
namespace {

// A covered character's class, as bits.
constexpr std::uint8_t kBreak = 0;           // ends a word and is none (spaces, punctuation)
constexpr std::uint8_t kLetter = 1;          // Word_Break ALetter
constexpr std::uint8_t kDigit = 2;           // Word_Break Numeric
constexpr std::uint8_t kJoinsLetters = 4;    // letter x letter: "don't", "U.S"
constexpr std::uint8_t kJoinsDigits = 8;     // digit x digit: "3.5", "1,000"
constexpr std::uint8_t kUncovered = 0x80;    // not covered: ICU decides

constexpr char32_t kPunctuationFirst = 0x2000;  // General Punctuation, U+2000-U+203F
constexpr std::size_t kPunctuationCount = 64;
constexpr std::size_t kCovered = 256 + kPunctuationCount;
constexpr std::size_t kMaxKeyBytes = 7;

struct Key {
  std::uint8_t length = 0;
  char bytes[kMaxKeyBytes] = {};
};

struct Tables {
  std::array<std::uint8_t, kCovered> flags{};  // index: code point, or 256 + (cp - U+2000)
  std::array<Key, kCovered> keys{};             // word characters only
};

std::string utf8_of(char32_t cp) {  // ICU's encoder
  char bytes[U8_MAX_LENGTH];
  int32_t length = 0;
  U8_APPEND_UNSAFE(bytes, length, static_cast<UChar32>(cp));
  return std::string(bytes, static_cast<std::size_t>(length));
}

std::vector<std::string> icu_words(const std::string& text) {
  std::vector<std::string_view> views;
  icu_split_words_into(text, &views);
  return {views.begin(), views.end()};
}

using Words = std::vector<std::string>;

// `c`'s class as ICU segments it: its Word_Break property says what it should be, and
// ICU's segmentation of it alone, between two letters and between two digits says what
// the root rules make of it. A character whose segmentation is not one of the four
// shapes below is left to ICU.
std::uint8_t class_of(char32_t cp) {
  const std::string c = utf8_of(cp);
  const Words alone = icu_words(c);
  const Words letters = icu_words("a" + c + "a");
  const Words digits = icu_words("1" + c + "1");
  const bool word_alone = alone == Words{c};
  const bool joins_letters = letters == Words{"a" + c + "a"};
  const bool joins_digits = digits == Words{"1" + c + "1"};
  const bool breaks_letters = letters == Words{"a", "a"};
  const bool breaks_digits = digits == Words{"1", "1"};
  switch (u_getIntPropertyValue(static_cast<UChar32>(cp), UCHAR_WORD_BREAK)) {
    case U_WB_ALETTER:
      return word_alone && joins_letters && joins_digits ? kLetter : kUncovered;
    case U_WB_NUMERIC:
      return word_alone && joins_letters && joins_digits ? kDigit : kUncovered;
    case U_WB_MIDLETTER:
    case U_WB_MIDNUM:
    case U_WB_MIDNUMLET:
    case U_WB_SINGLE_QUOTE: {
      if (!alone.empty()) return kUncovered;
      if (!(joins_letters || breaks_letters) || !(joins_digits || breaks_digits)) return kUncovered;
      return static_cast<std::uint8_t>((joins_letters ? kJoinsLetters : 0) |
                                       (joins_digits ? kJoinsDigits : 0));
    }
    case U_WB_OTHER:
    case U_WB_WSEGSPACE:
    case U_WB_CR:
    case U_WB_LF:
    case U_WB_NEWLINE:
    case U_WB_DOUBLE_QUOTE:
      return alone.empty() && breaks_letters && breaks_digits ? kBreak : kUncovered;
    default:  // Extend, Format, ZWJ, ExtendNumLet, ...: rules of their own
      return kUncovered;
  }
}

char32_t code_point_at(std::size_t index) {
  return index < 256 ? static_cast<char32_t>(index)
                     : kPunctuationFirst + static_cast<char32_t>(index - 256);
}

Tables build_tables() {
  Tables tables;
  for (std::size_t index = 0; index < kCovered; ++index) {
    const char32_t cp = code_point_at(index);
    std::uint8_t flags = class_of(cp);
    if (flags != kBreak && flags != kUncovered) {  // a word character: its key
      std::string key;
      icu_append_word_key(utf8_of(cp), &key);
      if (key.empty() || key.size() > kMaxKeyBytes) {
        flags = kUncovered;
      } else {
        Key& slot = tables.keys[index];
        slot.length = static_cast<std::uint8_t>(key.size());
        key.copy(slot.bytes, key.size());
      }
    }
    tables.flags[index] = flags;
  }
  return tables;
}

const Tables& tables() {
  static const Tables kTables = build_tables();
  return kTables;
}

// One character of UTF-8: its table index and length in bytes, or kUncovered's index
// when it is none of the covered ranges' well-formed sequences.
struct Char {
  std::uint16_t index;
  std::uint8_t length;
};

constexpr std::uint16_t kNoIndex = 0xFFFF;

inline Char read_char(const unsigned char* p, std::size_t left) {
  const unsigned char b0 = p[0];
  if (b0 < 0x80) return {b0, 1};
  if ((b0 == 0xC2 || b0 == 0xC3) && left >= 2 && (p[1] & 0xC0) == 0x80) {
    return {static_cast<std::uint16_t>(((b0 & 0x1F) << 6) | (p[1] & 0x3F)), 2};
  }
  if (b0 == 0xE2 && left >= 3 && p[1] == 0x80 && (p[2] & 0xC0) == 0x80) {
    return {static_cast<std::uint16_t>(256 + (p[2] & 0x3F)), 3};
  }
  return {kNoIndex, 1};
}

inline std::uint8_t flags_of(const Tables& t, Char c) {
  return c.index == kNoIndex ? kUncovered : t.flags[c.index];
}

constexpr std::uint8_t kWordChar = kLetter | kDigit;

}  // namespace

bool split(std::string_view text, std::vector<std::string_view>* words) {
  const Tables& t = tables();
  words->clear();
  const auto* p = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    const Char c = read_char(p + i, n - i);
    const std::uint8_t flags = flags_of(t, c);
    if (flags & kUncovered) return false;
    if (!(flags & kWordChar)) {
      i += c.length;
      continue;
    }
    const std::size_t start = i;
    std::uint8_t last = flags;  // the class of the word's last character so far
    i += c.length;
    while (i < n) {
      const Char d = read_char(p + i, n - i);
      const std::uint8_t mid = flags_of(t, d);
      if (mid & kUncovered) return false;
      if (mid & kWordChar) {  // WB5, WB8-WB10: letters and digits run together
        last = mid;
        i += d.length;
        continue;
      }
      const std::size_t after = i + d.length;
      if ((mid & (kJoinsLetters | kJoinsDigits)) && after < n) {  // WB6/7, WB11/12
        const Char e = read_char(p + after, n - after);
        const std::uint8_t next = flags_of(t, e);
        if (next & kUncovered) return false;
        const bool joins = ((last & kLetter) && (next & kLetter) && (mid & kJoinsLetters)) ||
                           ((last & kDigit) && (next & kDigit) && (mid & kJoinsDigits));
        if (joins) {
          last = next;
          i = after + e.length;
          continue;
        }
      }
      break;
    }
    words->push_back(text.substr(start, i - start));
  }
  return true;
}

bool append_key(std::string_view word, std::string* out) {
  const Tables& t = tables();
  const std::size_t before = out->size();
  const auto* p = reinterpret_cast<const unsigned char*>(word.data());
  const std::size_t n = word.size();
  for (std::size_t i = 0; i < n;) {
    const Char c = read_char(p + i, n - i);
    const std::uint8_t flags = flags_of(t, c);
    if (flags == kBreak || (flags & kUncovered)) {
      out->resize(before);
      return false;
    }
    const Key& key = t.keys[c.index];
    out->append(key.bytes, key.length);
    i += c.length;
  }
  return true;
}

bool covers(char32_t code_point) {
  std::size_t index;
  if (code_point < 256) {
    index = code_point;
  } else if (code_point >= kPunctuationFirst && code_point < kPunctuationFirst + kPunctuationCount) {
    index = 256 + (code_point - kPunctuationFirst);
  } else {
    return false;
  }
  return !(tables().flags[index] & kUncovered);
}

}  // namespace ragmeter::latin_words
