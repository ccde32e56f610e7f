// Context relevance and summary key facts of the LLM judge (llm_judge_impl.h): one
// request each.
#include <algorithm>
#include <future>

#include "judge/llm/llm_judge_impl.h"
#include "judge/llm/llm_requests.h"
#include "judge/llm/llm_window.h"
#include "ragmeter/offline_judge.h"
#include "ragmeter_prompts.inc"

namespace ragmeter {

using Json = nlohmann::json;

StatusOr<RelevantSentences> LlmJudge::relevant_sentences(const Sample& sample, CallLog* calls) {
  RelevantSentences out;
  std::vector<std::string> sentences;
  std::string contexts;
  if (sample.retrieved_contexts) {
    for (const std::string& context : *sample.retrieved_contexts) {
      for (std::string_view sentence : split_sentences(context)) sentences.emplace_back(sentence);
      contexts += context + "\n";
    }
  }
  out.total = sentences.size();
  if (sentences.empty()) return out;
  Json schema = {{"type", "object"},
                 {"properties", {{"sentences", string_array_schema()}}},
                 {"required", {"sentences"}}};
  RAGMETER_ASSIGN_OR_RETURN(
      Json reply,
      book_.chat(*options_.chat,
                 make_judge_request(judge_section("QUESTION", sample.user_input.value_or("")) +
                                  judge_section("CONTEXTS", contexts),
                              prompts::k_relevant_sentences, std::move(schema), "sentences",
                              options_.max_tokens),
                 "relevant_sentences", calls));
  // Only real sentences of the contexts count, each once: a copied text matches the
  // first untaken sentence that contains it or that it contains (normalised), so a
  // sentence the model copied only in part (or with its neighbour) still counts.
  std::vector<std::string> normal;
  for (const std::string& sentence : sentences) normal.push_back(normalize_content_text(sentence));
  std::vector<bool> taken(sentences.size(), false);
  for (const std::string& copied : json_strings(reply["sentences"])) {
    const std::string key = normalize_content_text(copied);
    for (std::size_t i = 0; i < sentences.size(); ++i) {
      if (!taken[i] && !key.empty() &&
          (normal[i].find(key) != std::string::npos || key.find(normal[i]) != std::string::npos)) {
        taken[i] = true;
        out.relevant.push_back(sentences[i]);
        break;
      }
    }
  }
  return out;
}

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
