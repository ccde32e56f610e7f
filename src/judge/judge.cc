// The offline Judge and the per-sample cache of a judge's answers (judge.h).
#include "ragmeter/judge.h"

#include "ragmeter/offline_judge.h"
#include "ragmeter/text_vectors.h"

namespace ragmeter {
namespace {

class OfflineJudge : public Judge {
 public:
  std::string description() const override {
    return "offline (lexical entailment, no model; " + std::string(kOfflineJudgeVersion) + ")";
  }

  StatusOr<ClaimLedger> claim_ledger(const Sample& sample, CallLog*) override {
    return offline_claim_ledger(sample);
  }

  StatusOr<double> similarity(std::string_view a, std::string_view b, CallLog*) override {
    return offline_similarity(a, b);
  }

  StatusOr<GeneratedQuestions> questions_for(const Sample& sample, CallLog*) override {
    GeneratedQuestions out;
    const std::string response = sample.response.value_or("");
    out.noncommittal = is_noncommittal(response);
    out.questions.push_back(response);
    out.method = "offline: no questions are generated; the response stands in for them";
    return out;
  }

  StatusOr<std::vector<std::string>> entities(std::string_view text, CallLog*) override {
    return offline_entities(text);
  }
};

}  // namespace

StatusOr<CriticVerdict> Judge::critique(const Sample&, std::string_view name, std::string_view,
                                        int, CallLog*) {
  return failed_precondition("the aspect critic '" + std::string(name) +
                             "' needs an LLM judge (--judge-url, --judge-model); the " +
                             description() + " judge cannot judge it");
}

StatusOr<RubricScore> Judge::rubric_score(const Sample&, const std::map<std::string, std::string>&,
                                          CallLog*) {
  return failed_precondition("rubric scores need an LLM judge (--judge-url, --judge-model); the " +
                             description() + " judge cannot judge them");
}

std::shared_ptr<Judge> make_offline_judge() { return std::make_shared<OfflineJudge>(); }

const StatusOr<ClaimLedger>& SampleJudgement::ledger() {
  if (!ledger_) ledger_.emplace(judge_.claim_ledger(sample_, &ledger_calls_));
  return *ledger_;
}

const StatusOr<GeneratedQuestions>& SampleJudgement::questions() {
  if (!questions_) questions_.emplace(judge_.questions_for(sample_, &questions_calls_));
  return *questions_;
}

const StatusOr<double>& SampleJudgement::response_reference_similarity() {
  if (!similarity_) {
    similarity_.emplace(
        judge_.similarity(sample_.response.value_or(""), sample_.reference.value_or(""),
                          &similarity_calls_));
  }
  return *similarity_;
}

}  // namespace ragmeter
