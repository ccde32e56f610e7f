// The ragas plan's scopes (ragas_scopes.h): what ragas 0.4.3 asks for each metric.
#include "judge/llm/ragas_scopes.h"

namespace ragmeter {
namespace {

using C = ScopeClaims;

// clang-format off
constexpr RagasScope kScopes[] = {
  // name, response, reference, response vs reference, reference vs response, vs joined contexts, vs each context
  {"faithfulness",        C::kStatements, C::kNone,       false, false, true,  false},
  {"context_recall",      C::kNone,       C::kStatements, false, false, true,  false},
  {"context_precision",   C::kNone,       C::kWholeText,  false, false, false, true},
  {"context_utilization", C::kWholeText,  C::kNone,       false, false, false, true},
  {"noise_sensitivity",   C::kStatements, C::kStatements, true,  false, false, true},
  {"factual_correctness", C::kStatements, C::kStatements, true,  true,  false, false},
};
// clang-format on

}  // namespace

std::span<const RagasScope> ragas_scopes() { return kScopes; }

const RagasScope* find_ragas_scope(std::string_view name) {
  for (const RagasScope& scope : kScopes) {
    if (scope.name == name) return &scope;
  }
  return nullptr;
}

}  // namespace ragmeter
