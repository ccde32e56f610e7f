// The dry run's plan of the ragas plan's ledgers (call_plan_parts.h): the calls the
// executor (llm_ragas_plan.cc) makes for the same scope row, claims estimated by the
// offline extractor.
#include <set>

#include "judge/llm/call_plan_parts.h"
#include "judge/llm/llm_window.h"
#include "judge/llm/ragas_scopes.h"
#include "ragmeter/offline_judge.h"
#include "ragmeter_prompts.inc"

namespace ragmeter {
namespace {

// One verdicts call of `claims` against `premise`.
void plan_verdicts_call(const std::vector<std::string>& claims, std::size_t premise_bytes,
                        PlannedCalls* plan) {
  std::size_t bytes = prompts::k_system.size() + prompts::k_verdicts.size() + premise_bytes;
  for (const std::string& claim : claims) bytes += claim.size() + 6;
  plan->calls["verdicts"] += 1;
  plan->prompt_tokens += plan_tokens(bytes);
  plan->completion_tokens += kTokensPerVerdict * static_cast<std::int64_t>(claims.size());
}

// The calls judge_within_window makes for `claims` against `premise` (llm_window.h).
void plan_window_calls(const std::vector<std::string>& claims, const std::string& premise,
                       int context_tokens, int max_tokens, PlannedCalls* plan) {
  const WindowCut cut = cut_for_window(claims, premise, context_tokens, max_tokens);
  if (cut.fits) return plan_verdicts_call(claims, premise.size(), plan);
  for (const auto& [start, end] : cut.groups) {
    const std::vector<std::string> group(claims.begin() + static_cast<std::ptrdiff_t>(start),
                                         claims.begin() + static_cast<std::ptrdiff_t>(end));
    for (const std::string& piece : cut.pieces) plan_verdicts_call(group, piece.size(), plan);
  }
}

// One scope's calls, side by side with LlmJudge::scoped_claim_ledger.
void plan_scope(const PlanTexts& texts, const RagasScope& row, int context_tokens, int max_tokens,
                StatedTexts* stated, PlannedCalls* plan) {
  auto claims_of = [&](ScopeClaims kind, const std::string& text) -> std::vector<std::string> {
    if (kind == ScopeClaims::kNone) return {};
    if (kind == ScopeClaims::kWholeText) return {text};
    if (text.empty()) return {};
    if (stated->insert(text).second) {  // one claims call per text, a short answer's too
      plan->calls["claims"] += 1;
      plan->prompt_tokens += plan_tokens(prompts::k_system.size() + prompts::k_claims.size() +
                                         texts.question.size() + text.size());
      plan->completion_tokens += plan_tokens(text.size());
    }
    return extract_claims(text, texts.question);
  };
  const std::vector<std::string> sides[] = {claims_of(row.response, texts.response),
                                            claims_of(row.reference, texts.reference)};
  auto window_calls = [&](const std::vector<std::string>& claims, const std::string& premise) {
    plan_window_calls(claims, premise, context_tokens, max_tokens, plan);
  };
  if (row.response_vs_reference && !sides[0].empty() && !texts.reference.empty()) {
    window_calls(sides[0], answer_premise(texts.reference, texts.question));
  }
  if (row.reference_vs_response && !sides[1].empty() && !texts.response.empty()) {
    window_calls(sides[1], answer_premise(texts.response, texts.question));
  }
  if (row.vs_joined_contexts && !texts.chunks.empty()) {
    std::string joined;
    for (const std::string& chunk : texts.chunks) joined += (joined.empty() ? "" : "\n\n") + chunk;
    for (const auto& claims : sides) {
      if (!claims.empty()) window_calls(claims, joined);
    }
  }
  for (std::size_t k = 0; row.vs_each_context && k < texts.chunks.size(); ++k) {
    for (const auto& claims : sides) {
      if (!claims.empty()) window_calls(claims, texts.chunks[k]);
    }
  }
}

}  // namespace

void plan_ragas_ledgers(const PlanTexts& texts, const std::vector<const MetricInfo*>& ledger_metrics,
                        int context_tokens, int max_tokens, PlannedCalls* plan) {
  StatedTexts stated;
  std::set<std::string_view> planned;  // scopes; "" is the compact ledger
  for (const MetricInfo* info : ledger_metrics) {
    if (!planned.insert(info->ragas_scope).second) continue;
    if (info->ragas_scope.empty()) {
      plan_ledger_calls(texts, context_tokens, max_tokens, &stated, plan);
    } else if (const RagasScope* row = find_ragas_scope(info->ragas_scope)) {
      plan_scope(texts, *row, context_tokens, max_tokens, &stated, plan);
    }
  }
}

}  // namespace ragmeter
