// The LLM judge's claim extraction: sentence by sentence, each sentence's claims stored by
// its text and context (claim_store.h), so a text's claims are a function of the text.
// Internal to src/judge/.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/row_turns.h"
#include "judge/llm/call_book.h"
#include "judge/llm/claim_store.h"
#include "judge/llm/judge_language.h"
#include "ragmeter/llm.h"

namespace ragmeter {

// What an extraction needs of the judge.
struct ClaimsCallOptions {
  CallBook* book = nullptr;
  llm::Client* client = nullptr;
  ClaimStore* store = nullptr;
  int context_tokens = 0;  // LlmJudgeOptions::context_tokens
  int max_tokens = 2048;
  // The language the claims are written in (judge_language.h): the claims call carries
  // its LANGUAGE line, and its store keys the line too.
  JudgeLanguage language;
  // Which earlier rows of the run this row waits behind before choosing its sentences
  // (core/row_turns.h); null: all of them.
  MayShare may_share = nullptr;
};

// The claims of each of `texts` (index for index), read as answers to `question`.
// Each text is cut into sentences (split_sentences, offline_judge.h); a sentence's claims
// are keyed by the question, the text before it and the sentence (ClaimStore::key), so
// identical texts, and identical sentences after identical openings, get the same claims
// without a second extraction. The sentences not stored (nor being extracted by another
// thread, whose result is awaited) are asked in one claims call holding every distinct
// text, with each sentence labelled "S1", "S2", ...; when the texts do not fit the window
// together, each text is read alone, in pieces between sentences if need be (a sentence's
// context is then its piece), one call per piece. A reply without a sentence's key gives
// that sentence itself as its one claim (not stored). The claims of each sentence pass
// standalone_claims, and, when read for a text, claims_keep_facts (else the sentence is
// its one claim). In a language other than English, a reply whose claims are mostly
// in another script is asked again once, told so (chat_in_language); still so, the
// extraction fails with that reason (nothing is stored), since claims in another language
// than their text are not its claims. A short answer (answer_premise, offline_judge.h: "American") the
// judge gives no claim for, and that is not noncommittal, has the question and the answer
// as its claim. Repeated claims within a text are kept once. An empty text has no claims.
// Fails when a needed call fails (nothing is stored for its sentences) or when the window
// leaves no room for a text.
StatusOr<std::vector<std::vector<std::string>>> extract_text_claims(
    const ClaimsCallOptions& options, std::string_view question,
    const std::vector<std::string>& texts, CallLog* calls);

// The post-check that makes claims stand alone: a claim that is a fragment by the
// offline short-answer rule (at most 5 words and no verb-like word: "Theodore Scott",
// "Illinois") is replaced by the sentence it was taken from (with the question before
// it when that sentence is itself such a fragment: answer_premise); claims with no letter
// or digit are dropped; each claim is kept once, in order.
// And the checks that claims come from their sentence and that no sentence is lost: a
// claim fewer than half of whose content words (offline_tokenize's non-stopword keys:
// stemmed, case folded) occur in the sentence, the question or among the names
// (capitalised words) of `before` (its text's preceding sentences) is dropped, and so is a
// claim with a capitalised word after its first that occurs in none of them; a sentence left
// with no claim that has two content words or more and is not noncommittal
// (is_noncommittal) stands as its own one claim (answer_premise). A small model was seen
// to answer a prompt's worked example ("PharmaCann was founded in 2014.") for sentences
// about the Nile, and to put a passage's claims under its first sentence's key with empty
// lists for the others.
std::vector<std::string> standalone_claims(const std::vector<std::string>& claims,
                                           std::string_view sentence, std::string_view question,
                                           std::string_view before);

// Whether the claims of `sentence` keep its facts: each number, name and quoted span the
// offline judge's rules of `language` find in the sentence (missing_number_or_name, with
// the sentence as the claim and the claims together as the premise) is in one of them.
// True when `claims` is empty (a sentence that states nothing) and for a language the
// offline judge has no rules for (offline_judge_gap). extract_text_claims reads a sentence
// whose claims do not keep its facts as its own one claim: a small model was seen to write
// "OpenSR uses ASR for lip-reading accuracy improvements" for a sentence whose point was
// "by 2.1% to 3.6%", and "the paper \"Learning from the Master\"", which no verdict on that
// claim could then find wrong (docs/design.md, "Claims keep the sentence's facts").
bool claims_keep_facts(const std::vector<std::string>& claims, std::string_view sentence,
                       std::string_view language);

}  // namespace ragmeter
