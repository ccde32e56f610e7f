// Verdicts stored by content: one entry per (judge, prompts, claim text, premise text),
// in the judge's cache file, so a rerun in which only the retriever changed asks the judge
// only for the (claim, chunk) pairs it has not seen, however the calls were grouped.
// Internal to src/judge/ (docs/design.md, "Verdict cells").
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "llm/response_cache.h"
#include "ragmeter/claim_ledger.h"
#include "ragmeter/llm.h"

namespace ragmeter {

// A stored verdict and the cache key of the call that produced it (named in evidence).
struct StoredVerdict {
  VerdictCell cell;
  std::string call;
};

class VerdictStore {
 public:
  // A store in `cache` (null or kOff: stores and finds nothing) for the judge at
  // `endpoint` with the prompt texts `prompts` (part of every key).
  VerdictStore(std::shared_ptr<llm::ResponseCache> cache, const llm::EndpointOptions& endpoint,
               std::string prompts);

  // The stored verdict of `claim` against `premise`, if any. A read error is a miss.
  std::optional<StoredVerdict> find(const std::string& claim, const std::string& premise) const;
  // Stores a judged cell (unjudged cells are not stored: they are asked again next time).
  // Does nothing unless the cache is read-write; a write error is ignored (the verdict is
  // still used in this run, and asked again in the next).
  void store(const std::string& claim, const std::string& premise, const StoredVerdict& verdict);

  bool enabled() const { return cache_ != nullptr && cache_->mode() != llm::CacheMode::kOff; }

 private:
  std::string key(const std::string& claim, const std::string& premise) const;

  std::shared_ptr<llm::ResponseCache> cache_;
  std::string identity_;  // canonical JSON prefix: judge model, prompts
};

}  // namespace ragmeter
