// Signs of an unread table and the bound on table size (verdict_signs.h).
#include "judge/llm/verdict_signs.h"

#include <algorithm>
#include <set>

#include "judge/llm/verdict_checks.h"
#include "ragmeter/offline_judge.h"

namespace ragmeter {
namespace {

// A reason repeats the claim when it holds this share of the claim's content words ...
constexpr double kNegatedShare = 0.8;
constexpr double kAffirmedShare = 0.5;
// ... and a negated claim adds at most this many content words of its own.
constexpr std::size_t kOwnWords = 1;

std::set<std::string> keys_of(std::string_view words) {
  std::set<std::string> out;
  for (const OfflineToken& token : offline_tokenize(words)) out.insert(token.key);
  return out;
}

// Words a reason uses about the texts rather than about the claim's subject, as keys.
const std::set<std::string>& words_about_texts() {
  static const std::set<std::string> keys = keys_of(
      "passage passages premise context text document mention mentions state states "
      "stated say says claim claims support supports provide provides information "
      "specify specifies indicate indicates given any evidence");
  return keys;
}

// Words that reject without a negation.
const std::set<std::string>& words_of_rejection() {
  static const std::set<std::string> keys = keys_of(
      "contradict contradicts contradiction incompatible differ differs different "
      "instead however but whereas rather only false wrong incorrect unrelated "
      "irrelevant");
  return keys;
}

// Phrases by which a reason says a passage lacks a claim, after "n't" became " not" and
// the text was lower-cased.
constexpr std::string_view kAbsence[] = {
    "not mention", "no mention", "not provide", "no information",
    "not specify", "not specified", "not discuss", "not say", "not state",
    "not address", "not include", "not contain", "not refer", "not talk about",
    "nothing about", "silent on"};

// Words by which a reason says a passage gainsays a claim: a Contradiction's own grounds.
const std::set<std::string>& words_of_contradiction() {
  static const std::set<std::string> keys = keys_of(
      "contradict contradicts contradiction incompatible differ differs different instead "
      "rather whereas false wrong incorrect opposite");
  return keys;
}

struct Words {
  std::set<std::string> content;
  std::set<std::string> all;
  std::size_t negations = 0;
};

Words words_of(std::string_view text) {
  Words words;
  for (const OfflineToken& token : offline_tokenize(text)) {
    if (token.negation) ++words.negations;
    if (!token.stopword) words.content.insert(token.key);
    words.all.insert(token.key);
  }
  return words;
}

double share_repeated(const Words& claim, const Words& reason) {
  std::size_t repeated = 0;
  for (const std::string& key : claim.content) repeated += reason.content.contains(key) ? 1 : 0;
  return static_cast<double>(repeated) / static_cast<double>(claim.content.size());
}

// True when every sentence of `quote` that has a content word was copied from `passage`
// (quote_found, sentence by sentence): a quote that opens with the claim restated and goes
// on with the passage's own sentences passes quote_found as a whole, not this.
bool quoted_throughout(std::string_view quote, std::string_view passage) {
  bool any = false;
  for (std::string_view sentence : split_sentences(quote)) {
    if (words_of(sentence).content.empty()) continue;
    if (!quote_found(sentence, passage)) return false;
    any = true;
  }
  return any;
}

// Runs of three consecutive offline_tokenize keys of `text`, joined by spaces.
std::set<std::string> key_runs(std::string_view text, std::string_view language) {
  std::vector<std::string> keys;
  for (const OfflineToken& token : offline_tokenize(text, language)) keys.push_back(token.key);
  std::set<std::string> runs;
  for (std::size_t k = 0; k + 3 <= keys.size(); ++k) runs.insert(keys[k] + " " + keys[k + 1] + " " + keys[k + 2]);
  return runs;
}

// The sentences of `passage` that share a run of three words with `quote`, joined: the
// passage's own words where the quote was taken from (quote_found allows a fifth of the
// quote's runs to differ, so a quote can be the claim copied with a word the passage does
// not have).
std::string quoted_sentences(std::string_view quote, std::string_view passage,
                             std::string_view language) {
  const std::set<std::string> quoted = key_runs(quote, language);
  std::string out;
  for (std::string_view sentence : split_sentences(passage)) {
    for (const std::string& run : key_runs(sentence, language)) {
      if (!quoted.contains(run)) continue;
      out.append(sentence).append(" ");
      break;
    }
  }
  return out;
}

bool any_of_keys(const std::set<std::string>& keys, const std::set<std::string>& words) {
  for (const std::string& key : keys) {
    if (words.contains(key)) return true;
  }
  return false;
}

}  // namespace

bool reason_negates_claim(std::string_view claim, std::string_view reason) {
  const Words c = words_of(claim);
  const Words r = words_of(reason);
  if (c.content.empty() || r.negations <= c.negations) return false;
  std::size_t own = 0;
  for (const std::string& key : r.content) {
    if (!c.content.contains(key) && !words_about_texts().contains(key)) ++own;
  }
  return share_repeated(c, r) >= kNegatedShare && own <= kOwnWords;
}

bool reason_affirms_claim(std::string_view claim, std::string_view reason) {
  const Words c = words_of(claim);
  const Words r = words_of(reason);
  std::size_t own = 0;
  for (const std::string& key : r.content) own += words_about_texts().contains(key) ? 0 : 1;
  // "", "None" (a negation word, alone), or only words about the texts with no negation
  if (r.all.size() <= 1 || (own == 0 && r.negations == 0)) return true;
  if (c.content.empty() || r.negations > c.negations) return false;
  // A word of rejection the claim itself has ("rather than", "but") rejects nothing.
  for (const std::string& key : words_of_rejection()) {
    if (r.all.contains(key) && !c.all.contains(key)) return false;
  }
  return share_repeated(c, r) >= kAffirmedShare;
}

bool reason_says_absent(std::string_view reason) {
  std::string text;
  text.reserve(reason.size() + 8);
  for (std::size_t k = 0; k < reason.size(); ++k) {
    const char c = reason[k];
    if ((c == 'n' || c == 'N') && k + 2 < reason.size() && (reason[k + 1] == '\'') &&
        (reason[k + 2] == 't' || reason[k + 2] == 'T')) {
      text += " not";  // "doesn't" -> "does not"
      k += 2;
      continue;
    }
    text += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  }
  const bool absent = std::any_of(std::begin(kAbsence), std::end(kAbsence), [&](std::string_view phrase) {
    return text.find(phrase) != std::string::npos;
  });
  return absent && !any_of_keys(words_of_contradiction(), words_of(reason).all);
}

bool quote_states_claim(std::string_view claim, std::string_view quote, std::string_view language) {
  const std::string code = language.empty() ? "en" : std::string(language);
  if (!offline_judge_gap(code).empty()) return false;
  const OfflineClaim c(claim, code);
  const OfflinePremise q(quote, code);
  if (c.content().empty()) return false;
  std::set<std::string> quoted;
  bool quote_negated = false;
  for (const OfflineToken& token : q.tokens()) {
    quoted.insert(token.key);
    quote_negated = quote_negated || token.negation;
  }
  for (std::size_t k : c.content()) {
    if (!quoted.contains(c.tokens()[k].key)) return false;
  }
  return quote_negated == c.negated() && !missing_number_or_name(c, q).has_value();
}

bool passage_states_claim(std::string_view claim, std::string_view passage,
                          std::string_view language) {
  const std::vector<std::string_view> sentences = split_sentences(passage);
  return std::any_of(sentences.begin(), sentences.end(), [&](std::string_view sentence) {
    return quote_states_claim(claim, sentence, language);
  });
}

VerdictCell settle_quoted_support(Verdict said, std::string_view quote, bool quote_is_reason) {
  VerdictCell cell;
  cell.verdict = Verdict::kEntailment;
  cell.reason = "the judge said " + std::string(verdict_name(said)) +
                (quote_is_reason ? ", but its reason, copied from this passage, states the claim: \""
                                 : ", but the sentence it quoted from this passage states the claim: \"") +
                std::string(quote) + "\"";
  return cell;
}

std::string_view table_sign_name(TableSign sign) {
  switch (sign) {
    case TableSign::kNegatedClaim:
      return "its reason was the claim negated";
    case TableSign::kCopiedContradiction:
      return "one reason for contradictions in several passages";
    case TableSign::kAbsentContradiction:
      return "a Contradiction whose reason says the passages do not mention it";
    case TableSign::kUnexplainedRejection:
      return "no passage entailed it, yet its reason affirmed it";
    case TableSign::kEvidenceElsewhere:
      return "Entailment where its evidence was not, and its evidence in another passage";
    case TableSign::kQuoteStatesClaim:
      return "its quote from a passage states it, yet that passage did not entail it";
  }
  return "";
}

namespace {

// `suspect` with its reason taken as a quote: the first asked passage, not judged
// Entailment, that holds every sentence of `reason` (quoted_throughout), when the reason
// and that passage's sentences it was copied from both state the claim.
SuspectClaim reason_as_quote(SuspectClaim suspect, const std::string& claim,
                             const std::string& reason, const std::vector<std::string>& premises,
                             const std::vector<VerdictCell>& row,
                             const std::vector<std::pair<std::size_t, std::size_t>>& asked,
                             std::string_view language) {
  if (!quote_states_claim(claim, reason, language)) return suspect;
  for (const auto& [c, premise] : asked) {
    if (c != suspect.claim || premise >= row.size() || premise >= premises.size()) continue;
    if (!row[premise].judged() || !quoted_throughout(reason, premises[premise])) continue;
    suspect.quoted_premise = premise;
    suspect.quote = reason;
    suspect.passage_states = quote_states_claim(
        claim, quoted_sentences(reason, premises[premise], language.empty() ? "en" : language),
        language);
    return suspect;
  }
  return suspect;
}

}  // namespace

std::vector<SuspectClaim> suspect_claims(
    const std::vector<std::string>& claims, const std::vector<std::string>& premises,
    const std::vector<std::vector<VerdictCell>>& cells,
    const std::vector<std::optional<std::string>>& evidence,
    const std::vector<std::pair<std::size_t, std::size_t>>& asked, std::string_view language) {
  std::vector<SuspectClaim> out;
  for (std::size_t i = 0; i < claims.size() && i < cells.size(); ++i) {
    std::size_t contradicted = 0, judged = 0;
    bool negated = false, entailed = false, entailed_off_quote = false, quote_in_asked = false;
    std::string reason;
    std::optional<std::size_t> unentailed_quoted;  // a passage holding the quote, not Entailment
    const std::optional<std::string> quote = i < evidence.size() ? evidence[i] : std::nullopt;
    for (const auto& [claim, premise] : asked) {
      if (claim != i || premise >= cells[i].size() || premise >= premises.size()) continue;
      const VerdictCell& cell = cells[i][premise];
      const bool quoted = quote && quote_found(*quote, premises[premise]);
      quote_in_asked = quote_in_asked || quoted;
      if (!cell.judged()) continue;
      ++judged;
      if (quoted && cell.verdict != Verdict::kEntailment && !unentailed_quoted &&
          quoted_throughout(*quote, premises[premise])) {
        unentailed_quoted = premise;
      }
      if (cell.verdict == Verdict::kEntailment) {
        entailed = true;
        entailed_off_quote = entailed_off_quote || (quote && !quoted);
        continue;
      }
      reason = cell.reason;  // the claim's one reason, copied to each of its cells
      if (cell.verdict != Verdict::kContradiction) continue;
      ++contradicted;
      negated = negated || reason_negates_claim(claims[i], cell.reason);
    }
    if (negated) {
      out.push_back({i, TableSign::kNegatedClaim});
    } else if (contradicted >= 2) {
      out.push_back({i, TableSign::kCopiedContradiction});
    } else if (judged > 0 && !entailed && reason_affirms_claim(claims[i], reason)) {
      out.push_back(reason_as_quote({i, TableSign::kUnexplainedRejection}, claims[i], reason,
                                    premises, cells[i], asked, language));
    } else if (entailed_off_quote && quote_in_asked) {
      out.push_back({i, TableSign::kEvidenceElsewhere});
    } else if (!entailed && unentailed_quoted && quote_states_claim(claims[i], *quote, language)) {
      const bool passage_states = quote_states_claim(
          claims[i],
          quoted_sentences(*quote, premises[*unentailed_quoted], language.empty() ? "en" : language),
          language);
      out.push_back({i, TableSign::kQuoteStatesClaim, *unentailed_quoted, *quote, passage_states});
    } else if (contradicted == 1 && !entailed && reason_says_absent(reason)) {
      out.push_back({i, TableSign::kAbsentContradiction});
    }
  }
  return out;
}

std::int64_t table_span(std::size_t claims, std::int64_t premise_tokens) {
  return static_cast<std::int64_t>(claims) * premise_tokens;
}

}  // namespace ragmeter
