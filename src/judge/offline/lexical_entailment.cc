// Lexical entailment for the offline judge: premises and claims analysed into tokens, and
// the verdict rules documented in include/ragmeter/offline_judge.h.
#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <unordered_set>

#include "judge/offline/offline_text.h"
#include "ragmeter/offline_judge.h"
#include "ragmeter/words.h"

namespace ragmeter {
namespace {

// ---- Thresholds (chosen on the dev split of bench/offline_judge_quality.py) -----------

// Content keys of a claim the best premise window may miss for Entailment: none of the
// first kStrictKeys, then kMissNumerator in every kMissDenominator of the rest, rounded
// down (n keys: n - floor(0.4 * (n - 2)) must be found). Short claims must be found whole,
// long ones (which paraphrases reword) need about 60% of their words.
constexpr std::size_t kStrictKeys = 2;
constexpr std::size_t kMissNumerator = 2;
constexpr std::size_t kMissDenominator = 5;
// A changed number is a Contradiction only when at least this share of the claim's other
// content keys occurs in the premise (otherwise the premise is about something else).
constexpr double kContradictionMinCoverage = 0.5;
// Sentences per premise window, and premises short enough to be one window.
constexpr std::size_t kWindowSentences = 3;
constexpr std::size_t kWholePremiseTokens = 120;
// How far (in tokens) a number's anchor words reach in the claim and in the premise
// (wider there: premises say "X (1844-1846) was an American ... published"), and how far
// a negation's scope reaches.
constexpr std::size_t kNumberReach = 4;
constexpr std::size_t kPremiseNumberReach = 6;
constexpr std::size_t kNegationReach = 4;
// Fixed confidences of the rule-based verdicts.
constexpr double kMissingNumberConfidence = 0.9;
constexpr double kChangedNumberConfidence = 0.8;
constexpr double kMissingNameConfidence = 0.85;
constexpr double kNegationConfidence = 0.7;
constexpr double kNoContentConfidence = 0.5;

// ---- Verdict helpers -------------------------------------------------------------------

std::string_view surface(const std::string& text, const OfflineToken& token) {
  return std::string_view(text).substr(token.begin, token.end - token.begin);
}

std::string join_quoted(const std::vector<std::string_view>& words) {
  std::string out;
  for (const auto& word : words) {
    if (!out.empty()) out += ", ";
    out += '\'';
    out += word;
    out += '\'';
  }
  return out;
}

bool premise_has(const OfflinePremise& premise, const std::string& key) {
  return !premise.sentences_with(key).empty();
}

std::size_t distance(std::size_t a, std::size_t b) { return a > b ? a - b : b - a; }

// Keys of the claim's content words within kNumberReach tokens of token `at`.
std::unordered_set<std::string> anchor_keys(const OfflineClaim& claim, std::size_t at) {
  std::unordered_set<std::string> keys;
  const auto& tokens = claim.tokens();
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const bool word = tokens[i].number == NumberKind::kNone && !tokens[i].stopword;
    if (word && i != at && distance(i, at) <= kNumberReach) keys.insert(tokens[i].key);
  }
  return keys;
}

// A premise number of `kind` other than `key`, within kPremiseNumberReach tokens of an
// anchor.
const OfflineToken* changed_number(const OfflinePremise& premise, NumberKind kind,
                                   const std::string& key,
                                   const std::unordered_set<std::string>& anchors) {
  const auto& tokens = premise.tokens();
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i].number != kind || tokens[i].key == key) continue;
    const std::size_t lo = i >= kPremiseNumberReach ? i - kPremiseNumberReach : 0;
    const std::size_t hi = std::min(tokens.size(), i + kPremiseNumberReach + 1);
    for (std::size_t j = lo; j < hi; ++j) {
      if (anchors.contains(tokens[j].key)) return &tokens[i];
    }
  }
  return nullptr;
}

// Share of the claim's non-number content keys that occur anywhere in the premise.
double word_coverage(const OfflineClaim& claim, const OfflinePremise& premise) {
  std::size_t words = 0;
  std::size_t found = 0;
  for (std::size_t index : claim.content()) {
    const OfflineToken& token = claim.tokens()[index];
    if (token.number != NumberKind::kNone) continue;
    ++words;
    if (premise_has(premise, token.key)) ++found;
  }
  return words == 0 ? 1.0 : static_cast<double>(found) / static_cast<double>(words);
}

VerdictCell make_cell(Verdict verdict, double confidence, std::string reason) {
  VerdictCell cell;
  cell.verdict = verdict;
  cell.confidence = std::clamp(confidence, 0.0, 1.0);
  cell.reason = std::move(reason);
  return cell;
}

// Rule 2: numbers. Returns true and sets *cell when a number decides the verdict.
bool check_numbers(const OfflineClaim& claim, const OfflinePremise& premise, VerdictCell* cell) {
  std::vector<std::string_view> missing;
  std::string changes;
  for (std::size_t index : claim.content()) {
    const OfflineToken& token = claim.tokens()[index];
    if (token.number == NumberKind::kNone || premise_has(premise, token.key)) continue;
    missing.push_back(surface(claim.text(), token));
    const OfflineToken* other =
        changed_number(premise, token.number, token.key, anchor_keys(claim, index));
    if (other == nullptr) continue;
    if (!changes.empty()) changes += "; ";
    changes += "the premise has '" + std::string(surface(premise.text(), *other)) +
               "' where the claim has '" + std::string(surface(claim.text(), token)) + "'";
  }
  if (missing.empty()) return false;
  if (!changes.empty() && word_coverage(claim, premise) >= kContradictionMinCoverage) {
    *cell = make_cell(Verdict::kContradiction, kChangedNumberConfidence, changes);
  } else {
    *cell = make_cell(Verdict::kNeutral, kMissingNumberConfidence,
                      "number not found in the premise: " + join_quoted(missing));
  }
  return true;
}

// Rule 3: names, and in Chinese and Japanese quoted text.
bool check_names(const OfflineClaim& claim, const OfflinePremise& premise, VerdictCell* cell) {
  std::vector<std::string_view> missing;
  for (std::size_t index : claim.names()) {
    const OfflineToken& token = claim.tokens()[index];
    if (!premise_has(premise, token.key)) missing.push_back(surface(claim.text(), token));
  }
  if (missing.empty()) {
    for (const std::string& quote : claim.quotes()) {
      if (premise.folded_text().find(quote) == std::string::npos) missing.push_back(quote);
    }
    if (missing.empty()) return false;
    *cell = make_cell(Verdict::kNeutral, kMissingNameConfidence,
                      "quoted text not found in the premise: " + join_quoted(missing));
    return true;
  }
  *cell = make_cell(Verdict::kNeutral, kMissingNameConfidence,
                    "name not found in the premise: " + join_quoted(missing));
  return true;
}

// ---- Names per language ----------------------------------------------------------------

bool written_in_capitals(std::string_view word) {
  return word.size() >= 2 && std::all_of(word.begin(), word.end(), [](char c) {
           return !(c >= 'a' && c <= 'z');
         });
}

// At least two letters, all of them capitals ("NASA", "ÖBB"), by ICU's properties.
bool written_in_capitals_unicode(std::string_view word) {
  int letters = 0;
  for (int32_t i = 0; i < static_cast<int32_t>(word.size());) {
    UChar32 c = 0;
    U8_NEXT(word.data(), i, static_cast<int32_t>(word.size()), c);
    if (!u_isalpha(c)) continue;
    if (!u_isupper(c)) return false;
    ++letters;
  }
  return letters >= 2;
}

bool has_latin_letter(std::string_view key) {
  return std::any_of(key.begin(), key.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}

// The quotation marks whose text a Chinese or Japanese premise must hold.
constexpr std::pair<std::string_view, std::string_view> kQuoteMarks[] = {
    {"\u300C", "\u300D"}, {"\u300E", "\u300F"}, {"\u201C", "\u201D"}, {"\u300A", "\u300B"}};

std::vector<std::string> quoted_spans(std::string_view text) {
  std::vector<std::string> out;
  for (const auto& [open, close] : kQuoteMarks) {
    for (std::size_t at = text.find(open); at != std::string_view::npos; at = text.find(open, at)) {
      const std::size_t begin = at + open.size();
      const std::size_t end = text.find(close, begin);
      if (end == std::string_view::npos) break;
      std::string folded;
      append_word_key(text.substr(begin, end - begin), &folded);
      if (!folded.empty()) out.push_back(std::move(folded));
      at = end + close.size();
    }
  }
  return out;
}

// Whether tokens[i] of `text` is a name under the language's rule (OfflineClaim::names).
bool is_name(std::string_view text, const std::vector<OfflineToken>& tokens,
             const OfflineLanguage& rules, std::size_t i) {
  const OfflineToken& token = tokens[i];
  if (token.number != NumberKind::kNone) return false;
  const std::string_view word = text.substr(token.begin, token.end - token.begin);
  switch (rules.names) {
    case NameRule::kLatinAndQuoted:
      return has_latin_letter(token.key);
    case NameRule::kCapitalsOnly:
      return written_in_capitals_unicode(word);
    case NameRule::kCapitalised:
      break;
  }
  if (!token.capitalized) return false;
  const bool all_caps = rules.english ? written_in_capitals(word) : written_in_capitals_unicode(word);
  const bool next_capitalized = i + 1 < tokens.size() && tokens[i + 1].capitalized;
  return i > 0 || all_caps || next_capitalized;
}

// A premise window: its first sentence, its sentence count, and how many of the claim's
// content keys it holds.
struct Window {
  std::size_t first = 0;
  std::size_t count = 0;
  std::size_t found = 0;  // content keys of the claim in the window
};

// Adds 1 to counts[w] for every window w (of kWindowSentences sentences) holding `key`.
void count_key(const OfflinePremise& premise, const std::string& key,
               std::vector<std::size_t>* counts) {
  std::size_t next = 0;  // first window this key has not been counted in yet
  for (std::uint32_t s : premise.sentences_with(key)) {
    const std::size_t lo = s + 1 >= kWindowSentences ? s + 1 - kWindowSentences : 0;
    for (std::size_t w = std::max(lo, next); w <= s && w < counts->size(); ++w) {
      ++(*counts)[w];
      next = w + 1;
    }
  }
}

// The window with the most content keys; among those, the one with the most of the
// question's keys (claim.context()); then the earliest.
Window best_window(const OfflineClaim& claim, const OfflinePremise& premise) {
  const std::size_t sentences = premise.sentence_count();
  if (premise.tokens().size() <= kWholePremiseTokens || sentences <= kWindowSentences) {
    Window whole{0, sentences, 0};
    for (std::size_t index : claim.content()) {
      if (premise_has(premise, claim.tokens()[index].key)) ++whole.found;
    }
    return whole;
  }
  std::vector<std::size_t> found(sentences - kWindowSentences + 1, 0);
  std::vector<std::size_t> context(found.size(), 0);
  for (std::size_t index : claim.content()) count_key(premise, claim.tokens()[index].key, &found);
  for (std::size_t index : claim.context()) count_key(premise, claim.tokens()[index].key, &context);
  std::size_t best = 0;
  for (std::size_t w = 1; w < found.size(); ++w) {
    if (found[w] > found[best] || (found[w] == found[best] && context[w] > context[best])) best = w;
  }
  return {best, kWindowSentences, found[best]};
}

// How many of a claim's `keys` content keys the window must hold for Entailment.
std::size_t required_keys(std::size_t keys) {
  if (keys <= kStrictKeys) return keys;
  return keys - kMissNumerator * (keys - kStrictKeys) / kMissDenominator;
}

// Rule 4: coverage; the words not found in the window are named.
bool check_coverage(const OfflineClaim& claim, const OfflinePremise& premise, const Window& window,
                    VerdictCell* cell) {
  const std::size_t keys = claim.content().size();
  const bool every_word = offline_language_or_english(claim.language()).every_word_required;
  const std::size_t required = every_word ? keys : required_keys(keys);
  const double coverage = static_cast<double>(window.found) / static_cast<double>(keys);
  const double threshold = static_cast<double>(required) / static_cast<double>(keys);
  if (window.found >= required) {
    const double margin = required == keys ? 1.0 : (coverage - threshold) / (1.0 - threshold);
    *cell = make_cell(Verdict::kEntailment, 0.5 + 0.5 * margin, "");
    return false;
  }
  std::vector<std::string_view> missing;
  for (std::size_t index : claim.content()) {
    const auto sentences = premise.sentences_with(claim.tokens()[index].key);
    const bool in_window = std::any_of(sentences.begin(), sentences.end(), [&](std::uint32_t s) {
      return s >= window.first && s < window.first + window.count;
    });
    if (!in_window) missing.push_back(surface(claim.text(), claim.tokens()[index]));
  }
  const double margin = (threshold - coverage) / threshold;
  *cell = make_cell(Verdict::kNeutral, 0.5 + 0.5 * margin,
                    "words not found in the premise: " + join_quoted(missing));
  return true;
}

// True when the text between tokens a and b holds a clause or sentence mark.
bool clause_mark_between(std::string_view text, const OfflineToken& a, const OfflineToken& b) {
  static constexpr std::string_view kMarks[] = {",", ";", ":", "\uFF0C", "\u3001", "\uFF1B",
                                                "\uFF1A", "\u3002"};
  const std::size_t from = std::min(a.end, b.end);
  const std::size_t to = std::max(a.begin, b.begin);
  if (from >= to) return false;
  const std::string_view between = text.substr(from, to - from);
  return std::any_of(std::begin(kMarks), std::end(kMarks), [&](std::string_view mark) {
    return between.find(mark) != std::string_view::npos;
  });
}

// True when a negation occurs in the window within kNegationReach tokens of a token
// whose key is one of the claim's content keys.
bool window_negated(const OfflineClaim& claim, const OfflinePremise& premise,
                    const Window& window) {
  std::unordered_set<std::string_view> keys;
  for (std::size_t index : claim.content()) keys.insert(claim.tokens()[index].key);
  const auto& tokens = premise.tokens();
  const auto& starts = premise.sentence_starts();
  const std::size_t begin = starts.empty() ? 0 : starts[window.first];
  const std::size_t last = window.first + window.count;
  const std::size_t end = last < starts.size() ? starts[last] : tokens.size();
  for (std::size_t i = begin; i < end; ++i) {
    if (!tokens[i].negation) continue;
    const std::size_t lo = std::max(begin, i >= kNegationReach ? i - kNegationReach : 0);
    const std::size_t hi = std::min(end, i + kNegationReach + 1);
    for (std::size_t j = lo; j < hi; ++j) {
      if (keys.contains(tokens[j].key)) return true;
    }
  }
  return false;
}

// ASCII case-insensitive equality (English tokens; other bytes compared as they are).
bool same_word(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// True when a token of the premise's sentences holding tokens [first, last) is a negation
// outside them ("It is not true that the moon is made of cheese." around "the moon is made
// of cheese").
bool negation_around(const OfflinePremise& premise, std::size_t first, std::size_t last) {
  const auto& starts = premise.sentence_starts();
  const auto& tokens = premise.tokens();
  // The sentence of `first` begins at the last start not after it; that of `last - 1` ends
  // at the first start after it.
  const auto after_first = std::upper_bound(starts.begin(), starts.end(), first);
  const std::size_t begin = after_first == starts.begin() ? 0 : *(after_first - 1);
  const auto after_last = std::upper_bound(starts.begin(), starts.end(), last - 1);
  const std::size_t end = after_last == starts.end() ? tokens.size() : *after_last;
  for (std::size_t k = begin; k < end; ++k) {
    if ((k < first || k >= last) && tokens[k].negation) return true;
  }
  return false;
}

// English: true when the premise has the claim's words in the same order, word for word
// (case and the punctuation between words aside), in sentences with no negation besides
// the copied words' own, and the claim has a content word. A sentence copied from the
// passage is supported whatever stands near it: the window's negation rule would read the
// next sentence's "never" as negating it.
bool copied_word_for_word(const OfflineClaim& claim, const OfflinePremise& premise) {
  const auto& words = claim.tokens();
  const auto& tokens = premise.tokens();
  if (claim.content().empty() || words.size() > tokens.size()) return false;
  const auto surface = [](std::string_view text, const OfflineToken& token) {
    return text.substr(token.begin, token.end - token.begin);
  };
  for (std::size_t i = 0; i + words.size() <= tokens.size(); ++i) {
    std::size_t j = 0;
    while (j < words.size() && tokens[i + j].key == words[j].key &&
           same_word(surface(premise.text(), tokens[i + j]), surface(claim.text(), words[j]))) {
      ++j;
    }
    if (j == words.size() && !negation_around(premise, i, i + j)) return true;
  }
  return false;
}

// ---- Outside English: verbatim claims, negation clause by clause -------------------------

// True when the claim, NFKC case-folded and without the spaces and punctuation at its ends,
// stands in the premise as written and has a content word (a copied sentence is supported
// however ICU's dictionary cut its words in either text).
bool stated_verbatim(const OfflineClaim& claim, const OfflinePremise& premise) {
  const auto& tokens = claim.tokens();
  if (tokens.empty() || std::all_of(tokens.begin(), tokens.end(),
                                    [](const OfflineToken& token) { return token.stopword; })) {
    return false;
  }
  // From the first word to the end of the last: the punctuation around them is not compared.
  std::string folded;
  append_word_key(std::string_view(claim.text()).substr(tokens.front().begin,
                                                        tokens.back().end - tokens.front().begin),
                  &folded);
  return premise.folded_text().find(folded) != std::string::npos;
}

using TokenRange = std::pair<std::size_t, std::size_t>;  // [first, last) token indices

// The clauses of tokens [from, to) of `text`: cut where a clause or sentence mark stands
// between two tokens.
std::vector<TokenRange> clauses_of(std::string_view text, const std::vector<OfflineToken>& tokens,
                                   std::size_t from, std::size_t to) {
  std::vector<TokenRange> out;
  std::size_t start = from;
  for (std::size_t k = from + 1; k < to; ++k) {
    if (clause_mark_between(text, tokens[k - 1], tokens[k])) {
      out.emplace_back(start, k);
      start = k;
    }
  }
  if (start < to) out.emplace_back(start, to);
  return out;
}

bool has_negation(const std::vector<OfflineToken>& tokens, TokenRange range) {
  return std::any_of(tokens.begin() + static_cast<std::ptrdiff_t>(range.first),
                     tokens.begin() + static_cast<std::ptrdiff_t>(range.second),
                     [](const OfflineToken& token) { return token.negation; });
}

// Each clause of the claim with content words against the premise clause (in the window)
// that holds most of them: the reason when one is negated and the other is not, else
// nullopt. ICU's words are short and a negation may end the verb it negates (Japanese
// "…ていません"), so a token distance would miss it; a clause is the negation's scope.
std::optional<std::string> clause_negation_mismatch(const OfflineClaim& claim,
                                                    const OfflinePremise& premise,
                                                    const Window& window) {
  std::unordered_set<std::string_view> content;
  for (std::size_t index : claim.content()) content.insert(claim.tokens()[index].key);
  const auto& starts = premise.sentence_starts();
  const std::size_t begin = starts.empty() ? 0 : starts[window.first];
  const std::size_t last = window.first + window.count;
  const std::size_t end = last < starts.size() ? starts[last] : premise.tokens().size();
  const std::vector<TokenRange> premise_clauses =
      clauses_of(premise.text(), premise.tokens(), begin, end);
  for (const TokenRange& clause : clauses_of(claim.text(), claim.tokens(), 0, claim.tokens().size())) {
    std::unordered_set<std::string_view> keys;
    for (std::size_t k = clause.first; k < clause.second; ++k) {
      if (content.contains(claim.tokens()[k].key)) keys.insert(claim.tokens()[k].key);
    }
    if (keys.empty()) continue;
    const TokenRange* best = nullptr;
    std::size_t best_count = 0;
    for (const TokenRange& candidate : premise_clauses) {
      std::unordered_set<std::string_view> found;
      for (std::size_t k = candidate.first; k < candidate.second; ++k) {
        if (keys.contains(premise.tokens()[k].key)) found.insert(premise.tokens()[k].key);
      }
      if (found.size() > best_count) {
        best = &candidate;
        best_count = found.size();
      }
    }
    if (best == nullptr) continue;
    const bool claim_negated = has_negation(claim.tokens(), clause);
    if (claim_negated != has_negation(premise.tokens(), *best)) {
      return claim_negated ? "the claim is negated and the premise is not"
                           : "the premise negates what the claim states";
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<VerdictCell> missing_number_or_name(const OfflineClaim& claim,
                                                  const OfflinePremise& premise) {
  VerdictCell cell;
  if (check_numbers(claim, premise, &cell) || check_names(claim, premise, &cell)) return cell;
  return std::nullopt;
}

OfflinePremise::OfflinePremise(std::string_view text, std::string_view language)
    : text_(text), language_(language) {
  const OfflineLanguage& rules = offline_language_or_english(language);
  if (!rules.english) append_word_key(text_, &folded_);
  for (std::string_view sentence : split_sentences(text_)) {
    const auto offset = static_cast<std::size_t>(sentence.data() - text_.data());
    std::vector<OfflineToken> tokens = tokenize(sentence, rules);
    if (tokens.empty()) continue;
    const auto index = static_cast<std::uint32_t>(sentence_starts_.size());
    sentence_starts_.push_back(tokens_.size());
    for (OfflineToken& token : tokens) {
      token.begin += offset;
      token.end += offset;
      auto& sentences = key_sentences_[token.key];
      if (sentences.empty() || sentences.back() != index) sentences.push_back(index);
      tokens_.push_back(std::move(token));
    }
  }
}

std::span<const std::uint32_t> OfflinePremise::sentences_with(const std::string& key) const {
  const auto it = key_sentences_.find(key);
  if (it == key_sentences_.end()) return {};
  return it->second;
}

OfflineClaim::OfflineClaim(std::string_view text, std::string_view language)
    : text_(text), language_(language) {
  const OfflineLanguage& rules = offline_language_or_english(language);
  tokens_ = tokenize(text_, rules);
  // A question-answer claim: the answer's tokens are the claim, the question's are context,
  // unless the answer has no content word ("Q? no"), which leaves the whole text the claim.
  std::size_t answer_begin = 0;
  if (const std::size_t context_bytes = question_context_length(text_, rules); context_bytes > 0) {
    std::size_t first = 0;
    while (first < tokens_.size() && tokens_[first].begin < context_bytes) ++first;
    const bool answer_content =
        std::any_of(tokens_.begin() + static_cast<std::ptrdiff_t>(first), tokens_.end(),
                    [](const OfflineToken& token) { return !token.stopword; });
    if (answer_content) answer_begin = first;
  }
  std::unordered_set<std::string_view> seen;
  for (std::size_t i = answer_begin; i < tokens_.size(); ++i) {
    const OfflineToken& token = tokens_[i];
    negated_ = negated_ || token.negation;
    if (token.stopword || !seen.insert(token.key).second) continue;
    content_.push_back(i);
    if (token.capitalized || rules.names != NameRule::kCapitalised) {
      if (is_name(text_, tokens_, rules, i)) names_.push_back(i);
    }
  }
  if (content_.empty() && !rules.english) {
    seen.clear();
    for (std::size_t i = answer_begin; i < tokens_.size(); ++i) {
      if (seen.insert(tokens_[i].key).second) content_.push_back(i);
    }
  }
  if (rules.names == NameRule::kLatinAndQuoted) {
    const std::size_t answer_offset = answer_begin > 0 ? tokens_[answer_begin].begin : 0;
    quotes_ = quoted_spans(std::string_view(text_).substr(answer_offset));
  }
  for (std::size_t i = 0; i < answer_begin; ++i) {
    if (!tokens_[i].stopword && seen.insert(tokens_[i].key).second) context_.push_back(i);
  }
}

VerdictCell judge_claim(const OfflineClaim& claim, const OfflinePremise& premise) {
  const bool english = offline_language_or_english(premise.language()).english;
  if (english ? copied_word_for_word(claim, premise) : stated_verbatim(claim, premise)) {
    return make_cell(Verdict::kEntailment, 1.0, "");
  }
  if (claim.content().empty()) {
    return make_cell(Verdict::kNeutral, kNoContentConfidence, "the claim has no content words");
  }
  if (auto cell = missing_number_or_name(claim, premise)) return *cell;
  VerdictCell cell;
  const Window window = best_window(claim, premise);
  if (check_coverage(claim, premise, window, &cell)) return cell;
  if (!english) {
    if (auto reason = clause_negation_mismatch(claim, premise, window)) {
      return make_cell(Verdict::kContradiction, kNegationConfidence, std::move(*reason));
    }
    return cell;
  }
  if (claim.negated() != window_negated(claim, premise, window)) {
    return make_cell(Verdict::kContradiction, kNegationConfidence,
                     claim.negated() ? "the claim is negated and the premise is not"
                                     : "the premise negates what the claim states");
  }
  return cell;
}

std::string claim_window(const OfflineClaim& claim, const OfflinePremise& premise) {
  const Window window = best_window(claim, premise);
  const std::vector<std::size_t>& starts = premise.sentence_starts();
  const std::string& text = premise.text();
  if (window.count == 0 || window.first >= starts.size()) return text;
  const std::size_t last = window.first + window.count;
  const std::size_t begin = window.first == 0 ? 0 : premise.tokens()[starts[window.first]].begin;
  std::size_t end = last < starts.size() ? premise.tokens()[starts[last]].begin : text.size();
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return text.substr(begin, end - begin);
}

VerdictCell judge_claim(std::string_view claim, std::string_view premise,
                        std::string_view language) {
  return judge_claim(OfflineClaim(claim, language), OfflinePremise(premise, language));
}

}  // namespace ragmeter
