// The offline Judge and the per-sample cache of a judge's answers (judge.h).
#include "ragmeter/judge.h"

#include <algorithm>
#include <optional>

#include "judge/local_similarity.h"
#include "ragmeter/language.h"
#include "ragmeter/offline_judge.h"
#include "judge/offline/text_vectors.h"

namespace ragmeter {
namespace {

class OfflineJudge : public Judge {
 public:
  explicit OfflineJudge(LocalEmbedders embedders) {
    if (embedders) local_.emplace(std::move(embedders));
  }

  std::string description() const override {
    if (local_) {
      return "offline (lexical entailment; similarity: " + local_->identity() + "; " +
             std::string(kOfflineJudgeVersion) + ")";
    }
    return "offline (lexical entailment, no model; " + std::string(kOfflineJudgeVersion) + ")";
  }

  bool is_offline() const override { return true; }

  void prepare_batch(const std::vector<const Sample*>& samples) override {
    if (local_) local_->prepare_batch(samples);
  }

  StatusOr<ClaimLedger> claim_ledger(const Sample& sample, CallLog*) override {
    return offline_claim_ledger(sample);
  }

  StatusOr<double> similarity(std::string_view a, std::string_view b, CallLog*) override {
    if (local_) return local_->similarity(a, b);
    return offline_similarity(a, b);
  }

  StatusOr<std::vector<double>> similarities(std::string_view a, const std::vector<std::string>& others,
                                             CallLog* calls) override {
    if (local_) return local_->similarities(a, others);
    return Judge::similarities(a, others, calls);
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

  // A context sentence is needed when it holds at least half of the question's content
  // words (stemmed; at least one).
  StatusOr<RelevantSentences> relevant_sentences(const Sample& sample, CallLog*) override {
    RelevantSentences out;
    const std::string language = offline_sample_language(sample);
    const OfflineClaim question(sample.user_input.value_or(""), language);
    std::vector<std::string> keys;
    for (std::size_t i : question.content()) keys.push_back(question.tokens()[i].key);
    const std::size_t needed = std::max<std::size_t>(1, (keys.size() + 1) / 2);
    if (!sample.retrieved_contexts) return out;
    for (const std::string& context : *sample.retrieved_contexts) {
      for (std::string_view sentence : split_sentences(context)) {
        ++out.total;
        const OfflinePremise premise(sentence, language);
        std::size_t found = 0;
        for (const std::string& key : keys) found += premise.sentences_with(key).empty() ? 0 : 1;
        if (!keys.empty() && found >= needed) out.relevant.emplace_back(sentence);
      }
    }
    return out;
  }

  StatusOr<KeyFactCoverage> key_fact_coverage(std::string_view text, std::string_view summary,
                                              CallLog*) override {
    // No sample here. A text in Latin script is read with the English rules (as before
    // languages were told apart): CLD2 on one passage alone misreads English passages
    // full of German or Swedish names. Other scripts name their language (or go to CLD2).
    KeyFactCoverage out;
    const std::string language =
        dominant_script(text) == Script::kLatin ? std::string("en") : detect_language(text);
    out.facts = extract_claims(text, {}, language);
    const OfflinePremise premise(summary, language);
    for (const std::string& fact : out.facts) {
      out.covered.push_back(judge_claim(OfflineClaim(fact, language), premise).supports());
    }
    return out;
  }

 private:
  std::optional<LocalSimilarity> local_;
};

}  // namespace

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

StatusOr<EntityLists> Judge::reference_and_context_entities(std::string_view reference,
                                                            const std::vector<std::string>& contexts,
                                                            CallLog* calls) {
  EntityLists out;
  RAGMETER_ASSIGN_OR_RETURN(out.reference, entities(reference, calls));
  for (const std::string& context : contexts) {
    RAGMETER_ASSIGN_OR_RETURN(std::vector<std::string> found, entities(context, calls));
    for (std::string& entity : found) {
      if (std::find(out.contexts.begin(), out.contexts.end(), entity) == out.contexts.end()) {
        out.contexts.push_back(std::move(entity));
      }
    }
  }
  return out;
}

StatusOr<TopicVerdicts> Judge::topic_verdicts(const Sample&, const std::vector<std::string>&,
                                              CallLog*) {
  return failed_precondition("topic adherence needs an LLM judge (--judge-url, --judge-model); "
                             "the " + description() + " judge cannot judge it");
}

StatusOr<ItemVerdicts> Judge::conversation_verdicts(const Sample&, const ConversationTask& task,
                                                    CallLog*) {
  return failed_precondition(task.name + " needs an LLM judge (--judge-url, --judge-model); the " +
                             description() + " judge cannot judge it");
}

StatusOr<TaskCompletion> Judge::task_completion(const Sample&, CallLog*) {
  return failed_precondition("deepeval_task_completion needs an LLM judge (--judge-url, "
                             "--judge-model); the " + description() + " judge cannot judge it");
}

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

std::shared_ptr<Judge> make_offline_judge() { return std::make_shared<OfflineJudge>(LocalEmbedders()); }

std::shared_ptr<Judge> make_offline_judge(LocalEmbedders embedders) {
  return std::make_shared<OfflineJudge>(std::move(embedders));
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
  if (!questions_) questions_.emplace(judge_.questions_for(sample_, &questions_calls_));
  return *questions_;
}

const StatusOr<TopicVerdicts>& SampleJudgement::topic_verdicts() {
  if (!topics_) {
    topics_.emplace(judge_.topic_verdicts(sample_, *sample_.conversation->reference_topics,
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
