// The Judge base's defaults and the per-sample cache of a judge's answers (judge.h).
#include "ragmeter/judge.h"

#include <algorithm>

#include "ragmeter/judge_tasks.h"

namespace ragmeter {

StatusOr<std::vector<double>> Judge::similarities(std::string_view a,
                                                 const std::vector<std::string>& others,
                                                 CallLog* calls) {
  std::vector<double> out;
  for (const std::string& other : others) {
    RAGMETER_ASSIGN_OR_RETURN(double value, similarity(a, other, calls));
    out.push_back(value);
  }
  return out;
}

StatusOr<TaskReply> Judge::ask(const JudgeTask& task, const Sample& sample, CallLog*) {
  if (task.needs_vision()) {
    return failed_precondition("needs a vision model (" + task.subject + "); the " +
                               description() +
                               " judge has none. The claim-level multimodal metrics read "
                               "images by OCR");
  }
  if (task.offline) {
    TaskReply out;
    RAGMETER_ASSIGN_OR_RETURN(out.reply, task.offline(sample));
    out.offline = true;
    return out;
  }
  return failed_precondition(task.subject + (task.subject_plural ? " need" : " needs") +
                             " an LLM judge (--judge-url, --judge-model); the " + description() +
                             " judge cannot judge " + (task.subject_plural ? "them" : "it"));
}

const StatusOr<ClaimLedger>& SampleJudgement::ledger() {
  if (!ledger_) ledger_.emplace(judge_.claim_ledger(sample_, &ledger_calls_));
  return *ledger_;
}

const StatusOr<ClaimLedger>& SampleJudgement::ledger_for(std::string_view ragas_scope,
                                                          const CallLog** calls) {
  const std::string scope = judge_.ledger_scope(ragas_scope);
  if (scope.empty()) {
    *calls = &ledger_calls_;
    return ledger();
  }
  Scoped& scoped = scoped_[scope];
  if (!scoped.ledger) scoped.ledger.emplace(judge_.scoped_claim_ledger(sample_, scope, &scoped.calls));
  *calls = &scoped.calls;
  return *scoped.ledger;
}

const StatusOr<GeneratedQuestions>& SampleJudgement::questions() {
  if (!questions_) questions_.emplace(ask_questions(judge_, sample_, &questions_calls_));
  return *questions_;
}

const StatusOr<TopicVerdicts>& SampleJudgement::topic_verdicts() {
  if (!topics_) {
    topics_.emplace(ask_topics(judge_, sample_, *sample_.conversation->reference_topics,
                                          &topic_calls_));
  }
  return *topics_;
}

const StatusOr<double>& SampleJudgement::response_reference_similarity() {
  if (!similarity_) {
    similarity_.emplace(
        judge_.similarity(sample_.response.value_or(""), sample_.reference().value_or(""),
                          &similarity_calls_));
  }
  return *similarity_;
}

}  // namespace ragmeter
