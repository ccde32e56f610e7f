// DeepEval's task completion as a judge task (judge_tasks.h): one "task_completion" call
// shows the numbered conversation (and the row's task when given) and reads the task,
// the outcome and a verdict in [0, 1]. DeepEval asks two calls: the task and outcome, then
// the verdict on them (docs/agents.md).
#include <charconv>
#include <cmath>

#include "judge/llm/llm_requests.h"
#include "ragmeter/judge_tasks.h"
#include "ragmeter_prompts.inc"

namespace ragmeter {

using Json = nlohmann::json;

namespace {

// What the call writes in the sample's language.
constexpr std::string_view kTaskCompletionWhat = "the task, the outcome and the reason";

std::string string_member(const Json& reply, const char* key) {
  const auto it = reply.find(key);
  return it != reply.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::vector<std::string> task_completion_texts(const Json& reply) {
  std::vector<std::string> out;
  if (!reply.is_object()) return out;
  for (const char* key : {"task", "outcome", "reason"}) {
    if (std::string text = string_member(reply, key); !text.empty()) out.push_back(std::move(text));
  }
  return out;
}

Json task_completion_schema() {
  const Json text = {{"type", "string"}};
  // A string verdict is allowed: DeepEval reads "0.8" as 0.8 (read_task_completion_reply).
  // No bounds: a verdict outside [0, 1] fails with the value named, it is not repaired.
  return {{"type", "object"},
          {"properties",
           {{"task", text},
            {"outcome", text},
            {"verdict", {{"type", Json::array({"number", "string"})}}},
            {"reason", text}}},
          {"required", {"task", "outcome", "verdict", "reason"}}};
}

bool is_ascii_digit(char c) { return c >= '0' && c <= '9'; }

// Python's float() of a string, as pydantic's lax float reads one: surrounding white space,
// one sign, and underscores only between two digits; nullopt for anything else.
std::optional<double> python_float(std::string_view text) {
  const std::size_t begin = text.find_first_not_of(" \t\n\r\f\v");
  if (begin == std::string_view::npos) return std::nullopt;
  text = text.substr(begin, text.find_last_not_of(" \t\n\r\f\v") + 1 - begin);
  std::string digits;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '_') {
      digits.push_back(text[i]);
    } else if (i == 0 || i + 1 == text.size() || !is_ascii_digit(text[i - 1]) ||
               !is_ascii_digit(text[i + 1])) {
      return std::nullopt;
    }
  }
  // from_chars takes no '+'; a second sign ("+-1") is refused.
  std::string_view rest = digits;
  if (rest.starts_with('+')) {
    rest.remove_prefix(1);
    if (rest.starts_with('-')) return std::nullopt;
  }
  double value = 0.0;
  const auto [end, error] = std::from_chars(rest.data(), rest.data() + rest.size(), value);
  if (error != std::errc() || end != rest.data() + rest.size()) return std::nullopt;
  return value;
}

}  // namespace

StatusOr<TaskCompletion> read_task_completion_reply(const Json& reply) {
  if (!reply.is_object()) return invalid_argument("the task completion reply is not an object");
  const auto verdict = reply.find("verdict");
  if (verdict == reply.end()) return invalid_argument("the judge's reply has no verdict");
  const std::string sent = verdict->dump(-1, ' ', false, Json::error_handler_t::replace);
  TaskCompletion out;
  if (verdict->is_number()) {
    out.verdict = verdict->get<double>();
  } else if (verdict->is_string()) {
    const std::optional<double> value = python_float(verdict->get<std::string>());
    if (!value) return invalid_argument("the judge's verdict " + sent + " is not a number");
    out.verdict = *value;
    out.verdict_text = verdict->get<std::string>();
  } else {
    return invalid_argument("the judge's verdict " + sent + " is not a number");
  }
  if (!(out.verdict >= 0.0 && out.verdict <= 1.0)) {
    return invalid_argument("the judge's verdict " + sent + " is outside [0, 1]");
  }
  out.verdict += 0.0;  // -0 is 0
  out.task = string_member(reply, "task");
  out.outcome = string_member(reply, "outcome");
  out.reason = string_member(reply, "reason");
  return out;
}

StatusOr<TaskCompletion> ask_task_completion(Judge& judge, const Sample& sample, CallLog* calls) {
  if (!sample.conversation) {
    return invalid_argument("deepeval_task_completion: the sample is not a conversation");
  }
  const std::optional<std::string> given = given_task(*sample.conversation);
  JudgeTask task;
  task.kind = "task_completion";
  task.prompt = std::string(prompts::k_task_completion);
  task.schema = task_completion_schema();
  task.schema_name = "task_completion";
  task.sections = judge_conversation_section(*sample.conversation);
  if (given) task.sections += judge_section("TASK", *given);
  task.written = kTaskCompletionWhat;
  task.written_texts = task_completion_texts;
  task.subject = "deepeval_task_completion";
  RAGMETER_ASSIGN_OR_RETURN(TaskReply answer, judge.ask(task, sample, calls));
  RAGMETER_ASSIGN_OR_RETURN(TaskCompletion out, read_task_completion_reply(answer.reply));
  if (given) {
    out.task = *given;
    out.task_given = true;
  }
  if (!answer.wrong_script.empty()) out.warning = answer.wrong_script + "; the verdict is kept";
  return out;
}

}  // namespace ragmeter
