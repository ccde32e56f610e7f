// summary_score's key facts with the LLM judge (llm_judge_impl.h): the text's claims, then
// one verdict table of them against the summary.
#include "judge/llm/llm_judge_impl.h"
#include "judge/llm/llm_requests.h"
#include "judge/llm/llm_window.h"

namespace ragmeter {

using Json = nlohmann::json;

StatusOr<KeyFactCoverage> LlmJudge::key_fact_coverage(std::string_view text,
                                                      std::string_view summary, CallLog* calls) {
  KeyFactCoverage out;
  // The judge interface gives the texts, not the sample: the facts are written in the
  // text's own language. The verdicts' reasons are not shown (only whether each fact is
  // covered), so their call asks for none.
  const JudgeLanguage language = judge_language_of_text(text);
  RAGMETER_ASSIGN_OR_RETURN(std::vector<std::vector<std::string>> claims,
                            text_claims("", {std::string(text)}, calls, language));
  out.facts = std::move(claims.front());
  if (out.facts.empty()) return out;
  std::vector<VerdictCell> cells =
      judge_within_window(book_, *options_.chat, out.facts, std::string(summary),
                          options_.context_tokens, options_.max_tokens, calls);
  for (const VerdictCell& cell : cells) out.covered.push_back(cell.supports());
  return out;
}

}  // namespace ragmeter
