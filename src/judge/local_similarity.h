// Similarity by the local sentence embedder (sentence_embedder.h), batched across the rows
// of an evaluation batch: prepare_batch() records the batch's questions, responses and
// references, in row order, cut into pieces of about kPieceIds word-piece ids. The first
// similarity asked of a text embeds its whole piece in one pass (the embedder's threads);
// later asks of that piece are lookups. So rows finish piece by piece as the scoring threads
// reach them: the unit of work (and of loss when a run is stopped) is a piece, a fraction
// of a second, never the batch. Texts outside the batch (or with no batch) are embedded
// when asked.
//
// Thread-safety: similarity() and similarities() may be called from any number of threads;
// prepare_batch() from one thread while no similarity is being asked (the evaluation loop
// calls it between batches).
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ragmeter/sample.h"
#include "ragmeter/sentence_embedder.h"

namespace ragmeter {

class LocalSimilarity {
 public:
  // Word-piece ids a piece holds at most (a single longer text is a piece of its own).
  // About a quarter of a second of encoding on two threads for long texts (2,000 ids/s,
  // docs/performance.md); the CPU time of scoring long rows did not grow against one pass
  // over the batch (200 rows: 29.4 s against 31.6 s of user time).
  static constexpr std::size_t kPieceIds = 512;

  explicit LocalSimilarity(std::shared_ptr<const SentenceEmbedder> embedder);

  void prepare_batch(const std::vector<const Sample*>& samples);
  double similarity(std::string_view a, std::string_view b);
  // Cosine of `a` to each of `others`.
  std::vector<double> similarities(std::string_view a, const std::vector<std::string>& others);
  // The embedder's identity ("local all-MiniLM-L6-v2 ...").
  const std::string& identity() const { return embedder_->identity(); }

 private:
  struct Piece {
    std::vector<std::string> texts;
    std::once_flag embedded;
    std::vector<std::vector<float>> vectors;  // of `texts`, once embedded
  };
  struct Batch {
    std::deque<Piece> pieces;  // a deque: a once_flag does not move
    // Each text's piece and place in it; keys view the pieces' texts.
    std::unordered_map<std::string_view, std::pair<std::size_t, std::size_t>> where;
  };
  std::vector<std::vector<float>> vectors_of(const std::vector<std::string>& texts);

  std::shared_ptr<const SentenceEmbedder> embedder_;
  std::mutex mutex_;  // guards batch_ (the pointer)
  std::shared_ptr<Batch> batch_;
};

}  // namespace ragmeter
