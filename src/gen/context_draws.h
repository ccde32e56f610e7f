// What `gen`'s two generators share (questions: testset_generator.cc; conversation
// scenarios: scenario_generator.cc): the seeded draw of contexts (a root chunk and its
// nearest neighbours), the numbered passages shown to the judge, the passage labels a reply
// names, the near-duplicate filter, and waiting on calls that a stop may cut short.
// Internal to src/gen/.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <future>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "ragmeter/chunker.h"
#include "ragmeter/llm.h"
#include "ragmeter/vector_index.h"

namespace ragmeter {

// Seeded draws that are the same on every platform: std::mt19937_64 is specified
// exactly, the distributions of <random> are not, so these map its output by hand.
class Draws {
 public:
  explicit Draws(std::uint64_t seed) : engine_(seed) {}
  // Uniform in [0, n); n > 0.
  std::size_t below(std::size_t n);
  // Uniform in [0, 1).
  double unit() { return static_cast<double>(engine_() >> 11) * 0x1.0p-53; }
  void shuffle(std::vector<std::size_t>* items);

 private:
  std::mt19937_64 engine_;
};

// The contexts of a generation: root chunks from a seeded shuffle of every chunk
// (reshuffled when each has been a root), each with its nearest chunks by embedding.
// The draws of the shuffle and those the caller makes with draws() come from one engine,
// in the order they are made.
class ContextDraws {
 public:
  // `chunks` and `index` (the chunks' vectors under their positions) must outlive this.
  ContextDraws(const std::vector<DocumentChunk>& chunks, const VectorIndex& index,
               std::uint64_t seed);

  Draws& draws() { return draws_; }

  // The next root's position, then its `neighbours` nearest chunks at least
  // `min_similarity` alike, nearest first.
  std::vector<std::size_t> next(std::size_t neighbours, double min_similarity);

 private:
  std::size_t next_root();

  const std::vector<DocumentChunk>& chunks_;
  const VectorIndex& index_;
  Draws draws_;
  std::vector<std::size_t> order_;
  std::size_t cursor_ = 0;
};

// "P1" for 0.
std::string passage_label(std::size_t i);
// "PASSAGES:\n[P1]\n<text>\n\n[P2]\n...": what the judge reads.
std::string passages_section(const std::vector<std::string>& passages);
// The labels "P1".."Pn" of n passages: the enum of a reply's "passages" in a schema.
nlohmann::json passage_labels(std::size_t n);
// The chunk positions that a reply's list of passage labels names, in the order named,
// each once; `context` holds the positions of the passages shown (P1 first). Empty when
// `labels` is not a list, or one of them names no passage shown.
std::vector<std::size_t> named_chunks(const nlohmann::json& labels,
                                      const std::vector<std::size_t>& context);

// `text` without leading and trailing blanks.
std::string trimmed(std::string text);

// The trimmed text of a reply's `object[key]`; "" when `object` is no object, or has no
// `key`, or its value is no string (a model without a grammar may write any of these).
std::string reply_text(const nlohmann::json& object, const char* key);
// `object[key]`, or null when `object` is no object or has no `key`.
const nlohmann::json& reply_member(const nlohmann::json& object, const char* key);

// True when `text` points at its source instead of naming its subject ("the passage",
// "according to the text", "P1"): a reader who never saw the passages cannot follow it.
bool points_at_source(const std::string& text);

// The near-duplicate filter: a text whose vector has cosine at or above `threshold` with
// one already kept is a near-duplicate.
class DuplicateFilter {
 public:
  explicit DuplicateFilter(double threshold) : threshold_(threshold) {}
  bool near_duplicate(const std::vector<float>& vector) const;
  void keep(std::vector<float> vector) { kept_.push_back(std::move(vector)); }

 private:
  double threshold_;
  std::vector<std::vector<float>> kept_;
};

// Waits on the futures of judge calls while watching a stop flag: once it is set, the
// chat calls in flight are cancelled (once), so the wait ends soon.
class StopWatch {
 public:
  // `cancel` may be null (no stop); neither is owned.
  StopWatch(llm::Client& chat, const std::atomic<bool>* cancel) : chat_(chat), cancel_(cancel) {}

  bool stopped() const { return cancel_ != nullptr && cancel_->load(); }

  // The future's value, looking at the stop flag every 100 ms while it waits.
  template <typename T>
  T await(std::future<T>& future) {
    while (future.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready) {
      if (stopped() && !chat_cancelled_.exchange(true)) chat_.cancel();
    }
    return future.get();
  }

 private:
  llm::Client& chat_;
  const std::atomic<bool>* cancel_;
  std::atomic<bool> chat_cancelled_{false};
};

}  // namespace ragmeter
