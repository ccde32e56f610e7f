// The conversation-task metrics (DeepEval's conversational metrics, conversation_task.h):
// one adapter reads any task's verdicts, found by the metric's name; and DeepEval's task
// completion, a verdict in [0, 1] (ask_task_completion, judge_tasks.h).
#include "metrics/adapters.h"
#include "metrics/judged_evidence.h"
#include "ragmeter/conversation_task.h"
#include "ragmeter/judge.h"
#include "ragmeter/judge_tasks.h"

namespace ragmeter::adapters {

namespace {

nlohmann::ordered_json verdict_list(const ItemVerdicts& verdicts) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const ItemVerdict& v : verdicts.verdicts) {
    out.push_back({{"item", v.item}, {"verdict", v.verdict}, {"reason", v.reason}});
  }
  return out;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

}  // namespace

MetricResult conversation_task(SampleJudgement& j, const MetricRequest& r, const ScoringOptions&) {
  const ConversationTask* task = find_conversation_task(r.info->name);
  if (task == nullptr) return MetricResult::failed("no conversation task is named " + std::string(r.info->name));
  // The conversation and the task's field were checked (MetricInfo::needs holds the
  // field's bit: MetricTableTest.ConversationTasksNeedTheirField).
  const Sample& s = j.sample();
  const std::vector<std::string> asked = conversation_task_items(*s.conversation, task->items);
  const std::string nothing = task->nothing_to_judge + " (" + task->source_score + ")";
  if (task->items != TaskItems::kFound && asked.empty()) return MetricResult::skipped(nothing);
  CallLog calls;
  const StatusOr<ItemVerdicts> verdicts = ask_conversation_task(j.judge(), s, *task, &calls);
  if (!verdicts.ok()) return judge_refused_or_failed(verdicts.status(), calls);
  const ItemScore score = score_item_verdicts(*task, asked, *verdicts);
  // Items asked, none with a readable verdict: the judge's failure, not an empty conversation
  // (unless the judge may leave items out, as for knowledge retention).
  const bool unread = !asked.empty() && task->missing != MissingItem::kLeftOut;
  MetricResult result =
      score.score ? MetricResult::ok(*score.score)
                  : MetricResult::skipped(unread ? "the judge gave no readable verdict on the " +
                                                       std::to_string(asked.size()) + " items asked (" +
                                                       task->source_score + ")"
                                                 : nothing);
  result.evidence["verdicts"] = verdict_list(*verdicts);
  result.evidence["passed"] = score.passed;
  result.evidence["failed"] = score.failed;
  if (!asked.empty()) result.evidence["asked"] = asked;
  if (score.dropped > 0) result.evidence["dropped"] = score.dropped;
  if (!verdicts->reason.empty()) result.evidence["reason"] = verdicts->reason;
  std::vector<std::string> warnings;
  if (!score.not_judged.empty()) {
    result.evidence["not_judged"] = score.not_judged;
    warnings.push_back("the judge gave no verdict for " + joined(score.not_judged) +
                       "; the score counts the others");
  }
  if (!verdicts->warning.empty()) warnings.push_back(verdicts->warning);
  return with_calls(with_warnings(std::move(result), warnings), calls);
}

MetricResult deepeval_task_completion(SampleJudgement& j, const MetricRequest&,
                                      const ScoringOptions&) {
  // A single-turn row was skipped (kConversation): ragmeter reads no tool calls on one; its
  // `user_input`, `response` and `tools_called` are written as a conversation of two
  // messages (docs/agents.md).
  const Sample& s = j.sample();
  if (std::string skip = task_completion_skip(*s.conversation); !skip.empty()) {
    return MetricResult::skipped(std::move(skip));
  }
  CallLog calls;
  const StatusOr<TaskCompletion> judged = ask_task_completion(j.judge(), s, &calls);
  if (!judged.ok()) return judge_refused_or_failed(judged.status(), calls);
  MetricResult result = MetricResult::ok(judged->verdict);
  result.evidence["task"] = judged->task;
  result.evidence["task_from_row"] = judged->task_given;
  result.evidence["outcome"] = judged->outcome;
  if (!judged->verdict_text.empty()) result.evidence["verdict_text"] = judged->verdict_text;
  result.evidence["reason"] = judged->reason;
  std::vector<std::string> warnings;
  if (!judged->warning.empty()) warnings.push_back(judged->warning);
  return with_calls(with_warnings(std::move(result), warnings), calls);
}

}  // namespace ragmeter::adapters
