// NLTK 3.10's NLTKWordTokenizer (nltk/tokenize/destructive.py): regular-expression
// substitutions applied in order (starting quotes, punctuation, brackets, double dashes,
// then, on the text padded with a space on each side, ending quotes and contractions),
// then a split on whitespace. The expressions below are NLTK's, written for ICU's regex
// engine with Python's meanings kept where the two differ:
//   Python's \w (str.isalnum() or '_')  -> [\p{L}\p{N}_]   (ICU's \w also takes marks)
//   Python's \b                          -> a change between that class and its complement
//   Python's \s (str.isspace())          -> the explicit set kSpace
//   Python's $ (end, or before a final \n) -> ICU's $ with UREGEX_UNIX_LINES
//   \1 and \g<0> in replacements         -> $1 and $0
// tests/oracle/test_cmrc.py compares the tokens with NLTK's on generated text.
#include "metrics/nltk_words.h"

#include <unicode/regex.h>
#include <unicode/unistr.h>

#include <memory>
#include <stdexcept>

#include "metrics/sacrebleu_text.h"

namespace ragmeter::nltk_internal {
namespace {

#define RAGMETER_NLTK_WORD "[\\p{L}\\p{N}_]"
#define RAGMETER_NLTK_BOUNDARY                                               \
  "(?:(?<=" RAGMETER_NLTK_WORD ")(?!" RAGMETER_NLTK_WORD ")|(?<!" RAGMETER_NLTK_WORD \
  ")(?=" RAGMETER_NLTK_WORD "))"
#define RAGMETER_NLTK_SPACE \
  "[\\t\\n\\x{0B}\\f\\r\\x{1C}-\\x{1F} \\x{85}\\x{A0}\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000]"

struct Rule {
  const char* pattern;
  const char* replacement;
};

// Up to the padding: STARTING_QUOTES, PUNCTUATION, PARENS_BRACKETS, DOUBLE_DASHES.
constexpr Rule kBeforePadding[] = {
    {"([«“‘„]|[`]+)", " $1 "},
    {"^\"", "``"},
    {"(``)", " $1 "},
    {"([ \\(\\[{<])(\"|'{2})", "$1 `` "},
    {"(?i)(?<!" RAGMETER_NLTK_WORD ")(')(?!(?:re|ve|ll|m|t|s|d|n)" RAGMETER_NLTK_BOUNDARY
     ")(?=" RAGMETER_NLTK_WORD ")",
     "$1 "},
    {"([^\\.])(\\.)([\\]\\)}>\"'»”’ ]*+)" RAGMETER_NLTK_SPACE "*$", "$1 $2 $3 "},
    {"([:,])([^\\p{Nd}])", " $1 $2"},
    {"([:,])$", " $1 "},
    {"\\.{2,}", " $0 "},
    {"[;@#\\$%&]", " $0 "},
    {"[\\u2012-\\u2015]", " $0 "},
    {"([^\\.])(\\.)([\\]\\)}>\"']*)" RAGMETER_NLTK_SPACE "*$", "$1 $2$3 "},
    {"[?!]", " $0 "},
    {"([^'])' ", "$1 ' "},
    {"[*]", " $0 "},
    {"[\\]\\[\\(\\)\\{\\}\\<\\>]", " $0 "},
    {"--", " -- "},
};

// After the padding: ENDING_QUOTES, CONTRACTIONS2, CONTRACTIONS3.
constexpr Rule kAfterPadding[] = {
    {"([»”’])", " $1 "},
    {"''", " '' "},
    {"\"", " '' "},
    {RAGMETER_NLTK_SPACE "+", " "},
    {"([^' ])('[sS]|'[mM]|'[dD]|') ", "$1 $2 "},
    {"([^' ])('ll|'LL|'re|'RE|'ve|'VE|n't|N'T) ", "$1 $2 "},
    {"(?i)" RAGMETER_NLTK_BOUNDARY "(can)(not)" RAGMETER_NLTK_BOUNDARY, " $1 $2 "},
    {"(?i)" RAGMETER_NLTK_BOUNDARY "(d)('ye)" RAGMETER_NLTK_BOUNDARY, " $1 $2 "},
    {"(?i)" RAGMETER_NLTK_BOUNDARY "(gim)(me)" RAGMETER_NLTK_BOUNDARY, " $1 $2 "},
    {"(?i)" RAGMETER_NLTK_BOUNDARY "(gon)(na)" RAGMETER_NLTK_BOUNDARY, " $1 $2 "},
    {"(?i)" RAGMETER_NLTK_BOUNDARY "(got)(ta)" RAGMETER_NLTK_BOUNDARY, " $1 $2 "},
    {"(?i)" RAGMETER_NLTK_BOUNDARY "(lem)(me)" RAGMETER_NLTK_BOUNDARY, " $1 $2 "},
    {"(?i)" RAGMETER_NLTK_BOUNDARY "(more)('n)" RAGMETER_NLTK_BOUNDARY, " $1 $2 "},
    {"(?i)" RAGMETER_NLTK_BOUNDARY "(wan)(na)(?=" RAGMETER_NLTK_SPACE ")", " $1 $2 "},
    {"(?i) ('t)(is)" RAGMETER_NLTK_BOUNDARY, " $1 $2 "},
    {"(?i) ('t)(was)" RAGMETER_NLTK_BOUNDARY, " $1 $2 "},
};

#undef RAGMETER_NLTK_WORD
#undef RAGMETER_NLTK_BOUNDARY
#undef RAGMETER_NLTK_SPACE

struct CompiledRule {
  std::unique_ptr<icu::RegexPattern> pattern;
  icu::UnicodeString replacement;
};

std::vector<CompiledRule> compile(const Rule* rules, std::size_t count) {
  std::vector<CompiledRule> compiled;
  for (std::size_t i = 0; i < count; ++i) {
    UErrorCode status = U_ZERO_ERROR;
    UParseError error;
    std::unique_ptr<icu::RegexPattern> pattern(icu::RegexPattern::compile(
        icu::UnicodeString::fromUTF8(rules[i].pattern), UREGEX_UNIX_LINES, error, status));
    if (U_FAILURE(status)) {  // a bug here, not bad input
      throw std::logic_error(std::string("NLTK word rule does not compile: ") + rules[i].pattern);
    }
    compiled.push_back({std::move(pattern), icu::UnicodeString::fromUTF8(rules[i].replacement)});
  }
  return compiled;
}

struct Rules {
  std::vector<CompiledRule> before = compile(kBeforePadding, std::size(kBeforePadding));
  std::vector<CompiledRule> after = compile(kAfterPadding, std::size(kAfterPadding));
};

const Rules& rules() {
  static const Rules compiled;
  return compiled;
}

void apply(const std::vector<CompiledRule>& rules, icu::UnicodeString* text) {
  for (const CompiledRule& rule : rules) {
    UErrorCode status = U_ZERO_ERROR;
    std::unique_ptr<icu::RegexMatcher> matcher(rule.pattern->matcher(*text, status));
    if (U_FAILURE(status)) continue;
    icu::UnicodeString replaced = matcher->replaceAll(rule.replacement, status);
    matcher.reset();  // it refers to *text
    if (U_SUCCESS(status)) *text = std::move(replaced);
  }
}

}  // namespace

std::vector<std::string> nltk_word_tokenize(std::string_view text) {
  icu::UnicodeString unicode = icu::UnicodeString::fromUTF8(
      icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
  apply(rules().before, &unicode);
  unicode = icu::UnicodeString(u" ") + unicode + icu::UnicodeString(u" ");
  apply(rules().after, &unicode);
  std::string utf8;
  unicode.toUTF8String(utf8);
  std::vector<std::string_view> words;
  sacrebleu_internal::python_split(utf8, &words);
  return std::vector<std::string>(words.begin(), words.end());
}

}  // namespace ragmeter::nltk_internal
