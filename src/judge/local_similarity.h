// Similarity by the local sentence embedder (sentence_embedder.h), batched across the rows
// of an evaluation batch: prepare_batch() records the batch's questions, responses and
// references; the first similarity asked then embeds every distinct one of them in one
// pass (the embedder's threads), and later asks of the batch are lookups. Texts outside
// the batch (or with no batch) are embedded when asked.
//
// Thread-safety: similarity() and similarities() may be called from any number of threads;
// prepare_batch() from one thread while no similarity is being asked (the evaluation loop
// calls it between batches).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ragmeter/sample.h"
#include "ragmeter/sentence_embedder.h"

namespace ragmeter {

class LocalSimilarity {
 public:
  explicit LocalSimilarity(std::shared_ptr<const SentenceEmbedder> embedder);

  void prepare_batch(const std::vector<const Sample*>& samples);
  double similarity(std::string_view a, std::string_view b);
  // Cosine of `a` to each of `others`.
  std::vector<double> similarities(std::string_view a, const std::vector<std::string>& others);
  // The embedder's identity ("local all-MiniLM-L6-v2 ...").
  const std::string& identity() const { return embedder_->identity(); }

 private:
  struct Batch {
    std::vector<std::string> texts;
    std::once_flag embedded;
    std::unordered_map<std::string_view, std::vector<float>> vectors;  // keys view `texts`
  };
  std::vector<std::vector<float>> vectors_of(const std::vector<std::string>& texts);

  std::shared_ptr<const SentenceEmbedder> embedder_;
  std::mutex mutex_;  // guards batch_ (the pointer)
  std::shared_ptr<Batch> batch_;
};

}  // namespace ragmeter
