// Aspect critics, rubric scores, context relevance and summary key facts of the LLM
// judge (llm_judge_impl.h): one request each (critics: one per vote).
#include <algorithm>
#include <future>

#include "judge/llm/llm_judge_impl.h"
#include "judge/llm/llm_requests.h"
#include "judge/llm/llm_window.h"
#include "ragmeter/offline_judge.h"
#include "ragmeter_prompts.inc"

namespace ragmeter {

using Json = nlohmann::json;

namespace {

// What a critic or rubric call writes in the sample's language.
constexpr std::string_view kReasonWhat = "the reason";

// The reason of a critic's or rubric's reply (what the language check reads).
std::vector<std::string> reply_reason(const Json& reply) {
  if (reply.is_object() && reply.contains("reason") && reply["reason"].is_string()) {
    return {reply["reason"].get<std::string>()};
  }
  return {};
}

}  // namespace

StatusOr<CriticVerdict> LlmJudge::critique(const Sample& sample, std::string_view name,
                                           std::string_view definition, int votes,
                                           CallLog* calls) {
  const JudgeLanguage language = judge_language_of(sample);
  Json schema = {{"type", "object"},
                 {"properties", {{"reason", {{"type", "string"}}},
                                 {"verdict", {{"type", "integer"}, {"enum", {0, 1}}}}}},
                 {"required", {"reason", "verdict"}}};
  const std::string sections = judge_sample_sections(sample) + judge_section("CRITERION", definition);
  // One judgement at temperature 0 (a repeat's: at its temperature and seed); several are
  // independent samples at 0.7, each its own seed (so each is its own cache entry), asked
  // concurrently; the majority wins. Repeat r's ballots take the seeds after repeat r - 1's,
  // so no two repeats share a ballot, and repeat 1's are an unrepeated run's.
  const int first_seed = std::max(0, book_.draw().repeat - 1) * votes + 1;
  auto ballot = [&](int i, const std::string& line) {
    llm::ChatRequest request = make_judge_request(sections, prompts::k_critic, schema, "verdict",
                                                  options_.max_tokens, {}, line);
    if (votes > 1) {
      request.temperature = 0.7;
      request.seed = first_seed + i;
    }
    return request;
  };
  const std::string kind = "critic:" + std::string(name);
  std::vector<CallLog> logs(static_cast<std::size_t>(votes));
  std::vector<std::future<LanguageReply>> replies;
  for (int i = 0; i < votes; ++i) {
    replies.push_back(std::async(std::launch::async, [&, i] {
      return chat_in_language(
          book_, *options_.chat, language, kReasonWhat,
          [&](const std::string& line) { return ballot(i, line); }, reply_reason, kind, &logs[i]);
    }));
  }
  CriticVerdict out;
  for (std::size_t i = 0; i < replies.size(); ++i) {
    LanguageReply answer = replies[i].get();
    if (calls) calls->insert(calls->end(), logs[i].begin(), logs[i].end());
    if (!answer.reply.ok()) return answer.reply.status();
    Json json = std::move(*answer.reply);
    const Json& verdict = json["verdict"];
    if (!verdict.is_number_integer() || (verdict.get<int>() != 0 && verdict.get<int>() != 1)) {
      return invalid_argument("the critic's reply has no verdict 0 or 1");
    }
    ++out.votes;
    if (verdict.get<int>() == 1) ++out.votes_for;
    if (out.reason.empty() && json["reason"].is_string()) out.reason = json["reason"];
    if (answer.wrong && out.warning.empty()) {
      out.warning = wrong_script_message(language, kReasonWhat, *answer.wrong) + "; the verdict is kept";
    }
  }
  out.verdict = 2 * out.votes_for > out.votes;
  return out;
}

StatusOr<RubricScore> LlmJudge::rubric_score(const Sample& sample,
                                             const std::map<std::string, std::string>& rubrics,
                                             CallLog* calls) {
  const JudgeLanguage language = judge_language_of(sample);
  std::string rubric;
  for (const auto& [key, description] : rubrics) rubric += key + ": " + description + "\n";
  Json schema = {{"type", "object"},
                 {"properties", {{"reason", {{"type", "string"}}},
                                 {"score", {{"type", "integer"}, {"minimum", 1}, {"maximum", 5}}}}},
                 {"required", {"reason", "score"}}};
  const std::string sections = judge_sample_sections(sample) + judge_section("RUBRIC", rubric);
  LanguageReply answer = chat_in_language(
      book_, *options_.chat, language, kReasonWhat,
      [&](const std::string& line) {
        return make_judge_request(sections, prompts::k_rubric, schema, "score", options_.max_tokens,
                                  {}, line);
      },
      reply_reason, "rubric", calls);
  RAGMETER_ASSIGN_OR_RETURN(Json reply, std::move(answer.reply));
  if (!reply["score"].is_number_integer()) return invalid_argument("the rubric reply has no score");
  RubricScore out;
  out.score = reply["score"].get<int>();
  if (reply["reason"].is_string()) out.reason = reply["reason"];
  if (answer.wrong) {
    out.warning = wrong_script_message(language, kReasonWhat, *answer.wrong) + "; the score is kept";
  }
  return out;
}

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
