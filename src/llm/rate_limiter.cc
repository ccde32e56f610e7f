#include "llm/rate_limiter.h"

#include <algorithm>

namespace ragmeter::llm {

TokenBucket::TokenBucket(double per_minute)
    : rate_per_second_(std::max(per_minute, 0.0) / 60.0),
      capacity_(std::max(rate_per_second_, 1.0)),
      level_(capacity_) {}

double TokenBucket::wait_seconds(double amount, double now) {
  if (rate_per_second_ <= 0) return 0.0;
  if (started_) level_ = std::min(capacity_, level_ + (now - last_refill_) * rate_per_second_);
  started_ = true;
  last_refill_ = now;
  double needed = std::min(amount, capacity_);
  if (level_ >= needed) return 0.0;
  return (needed - level_) / rate_per_second_;
}

RateLimiter::RateLimiter(const RateLimitOptions& options)
    : adaptive_(options.max_in_flight),
      use_requests_bucket_(options.requests_per_minute > 0),
      use_tokens_bucket_(options.tokens_per_minute > 0),
      requests_(options.requests_per_minute),
      tokens_(options.tokens_per_minute) {}

RateLimiter::Admission RateLimiter::try_acquire(double tokens, double now) {
  if (now < paused_until_) return {false, paused_until_ - now, 0};
  if (in_flight_ >= adaptive_.limit()) return {false, 0.0, 0};
  double wait = 0.0;
  if (use_requests_bucket_) wait = std::max(wait, requests_.wait_seconds(1.0, now));
  if (use_tokens_bucket_) wait = std::max(wait, tokens_.wait_seconds(tokens, now));
  if (wait > 0) return {false, wait, 0};
  if (use_requests_bucket_) requests_.take(1.0);
  if (use_tokens_bucket_) tokens_.take(tokens);
  ++in_flight_;
  adaptive_.on_sent(next_ticket_);
  return {true, 0.0, next_ticket_++};
}

void RateLimiter::release() { in_flight_ = std::max(in_flight_ - 1, 0); }

void RateLimiter::pause_until(double until) { paused_until_ = std::max(paused_until_, until); }

}  // namespace ragmeter::llm
