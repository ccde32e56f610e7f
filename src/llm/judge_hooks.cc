// Shared limits and reply stores for clients in several processes (judge_hooks.h).
#include "ragmeter/judge_hooks.h"

#include <cstdio>

#include "llm/rate_limiter.h"
#include "llm/response_cache.h"

namespace ragmeter::llm {
namespace {

// The SQLite cache behind the ReplyStore interface.
class CacheFileStore final : public ReplyStore {
 public:
  explicit CacheFileStore(std::unique_ptr<ResponseCache> cache) : cache_(std::move(cache)) {}
  StatusOr<std::optional<std::string>> get(const std::string& key) override {
    return cache_->get(key);
  }
  Status put(const std::string& key, const std::string& kind, const std::string& value) override {
    return cache_->put(key, kind, value);
  }
  Status put_all(const std::vector<StoreEntry>& entries) override {
    return cache_->put_all(entries);
  }

 private:
  std::unique_ptr<ResponseCache> cache_;
};

std::string money(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

}  // namespace

Status ReplyStore::put_all(const std::vector<StoreEntry>& entries) {
  for (const StoreEntry& entry : entries) {
    RAGMETER_RETURN_IF_ERROR(put(entry.key, entry.kind, entry.value));
  }
  return ok_status();
}

StatusOr<std::shared_ptr<ReplyStore>> open_reply_store(const CacheOptions& options) {
  RAGMETER_ASSIGN_OR_RETURN(std::unique_ptr<ResponseCache> cache, open_response_cache(options));
  return std::shared_ptr<ReplyStore>(std::make_shared<CacheFileStore>(std::move(cache)));
}

struct SharedLimiter::Buckets {
  explicit Buckets(const SharedLimitOptions& options)
      : requests(options.requests_per_minute), tokens(options.tokens_per_minute) {}
  TokenBucket requests;
  TokenBucket tokens;
};

SharedLimiter::SharedLimiter(const SharedLimitOptions& options)
    : options_(options), buckets_(std::make_unique<Buckets>(options)) {}

SharedLimiter::~SharedLimiter() = default;

Permit SharedLimiter::acquire(double tokens, double now_seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (options_.max_cost_usd > 0 && totals_.cost_usd >= options_.max_cost_usd) {
    ++totals_.refused;
    // The words of a single client's budget refusal (call_errors.cc), so a cluster run's
    // reasons read as a single process's.
    return {Permit::Kind::kRefused, 0.0,
            "the cost budget of $" + money(options_.max_cost_usd) + " is spent"};
  }
  double wait = 0.0;
  if (options_.requests_per_minute > 0) {
    wait = std::max(wait, buckets_->requests.wait_seconds(1.0, now_seconds));
  }
  if (options_.tokens_per_minute > 0) {
    wait = std::max(wait, buckets_->tokens.wait_seconds(tokens, now_seconds));
  }
  if (wait > 0) {
    ++totals_.waits;
    return {Permit::Kind::kWait, wait, {}};
  }
  if (options_.requests_per_minute > 0) buckets_->requests.take(1.0);
  if (options_.tokens_per_minute > 0) buckets_->tokens.take(tokens);
  ++totals_.permits;
  return {};
}

void SharedLimiter::report(const TokenUsage& usage, double cost_usd) {
  std::lock_guard<std::mutex> lock(mutex_);
  totals_.tokens.prompt_tokens += usage.prompt_tokens;
  totals_.tokens.completion_tokens += usage.completion_tokens;
  totals_.tokens.cached_tokens += usage.cached_tokens;
  totals_.cost_usd += cost_usd;
}

SharedTotals SharedLimiter::totals() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return totals_;
}

}  // namespace ragmeter::llm
