// make_offline_judge_with_embedder (llm_judge.h): the offline judge, with similarities
// from an embeddings server. For runs that have an embeddings server and no chat model:
// the metrics that only embed (semantic_similarity) need nothing else.
#include "judge/llm/call_book.h"
#include "judge/llm/embedding_similarity.h"
#include "ragmeter/llm_judge.h"

namespace ragmeter {
namespace {

class OfflineJudgeWithEmbedder : public Judge {
 public:
  OfflineJudgeWithEmbedder(std::shared_ptr<llm::Client> embedder, llm::EndpointOptions endpoint)
      : offline_(make_offline_judge()), embedder_(std::move(embedder)), book_(endpoint),
        model_(endpoint.model), url_(endpoint.base_url) {}

  std::string description() const override {
    return offline_->description() + ", embeddings " + model_ + " at " + url_;
  }
  // The server embeds any language it embeds; every other call is the offline judge's.
  std::string language_gap(std::string_view language, unsigned calls) const override {
    if ((calls & ~judge_calls::kSimilarity) == 0) return {};
    return offline_->language_gap(language, calls);
  }
  StatusOr<ClaimLedger> claim_ledger(const Sample& sample, CallLog* calls) override {
    return offline_->claim_ledger(sample, calls);
  }
  StatusOr<double> similarity(std::string_view a, std::string_view b, CallLog* calls) override {
    return embedding_similarity(*embedder_, book_, a, b, calls);
  }
  StatusOr<std::vector<double>> similarities(std::string_view a,
                                             const std::vector<std::string>& others,
                                             CallLog* calls) override {
    return embedding_similarities(*embedder_, book_, a, others, calls);
  }
  StatusOr<KeyFactCoverage> key_fact_coverage(std::string_view text, std::string_view summary,
                                              CallLog* calls) override {
    return offline_->key_fact_coverage(text, summary, calls);
  }
  nlohmann::ordered_json usage_by_call() const override { return book_.report(); }

 private:
  std::shared_ptr<Judge> offline_;
  std::shared_ptr<llm::Client> embedder_;
  CallBook book_;
  std::string model_;
  std::string url_;
};

}  // namespace

std::shared_ptr<Judge> make_offline_judge_with_embedder(std::shared_ptr<llm::Client> embedder,
                                                        llm::EndpointOptions endpoint) {
  if (embedder == nullptr) return make_offline_judge();
  return std::make_shared<OfflineJudgeWithEmbedder>(std::move(embedder), std::move(endpoint));
}

}  // namespace ragmeter
