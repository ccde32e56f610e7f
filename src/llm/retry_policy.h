// Which HTTP outcomes are retried, how long to wait before the next attempt, and when
// the server's rate-limit headers say to slow down before it answers 429.
//
// Pure functions of their arguments (the random source and the clock are passed in),
// so they are thread-safe and testable without a server.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <string_view>

#include "llm/http_transport.h"
#include "ragmeter/llm.h"

namespace ragmeter::llm {

// True for outcomes another attempt may fix: no response (connection refused or
// dropped, timeout), 408, 409, 429 and every 5xx.
bool is_retryable(const HttpResponse& response);

// The capped exponential backoff before retry number `retry` (0 for the first retry)
// with full jitter: uniform in [0, min(max_backoff, initial * 2^retry)].
double backoff_seconds(int retry, const RetryOptions& options, std::mt19937_64& random);

// The wait a server asks for, from "retry-after-ms" (milliseconds) or "retry-after"
// (seconds, or an HTTP date relative to `now`), capped at max_backoff_seconds * 4 and
// never negative. nullopt when neither header is present or parses.
std::optional<double> retry_after_seconds(const std::map<std::string, std::string>& headers,
                                          const RetryOptions& options,
                                          std::chrono::system_clock::time_point now);

// Parses an HTTP date (IMF-fixdate "Sun, 06 Nov 1994 08:49:37 GMT", RFC 850 or asctime
// form). nullopt when it is none of them.
std::optional<std::chrono::system_clock::time_point> parse_http_date(std::string_view text);

// Parses the durations of x-ratelimit-reset-* headers: "1s", "6m0s", "20ms", "1h2m3.5s",
// or a bare number of seconds. nullopt when it does not parse.
std::optional<double> parse_reset_duration(std::string_view text);

// How long to hold new requests back, from the x-ratelimit-remaining-requests /
// -tokens and x-ratelimit-reset-requests / -tokens headers of a reply: the reset time
// of a quota that is exhausted (no request left, or fewer tokens left than
// `tokens_per_request`). nullopt when no quota is exhausted or the headers are absent.
std::optional<double> quota_pause_seconds(const std::map<std::string, std::string>& headers,
                                          double tokens_per_request);

// What to do after a failed attempt.
struct RetryDecision {
  bool retry = false;
  double delay_seconds = 0.0;  // before the next attempt, when retry
};

// Retries retryable outcomes while attempts_made < max_attempts, after the server's
// retry-after when it gave one, else after the jittered backoff of `retry`
// (attempts_made - 1).
RetryDecision decide_retry(const HttpResponse& response, int attempts_made,
                           const RetryOptions& options, std::mt19937_64& random,
                           std::chrono::system_clock::time_point now);

}  // namespace ragmeter::llm
