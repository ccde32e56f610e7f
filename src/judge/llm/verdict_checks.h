// Checks in code of the model's verdicts in the compact plan's table (docs/design.md,
// "A small model's Entailment is checked"): the sentence the model quoted as evidence
// must be in a passage, and a claim's numbers and names must be in the premise it is
// said to follow from. These never grant support to a claim the judge found unsupported
// against every passage; the one that adds a cell (locate_entailment_by_evidence) moves
// the judge's Entailment to the passage its evidence was copied from.
// Internal to src/judge/.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/claim_ledger.h"
#include "ragmeter/offline_judge.h"

namespace ragmeter {

// The key of claim `claim`'s (0-based) evidence in a verdict table reply of `claims`
// claims: "Evidence 1", ... (numbered by padded_number: "Evidence 01" when there are 10
// or more). Capitalised so that it sorts before the "Pn: claim m" keys: llama.cpp's grammar
// follows the schema's property order, which nlohmann::json writes sorted, so the model
// writes every quote before any verdict.
std::string evidence_key(std::size_t claim, std::size_t claims);

// The "Evidence m" values of a verdict table reply, one per claim: nullopt where the key
// is absent or not a string (a reply without evidence keys: nothing to check).
std::vector<std::optional<std::string>> read_table_evidence(const nlohmann::json& reply,
                                                            std::size_t claims);

// True when `quote` was copied from `text`: it has a content word (not only stopwords
// such as "none"), and, comparing offline_tokenize keys (so case, punctuation and
// plurals do not matter), either it has fewer than 3 tokens and they occur in `text` in a
// row, or at least 80% of its runs of 3 tokens occur in `text` (a copy that drops a
// parenthesis or stops early still counts; a sentence the model wrote itself does not).
bool quote_found(std::string_view quote, std::string_view text);

// For each claim i whose evidence is given (read_table_evidence) but found in none of
// `premises` (quote_found), and that the judge said Entailment for against at least one
// of the premises it was asked about (`asked`: (claim, premise) cells of the call): an
// asked premise k one of whose sentences states claims[i] (passage_states_claim, in
// `language`, ISO 639-1, "" for English: every content word, number and name of the claim
// in that sentence, negated alike) gets cells[i][k] Entailment, its reason saying that the
// judge's quote was found nowhere and the passage's sentence states the claim (and what
// the judge had said there, if not Entailment); every other Entailment cell of the claim
// becomes Neutral with a reason quoting the evidence. The small model often gives the claim
// itself, reworded, as its evidence ("Factual Error Correction rewrites claims so that the
// retrieved evidence supports them better." for the passage's "... rewrites claims to
// ensure they are better supported by the retrieved evidence"): the quote cannot show
// where, and the code's stricter reading must agree with the judge (docs/design.md, "An
// unquoted Entailment stands where a sentence states the claim"). In a language the
// offline judge has no rules for, no sentence states a claim. Claims without evidence,
// and claims with no Entailment, are left as they are.
void check_quoted_evidence(const std::vector<std::optional<std::string>>& evidence,
                           const std::vector<std::string>& claims,
                           const std::vector<std::string>& premises,
                           const std::vector<std::pair<std::size_t, std::size_t>>& asked,
                           std::string_view language, std::vector<std::vector<VerdictCell>>* cells);

// For each claim i that the judge said Entailment for against at least one of the
// premises it was asked about (`asked`: (claim, premise) cells of the call) and whose
// evidence is found (quote_found) in asked premise k: cells[i][k] becomes Entailment when
// it was Neutral or Contradiction, its reason naming the passage the judge had said.
// A small model's per-passage verdicts follow the passages' order more than their text
// (Qwen2.5 1.5B answers "P1 Entailment, P2 Contradiction" whichever passage holds the
// answer), while the sentence it quotes is most often the right one (docs/design.md,
// "The evidence locates the Entailment"). The Entailments it said elsewhere stay, for
// vet_entailment to keep or take away; so does everything of a claim without evidence,
// or whose evidence is in no asked premise (check_quoted_evidence). `cells` is indexed
// [claim][premise]; labels[k] names premise k in reasons ("P2").
void locate_entailment_by_evidence(const std::vector<std::optional<std::string>>& evidence,
                                   const std::vector<std::string>& premises,
                                   const std::vector<std::pair<std::size_t, std::size_t>>& asked,
                                   const std::vector<std::string>& labels,
                                   std::vector<std::vector<VerdictCell>>* cells);

// `cell` when it is not an Entailment or when `premise` holds every number and name of
// `claim`; else the verdict missing_number_or_name gives, its reason saying that it
// overrides the judge's Entailment.
VerdictCell vet_entailment(VerdictCell cell, const OfflineClaim& claim,
                           const OfflinePremise& premise);

}  // namespace ragmeter
