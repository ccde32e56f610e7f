// Hooks that let several judge clients (processes, machines: the workers of a Ray run,
// python/ragmeter/ray.py) share one rate limit, one cost budget and one reply cache.
//
// A client made with ClientHooks::permits asks its PermitSource before every HTTP attempt
// and reports every reply's tokens and cost to it; one made with ClientHooks::store (and
// an LLM judge with LlmJudgeOptions::verdict_store) keeps its replies there instead of in
// its own SQLite file.
// The implementations live where the shared state is: SharedLimiter below holds the
// limits (a coordinator process serves it), open_reply_store() the cache file (a cache
// process serves it); the clients' side forwards to them (the Python binding's
// callbacks, which take the GIL only for the call).
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "ragmeter/llm.h"
#include "ragmeter/status.h"

namespace ragmeter::llm {

// The answer to one request for a permit.
struct Permit {
  enum class Kind {
    kGranted,  // send now
    kWait,     // ask again after wait_seconds (a rate limit holds it back)
    kRefused,  // never: the call fails with ResourceExhausted and `reason`
  };
  Kind kind = Kind::kGranted;
  double wait_seconds = 0.0;
  std::string reason;
};

// Where a client gets permits. Both methods are called on the client's loop thread,
// which does nothing else meanwhile: they must return soon (a round trip to a
// coordinator, not a wait for the limit: that is what kWait is for). Must be
// thread-safe when several clients share one source.
class PermitSource {
 public:
  virtual ~PermitSource() = default;
  // Before each HTTP attempt (retries included) of a request of about `tokens` tokens
  // (prompt estimate + max_tokens, what the tokens-per-minute bucket counts).
  virtual Permit acquire(double tokens) = 0;
  // After each reply whose usage was booked: its tokens and their cost (0 for an
  // unknown model), so the source can hold a budget across clients.
  virtual void report(const TokenUsage& usage, double cost_usd) = 0;
};

// One value to store: its content address, kind ("chat", "embeddings", "verdict",
// "claims") and value.
struct StoreEntry {
  std::string key;
  std::string kind;
  std::string value;
};

// A store of judge replies by content address (the interface of the judge cache), kept
// outside the client. get/put are called from any thread of the client and of the
// judge; implementations must be thread-safe.
class ReplyStore {
 public:
  virtual ~ReplyStore() = default;
  // The stored value for `key`, or nullopt. Unavailable when the store cannot answer.
  virtual StatusOr<std::optional<std::string>> get(const std::string& key) = 0;
  // Stores `value` under `key` durably before returning OK (a put that returned is never
  // lost, whatever happens to the caller afterwards). kind: "chat", "embeddings",
  // "verdict", "claims".
  virtual Status put(const std::string& key, const std::string& kind, const std::string& value) = 0;
  // Stores `entries` durably before returning OK, all or none: the judge keeps what one
  // call told it (the verdict cells of a table, the claims of the sentences it asked) with
  // one put_all, so a caller killed meanwhile leaves the call's results whole or absent,
  // never a part that a rerun would complete with a smaller call (docs/design.md, "A
  // call's results are stored together"). The default puts the entries one by one, which
  // is not all-or-nothing: a store that can be must override it.
  virtual Status put_all(const std::vector<StoreEntry>& entries);
};

// What a client shares with others; a null member is not shared.
struct ClientHooks {
  // Every HTTP attempt first asks for a permit and every reply's usage is reported to
  // it: one rate limit and one budget across clients, on top of ClientOptions::limits
  // and max_cost_usd. One call on the client's loop thread per attempt.
  std::shared_ptr<PermitSource> permits;
  // Replies are kept here instead of in ClientOptions::cache.path (which is not
  // opened); cache.mode still applies. Each get and put is a call to the store (a round
  // trip when it is remote).
  std::shared_ptr<ReplyStore> store;
};

// make_client() with `hooks`. Same errors as make_client().
StatusOr<std::unique_ptr<Client>> make_client(const ClientOptions& options, const ClientHooks& hooks);

// The judge cache file of `options` (SQLite, as --cache) as a
// ReplyStore, for the process that serves it to others. Errors as the client's cache:
// NotFound for a missing file in kReadOnly/kReplay, Unavailable when it cannot be opened.
// A kOff store misses every get and stores nothing. Thread-safe.
StatusOr<std::shared_ptr<ReplyStore>> open_reply_store(const CacheOptions& options);

struct SharedLimitOptions {
  double requests_per_minute = 0;  // across every client; 0: no cap
  double tokens_per_minute = 0;    // across every client; 0: no cap (estimated tokens)
  double max_cost_usd = 0;         // across every client; 0: no budget
};

// Totals of what a SharedLimiter granted and was told.
struct SharedTotals {
  std::int64_t permits = 0;  // granted: the HTTP requests sent, retries included
  std::int64_t refused = 0;  // refused for the budget
  std::int64_t waits = 0;    // answers of kWait
  TokenUsage tokens;         // reported
  double cost_usd = 0.0;     // reported
};

// One rate limit and one budget for many clients, the state behind a PermitSource:
// token buckets as RateLimitOptions' (refilled at limit / 60 per second, holding one
// second's worth, at least one request's), and the budget as ClientOptions::max_cost_usd
// (a request that would start once the reported cost has reached it is refused: calls
// in flight may still end past it). Time is passed in (monotonic seconds). Thread-safe.
class SharedLimiter {
 public:
  explicit SharedLimiter(const SharedLimitOptions& options);
  ~SharedLimiter();
  Permit acquire(double tokens, double now_seconds);
  void report(const TokenUsage& usage, double cost_usd);
  SharedTotals totals() const;

 private:
  struct Buckets;
  const SharedLimitOptions options_;
  mutable std::mutex mutex_;
  std::unique_ptr<Buckets> buckets_;
  SharedTotals totals_;
};

}  // namespace ragmeter::llm
