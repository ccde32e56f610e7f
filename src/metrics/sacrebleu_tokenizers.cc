// sacreBLEU 2.x's zh, intl and char tokenizers (sacrebleu/tokenizers/tokenizer_zh.py,
// tokenizer_re.py, tokenizer_intl.py, tokenizer_char.py) on UTF-8 text, character by
// character (a character is a code point, as in a Python str).
//
//   zh:   strip the segment; put spaces around each character of the CJK ranges below;
//         then TokenizerRegexp, 13a's rules without 13a's padding spaces or unescaping:
//         a symbol of [{-~[-` -&(-+:-@/] alone; [.,] split off after a non-digit, then
//         [.,] split off before a non-digit; '-' split off after a digit ([0-9]).
//   intl: (\P{N})(\p{P}) -> "\1 \2 ", then (\p{P})(\P{N}) -> " \1 \2", then (\p{S}) -> " \1 ".
//   char: every character a token.
// All three then split on Python's whitespace.
//
// zh and intl are one scan: their [.,] (zh) or \p{P} (intl) rules are the two
// substitutions whose outcome for a character depends on its neighbours and on re.sub's
// non-overlapping left-to-right matching, exactly as in 13a (bleu.cc derives the rules),
// with "digit" meaning [0-9] (zh) or \p{N} (intl). Without padding, the first character
// has nothing before it and the last nothing after it. A CJK character of zh, surrounded
// by spaces, acts like a 13a symbol: alone, and a non-digit neighbour.
//
// Unicode categories come from ICU (u_charType); sacreBLEU's `regex` module may follow a
// newer Unicode version, which differs only on characters ICU does not know (category Cn).
#include "metrics/sacrebleu_tokenizers.h"

#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/utf8.h>

#include <array>
#include <cstdint>
#include <vector>

#include "metrics/sacrebleu_text.h"

namespace ragmeter::sacrebleu_internal {
namespace {

// What a character does in the scan.
enum class Role : std::uint8_t {
  kPlain,   // part of a word
  kSpace,   // Python whitespace: ends a word
  kDigit,   // zh: [0-9]; intl: \p{N}
  kPunct,   // zh: [.,]; intl: \p{P}: alone depending on its neighbours
  kSymbol,  // alone
  kDash,    // zh: '-', alone after a digit
};

struct Unit {
  std::size_t start;
  std::size_t length;
  Role role;
};

bool is_python_space(UChar32 c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
         c == 0x202F || c == 0x205F || c == 0x3000;
}

// The characters tokenizer_zh's _is_chinese_char accepts. Its table compares one-character
// strings with range ends like '\u20000', which Python reads as two characters ('\u2000'
// and '0'), so "U+20000..U+2A6D6" is in effect U+2001..U+2A6D and "U+2F800..U+2FA1D"
// U+2F81..U+2FA1; no character above U+FFFF is accepted. These are the merged ranges it
// accepts (tests/oracle/test_bleu_languages.py checks them against sacreBLEU's function
// over every code point).
constexpr std::pair<UChar32, UChar32> kZhRanges[] = {
    {0x2001, 0x2A6D}, {0x2E80, 0x2FDF}, {0x2FF0, 0x303F}, {0x3100, 0x312F}, {0x31A0, 0x31EF},
    {0x3200, 0x4DB5}, {0x4E00, 0x9FBB}, {0xF900, 0xFA2D}, {0xFA30, 0xFA6A}, {0xFA70, 0xFAD9},
    {0xFE10, 0xFE1F}, {0xFE30, 0xFE4F}, {0xFF00, 0xFFEF},
};

bool is_zh_character(UChar32 c) {
  if (c < kZhRanges[0].first) return false;
  for (const auto& [low, high] : kZhRanges) {
    if (c >= low && c <= high) return true;
  }
  return false;
}

// TokenizerRegexp's first pattern, [\{-\~\[-\` -\&\(-\+\:-\@\/].
bool is_13a_symbol(UChar32 c) {
  return (c >= '{' && c <= '~') || (c >= '[' && c <= '`') || (c >= ' ' && c <= '&') ||
         (c >= '(' && c <= '+') || (c >= ':' && c <= '@') || c == '/';
}

Role zh_role(UChar32 c) {
  if (is_python_space(c)) return Role::kSpace;
  if (c >= '0' && c <= '9') return Role::kDigit;
  if (c == '.' || c == ',') return Role::kPunct;
  if (c == '-') return Role::kDash;
  if (is_13a_symbol(c) || is_zh_character(c)) return Role::kSymbol;
  return Role::kPlain;
}

Role intl_role(UChar32 c) {
  if (is_python_space(c)) return Role::kSpace;  // no whitespace is in N, P or S
  const std::uint32_t category = U_GET_GC_MASK(c);
  if ((category & U_GC_N_MASK) != 0) return Role::kDigit;
  if ((category & U_GC_P_MASK) != 0) return Role::kPunct;
  if ((category & U_GC_S_MASK) != 0) return Role::kSymbol;
  return Role::kPlain;
}

Role char_role(UChar32 c) { return is_python_space(c) ? Role::kSpace : Role::kSymbol; }

using RoleFunction = Role (*)(UChar32);

RoleFunction role_function(BleuTokenizer tokenizer) {
  switch (tokenizer) {
    case BleuTokenizer::kZh: return zh_role;
    case BleuTokenizer::kIntl: return intl_role;
    default: return char_role;
  }
}

// The roles of the ASCII characters, looked up rather than computed: most text is mostly
// ASCII.
struct AsciiRoles {
  std::array<Role, 128> zh;
  std::array<Role, 128> intl;
  std::array<Role, 128> chars;
};

const AsciiRoles& ascii_roles() {
  static const AsciiRoles roles = [] {
    AsciiRoles r{};
    for (UChar32 c = 0; c < 128; ++c) {
      r.zh[c] = zh_role(c);
      r.intl[c] = intl_role(c);
      r.chars[c] = char_role(c);
    }
    return r;
  }();
  return roles;
}

const std::array<Role, 128>& ascii_table(BleuTokenizer tokenizer) {
  const AsciiRoles& roles = ascii_roles();
  switch (tokenizer) {
    case BleuTokenizer::kZh: return roles.zh;
    case BleuTokenizer::kIntl: return roles.intl;
    default: return roles.chars;
  }
}

// The characters of `text` with their roles, into `*units`. A byte that does not start
// valid UTF-8 is a plain character of its own (rows are validated before scoring).
void decode_units(std::string_view text, BleuTokenizer tokenizer, std::vector<Unit>* units) {
  units->clear();
  const std::array<Role, 128>& ascii = ascii_table(tokenizer);
  const RoleFunction role_of = role_function(tokenizer);
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(text.data());
  const std::int64_t size = static_cast<std::int64_t>(text.size());
  std::int64_t i = 0;
  while (i < size) {
    const std::int64_t start = i;
    if (bytes[i] < 0x80) {
      units->push_back({static_cast<std::size_t>(i), 1, ascii[bytes[i]]});
      ++i;
      continue;
    }
    UChar32 c;
    U8_NEXT(bytes, i, size, c);
    const Role role = c < 0 ? Role::kPlain : role_of(c);
    units->push_back({static_cast<std::size_t>(start), static_cast<std::size_t>(i - start), role});
  }
}

// The tokens of the units, in order, as emit(start, length) calls (see the file comment).
template <typename Emit>
void scan_units(const std::vector<Unit>& units, Emit emit) {
  std::size_t word_start = 0;
  std::size_t word_end = 0;
  bool in_word = false;
  const auto end_word = [&] {
    if (in_word) emit(word_start, word_end - word_start);
    in_word = false;
  };
  bool prev_after = false;   // the previous character was split off after a non-digit
  bool prev_before = false;  // ... or before a non-digit
  const std::size_t n = units.size();
  for (std::size_t j = 0; j < n; ++j) {
    const Unit& unit = units[j];
    bool after = false;
    bool before = false;
    bool alone = false;
    switch (unit.role) {
      case Role::kSpace:
        end_word();
        prev_after = prev_before = false;
        continue;
      case Role::kSymbol:
        alone = true;
        break;
      case Role::kPunct: {
        const bool prev_digit = j > 0 && units[j - 1].role == Role::kDigit;
        const bool next_digit = j + 1 < n && units[j + 1].role == Role::kDigit;
        after = j > 0 && !prev_digit && !prev_after;
        const bool consumed = prev_before && !prev_after && !after;
        before = j + 1 < n && !next_digit && !consumed;
        alone = after || before;
        break;
      }
      case Role::kDash:
        alone = j > 0 && units[j - 1].role == Role::kDigit;
        break;
      case Role::kPlain:
      case Role::kDigit:
        break;
    }
    if (alone) {
      end_word();
      emit(unit.start, unit.length);
    } else {
      if (!in_word) word_start = unit.start;
      word_end = unit.start + unit.length;
      in_word = true;
    }
    prev_after = after;
    prev_before = before;
  }
  end_word();
}

// The text the tokenizer scans: zh strips the segment (BLEU has right-stripped it).
std::string_view scanned_text(std::string_view segment, BleuTokenizer tokenizer) {
  return tokenizer == BleuTokenizer::kZh ? python_lstrip(segment) : segment;
}

template <typename Emit>
void character_rule_tokens(std::string_view text, BleuTokenizer tokenizer, Emit emit) {
  thread_local std::vector<Unit> units;
  decode_units(text, tokenizer, &units);
  scan_units(units, emit);
}

}  // namespace

void append_character_rule_tokens(std::string_view segment, BleuTokenizer tokenizer,
                                  NGramSequence* tokens) {
  const std::string_view text = scanned_text(segment, tokenizer);
  tokens->reserve(text.size());  // at most one token per byte
  character_rule_tokens(text, tokenizer, [&](std::size_t start, std::size_t length) {
    append_word_in(text, start, length, tokens);
  });
}

std::string join_character_rule_tokens(std::string_view segment, BleuTokenizer tokenizer) {
  const std::string_view text = scanned_text(segment, tokenizer);
  std::string out;
  character_rule_tokens(text, tokenizer, [&](std::size_t start, std::size_t length) {
    if (!out.empty()) out.push_back(' ');
    out.append(text.substr(start, length));
  });
  return out;
}

}  // namespace ragmeter::sacrebleu_internal

namespace ragmeter {
namespace {

bool has_unspaced_script(std::string_view text) {
  const auto* bytes = reinterpret_cast<const std::uint8_t*>(text.data());
  const std::int64_t size = static_cast<std::int64_t>(text.size());
  for (std::int64_t i = 0; i < size;) {
    if (bytes[i] < 0x80) {
      ++i;
      continue;
    }
    UChar32 c;
    U8_NEXT(bytes, i, size, c);
    if (c < 0) continue;
    UErrorCode error = U_ZERO_ERROR;
    const UScriptCode script = uscript_getScript(c, &error);
    if (script == USCRIPT_HAN || script == USCRIPT_HIRAGANA || script == USCRIPT_KATAKANA) {
      return true;
    }
  }
  return false;
}

}  // namespace

std::string bleu_tokenizer_note(std::string_view response, std::string_view reference,
                                BleuTokenizer tokenizer) {
  if (tokenizer != BleuTokenizer::k13a) return {};
  if (!has_unspaced_script(response) && !has_unspaced_script(reference)) return {};
  return "sacreBLEU's default 13a tokenizer keeps a run of Chinese or Japanese characters as "
         "one token, so BLEU counts whole phrases, not words; --bleu-tokenize zh (Chinese) or "
         "ja-mecab (Japanese) splits them as sacreBLEU does";
}

}  // namespace ragmeter
