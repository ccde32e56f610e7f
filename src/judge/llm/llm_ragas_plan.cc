// The ragas plan (LlmJudgeOptions::ragas_plan, llm_judge_impl.h): each metric its own
// calls, as ragas makes them, read from the scope's row (ragas_scopes.h).
#include "core/concurrent_jobs.h"
#include "judge/llm/llm_judge_impl.h"
#include "judge/llm/llm_window.h"
#include "judge/llm/ragas_scopes.h"
#include "ragmeter/offline_judge.h"

namespace ragmeter {

// The metric table says which ledger each metric reads under ragas's plan; metrics without a
// scope read the shared (compact) ledger.
std::string LlmJudge::ledger_scope(std::string_view ragas_scope) const {
  return options_.ragas_plan ? std::string(ragas_scope) : std::string();
}

namespace {

// One side of a scope: its claims and the ledger tables they fill.
struct ScopeSide {
  const std::vector<std::string>& claims;
  VerdictTable* vs_chunks = nullptr;
  std::vector<VerdictCell>* vs_other = nullptr;  // against the other text
};

}  // namespace

StatusOr<ClaimLedger> LlmJudge::scoped_claim_ledger(const Sample& sample, std::string_view scope,
                                                    CallLog* calls) {
  if (scope.empty()) return claim_ledger(sample, calls);
  const RagasScope* row = find_ragas_scope(scope);
  if (row == nullptr) return invalid_argument("unknown ledger scope '" + std::string(scope) + "'");
  const JudgeLanguage language = judge_language_of(sample);
  std::vector<std::string> warnings;
  const std::string question = sample.user_input.value_or("");
  const std::string response = sample.response.value_or("");
  const std::string reference(sample.reference().value_or(""));
  static const std::vector<std::string> kNone;
  const auto& chunks = sample.retrieved_contexts ? *sample.retrieved_contexts : kNone;
  std::string joined;
  for (const std::string& chunk : chunks) joined += (joined.empty() ? "" : "\n\n") + chunk;
  llm::Client& client = *options_.chat;
  const int window = options_.context_tokens;
  const int max_tokens = options_.max_tokens;
  auto verdicts = [&](const std::vector<std::string>& claims, const std::string& premise,
                      CallLog* log, std::vector<std::string>* found) {
    return judge_within_window(book_, client, claims, premise, window, max_tokens, log, language,
                               found);
  };
  // One statement-extraction call per text as ragas makes, unless stored: the compact
  // plan's claims for the same text (text_claims), except that a short answer is stated
  // too, where the compact plan takes the question and the answer (docs/design.md,
  // "Short answers").
  auto claims_of = [&](ScopeClaims kind, const std::string& text) -> StatusOr<std::vector<std::string>> {
    if (kind == ScopeClaims::kNone) return std::vector<std::string>{};
    if (kind == ScopeClaims::kWholeText) return std::vector<std::string>{text};
    if (text.empty()) return std::vector<std::string>{};
    RAGMETER_ASSIGN_OR_RETURN(std::vector<std::vector<std::string>> claims,
                              text_claims(question, {text}, calls, language));
    return std::move(claims.front());
  };
  RAGMETER_ASSIGN_OR_RETURN(std::vector<std::string> a, claims_of(row->response, response));
  RAGMETER_ASSIGN_OR_RETURN(std::vector<std::string> r, claims_of(row->reference, reference));
  std::vector<std::string> premises;
  if (row->vs_each_context) premises = chunks;
  if (row->vs_joined_contexts && !chunks.empty()) premises.push_back(joined);
  ClaimLedger ledger = make_claim_ledger(a, r, premises);
  ScopeSide sides[] = {{a, &ledger.response_vs_chunks, &ledger.response_vs_reference},
                       {r, &ledger.reference_vs_chunks, &ledger.reference_vs_response}};
  if (row->response_vs_reference && !a.empty() && !reference.empty()) {
    *sides[0].vs_other = verdicts(a, answer_premise(reference, question), calls, &warnings);
  }
  if (row->reference_vs_response && !r.empty() && !response.empty()) {
    *sides[1].vs_other = verdicts(r, answer_premise(response, question), calls, &warnings);
  }
  for (ScopeSide& side : sides) {
    if (!row->vs_joined_contexts || side.claims.empty() || chunks.empty()) continue;
    std::vector<VerdictCell> cells = verdicts(side.claims, joined, calls, &warnings);
    for (std::size_t i = 0; i < cells.size(); ++i) side.vs_chunks->at(i, 0) = std::move(cells[i]);
  }
  if (row->vs_each_context) {
    // Every (context, side) call at once, as ragas asks them; calls and warnings kept in
    // context order.
    struct Asked {
      ScopeSide* side;
      std::size_t chunk;
      CallLog calls;
      std::vector<std::string> warnings;
    };
    std::vector<Asked> asked;
    asked.reserve(chunks.size() * 2);
    for (std::size_t k = 0; k < chunks.size(); ++k) {
      for (ScopeSide& side : sides) {
        if (!side.claims.empty()) asked.push_back(Asked{&side, k, {}, {}});
      }
    }
    std::vector<std::vector<VerdictCell>> replies = run_concurrently(asked.size(), [&](std::size_t a) {
      Asked& one = asked[a];
      return verdicts(one.side->claims, chunks[one.chunk], &one.calls, &one.warnings);
    });
    for (std::size_t a = 0; a < asked.size(); ++a) {
      Asked& one = asked[a];
      std::vector<VerdictCell>& cells = replies[a];
      for (std::size_t i = 0; i < cells.size(); ++i) one.side->vs_chunks->at(i, one.chunk) = std::move(cells[i]);
      if (calls) calls->insert(calls->end(), one.calls.begin(), one.calls.end());
      for (const std::string& warning : one.warnings) add_warning(&warnings, warning);
    }
  }
  ledger.provenance = {"llm", options_.model, llm_prompt_version(language) + "+ragas-plan"};
  ledger.warnings = std::move(warnings);
  return ledger;
}

}  // namespace ragmeter
