// Fitting the LLM judge's calls into its context window: splitting texts between
// sentences and verdict calls into pieces whose verdicts are merged. Internal to
// src/judge/ (docs/design.md, "Window splitting estimates tokens").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "judge/llm/call_book.h"
#include "judge/llm/judge_language.h"
#include "ragmeter/claim_ledger.h"
#include "ragmeter/llm.h"

namespace ragmeter {

// `text` in pieces of at most `max_tokens` (estimated), cut between sentences, and inside
// a sentence that is too long on its own, between words. Nothing is dropped.
std::vector<std::string> split_to_fit(std::string_view text, std::int64_t max_tokens);

// The reply reserve of a call in a window of `window` tokens: min(max_tokens, window / 4).
std::int64_t reply_reserve(int window, int max_tokens);

// True when a prompt with `bytes` of sample text and a task of `task_bytes` (after the
// shared system message) fits the window with the reply reserve; always when window <= 0.
bool fits_judge_window(std::size_t bytes, std::size_t task_bytes, int window, int max_tokens);

// One claim's verdict over the pieces of a premise: Entailment when a piece entails it,
// else Contradiction when one contradicts it, else Neutral when one judged it, else
// missing with the first reason.
void merge_piece_verdict(const VerdictCell& piece, VerdictCell* merged);

// How judge_within_window asks `claims` against `premise` within a window of `window`
// tokens: in one call (`fits`), in none (`no_room`: the window leaves no room), or each
// group of claims ([first, end) in `groups`) against each of `pieces` of the premise.
struct WindowCut {
  bool fits = true;
  bool no_room = false;
  std::vector<std::pair<std::size_t, std::size_t>> groups;
  std::vector<std::string> pieces;
};
WindowCut cut_for_window(const std::vector<std::string>& claims, const std::string& premise,
                         int window, int max_tokens, const JudgeLanguage& language = {});

// Verdicts for `claims` against `premise` (one verdicts call per premise: the ragas plan,
// and premises too long to share a table call). Repeated claim texts are asked once;
// claims the reply left out are asked again once, on their own; what is still missing
// after that stays missing, with a reason. Within a context window of `window` tokens
// (0: no limit), a call that would not fit is split: the premise into pieces, the claims
// into groups, each group judged against each piece, the verdicts merged per claim
// (merge_piece_verdict). Each call asks for its reasons in `language`; a call whose
// reasons are still in another script when asked again keeps its verdicts and adds the
// reason why to `warnings` (once; may be null).
std::vector<VerdictCell> judge_within_window(CallBook& book, llm::Client& client,
                                             const std::vector<std::string>& claims,
                                             const std::string& premise, int window,
                                             int max_tokens, CallLog* calls,
                                             const JudgeLanguage& language = {},
                                             std::vector<std::string>* warnings = nullptr);

// What the verdict calls write in the sample's language, for the LANGUAGE line.
inline constexpr std::string_view kReasonsWhat = "every reason";

// The ledger's warning for verdict reasons written in `script`, not in `language`.
std::string reasons_warning(const JudgeLanguage& language, Script script);

// Adds `warning` to `warnings` unless it is empty or there already.
void add_warning(std::vector<std::string>* warnings, const std::string& warning);

}  // namespace ragmeter
