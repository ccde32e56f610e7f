// Similarity by the local sentence embedders (sentence_embedder.h), batched across the
// rows of an evaluation batch. Texts compared with each other are embedded by one model,
// the one LocalEmbedders::choose picks for the pair (the multilingual model when either
// text is not English). prepare_batch() records, per model, the texts of the pairs the
// metrics compare (question and response, response and reference), in row order, cut into
// pieces of about kPieceIds word-piece ids. The first similarity asked of a text embeds its
// whole piece in one pass (the embedder's threads); later asks of that piece are lookups.
// So rows finish piece by piece as the scoring threads reach them: the unit of work (and of
// loss when a run is stopped) is a piece, a fraction of a second, never the batch. Texts
// outside the batch (or with no batch) are embedded when asked.
//
// Thread-safety: similarity() and similarities() may be called from any number of threads;
// prepare_batch() from one thread while no similarity is being asked (the evaluation loop
// calls it between batches).
#pragma once

#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ragmeter/sample.h"
#include "ragmeter/sentence_embedder.h"
#include "ragmeter/status.h"

namespace ragmeter {

class LocalSimilarity {
 public:
  // Word-piece ids a piece holds at most (a single longer text is a piece of its own).
  // About a quarter of a second of encoding on two threads for long texts (2,000 ids/s,
  // docs/performance.md); the CPU time of scoring long rows did not grow against one pass
  // over the batch (200 rows: 29.4 s against 31.6 s of user time).
  static constexpr std::size_t kPieceIds = 512;

  explicit LocalSimilarity(LocalEmbedders embedders);

  // Pairs whose model cannot be had (a deferred model that failed to load) are left out:
  // their similarity() reports the error.
  void prepare_batch(const std::vector<const Sample*>& samples);
  // Cosine of the two texts' embeddings. Fails only when the model the pair needs is a
  // deferred one that failed to load (LocalEmbedders::choose).
  StatusOr<double> similarity(std::string_view a, std::string_view b);
  // Cosine of `a` to each of `others`, all embedded by the model chosen for `a` with each
  // of `others` (one model for all, so the values compare). Fails as similarity().
  StatusOr<std::vector<double>> similarities(std::string_view a, const std::vector<std::string>& others);
  // The embedders' identity ("local all-MiniLM-L6-v2 ...", LocalEmbedders::identity).
  const std::string& identity() const { return identity_; }

 private:
  struct Piece {
    std::vector<std::string> texts;
    std::once_flag embedded;
    std::vector<std::vector<float>> vectors;  // of `texts`, once embedded
  };
  // One model's texts of a batch.
  struct ModelBatch {
    std::deque<Piece> pieces;  // a deque: a once_flag does not move
    // Each text's piece and place in it; keys view the pieces' texts.
    std::unordered_map<std::string_view, std::pair<std::size_t, std::size_t>> where;
  };
  using Batch = std::map<const SentenceEmbedder*, ModelBatch>;
  std::vector<std::vector<float>> vectors_of(const SentenceEmbedder& model,
                                             const std::vector<std::string>& texts);

  LocalEmbedders embedders_;
  std::string identity_;
  std::mutex mutex_;  // guards batch_ (the pointer)
  std::shared_ptr<Batch> batch_;
};

}  // namespace ragmeter
