// Similarity by the local sentence embedders (sentence_embedder.h), batched across the
// rows of an evaluation batch. Texts compared with each other are embedded by one model,
// the one LocalEmbedders::choose picks for the pair (the multilingual model when either
// text is not English). prepare_batch() records, per model, the texts of the pairs the
// metrics compare (question and response, response and reference); the first similarity
// asked of a model then embeds every distinct one of its texts in one pass (the embedder's
// threads), and later asks are lookups. Texts outside the batch (or with no batch) are
// embedded when asked.
//
// Thread-safety: similarity() and similarities() may be called from any number of threads;
// prepare_batch() from one thread while no similarity is being asked (the evaluation loop
// calls it between batches).
#pragma once

#include <map>
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
  explicit LocalSimilarity(LocalEmbedders embedders);

  void prepare_batch(const std::vector<const Sample*>& samples);
  double similarity(std::string_view a, std::string_view b);
  // Cosine of `a` to each of `others`, all embedded by the model chosen for `a` with each
  // of `others` (one model for all, so the values compare).
  std::vector<double> similarities(std::string_view a, const std::vector<std::string>& others);
  // The embedders' identity ("local all-MiniLM-L6-v2 ...", LocalEmbedders::identity).
  const std::string& identity() const { return identity_; }

 private:
  struct Texts {
    std::vector<std::string> texts;
    std::once_flag embedded;
    std::unordered_map<std::string_view, std::vector<float>> vectors;  // keys view `texts`
  };
  using Batch = std::map<const SentenceEmbedder*, std::shared_ptr<Texts>>;
  std::vector<std::vector<float>> vectors_of(const SentenceEmbedder& model, const std::vector<std::string>& texts);

  LocalEmbedders embedders_;
  std::string identity_;
  std::mutex mutex_;  // guards batch_ (the pointer)
  std::shared_ptr<const Batch> batch_;
};

}  // namespace ragmeter
