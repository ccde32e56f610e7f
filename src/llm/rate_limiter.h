// Admission of judge requests: an adaptive in-flight limit (adaptive_limit.h) plus optional requests-per-minute
// and tokens-per-minute token buckets, and pauses the server asked for.
//
// Thread-compatible, not thread-safe: the client uses it from its loop thread only.
// Time is passed in (seconds on a monotonic clock), so tests need no clock.
#pragma once

#include <cstdint>

#include "llm/adaptive_limit.h"
#include "ragmeter/llm.h"

namespace ragmeter::llm {

// A token bucket refilled at `per_minute / 60` per second, holding at most one
// second's worth (at least one request's worth), so bursts stay small. A request
// larger than the bucket is admitted when the bucket is full and leaves it in debt.
class TokenBucket {
 public:
  explicit TokenBucket(double per_minute);
  // 0 when `amount` may go at `now`, else the seconds until it may.
  double wait_seconds(double amount, double now);
  // Takes `amount` (after wait_seconds() said 0).
  void take(double amount) { level_ -= amount; }

 private:

  double rate_per_second_;
  double capacity_;
  double level_;
  double last_refill_ = 0.0;
  bool started_ = false;
};

class RateLimiter {
 public:
  explicit RateLimiter(const RateLimitOptions& options);

  struct Admission {
    bool admitted = false;
    // When not admitted: the seconds until a bucket or a pause allows it, or 0 when
    // only the in-flight limit holds it back (wait for a release()).
    double wait_seconds = 0.0;
    std::uint64_t ticket = 0;  // when admitted: pass to on_throttled()
  };

  // Takes an in-flight slot and bucket capacity for a request of about `tokens`
  // tokens at time `now`, or says how long to wait.
  Admission try_acquire(double tokens, double now);
  // The request holding a slot has ended.
  void release();
  // Additive increase: one more slot, up to max_in_flight.
  void on_success() { adaptive_.on_success(); }
  // Multiplicative decrease on a 429 or an abandoned attempt: halves the limit (not
  // below 1), once per window: a request admitted before the last decrease (ticket
  // older) does not halve it again.
  void on_throttled(std::uint64_t ticket) { adaptive_.on_overload(ticket); }
  // Admits nothing before `until` (seconds on the same clock as `now`).
  void pause_until(double until);

  int limit() const { return adaptive_.limit(); }
  int in_flight() const { return in_flight_; }
  AdaptiveLimit& adaptive() { return adaptive_; }
  const AdaptiveLimit& adaptive() const { return adaptive_; }

 private:
  AdaptiveLimit adaptive_;
  int in_flight_ = 0;
  std::uint64_t next_ticket_ = 1;
  double paused_until_ = 0.0;
  bool use_requests_bucket_;
  bool use_tokens_bucket_;
  TokenBucket requests_;
  TokenBucket tokens_;
};

}  // namespace ragmeter::llm
