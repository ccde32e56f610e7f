// Lexical entailment for the offline judge: premises and claims analysed into tokens, and
// the verdict rules documented in include/ragmeter/offline_judge.h.
#include <algorithm>
#include <string>
#include <unordered_set>

#include "ragmeter/offline_judge.h"

namespace ragmeter {
namespace {

// ---- Thresholds (defaults chosen by hand; to be tuned on a held-out split) -----------

// Share of the claim's content keys the best premise window must contain for Entailment.
constexpr double kEntailmentCoverage = 0.75;
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

// Rule 3: names.
bool check_names(const OfflineClaim& claim, const OfflinePremise& premise, VerdictCell* cell) {
  std::vector<std::string_view> missing;
  for (std::size_t index : claim.names()) {
    const OfflineToken& token = claim.tokens()[index];
    if (!premise_has(premise, token.key)) missing.push_back(surface(claim.text(), token));
  }
  if (missing.empty()) return false;
  *cell = make_cell(Verdict::kNeutral, kMissingNameConfidence,
                    "name not found in the premise: " + join_quoted(missing));
  return true;
}

// The premise window (first sentence, sentence count) with the most claim keys, and
// that count. Ties go to the earliest window.
struct Window {
  std::size_t first = 0;
  std::size_t count = 0;
  std::size_t found = 0;
};

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
  for (std::size_t index : claim.content()) {
    std::size_t next = 0;  // first window this key has not been counted in yet
    for (std::uint32_t s : premise.sentences_with(claim.tokens()[index].key)) {
      const std::size_t lo = s + 1 >= kWindowSentences ? s + 1 - kWindowSentences : 0;
      for (std::size_t w = std::max(lo, next); w <= s && w < found.size(); ++w) {
        ++found[w];
        next = w + 1;
      }
    }
  }
  const auto best = std::max_element(found.begin(), found.end());
  return {static_cast<std::size_t>(best - found.begin()), kWindowSentences, *best};
}

// Rule 4: coverage; the words not found in the window are named.
bool check_coverage(const OfflineClaim& claim, const OfflinePremise& premise, const Window& window,
                    VerdictCell* cell) {
  const double coverage =
      static_cast<double>(window.found) / static_cast<double>(claim.content().size());
  if (coverage >= kEntailmentCoverage) {
    const double margin = (coverage - kEntailmentCoverage) / (1.0 - kEntailmentCoverage);
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
  const double margin = (kEntailmentCoverage - coverage) / kEntailmentCoverage;
  *cell = make_cell(Verdict::kNeutral, 0.5 + 0.5 * margin,
                    "words not found in the premise: " + join_quoted(missing));
  return true;
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

}  // namespace

OfflinePremise::OfflinePremise(std::string_view text) : text_(text) {
  for (std::string_view sentence : split_sentences(text_)) {
    const auto offset = static_cast<std::size_t>(sentence.data() - text_.data());
    std::vector<OfflineToken> tokens = offline_tokenize(sentence);
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

OfflineClaim::OfflineClaim(std::string_view text) : text_(text), tokens_(offline_tokenize(text_)) {
  std::unordered_set<std::string_view> seen;
  for (std::size_t i = 0; i < tokens_.size(); ++i) {
    const OfflineToken& token = tokens_[i];
    negated_ = negated_ || token.negation;
    if (token.stopword || !seen.insert(token.key).second) continue;
    content_.push_back(i);
    if (!token.capitalized || token.number != NumberKind::kNone) continue;
    const std::string_view word = surface(text_, token);
    const bool all_caps = word.size() >= 2 && std::all_of(word.begin(), word.end(), [](char c) {
                            return !(c >= 'a' && c <= 'z');
                          });
    const bool next_capitalized = i + 1 < tokens_.size() && tokens_[i + 1].capitalized;
    if (i > 0 || all_caps || next_capitalized) names_.push_back(i);
  }
}

VerdictCell judge_claim(const OfflineClaim& claim, const OfflinePremise& premise) {
  if (claim.content().empty()) {
    return make_cell(Verdict::kNeutral, kNoContentConfidence, "the claim has no content words");
  }
  VerdictCell cell;
  if (check_numbers(claim, premise, &cell)) return cell;
  if (check_names(claim, premise, &cell)) return cell;
  const Window window = best_window(claim, premise);
  if (check_coverage(claim, premise, window, &cell)) return cell;
  if (claim.negated() != window_negated(claim, premise, window)) {
    return make_cell(Verdict::kContradiction, kNegationConfidence,
                     claim.negated() ? "the claim is negated and the premise is not"
                                     : "the premise negates what the claim states");
  }
  return cell;
}

VerdictCell judge_claim(std::string_view claim, std::string_view premise) {
  return judge_claim(OfflineClaim(claim), OfflinePremise(premise));
}

}  // namespace ragmeter
