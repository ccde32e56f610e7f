// The judge cache: replies stored by the content address of their request, in SQLite.
//
// Safe under concurrency (one connection guarded by a mutex, WAL journal, busy timeout
// so several processes can share a file) and under a kill at any moment (each put is
// one committed transaction; SQLite's journal makes it all-or-nothing).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ragmeter/judge_hooks.h"
#include "ragmeter/llm.h"

namespace ragmeter::llm {

class ResponseCache {
 public:
  virtual ~ResponseCache() = default;
  // The stored reply for `key`, or nullopt on a miss (always in kOff mode).
  // Unavailable when the file cannot be read (e.g. locked past the busy timeout).
  virtual StatusOr<std::optional<std::string>> get(const std::string& key) = 0;
  // Stores `value` under `key` (kind: "chat" or "embeddings"), replacing an older entry,
  // in one committed transaction; a no-op returning OK unless kReadWrite. Unavailable
  // when the write fails (disk full, locked past the busy timeout).
  virtual Status put(const std::string& key, const std::string& kind, const std::string& value) = 0;
  // Stores every entry, all or none (one committed transaction in the file; one put_all of
  // the ReplyStore behind a store cache); a no-op returning OK unless kReadWrite.
  virtual Status put_all(const std::vector<StoreEntry>& entries) = 0;
  virtual CacheMode mode() const = 0;
};

// Opens the cache of `options`: kReadWrite creates the file and its parent directories
// when needed; kReadOnly and kReplay open the file read-only and never write to it; kOff
// opens nothing (every get misses). An empty path means default_cache_path().
// NotFound naming the path when the file is missing in kReadOnly/kReplay; Unavailable
// naming the path when it cannot be opened, created or read as a cache.
// The returned cache is thread-safe: any number of threads may call get and put.
StatusOr<std::unique_ptr<ResponseCache>> open_response_cache(const CacheOptions& options);

// A cache kept in `store` (judge_hooks.h), shared with other processes: gets go to it,
// puts only in kReadWrite; kOff misses every get.
std::unique_ptr<ResponseCache> make_store_cache(std::shared_ptr<ReplyStore> store, CacheMode mode);

// The default cache location: ${XDG_CACHE_HOME:-$HOME/.cache}/ragmeter/judge.sqlite
// (a relative XDG_CACHE_HOME is ignored, as the XDG spec says; without HOME the path is
// relative to the working directory). Reads the environment: not safe against a
// concurrent setenv.
std::string default_cache_path();

// Hex SHA-256 of `canonical`: the content address other stores in the cache file use
// for their keys (the verdict cells of src/judge/llm/verdict_store.h).
std::string content_address(const std::string& canonical);

}  // namespace ragmeter::llm
