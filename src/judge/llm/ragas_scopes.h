// The ragas plan (--plan ragas, LlmJudgeOptions::ragas_plan) as data: for each ledger
// scope a metric row names (MetricInfo::ragas_scope), which statements ragas extracts and
// what it judges them against. The executor (llm_ragas_plan.cc) and the dry run's planner
// (llm_call_plan.cc) read the same rows, so a scope is added as one row. Internal to
// src/judge/ (docs/design.md, "The ragas plan as rows").
#pragma once

#include <span>
#include <string_view>

namespace ragmeter {

// What one side of a scope (the response, the reference) brings as claims.
enum class ScopeClaims {
  kNone,        // nothing
  kStatements,  // its statements, one claims call (as ragas's statement generator)
  kWholeText,   // the whole text as the one claim (ragas's context precision: no call)
};

struct RagasScope {
  std::string_view name;
  ScopeClaims response = ScopeClaims::kNone;
  ScopeClaims reference = ScopeClaims::kNone;
  // The verdict calls, made in this order, each for a side that has claims:
  bool response_vs_reference = false;  // the response's claims against the reference
  bool reference_vs_response = false;  // the reference's claims against the response
  bool vs_joined_contexts = false;     // each side's claims against every context joined
  bool vs_each_context = false;        // each side's claims against each context: a call per
                                       // context and side, asked together
};

// Every scope, in no particular order.
std::span<const RagasScope> ragas_scopes();

// The scope named `name`, or nullptr.
const RagasScope* find_ragas_scope(std::string_view name);

}  // namespace ragmeter
