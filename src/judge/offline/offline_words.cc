// The offline judge's tokens in languages other than English (offline_text.h): ICU's
// words and the language's rules (offline_language.h).
#include <unicode/fmtable.h>
#include <unicode/parsepos.h>
#include <unicode/rbnf.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <array>
#include <memory>
#include <optional>

#include "judge/offline/offline_text.h"
#include "ragmeter/words.h"

namespace ragmeter {
namespace {

// ---- Numbers ---------------------------------------------------------------------------

bool is_number_text(std::string_view key) {
  return !key.empty() && key[0] >= '0' && key[0] <= '9' &&
         std::all_of(key.begin(), key.end(),
                     [](char c) { return (c >= '0' && c <= '9') || c == '.' || c == ','; });
}

// A number written with `decimal_mark` (',' in German: "1.000" is a thousand, "3,5" three
// and a half), classified as classify_number reads "1,000" and "3.5".
bool classify_written_number(const std::string& key, char decimal_mark, OfflineToken* token) {
  if (decimal_mark == '.') return classify_number(key, token);
  std::string swapped = key;
  for (char& c : swapped) c = c == '.' ? ',' : c == ',' ? '.' : c;
  return classify_number(swapped, token);
}

// Chinese and Japanese numerals, one character each in UTF-8.
constexpr std::array<std::string_view, 20> kCjkNumerals = {
    "〇", "零", "一", "二", "两", "兩", "三", "四", "五", "六",
    "七", "八", "九", "十", "百", "千", "万", "萬", "亿", "億"};

std::size_t cjk_numeral_length(std::string_view text, std::size_t at) {
  for (std::string_view numeral : kCjkNumerals) {
    if (text.substr(at, numeral.size()) == numeral) return numeral.size();
  }
  return 0;
}

// Bytes of `word`'s leading run of CJK numerals.
std::size_t cjk_numeral_prefix(std::string_view word) {
  std::size_t at = 0;
  while (at < word.size()) {
    const std::size_t length = cjk_numeral_length(word, at);
    if (length == 0) break;
    at += length;
  }
  return at;
}

bool all_numerals(std::string_view word) {
  return !word.empty() && cjk_numeral_prefix(word) == word.size();
}

// ICU's spell-out rules of one locale, per thread (a formatter is not shareable).
class SpelloutParser {
 public:
  explicit SpelloutParser(const char* locale) {
    UErrorCode status = U_ZERO_ERROR;
    format_ = std::make_unique<icu::RuleBasedNumberFormat>(icu::URBNF_SPELLOUT,
                                                           icu::Locale(locale), status);
    if (U_FAILURE(status)) format_.reset();
  }

  // The value of `text` when the rules read all of it as a whole number.
  std::optional<long long> parse(std::string_view text) const {
    if (!format_) return std::nullopt;
    const icu::UnicodeString unicode =
        icu::UnicodeString::fromUTF8(icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
    icu::Formattable result;
    icu::ParsePosition position(0);
    format_->parse(unicode, result, position);
    if (position.getIndex() != unicode.length()) return std::nullopt;
    UErrorCode status = U_ZERO_ERROR;
    const double value = result.getDouble(status);
    if (U_FAILURE(status) || value < 0 || value > 1e15 || value != static_cast<long long>(value)) {
      return std::nullopt;
    }
    return static_cast<long long>(value);
  }

 private:
  std::unique_ptr<icu::RuleBasedNumberFormat> format_;
};

// The value of a run of Chinese or Japanese numerals ("二十三" 23, "兩" 2), by ICU's
// spell-out rules for simplified Chinese, then traditional, then Japanese.
std::optional<long long> cjk_numeral_value(std::string_view text) {
  thread_local const SpelloutParser kParsers[] = {SpelloutParser("zh"), SpelloutParser("zh_Hant"),
                                                  SpelloutParser("ja")};
  for (const SpelloutParser& parser : kParsers) {
    if (auto value = parser.parse(text)) return value;
  }
  return std::nullopt;
}

// ---- Words ---------------------------------------------------------------------------------

// Characters of `key` when it is hiragana only (U+3041..U+309F), else 0.
std::size_t hiragana_length(std::string_view key) {
  if (key.empty() || key.size() % 3 != 0) return 0;
  for (std::size_t i = 0; i < key.size(); i += 3) {
    const auto b0 = static_cast<unsigned char>(key[i]);
    const auto b1 = static_cast<unsigned char>(key[i + 1]);
    const bool hiragana = b0 == 0xE3 && ((b1 == 0x81 && static_cast<unsigned char>(key[i + 2]) >= 0x81) ||
                                         b1 == 0x82);
    if (!hiragana) return 0;
  }
  return key.size() / 3;
}

bool starts_with_capital(std::string_view word) {
  UChar32 c = 0;
  int32_t i = 0;
  U8_NEXT(word.data(), i, static_cast<int32_t>(word.size()), c);
  return c > 0 && u_isupper(c);
}

// Bytes up to an apostrophe (' or U+2019) inside `word`, or npos.
std::size_t apostrophe_at(std::string_view word, std::size_t* length) {
  for (std::size_t i = 1; i < word.size(); ++i) {
    if (word[i] == '\'') {
      *length = 1;
      return i;
    }
    if (word.substr(i, 3) == "\u2019") {
      *length = 3;
      return i;
    }
  }
  return std::string_view::npos;
}

class WordTokenizer {
 public:
  WordTokenizer(std::string_view text, const OfflineLanguage& language)
      : text_(text), language_(language) {}

  std::vector<OfflineToken> run() {
    std::size_t skip_until = 0;  // end of the last marker
    const std::vector<std::string_view> words = split_words(text_);
    for (std::size_t w = 0; w < words.size(); ++w) {
      const auto begin = static_cast<std::size_t>(words[w].data() - text_.data());
      if (begin < skip_until) continue;
      const std::size_t marker = marker_at(begin);
      if (marker > 0) {
        skip_until = marker;
        continue;
      }
      std::size_t end = begin + words[w].size();
      // ICU's dictionary cuts numerals as it cuts words ("二十" / "三"): one number again.
      while (language_.unspaced && w + 1 < words.size() && all_numerals(words[w]) &&
             all_numerals(words[w + 1]) && words[w + 1].data() == text_.data() + end) {
        end += words[++w].size();
      }
      add_word(begin, end, true);
    }
    return std::move(tokens_);
  }

 private:
  // The end of a marker covering the word at `begin` (the marker starts at most one byte
  // before it: "[" or the line's start), else 0.
  std::size_t marker_at(std::size_t begin) const {
    for (std::size_t start : {begin, begin > 0 ? begin - 1 : begin}) {
      if (const std::size_t length = marker_length(text_, start); length > 0) return start + length;
    }
    return 0;
  }

  OfflineToken& push(std::size_t begin, std::size_t end, std::string key) {
    OfflineToken token;
    token.begin = begin;
    token.end = end;
    token.key = std::move(key);
    token.capitalized = starts_with_capital(text_.substr(begin, end - begin));
    tokens_.push_back(std::move(token));
    return tokens_.back();
  }

  void add_function_word(std::size_t begin, std::size_t end, std::string key) {
    OfflineToken& token = push(begin, end, std::move(key));
    token.negation = language_.negations.contains(token.key);
    token.stopword = true;
  }

  // `whole`: the word as ICU gave it (its elision and negation may be split off); false
  // for the rest of a word already split.
  void add_word(std::size_t begin, std::size_t end, bool whole) {
    const std::string_view surface = text_.substr(begin, end - begin);
    std::string key;
    append_word_key(surface, &key);
    if (whole && split_elision(begin, end)) return;
    if (is_number_text(key)) {
      OfflineToken number;
      if (classify_written_number(key, language_.decimal_mark, &number)) {
        push(begin, end, number.key).number = number.number;
        return;
      }
    }
    if (language_.unspaced && (add_cjk_number(begin, end) || (whole && split_negation(begin, end, key)))) {
      return;
    }
    const std::size_t hiragana = hiragana_length(key);
    if (language_.negations.contains(key) || language_.stopwords.contains(key) ||
        (hiragana > 0 && hiragana <= language_.hiragana_function_word_max)) {
      add_function_word(begin, end, std::move(key));
      return;
    }
    std::string stem = language_.stemmer.empty() ? key : stem_with(language_.stemmer, key);
    push(begin, end, std::move(stem));
  }

  // "l'homme": the elided article, then the word.
  bool split_elision(std::size_t begin, std::size_t end) {
    if (language_.elisions.empty()) return false;
    std::size_t apostrophe = 0;
    const std::size_t at = apostrophe_at(text_.substr(begin, end - begin), &apostrophe);
    if (at == std::string_view::npos || begin + at + apostrophe >= end) return false;
    std::string prefix;
    append_word_key(text_.substr(begin, at), &prefix);
    if (!language_.elisions.contains(prefix)) return false;
    add_function_word(begin, begin + at, std::move(prefix));
    add_word(begin + at + apostrophe, end, false);
    return true;
  }

  // "不去": the negation, then the rest of the word, unless the word is one that does not
  // negate ("不同") or is a negation as a whole ("没有", handled as a function word).
  bool split_negation(std::size_t begin, std::size_t end, const std::string& key) {
    if (language_.negations.contains(key) || language_.not_negated.contains(key) ||
        language_.stopwords.contains(key)) {
      return false;
    }
    for (const std::string& prefix : language_.negation_prefixes) {
      if (key.size() <= prefix.size() || !key.starts_with(prefix)) continue;
      // The surface starts with the same character (NFKC leaves these as they are).
      if (text_.substr(begin, prefix.size()) != prefix) continue;
      add_function_word(begin, begin + prefix.size(), prefix);
      add_word(begin + prefix.size(), end, false);
      return true;
    }
    return false;
  }

  // A Chinese or Japanese numeral ("二十三") is a number; numerals followed by one more
  // character ("三个", "五月") are the number and a word. The numeral for one alone is
  // a word ("一" is mostly "a"), and so is a word the stopword list holds ("万一").
  bool add_cjk_number(std::size_t begin, std::size_t end) {
    const std::string_view word = text_.substr(begin, end - begin);
    const std::size_t numerals = cjk_numeral_prefix(word);
    if (numerals == 0) return false;
    std::string whole;
    append_word_key(word, &whole);
    if (language_.stopwords.contains(whole) || language_.not_numbers.contains(whole)) return false;
    const std::string_view rest = word.substr(numerals);
    if (!rest.empty() && (rest.size() > 3 || cjk_numeral_length(rest, 0) > 0)) return false;
    const std::optional<long long> value = cjk_numeral_value(word.substr(0, numerals));
    if (!value || *value == 1) return false;
    OfflineToken number;
    classify_number(std::to_string(*value), &number);
    push(begin, begin + numerals, number.key).number = number.number;
    if (!rest.empty()) add_word(begin + numerals, end, false);
    return true;
  }

  std::string_view text_;
  const OfflineLanguage& language_;
  std::vector<OfflineToken> tokens_;
};

}  // namespace

std::vector<OfflineToken> tokenize_words(std::string_view text, const OfflineLanguage& language) {
  return WordTokenizer(text, language).run();
}

}  // namespace ragmeter
