// The offline judge as a Judge (judge.h: make_offline_judge): its answers come from the
// rule-based functions of offline_judge.h, and its similarities from the local sentence
// models when they are loaded, else bag-of-stems vectors.
#include <algorithm>
#include <optional>

#include "judge/local_similarity.h"
#include "judge/offline/text_vectors.h"
#include "ragmeter/judge.h"
#include "ragmeter/language.h"
#include "ragmeter/offline_judge.h"

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

  // Every call, a similarity too: the local models' languages are not told apart here.
  std::string language_gap(std::string_view language, unsigned) const override {
    return offline_judge_gap(language);
  }

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

std::shared_ptr<Judge> make_offline_judge() { return std::make_shared<OfflineJudge>(LocalEmbedders()); }

std::shared_ptr<Judge> make_offline_judge(LocalEmbedders embedders) {
  return std::make_shared<OfflineJudge>(std::move(embedders));
}

}  // namespace ragmeter
