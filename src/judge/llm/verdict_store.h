// Verdicts stored by content: one entry per (judge, prompts, claim text, premise text),
// in the judge's cache file and in memory for the run, so a rerun in which only the retriever changed asks the judge
// only for the (claim, chunk) pairs it has not seen, however the calls were grouped.
// Internal to src/judge/ (docs/design.md, "Verdict cells").
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "judge/llm/once_map.h"
#include "judge/llm/repeat_draw.h"
#include "llm/response_cache.h"
#include "ragmeter/claim_ledger.h"
#include "ragmeter/llm.h"

namespace ragmeter {

// A stored verdict and the cache key of the call that produced it (named in evidence).
struct StoredVerdict {
  VerdictCell cell;
  std::string call;
  // Set when that call's reasons were in another script than the sample's language,
  // also when asked again (judge_language.h): the ledger's warning. Stored with the cell.
  std::string language_warning;
};

class VerdictStore {
 public:
  // A store in `cache` (null or kOff: stores and finds nothing) for the judge at
  // `endpoint` with the prompt texts `prompts` (part of every key), and a repeat's `draw`
  // (RepeatDraw::add_to: part of every key of a repeat).
  VerdictStore(std::shared_ptr<llm::ResponseCache> cache, const llm::EndpointOptions& endpoint,
               std::string prompts, const RepeatDraw& draw = {});

  // The cell key of `claim` against `premise` (in memory and in the cache file), with the
  // request's LANGUAGE line when it has one (none for English: the keys of the store
  // before languages).
  std::string key(const std::string& claim, const std::string& premise,
                  std::string_view instruction = {}) const;
  // In memory: ready, being judged by another caller (wait), or nullopt: the caller
  // judges it and must publish it, by remember() or finish_all() (see OnceMap).
  // Element i answers keys[i]; all under one lock (OnceMap::find_or_start_all), so two
  // rows judging the same cells at the same time never split them into two calls.
  std::vector<std::optional<std::shared_future<StoredVerdict>>> find_or_start_all(
      const std::vector<std::string>& keys) {
    return memory_.find_or_start_all(keys);
  }
  // The stored verdict of `claim` against `premise` in the cache file, if any. A read
  // error is a miss.
  std::optional<StoredVerdict> find(const std::string& claim, const std::string& premise,
                                    std::string_view instruction = {}) const;
  // Publishes a verdict the caller started and found in the cache file (find()): kept in
  // memory for the run, not written again.
  void remember(const std::string& key, StoredVerdict verdict);
  // Publishes the verdicts the caller started and judged: a judged cell is kept for the
  // run and stored in the cache file (read-write mode only; a write error is ignored: the
  // verdict is still used in this run, and asked again in the next); an unjudged one is
  // neither, so it is asked again. The judged ones are written with one put_all: the cells
  // of the calls a row made are stored together or not at all, so a process killed while
  // storing them leaves no part that a rerun would complete with a smaller table (whose
  // verdicts could differ).
  void finish_all(std::vector<std::pair<std::string, StoredVerdict>> verdicts);

  bool enabled() const { return cache_ != nullptr && cache_->mode() != llm::CacheMode::kOff; }

 private:
  std::shared_ptr<llm::ResponseCache> cache_;
  std::string identity_;  // canonical JSON prefix: judge model, prompts
  OnceMap<StoredVerdict> memory_;
};

}  // namespace ragmeter
