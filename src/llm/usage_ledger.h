// What a judge client has done, for its totals(), traces() and halted(): requests, tokens
// and their cost (also reported to the budget shared with other clients), cache hits,
// failures, the in-flight limit it settled on, each call's trace (without the key), and
// whether it stopped sending because the server refused the key.
//
// Thread-safe: calls end, and book their usage, on any thread.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "llm/adaptive_limit.h"
#include "llm/call.h"
#include "ragmeter/judge_hooks.h"
#include "ragmeter/llm.h"

namespace ragmeter::llm {

class UsageLedger {
 public:
  // `options` must outlive the ledger; `permits` null: no budget shared with others.
  UsageLedger(const ClientOptions& options, std::shared_ptr<PermitSource> permits)
      : options_(options), permits_(std::move(permits)) {}

  UsageTotals totals() const;
  std::vector<CallTrace> traces() const;

  // Why the client stopped sending, or OK. The first halt() wins.
  Status halted() const;
  bool is_halted() const { return is_halted_.load(); }
  void halt(const Status& why);

  // Whether the cost so far reached options.max_cost_usd (never without one).
  bool over_budget() const;

  // Books a reply's tokens and their cost, priced by `model` (the configured model when
  // empty).
  void add_usage(const TokenUsage& usage, const std::string& model);
  void count_request();
  void count_estimated_usage();
  void count_redacted_reply();
  void count_abandoned_attempt(bool timed_out, double server_seconds);
  // Takes the in-flight limit's current, lowest and measured values into the totals.
  void publish_limits(const AdaptiveLimit& adaptive);

  // Records how `call` ended: the totals, and its trace with options.keep_traces.
  void record(const Call& call, const Status& status, bool from_cache);

 private:
  const ClientOptions& options_;
  const std::shared_ptr<PermitSource> permits_;
  mutable std::mutex mutex_;  // guards totals_, traces_ and halted_
  UsageTotals totals_;
  Status halted_;  // why the client stopped sending (OK: it did not)
  std::atomic<bool> is_halted_{false};
  std::vector<CallTrace> traces_;
};

}  // namespace ragmeter::llm
