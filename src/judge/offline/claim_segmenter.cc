// Segmentation for the offline judge: words (tokens and stems), ICU sentences, clauses,
// short answers, and noncommittal detection. Behaviour is documented in
// include/ragmeter/offline_judge.h.
#include <libstemmer.h>
#include <unicode/brkiter.h>
#include <unicode/uchar.h>
#include <unicode/utf8.h>
#include <unicode/locid.h>
#include <unicode/utext.h>

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <unordered_set>

#include <map>
#include <span>

#include "judge/offline/offline_text.h"
#include "ragmeter/offline_judge.h"
#include "ragmeter/words.h"

namespace ragmeter {
namespace {

// A sentence longer than this many words is split into clauses.
constexpr std::size_t kClauseSplitMinWords = 10;
// Each side of a clause split needs at least this many words.
constexpr std::size_t kMinClauseWords = 3;
// An answer of at most this many words without a verb gets the question as context.
constexpr std::size_t kShortAnswerMaxWords = 5;

// ---- Stemming ----------------------------------------------------------------------

// libstemmer's stemmer is not thread-safe: one per thread and algorithm.
class ThreadStemmer {
 public:
  explicit ThreadStemmer(const std::string& algorithm)
      : stemmer_(sb_stemmer_new(algorithm.c_str(), nullptr)) {}
  ~ThreadStemmer() {
    if (stemmer_ != nullptr) sb_stemmer_delete(stemmer_);
  }
  ThreadStemmer(const ThreadStemmer&) = delete;
  ThreadStemmer& operator=(const ThreadStemmer&) = delete;

  std::string stem(const std::string& word) {
    if (stemmer_ == nullptr) return word;
    const sb_symbol* out = sb_stemmer_stem(
        stemmer_, reinterpret_cast<const sb_symbol*>(word.data()), static_cast<int>(word.size()));
    if (out == nullptr) return word;
    return std::string(reinterpret_cast<const char*>(out),
                       static_cast<std::size_t>(sb_stemmer_length(stemmer_)));
  }

 private:
  sb_stemmer* stemmer_;
};

}  // namespace

std::string stem_with(std::string_view algorithm, const std::string& word) {
  thread_local std::map<std::string, ThreadStemmer, std::less<>> stemmers;
  auto it = stemmers.find(algorithm);
  if (it == stemmers.end()) {
    const std::string name(algorithm);
    it = stemmers.try_emplace(name, name).first;
  }
  return it->second.stem(word);
}

namespace {

std::string stem_word(const std::string& word) {
  thread_local ThreadStemmer stemmer("english");
  return stemmer.stem(word);
}

// ---- Word lists ----------------------------------------------------------------------

const std::unordered_set<std::string_view>& stopwords() {
  // clang-format off
  static const std::unordered_set<std::string_view> kWords = {
      "a", "an", "the", "and", "or", "but", "if", "then", "else", "of", "at", "by", "for",
      "with", "about", "against", "between", "into", "through", "during", "before", "after",
      "above", "below", "to", "from", "up", "down", "in", "out", "on", "off", "over", "under",
      "again", "further", "once", "here", "there", "when", "where", "why", "how", "all", "any",
      "both", "each", "few", "more", "most", "other", "some", "such", "only", "own", "same",
      "so", "than", "too", "very", "can", "will", "just", "should", "now", "i", "me", "my",
      "myself", "we", "our", "ours", "you", "your", "yours", "he", "him", "his", "she", "her",
      "hers", "it", "its", "they", "them", "their", "theirs", "what", "which", "who", "whom",
      "whose", "this", "that", "these", "those", "am", "is", "are", "was", "were", "be",
      "been", "being", "have", "has", "had", "having", "do", "does", "did", "doing", "would",
      "could", "might", "must", "shall", "may", "also", "as", "s", "t", "yes", "into", "onto",
      "upon", "via", "per", "whether", "while", "although", "though", "because", "since",
      "until", "unless", "i'm", "it's", "that's", "there's", "he's", "she's", "they're",
      "we're", "you're", "i've", "we've", "they've", "i'd", "i'll", "let's", "etc"};
  // clang-format on
  return kWords;
}

bool is_negation_word(std::string_view lower) {
  static const std::unordered_set<std::string_view> kWords = {
      "not", "no", "never", "nor", "neither", "none", "nobody", "nothing", "nowhere", "cannot"};
  if (kWords.contains(lower)) return true;
  return lower.size() > 3 && lower.ends_with("n't");
}

// ---- Tokenizer -----------------------------------------------------------------------

bool is_ascii_alnum(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

// Length of a non-ASCII punctuation sequence at text[i] (dashes, quotes, bullets,
// ellipsis, no-break space, guillemets, CJK comma and full stop), else 0.
std::size_t unicode_separator_length(std::string_view text, std::size_t i) {
  auto byte = [&](std::size_t k) -> unsigned char {
    return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0;
  };
  if (byte(0) == 0xC2 &&
      (byte(1) == 0xA0 || byte(1) == 0xAB || byte(1) == 0xBB || byte(1) == 0xB7)) {
    return 2;
  }
  if (byte(0) == 0xE2 && byte(1) == 0x80 &&
      ((byte(2) >= 0x90 && byte(2) <= 0x9F && byte(2) != 0x99) || byte(2) == 0xA2 ||
       byte(2) == 0xA6)) {
    return 3;
  }
  if (byte(0) == 0xE3 && byte(1) == 0x80 && (byte(2) == 0x81 || byte(2) == 0x82)) return 3;
  return 0;
}

bool is_word_byte(std::string_view text, std::size_t i) {
  const auto c = static_cast<unsigned char>(text[i]);
  if (c < 0x80) return is_ascii_alnum(c);
  return unicode_separator_length(text, i) == 0 && !(c == 0xE2 && text.substr(i, 3) == "\u2019");
}

// Length of an apostrophe (' or U+2019) at text[i], else 0.
std::size_t apostrophe_length(std::string_view text, std::size_t i) {
  if (text[i] == '\'') return 1;
  return text.substr(i, 3) == "\u2019" ? 3 : 0;
}

// End of the token starting at `begin` (a word byte).
std::size_t token_end(std::string_view text, std::size_t begin) {
  const bool numeric = is_digit(static_cast<unsigned char>(text[begin]));
  std::size_t i = begin;
  while (i < text.size()) {
    if (is_word_byte(text, i)) {
      ++i;
      continue;
    }
    const std::size_t apostrophe = apostrophe_length(text, i);
    const bool letter_follows = apostrophe > 0 && i + apostrophe < text.size() &&
                                is_ascii_alnum(static_cast<unsigned char>(text[i + apostrophe]));
    if (letter_follows && !numeric) {
      i += apostrophe;
      continue;
    }
    const bool separator = numeric && (text[i] == ',' || text[i] == '.') && i + 1 < text.size() &&
                           is_digit(static_cast<unsigned char>(text[i + 1]));
    if (!separator) break;
    ++i;
  }
  return i;
}

}  // namespace

// Declared in offline_text.h: also the other languages' numbers.
bool classify_number(const std::string& lower, OfflineToken* token) {
  std::string digits;
  bool decimal = false;
  std::size_t i = 0;
  for (; i < lower.size(); ++i) {
    const char c = lower[i];
    if (is_digit(static_cast<unsigned char>(c))) {
      digits += c;
    } else if (c == '.') {
      decimal = true;
      digits += c;
    } else if (c != ',') {
      break;
    }
  }
  const std::string_view rest = std::string_view(lower).substr(i);
  const bool ordinal = rest == "st" || rest == "nd" || rest == "rd" || rest == "th";
  if (!rest.empty() && !ordinal) return false;
  token->key = digits;
  const bool plain = lower.size() == digits.size();
  if (ordinal) {
    token->number = NumberKind::kOrdinal;
  } else if (decimal) {
    token->number = NumberKind::kDecimal;
  } else if (plain && digits.size() == 4 && digits >= "1000" && digits <= "2099") {
    token->number = NumberKind::kYear;
  } else {
    token->number = NumberKind::kInteger;
  }
  return true;
}

namespace {

void classify_word(std::string lower, OfflineToken* token) {
  token->negation = is_negation_word(lower);
  token->stopword = token->negation || stopwords().contains(lower);
  if (lower.ends_with("'s")) {
    lower.resize(lower.size() - 2);
  } else if (lower.ends_with("'")) {
    lower.pop_back();
  }
  token->key = token->stopword ? lower : stem_word(lower);
}

OfflineToken make_token(std::string_view text, std::size_t begin, std::size_t end) {
  OfflineToken token;
  token.begin = begin;
  token.end = end;
  const char first = text[begin];
  token.capitalized = first >= 'A' && first <= 'Z';
  std::string lower = offline_fold_case(text.substr(begin, end - begin));
  if (!is_digit(static_cast<unsigned char>(first)) || !classify_number(lower, &token)) {
    classify_word(std::move(lower), &token);
  }
  return token;
}

// True when the word at text[i] starts a sentence: nothing but white space before it, or
// the last other character before it ends a sentence or opens a quotation or a line.
bool starts_sentence(std::string_view text, std::size_t i) {
  while (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t')) --i;
  if (i == 0) return true;
  const char before = text[i - 1];
  return before == '.' || before == '!' || before == '?' || before == '\n' || before == ':' ||
         before == '"' || before == '(' || before == '*';
}

// ---- Markers ----------------------------------------------------------------------------

// Length of a citation marker at text[i]: "[" then only digits, commas, hyphens, en dashes
// and spaces with at least one digit, then "]" ("[0]", "[1, 2]", "[3-5]"); else 0.
std::size_t citation_length(std::string_view text, std::size_t i) {
  if (text[i] != '[') return 0;
  bool digit = false;
  for (std::size_t k = i + 1; k < text.size(); ++k) {
    const char c = text[k];
    if (c == ']') return digit ? k - i + 1 : 0;
    if (is_digit(static_cast<unsigned char>(c))) {
      digit = true;
    } else if (text.substr(k, 3) == "\u2013") {
      k += 2;
    } else if (c != ',' && c != '-' && c != ' ') {
      return 0;
    }
  }
  return 0;
}

// Length of a list-item number at text[i]: one or two digits at the start of a line (only
// spaces or tabs before them on it) followed by "." or ")", a space and more text on the
// line ("1. Paris", "12) Rome"); else 0.
std::size_t list_number_length(std::string_view text, std::size_t i) {
  if (!is_digit(static_cast<unsigned char>(text[i]))) return 0;
  std::size_t before = i;
  while (before > 0 && (text[before - 1] == ' ' || text[before - 1] == '\t')) --before;
  if (before > 0 && text[before - 1] != '\n') return 0;
  std::size_t k = i;
  while (k < text.size() && k - i < 3 && is_digit(static_cast<unsigned char>(text[k]))) ++k;
  if (k - i > 2 || k >= text.size() || (text[k] != '.' && text[k] != ')')) return 0;
  std::size_t next = k + 1;
  while (next < text.size() && (text[next] == ' ' || text[next] == '\t')) ++next;
  if (next == k + 1 || next >= text.size() || text[next] == '\n' || text[next] == '\r') return 0;
  return k + 1 - i;
}

}  // namespace

std::size_t marker_length(std::string_view text, std::size_t i) {
  return std::max(citation_length(text, i), list_number_length(text, i));
}

namespace {

// ---- Sentences and clauses ----------------------------------------------------------

std::string_view trim(std::string_view text) {
  constexpr std::string_view kSpace = " \t\r\n\f\v";
  const std::size_t begin = text.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(kSpace) - begin + 1);
}

std::unique_ptr<icu::BreakIterator> new_sentence_iterator() {
  UErrorCode status = U_ZERO_ERROR;
  std::unique_ptr<icu::BreakIterator> iterator(
      icu::BreakIterator::createSentenceInstance(icu::Locale::getRoot(), status));
  if (U_FAILURE(status)) return nullptr;
  return iterator;
}

// Whether the word before a period ends no sentence: an initial (one capital letter, of
// any script: "A. J. McClung", "А. С. Пушкин") or a title or abbreviation ("Dr.", "U.S.").
// ICU's root rules break after each, so a name copied from a passage became claims "A."
// and "J.". (ICU's filter of suppressed breaks matches a suffix, so it would also keep
// "joined the UN. It" together: the word is taken whole here.)
bool is_abbreviation(std::string_view word) {
  static const std::unordered_set<std::string_view> kTitles = {
      "Mr.", "Mrs.", "Ms.", "Dr.", "Prof.", "St.", "Jr.", "Sr.", "Gen.", "Col.",
      "Lt.", "Sgt.", "Rev.", "Mt.", "U.S.", "e.g.", "i.e.", "vs."};
  if (kTitles.contains(word)) return true;
  if (word.size() < 2 || word.back() != '.') return false;
  int32_t at = 0;
  UChar32 letter = 0;
  const auto size = static_cast<int32_t>(word.size() - 1);
  U8_NEXT(word.data(), at, size, letter);
  return at == size && letter >= 0 && u_isupper(letter);
}

// Whether the sentence ICU ends at byte `end` of `text` ends at an abbreviation's period.
bool ends_at_abbreviation(std::string_view text, std::size_t end) {
  const std::string_view piece = trim(text.substr(0, end));
  const std::size_t space = piece.find_last_of(" \t\r\n\f\v(\"'");
  return is_abbreviation(space == std::string_view::npos ? piece : piece.substr(space + 1));
}

// Byte offsets of sentence boundaries (first 0, last text.size()), or empty on failure.
std::vector<std::size_t> sentence_boundaries(std::string_view text) {
  thread_local std::unique_ptr<icu::BreakIterator> iterator = new_sentence_iterator();
  if (iterator == nullptr || text.size() > static_cast<std::size_t>(INT32_MAX)) return {};
  UErrorCode status = U_ZERO_ERROR;
  UText* utext = utext_openUTF8(nullptr, text.data(), static_cast<int64_t>(text.size()), &status);
  if (U_FAILURE(status)) return {};
  iterator->setText(utext, status);
  std::vector<std::size_t> boundaries;
  if (U_SUCCESS(status)) {
    for (int32_t at = iterator->first(); at != icu::BreakIterator::DONE; at = iterator->next()) {
      const auto boundary = static_cast<std::size_t>(at);
      if (boundary > 0 && boundary < text.size() && ends_at_abbreviation(text, boundary)) continue;
      boundaries.push_back(boundary);
    }
  }
  utext_close(utext);
  return boundaries;
}

bool has_alnum(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u >= 0x80 || (u >= '0' && u <= '9') || (u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z');
  });
}

std::string lower_word(std::string_view text, const OfflineToken& token) {
  return offline_fold_case(text.substr(token.begin, token.end - token.begin));
}

bool is_verb_like(const std::string& lower) {
  // clang-format off
  static const std::unordered_set<std::string_view> kVerbs = {
      "is", "are", "was", "were", "be", "been", "am", "has", "have", "had", "do", "does",
      "did", "will", "would", "can", "could", "may", "might", "shall", "should", "must",
      "cannot", "isn't", "aren't", "wasn't", "weren't", "doesn't", "didn't", "won't",
      "born", "made", "won", "became", "become", "becomes", "began", "wrote", "written",
      "known", "took", "taken", "gave", "given", "led", "held", "sold", "built", "ran", "left",
      "said", "says", "includes", "contains", "went", "came", "found", "lost", "got", "saw"};
  // clang-format on
  if (kVerbs.contains(lower)) return true;
  return lower.size() >= 5 && lower.ends_with("ed");
}

struct WordStats {
  std::size_t words = 0;
  bool verb = false;
};

// "crosses the", "owns a": a word in -s right before a determiner is taken as a verb.
bool is_verb_before_determiner(const std::string& lower, const std::string& next) {
  static const std::unordered_set<std::string_view> kDeterminers = {
      "the", "a", "an", "his", "her", "its", "their", "this", "that", "these", "those"};
  return lower.size() >= 4 && lower.ends_with("s") && !lower.ends_with("ss") &&
         kDeterminers.contains(next);
}

WordStats english_word_stats(std::string_view text) {
  WordStats stats;
  const std::vector<OfflineToken> tokens = tokenize(text, english_language());
  for (std::size_t i = 0; i < tokens.size() && !stats.verb; ++i) {
    const std::string lower = lower_word(text, tokens[i]);
    const std::string next = i + 1 < tokens.size() ? lower_word(text, tokens[i + 1]) : "";
    stats.verb = is_verb_like(lower) || is_verb_before_determiner(lower, next);
  }
  stats.words = tokens.size();
  return stats;
}

// Other languages: a verb is one of the language's copulas and auxiliaries, as written.
WordStats word_stats(std::string_view text, const OfflineLanguage& language) {
  if (language.english) return english_word_stats(text);
  WordStats stats;
  const std::vector<OfflineToken> tokens = tokenize_words(text, language);
  stats.words = tokens.size();
  stats.verb = std::any_of(tokens.begin(), tokens.end(), [&](const OfflineToken& token) {
    std::string surface;
    append_word_key(text.substr(token.begin, token.end - token.begin), &surface);
    return language.verbs.contains(surface);
  });
  return stats;
}

// English asks for a verb on each side; the other languages' clause marks need none.
bool clause_like(std::string_view piece, const OfflineLanguage& language) {
  const WordStats stats = word_stats(piece, language);
  return stats.words >= kMinClauseWords && (stats.verb || !language.english);
}

// A clause boundary: where the left piece ends and the right one starts, relative to
// the match position of `text`.
struct Separator {
  std::string_view text;
  std::size_t right_offset;  // from the match to the start of the right piece
};

constexpr std::array<Separator, 10> kEnglishSeparators = {{
    {"; ", 2},
    {", and ", 6},
    {", but ", 6},
    {", while ", 8},
    {", whereas ", 10},
    {", although ", 11},
    {", though ", 9},
    {", which ", 2},
    {", who ", 2},
    {"; and ", 6},
}};
constexpr std::array<Separator, 1> kSemicolonSeparators = {{{"; ", 2}}};
// The CJK clause marks (full-width comma, enumeration comma, semicolon) and the ASCII
// comma and semicolon that Chinese text often uses instead.
constexpr std::array<Separator, 5> kCjkSeparators = {{
    {"\uFF0C", 3}, {"\u3001", 3}, {"\uFF1B", 3}, {",", 1}, {";", 1}}};

std::span<const Separator> separators(const OfflineLanguage& language) {
  switch (language.clauses) {
    case ClauseRule::kEnglish: return kEnglishSeparators;
    case ClauseRule::kSemicolon: return kSemicolonSeparators;
    case ClauseRule::kCjk: return kCjkSeparators;
  }
  return kSemicolonSeparators;
}

// The earliest separator at or after `from` whose two sides are clause-like, given that
// the left piece starts at `start`. Returns {match, right start} or npos.
std::pair<std::size_t, std::size_t> next_split(std::string_view sentence, std::size_t start,
                                               std::size_t from, const OfflineLanguage& language) {
  std::size_t best = std::string_view::npos;
  std::size_t best_right = 0;
  for (const Separator& separator : separators(language)) {
    const std::size_t match = sentence.find(separator.text, from);
    if (match == std::string_view::npos || match >= best) continue;
    const std::size_t right = match + separator.right_offset;
    if (clause_like(sentence.substr(start, match - start), language) &&
        clause_like(sentence.substr(right), language)) {
      best = match;
      best_right = right;
    }
  }
  return {best, best_right};
}

void append_piece(std::string_view piece, std::vector<std::string>* claims) {
  piece = trim(piece);
  if (has_alnum(piece)) claims->emplace_back(piece);
}

void split_clauses(std::string_view sentence, const OfflineLanguage& language,
                   std::vector<std::string>* claims) {
  if (word_stats(sentence, language).words <= kClauseSplitMinWords) {
    append_piece(sentence, claims);
    return;
  }
  std::size_t start = 0;
  std::size_t from = 0;
  while (from < sentence.size()) {
    const auto [match, right] = next_split(sentence, start, from, language);
    if (match == std::string_view::npos) break;
    append_piece(sentence.substr(start, match - start), claims);
    start = right;
    from = right;
  }
  append_piece(sentence.substr(start), claims);
}

bool is_short_answer(std::string_view text, const std::vector<std::string_view>& sentences,
                     const OfflineLanguage& language) {
  if (sentences.size() != 1) return false;
  const WordStats stats = word_stats(text, language);
  return stats.words <= kShortAnswerMaxWords && !stats.verb;
}

}  // namespace

std::string offline_fold_case(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.substr(i, 3) == "\u2019") {
      out += '\'';
      i += 2;
      continue;
    }
    const char c = text[i];
    out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  return out;
}

std::vector<OfflineToken> offline_tokenize(std::string_view text, std::string_view language) {
  return tokenize(text, offline_language_or_english(language));
}

std::vector<OfflineToken> tokenize(std::string_view text, const OfflineLanguage& language) {
  if (!language.english) return tokenize_words(text, language);
  std::vector<OfflineToken> tokens;
  std::size_t i = 0;
  while (i < text.size()) {
    if (const std::size_t marker = marker_length(text, i); marker > 0) {
      i += marker;
      continue;
    }
    if (!is_word_byte(text, i)) {
      i += std::max<std::size_t>(
          1, std::max(unicode_separator_length(text, i), apostrophe_length(text, i)));
      continue;
    }
    const std::size_t end = token_end(text, i);
    tokens.push_back(make_token(text, i, end));
    // A capitalised "No" or "Never" inside a sentence belongs to a name or a title ("Tell
    // No One", "No. 5"): not a negation.
    if (tokens.back().negation && tokens.back().capitalized && !starts_sentence(text, i)) {
      tokens.back().negation = false;
    }
    i = end;
  }
  return tokens;
}

std::vector<std::string_view> split_sentences(std::string_view text) {
  std::vector<std::string_view> sentences;
  const std::vector<std::size_t> boundaries = sentence_boundaries(text);
  if (boundaries.size() < 2) {
    if (!trim(text).empty()) sentences.push_back(trim(text));
    return sentences;
  }
  for (std::size_t i = 0; i + 1 < boundaries.size(); ++i) {
    const std::string_view sentence =
        trim(text.substr(boundaries[i], boundaries[i + 1] - boundaries[i]));
    if (!sentence.empty()) sentences.push_back(sentence);
  }
  return sentences;
}

std::vector<std::string> extract_claims(std::string_view text, std::string_view question,
                                        std::string_view language) {
  return extract_claims(text, question, offline_language_or_english(language));
}

std::vector<std::string> extract_claims(std::string_view text, std::string_view question,
                                        const OfflineLanguage& language) {
  std::vector<std::string> claims;
  const std::vector<std::string_view> sentences = split_sentences(text);
  question = trim(question);
  if (!question.empty() && is_short_answer(text, sentences, language) &&
      has_alnum(sentences.front())) {
    claims.push_back(std::string(question) + " " + std::string(trim(text)));
    return claims;
  }
  for (std::string_view sentence : sentences) split_clauses(sentence, language, &claims);
  return claims;
}

std::size_t question_context_length(std::string_view claim, std::string_view language) {
  return question_context_length(claim, offline_language_or_english(language));
}

std::size_t question_context_length(std::string_view claim, const OfflineLanguage& language) {
  const std::vector<std::string_view> sentences = split_sentences(claim);
  if (sentences.size() < 2) return 0;
  const std::string_view last = sentences.back();
  const WordStats stats = word_stats(last, language);
  if (stats.words == 0 || stats.words > kShortAnswerMaxWords || stats.verb) return 0;
  return static_cast<std::size_t>(last.data() - claim.data());
}

std::string answer_premise(std::string_view text, std::string_view question,
                           std::string_view language) {
  const OfflineLanguage& rules = offline_language_or_english(language);
  const std::vector<std::string_view> sentences = split_sentences(text);
  question = trim(question);
  if (!question.empty() && is_short_answer(text, sentences, rules) &&
      has_alnum(sentences.front())) {
    return std::string(question) + " " + std::string(trim(text));
  }
  return std::string(text);
}

bool is_noncommittal(std::string_view response) {
  static constexpr std::array<std::string_view, 5> kWholeAnswers = {"unknown", "n/a", "none",
                                                                    "no answer", "not known"};
  // clang-format off
  static constexpr std::array<std::string_view, 30> kPhrases = {
      "i don't know", "i do not know", "i dont know", "not sure", "no idea",
      "does not say", "doesn't say", "do not say", "does not mention", "doesn't mention",
      "does not provide", "doesn't provide", "does not specify", "doesn't specify",
      "does not contain", "doesn't contain", "cannot be determined", "can't be determined",
      "cannot determine", "can't determine", "unable to determine", "unable to answer",
      "cannot answer", "can't answer", "no information", "not enough information",
      "insufficient information", "not mentioned", "not provided", "not specified"};
  // clang-format on
  const std::vector<std::string_view> sentences = split_sentences(response);
  if (sentences.empty()) return true;
  std::string whole = offline_fold_case(trim(response));
  while (!whole.empty() && (whole.back() == '.' || whole.back() == '!')) whole.pop_back();
  if (std::find(kWholeAnswers.begin(), kWholeAnswers.end(), whole) != kWholeAnswers.end()) {
    return true;
  }
  const std::string first = offline_fold_case(sentences.front());
  return std::any_of(kPhrases.begin(), kPhrases.end(), [&](std::string_view phrase) {
    return first.find(phrase) != std::string::npos;
  });
}

}  // namespace ragmeter
