// Signs in a verdict table reply that the model answered without reading the passages it
// judged (docs/design.md, "Long passages: replies checked for signs of an unread table",
// issue 39). The judge asks the claims they flag again in narrower calls
// (llm_verdict_fill.cc). Pure functions. Internal to src/judge/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ragmeter/claim_ledger.h"

namespace ragmeter {

// True when `reason` is `claim` said the other way round: it has more negations than the
// claim (offline_tokenize's: not, no, never, ...n't), it repeats at least 80% of the
// claim's content words (stemmed), and it adds at most one content word of its own besides
// words about the texts ("passage", "mention", "state", ...). "Myanmar's civil war did not
// begin in 1948." for "Myanmar's civil war began in 1948." A reason that says what the
// passage states instead ("the passage gives 7,000 unpublished books") adds its own words
// and is not one; neither is a reason about something else.
bool reason_negates_claim(std::string_view claim, std::string_view reason);

// True when `reason` gives no ground for rejecting `claim`: it has no content word ("",
// "None", "N/A"), or it repeats at least half of the claim's content words with no
// negation and no word of rejection ("contradicts", "instead", "but", "only", ...):
// "Adversarial word substitution creates slightly altered versions of the input." for
// "Ghorbani et al. (2019) used adversarial word substitution to create slightly altered
// versions of the input." The table's prompt asks for the reason "what no passage
// supports of claim m", empty when a passage supports it.
bool reason_affirms_claim(std::string_view claim, std::string_view reason);

// True when `reason` (English) says the passages lack the claim rather than gainsay it: it
// has a phrase of absence ("does not mention", "no information about", "not stated", ...;
// "n't" read as "not") and no word of contradiction ("contradicts", "instead", "rather",
// "whereas", "incorrect", ...). "The passage does not mention calculating the total return
// by adding ..." is one; "The passage does not mention 32 percent; it gives 36 percent
// instead" is not. The prompt calls a claim no passage speaks of Neutral, so a
// Contradiction with such a reason is a label the model's own reason disowns.
bool reason_says_absent(std::string_view reason);

// True when `quote` states `claim` in `language` (ISO 639-1; "" is English) by the offline
// judge's reading: every content word of the claim (offline_tokenize keys: stemmed,
// case-folded, NFKC outside English) is in the quote, the quote holds every number and
// name of the claim (missing_number_or_name), and one is negated exactly when the other
// is. Stricter than judge_claim's coverage on purpose: a claim with one fact changed
// ("the southern district" for the quote's "northern") is never stated. False in a
// language the offline judge has no rules for.
bool quote_states_claim(std::string_view claim, std::string_view quote,
                        std::string_view language = "");

// True when one sentence of `passage` (split_sentences) states `claim`
// (quote_states_claim): every content word, number and name of the claim in that one
// sentence, negated alike. A window of sentences is not enough: "Cia Berg was inducted
// into the Rock and Roll Hall of Fame" has all its words in two sentences about two people.
bool passage_states_claim(std::string_view claim, std::string_view passage,
                          std::string_view language = "");

// What a flagged claim showed.
enum class TableSign {
  kNegatedClaim,          // a Contradiction whose reason is the claim negated
  kCopiedContradiction,   // Contradiction against two or more passages, one reason for all
  kUnexplainedRejection,  // no Entailment anywhere, and a reason that affirms the claim
  kEvidenceElsewhere,     // Entailment for a passage its evidence is not in, while it is in
                          // another asked passage (judged by place, not text)
  kQuoteStatesClaim,      // not Entailment against the passage its own quote is from (every
                          // sentence of the quote found in it), and the quote states the
                          // claim (quote_states_claim)
  kAbsentContradiction,   // no Entailment anywhere, one Contradiction, and a reason saying
                          // the passages do not mention the claim (reason_says_absent)
};

// A short phrase for reasons: "its reason negated the claim", ...
std::string_view table_sign_name(TableSign sign);

struct SuspectClaim {
  std::size_t claim = 0;  // 0-based, in the call's numbering
  TableSign sign = TableSign::kNegatedClaim;
  // kQuoteStatesClaim: the passage (0-based, in the call's numbering) the quote is from,
  // the quote, and whether the passage's own sentences it was taken from (those sharing a
  // run of three words with it) state the claim too: quote_found lets a fifth of a quote's
  // runs differ, so a quote can be the claim copied with a word the passage does not have.
  // Only a claim they state is settled by its quote (settle_quoted_support).
  // kUnexplainedRejection: the same for its reason, when the reason states the claim and
  // every sentence of it is found in an asked passage not judged Entailment (the 1.5B model,
  // asked with one long passage, rejected a claim with the passage's sentence stating it
  // as the reason); passage_states false otherwise.
  std::size_t quoted_premise = 0;
  std::string quote;
  bool passage_states = false;
};

// The claims of one verdict table reply that show a sign, each at most once (the first
// sign in the order of TableSign), in claim order. `cells` is [claim][premise] as read
// from the reply, before any check in code; a cell's reason is its claim's "reason m";
// `evidence` the claims' quotes (read_table_evidence; nullopt: none given); `asked` the
// (claim, premise) cells of the call; `language` the texts' (quote_states_claim).
std::vector<SuspectClaim> suspect_claims(
    const std::vector<std::string>& claims, const std::vector<std::string>& premises,
    const std::vector<std::vector<VerdictCell>>& cells,
    const std::vector<std::optional<std::string>>& evidence,
    const std::vector<std::pair<std::size_t, std::size_t>>& asked, std::string_view language = "");

// The verdict of a claim asked alone against one passage (the narrowest call) whose
// reply still shows kQuoteStatesClaim: Entailment, its reason saying that the judge said
// `said` but quoted `quote` from the passage, which states the claim. Asked as narrowly as
// it can be, the model still gave that sentence as the claim's evidence; the quote is
// checked in code to be in the passage (quote_found) and to state the claim
// (quote_states_claim); only the model's label disagrees with its own evidence.
// A kUnexplainedRejection settled by its reason (SuspectClaim::passage_states) passes
// `quote_is_reason`: the reason the model gave for rejecting the claim is a sentence copied
// from the passage that states it.
VerdictCell settle_quoted_support(Verdict said, std::string_view quote, bool quote_is_reason = false);

// The reading a verdict table asks of the model: the number of claims times the estimated
// tokens of the premises it shows (every claim is looked for in every passage).
std::int64_t table_span(std::size_t claims, std::int64_t premise_tokens);

// Tables of at most this span are asked as they always were: no signs looked for. Above
// it, the local 1.5B model was seen to judge passages by their place.
inline constexpr std::int64_t kSmallTableSpan = 1536;

}  // namespace ragmeter
