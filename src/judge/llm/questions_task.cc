// answer_relevancy's generated questions as a judge task (judge_tasks.h): one request to a
// model, in the sample's language; without one, the response stands in for the questions.
#include "judge/llm/llm_requests.h"
#include "ragmeter/judge_tasks.h"
#include "ragmeter/offline_judge.h"
#include "ragmeter_prompts.inc"

namespace ragmeter {

using Json = nlohmann::json;

namespace {

// The reply's expected length in tokens (three short questions and a flag).
constexpr std::int64_t kQuestionsReplyTokens = 80;

std::vector<std::string> reply_questions(const Json& reply) { return read_llm_questions(reply).questions; }

// The offline judge asks no model: the response itself stands in for the generated question
// (so answer_relevancy becomes the similarity of question and response), and whether it is
// noncommittal comes from is_noncommittal.
StatusOr<Json> offline_questions_reply(const Sample& sample) {
  const std::string response = sample.response.value_or("");
  return Json{{"questions", {response}}, {std::string(kNoncommittalKey), is_noncommittal(response)}};
}

}  // namespace

JudgeTask questions_task(const Sample& sample) {
  const std::string flag(kNoncommittalKey);
  return JudgeTask{
      .kind = "questions",
      .prompt = std::string(prompts::k_questions),
      .schema = {{"type", "object"},
                 {"properties", {{"questions", string_array_schema()}, {flag, {{"type", "boolean"}}}}},
                 {"required", {"questions", flag}}},
      .schema_name = "questions",
      .sections = judge_section("RESPONSE", sample.response.value_or("")),
      .written = "the questions",
      .written_texts = reply_questions,
      .subject = "answer relevancy's questions",
      .completion_tokens = kQuestionsReplyTokens,
      .offline = offline_questions_reply,
  };
}

StatusOr<GeneratedQuestions> ask_questions(Judge& judge, const Sample& sample, CallLog* calls) {
  RAGMETER_ASSIGN_OR_RETURN(TaskReply reply, judge.ask(questions_task(sample), sample, calls));
  // Questions in another language than the sample's question are compared with it across
  // languages, which an embedder may score as unrelated: no number (docs/design.md).
  if (!reply.wrong_script.empty()) return invalid_argument(reply.wrong_script);
  GeneratedQuestions out = read_llm_questions(reply.reply);
  if (reply.offline) {
    out.method = "offline: no questions are generated; the response stands in for them";
    return out;
  }
  out.method = "llm " + reply.model + ": questions the response answers";
  // A check in code, as the verdicts have: a response that declines in so many words ("the
  // context does not say") is noncommittal whatever the model said; the 1.5B model called
  // such responses committal (docs/judges.md, prompts llm-v9).
  if (!out.noncommittal && is_noncommittal(sample.response.value_or(""))) {
    out.noncommittal = true;
    out.method += "; noncommittal by the decline phrases of the offline judge (the judge said no)";
  }
  return out;
}

}  // namespace ragmeter
