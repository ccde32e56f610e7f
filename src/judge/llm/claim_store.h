// Claims stored by the text they come from (docs/design.md, "Claims are a function of
// the text"): one entry per sentence read in its context, in the judge's cache file, and
// in memory for the run, so identical texts and identical sentences in the same context
// (the response and the reference, two rows, two runs) get the same claims from one
// extraction. Internal to src/judge/.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "judge/llm/once_map.h"
#include "judge/llm/repeat_draw.h"
#include "llm/response_cache.h"
#include "ragmeter/llm.h"
#include "ragmeter/status.h"

namespace ragmeter {

// The claims of one sentence and the cache key of the call that extracted them (named in
// evidence).
struct StoredClaims {
  std::vector<std::string> claims;
  std::string call;
};

class ClaimStore {
 public:
  // A store in `cache` (null or kOff: in memory only) for the judge at `endpoint` with
  // the prompt texts `prompts` (part of every key), and a repeat's `draw` (RepeatDraw::add_to:
  // part of every key of a repeat).
  ClaimStore(std::shared_ptr<llm::ResponseCache> cache, const llm::EndpointOptions& endpoint,
             std::string prompts, const RepeatDraw& draw = {});

  // The key of `sentence` read after `before` (the text's preceding sentences) as an answer
  // to `question`: SHA-256 of the judge model, the prompts and the three texts, each
  // normalised as claim ids are (normalize_content_text: NFC, white space folded; case
  // and punctuation kept), and the request's LANGUAGE line when it has one (none for
  // English, whose keys are those of the store before languages).
  std::string key(std::string_view question, std::string_view before, std::string_view sentence,
                  std::string_view instruction = {}) const;

  // In memory: ready, in flight (wait), or nullopt: the caller extracts it and must
  // finish() it (see OnceMap).
  // Element i answers keys[i]; all under one lock (OnceMap::find_or_start_all), so two
  // rows reading the same text at the same time never split its sentences into two calls.
  std::vector<std::optional<std::shared_future<StatusOr<StoredClaims>>>> find_or_start_all(
      const std::vector<std::string>& keys) {
    return memory_.find_or_start_all(keys);
  }
  // Publishes an extraction the caller started; `stored` ones are written to the cache
  // (read-write mode only; a write error is ignored). A failure (or a reply that said
  // nothing of the sentence) is not kept: the next asker extracts again.
  void finish(const std::string& key, StatusOr<StoredClaims> claims, bool keep);
  // One extraction to publish: finish(key, claims, keep).
  struct Finished {
    std::string key;
    StatusOr<StoredClaims> claims;
    bool keep = false;
  };
  // finish() of each, the kept ones written with one put_all: the claims one call gave
  // are stored together or not at all (verdict_store.h says why).
  void finish_all(std::vector<Finished> extractions);
  // Publishes claims the caller started and found in the cache file (load): kept in
  // memory, not written again.
  void remember(const std::string& key, StoredClaims claims) {
    memory_.finish(key, std::move(claims), true);
  }
  // The claims in the cache file, if any (a read error is a miss).
  std::optional<StoredClaims> load(const std::string& key) const;

 private:
  std::shared_ptr<llm::ResponseCache> cache_;
  std::string identity_;  // canonical JSON prefix: version, judge model, prompts
  OnceMap<StatusOr<StoredClaims>> memory_;
};

}  // namespace ragmeter
