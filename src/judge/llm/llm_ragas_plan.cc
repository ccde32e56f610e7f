// The ragas plan (LlmJudgeOptions::ragas_plan, llm_judge_impl.h): each metric its own
// calls, as ragas makes them.
#include <future>

#include "judge/llm/llm_judge_impl.h"
#include "judge/llm/llm_window.h"
#include "ragmeter/offline_judge.h"

namespace ragmeter {

// The metric table says which ledger each metric reads under ragas's plan; metrics without a
// scope read the shared (compact) ledger.
std::string LlmJudge::ledger_scope(std::string_view ragas_scope) const {
  return options_.ragas_plan ? std::string(ragas_scope) : std::string();
}

StatusOr<ClaimLedger> LlmJudge::scoped_claim_ledger(const Sample& sample, std::string_view scope,
                                                    CallLog* calls) {
  if (scope.empty()) return claim_ledger(sample, calls);
  const JudgeLanguage language = judge_language_of(sample);
  const std::string instruction = language_instruction(language, kReasonsWhat);
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
  auto verdicts = [&](const std::vector<std::string>& claims, const std::string& premise) {
    return judge_within_window(book_, client, claims, premise, window, max_tokens, calls, language,
                               &warnings);
  };
  // One statement-extraction call per text as ragas makes, unless stored: the compact
  // plan's claims for the same text (text_claims), except that a short answer is stated
  // too, where the compact plan takes the question and the answer (docs/design.md,
  // "Short answers").
  auto claims_of = [&](const std::string& text, bool) -> StatusOr<std::vector<std::string>> {
    if (text.empty()) return std::vector<std::string>{};
    RAGMETER_ASSIGN_OR_RETURN(std::vector<std::vector<std::string>> claims,
                              text_claims(question, {text}, calls, language));
    return std::move(claims.front());
  };
  ClaimLedger ledger;
  if (scope == "faithfulness" || scope == "context_recall") {
    // Statements, then one verdict call against every context joined.
    const bool of_response = scope == "faithfulness";
    RAGMETER_ASSIGN_OR_RETURN(std::vector<std::string> claims,
                              claims_of(of_response ? response : reference, of_response));
    std::vector<std::string> premise_list;
    if (!chunks.empty()) premise_list.push_back(joined);
    ledger = of_response ? make_claim_ledger(claims, {}, premise_list)
                         : make_claim_ledger({}, claims, premise_list);
    if (!claims.empty() && !chunks.empty()) {
      std::vector<VerdictCell> cells = verdicts(claims, joined);
      VerdictTable& table = of_response ? ledger.response_vs_chunks : ledger.reference_vs_chunks;
      for (std::size_t i = 0; i < cells.size(); ++i) table.at(i, 0) = std::move(cells[i]);
    }
  } else if (scope == "context_precision" || scope == "context_utilization") {
    // One usefulness verdict per chunk: the whole reference (or response) as the claim.
    const bool of_response = scope == "context_utilization";
    const std::string& text = of_response ? response : reference;
    std::vector<std::string> claim = {text};
    ledger = of_response ? make_claim_ledger(claim, {}, chunks) : make_claim_ledger({}, claim, chunks);
    VerdictTable& table = of_response ? ledger.response_vs_chunks : ledger.reference_vs_chunks;
    std::vector<std::future<std::vector<VerdictCell>>> per_chunk;
    std::vector<std::vector<std::string>> chunk_warnings(chunks.size());
    for (std::size_t k = 0; k < chunks.size(); ++k) {
      per_chunk.push_back(std::async(std::launch::async, [&, k] {
        CallLog ignored;
        return judge_within_window(book_, client, claim, chunks[k], window, max_tokens, &ignored,
                                   language, &chunk_warnings[k]);
      }));
    }
    for (std::size_t k = 0; k < per_chunk.size(); ++k) table.at(0, k) = per_chunk[k].get()[0];
    for (const auto& found : chunk_warnings) {
      for (const std::string& warning : found) add_warning(&warnings, warning);
    }
    if (calls) {
      for (const std::string& chunk : chunks) {
        calls->push_back(book_.key(llm_verdicts_request(claim, chunk, instruction)));
      }
    }
  } else if (scope == "noise_sensitivity" || scope == "factual_correctness") {
    RAGMETER_ASSIGN_OR_RETURN(std::vector<std::string> a, claims_of(response, true));
    RAGMETER_ASSIGN_OR_RETURN(std::vector<std::string> r, claims_of(reference, false));
    const bool noise = scope == "noise_sensitivity";
    ledger = make_claim_ledger(a, r, noise ? chunks : std::vector<std::string>{});
    if (!a.empty() && !reference.empty()) {
      ledger.response_vs_reference = verdicts(a, answer_premise(reference, question));
    }
    if (!noise && !r.empty() && !response.empty()) {
      ledger.reference_vs_response = verdicts(r, answer_premise(response, question));
    }
    // ragas's noise sensitivity: both statement lists against every chunk, 2K calls.
    for (std::size_t k = 0; noise && k < chunks.size(); ++k) {
      if (!a.empty()) {
        std::vector<VerdictCell> cells = verdicts(a, chunks[k]);
        for (std::size_t i = 0; i < cells.size(); ++i) ledger.response_vs_chunks.at(i, k) = cells[i];
      }
      if (!r.empty()) {
        std::vector<VerdictCell> cells = verdicts(r, chunks[k]);
        for (std::size_t i = 0; i < cells.size(); ++i) ledger.reference_vs_chunks.at(i, k) = cells[i];
      }
    }
  } else {
    return invalid_argument("unknown ledger scope '" + std::string(scope) + "'");
  }
  ledger.provenance = {"llm", options_.model, llm_prompt_version(language) + "+ragas-plan"};
  ledger.warnings = std::move(warnings);
  return ledger;
}

}  // namespace ragmeter
