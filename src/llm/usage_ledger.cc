#include "llm/usage_ledger.h"

#include <optional>

#include "llm/openai_protocol.h"
#include "llm/pricing.h"

namespace ragmeter::llm {

UsageTotals UsageLedger::totals() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return totals_;
}

std::vector<CallTrace> UsageLedger::traces() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return traces_;
}

Status UsageLedger::halted() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return halted_;
}

void UsageLedger::halt(const Status& why) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!halted_.ok()) return;
    halted_ = Status(why.code(), why.message() + "; no further requests were sent");
  }
  is_halted_.store(true);
}

bool UsageLedger::over_budget() const {
  if (options_.max_cost_usd <= 0) return false;
  std::lock_guard<std::mutex> lock(mutex_);
  return totals_.cost_usd >= options_.max_cost_usd;
}

void UsageLedger::add_usage(const TokenUsage& usage, const std::string& model) {
  const std::string& priced = model.empty() ? options_.endpoint.model : model;
  std::optional<ModelPrice> price = find_price(priced, options_.prices);
  double cost = price ? cost_usd(usage, *price) : 0.0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    totals_.tokens.prompt_tokens += usage.prompt_tokens;
    totals_.tokens.completion_tokens += usage.completion_tokens;
    totals_.tokens.cached_tokens += usage.cached_tokens;
    totals_.cost_usd += cost;
  }
  if (permits_) permits_->report(usage, cost);
}

void UsageLedger::count_request() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++totals_.requests;
}

void UsageLedger::count_estimated_usage() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++totals_.estimated_usage_calls;
}

void UsageLedger::count_redacted_reply() {
  std::lock_guard<std::mutex> lock(mutex_);
  ++totals_.key_redacted_replies;
}

void UsageLedger::count_abandoned_attempt(bool timed_out, double server_seconds) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (timed_out) ++totals_.timed_out_attempts;
  totals_.abandoned_server_seconds += server_seconds;
}

void UsageLedger::publish_limits(const AdaptiveLimit& adaptive) {
  std::lock_guard<std::mutex> lock(mutex_);
  totals_.concurrency_limit = adaptive.limit();
  totals_.concurrency_lowest = adaptive.lowest_limit();
  totals_.server_parallelism = adaptive.measured_parallelism();
}

void UsageLedger::record(const Call& call, const Status& status, bool from_cache) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (from_cache) ++totals_.cache_hits;
  if (!status.ok()) ++totals_.failed_calls;
  if (!from_cache && call.attempts_ > 0) {
    totals_.images += call.images_;
    totals_.image_tokens += call.image_tokens_;
  }
  if (!options_.keep_traces) return;
  // The request can quote an earlier reply (a repair), and a reply can echo the key.
  nlohmann::json request = nlohmann::json::parse(
      redact_secrets(redact_key(call.body_text_, options_.endpoint)), nullptr, false);
  traces_.push_back({call.kind_, call.purpose_, call.key_,
                     request.is_discarded() ? call.body_ : request,
                     redact_secrets(redact_key(call.last_.body, options_.endpoint)), call.attempts_,
                     from_cache, status.ok() ? "" : status.to_string()});
}

}  // namespace ragmeter::llm
