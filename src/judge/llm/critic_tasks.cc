// Aspect critics and rubric scores as judge tasks (judge_tasks.h): one request each, a
// critic's ballots asked concurrently.
#include "core/concurrent_jobs.h"
#include "judge/llm/llm_requests.h"
#include "ragmeter/judge_tasks.h"
#include "ragmeter_prompts.inc"

namespace ragmeter {

using Json = nlohmann::json;

namespace {

// What a critic or rubric call writes in the sample's language.
constexpr std::string_view kReasonWhat = "the reason";

JudgeTask critic_task(const Sample& sample, std::string_view name, std::string_view definition,
                      int votes) {
  JudgeTask task;
  task.kind = "critic:" + std::string(name);
  task.prompt = std::string(prompts::k_critic);
  task.schema = {{"type", "object"},
                 {"properties", {{"reason", {{"type", "string"}}},
                                 {"verdict", {{"type", "integer"}, {"enum", {0, 1}}}}}},
                 {"required", {"reason", "verdict"}}};
  task.schema_name = "verdict";
  task.sections = judge_sample_sections(sample) + judge_section("CRITERION", definition);
  task.written = kReasonWhat;
  task.written_texts = reply_reason;
  task.votes = votes;
  task.subject = "the aspect critic '" + std::string(name) + "'";
  return task;
}

}  // namespace

StatusOr<CriticVerdict> ask_critic(Judge& judge, const Sample& sample, std::string_view name,
                                   std::string_view definition, int votes, CallLog* calls) {
  if (votes < 1 || votes % 2 == 0) return invalid_argument("critic votes must be odd and at least 1");
  const JudgeTask task = critic_task(sample, name, definition, votes);
  std::vector<CallLog> logs(static_cast<std::size_t>(votes));
  std::vector<StatusOr<TaskReply>> replies =
      run_concurrently(static_cast<std::size_t>(votes), [&](std::size_t i) {
        JudgeTask ballot = task;
        ballot.vote = static_cast<int>(i);
        return judge.ask(ballot, sample, &logs[i]);
      });
  CriticVerdict out;
  for (std::size_t i = 0; i < replies.size(); ++i) {
    StatusOr<TaskReply>& answer = replies[i];
    if (calls) calls->insert(calls->end(), logs[i].begin(), logs[i].end());
    if (!answer.ok()) return answer.status();
    Json json = std::move(answer->reply);
    const Json& verdict = json["verdict"];
    if (!verdict.is_number_integer() || (verdict.get<int>() != 0 && verdict.get<int>() != 1)) {
      return invalid_argument("the critic's reply has no verdict 0 or 1");
    }
    ++out.votes;
    if (verdict.get<int>() == 1) ++out.votes_for;
    if (out.reason.empty() && json["reason"].is_string()) out.reason = json["reason"];
    if (!answer->wrong_script.empty() && out.warning.empty()) {
      out.warning = answer->wrong_script + "; the verdict is kept";
    }
  }
  out.verdict = 2 * out.votes_for > out.votes;
  return out;
}

StatusOr<RubricScore> ask_rubric(Judge& judge, const Sample& sample,
                                 const std::map<std::string, std::string>& rubrics,
                                 CallLog* calls) {
  std::string rubric;
  for (const auto& [key, description] : rubrics) rubric += key + ": " + description + "\n";
  JudgeTask task;
  task.kind = "rubric";
  task.prompt = std::string(prompts::k_rubric);
  task.schema = {{"type", "object"},
                 {"properties", {{"reason", {{"type", "string"}}},
                                 {"score", {{"type", "integer"}, {"minimum", 1}, {"maximum", 5}}}}},
                 {"required", {"reason", "score"}}};
  task.schema_name = "score";
  task.sections = judge_sample_sections(sample) + judge_section("RUBRIC", rubric);
  task.written = kReasonWhat;
  task.written_texts = reply_reason;
  task.subject = "rubric scores";
  task.subject_plural = true;
  RAGMETER_ASSIGN_OR_RETURN(TaskReply answer, judge.ask(task, sample, calls));
  Json& reply = answer.reply;
  if (!reply["score"].is_number_integer()) return invalid_argument("the rubric reply has no score");
  RubricScore out;
  out.score = reply["score"].get<int>();
  if (reply["reason"].is_string()) out.reason = reply["reason"];
  if (!answer.wrong_script.empty()) out.warning = answer.wrong_script + "; the score is kept";
  return out;
}

}  // namespace ragmeter
