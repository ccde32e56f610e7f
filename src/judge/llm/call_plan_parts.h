// The parts of the dry run's plan (llm_call_plan.cc) that the ragas plan's planner
// (ragas_call_plan.cc) shares. Internal to src/judge/.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "ragmeter/llm_judge.h"
#include "ragmeter/metric.h"

namespace ragmeter {

// The completion tokens planned for one verdict.
inline constexpr std::int64_t kTokensPerVerdict = 30;

// The tokens `bytes` of text are estimated at (4 bytes a token).
std::int64_t plan_tokens(std::size_t bytes);

// A single-turn sample's texts as the prompts carry them.
struct PlanTexts {
  std::string question;
  std::string response;
  std::string reference;
  const std::vector<std::string>& chunks;
  const std::vector<std::string>& reference_contexts;
};
PlanTexts plan_texts(const Sample& sample);

// The texts whose claims are known once asked (the judge's claim store keeps them), so a
// later claims call of the same sample does not ask them again.
using StatedTexts = std::set<std::string>;

// The compact claim ledger's calls: one claims call for the response and the reference
// not in `stated` (which then holds them), then the verdict tables.
void plan_ledger_calls(const PlanTexts& texts, int context_tokens, int max_tokens,
                       StatedTexts* stated, PlannedCalls* plan);

// --plan ragas: the ledger calls of `ledger_metrics` (those that read a claim ledger), in
// their order: each scope's calls once (ragas_scopes.h), the compact ledger's for a metric
// without one, a text's claims asked once.
void plan_ragas_ledgers(const PlanTexts& texts, const std::vector<const MetricInfo*>& ledger_metrics,
                        int context_tokens, int max_tokens, PlannedCalls* plan);

}  // namespace ragmeter
