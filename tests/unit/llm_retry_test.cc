// Retry decisions, backoff bounds, retry-after and rate-limit header parsing, and the
// AIMD limiter with its token buckets.
#include <chrono>
#include <random>

#include <gtest/gtest.h>

#include "llm/rate_limiter.h"
#include "llm/retry_policy.h"

namespace ragmeter::llm {
namespace {

using std::chrono::system_clock;

HttpResponse response_with(int status, std::map<std::string, std::string> headers = {}) {
  HttpResponse response;
  response.status = status;
  response.headers = std::move(headers);
  return response;
}

system_clock::time_point at(int year, unsigned month, unsigned day, int h, int m, int s) {
  return std::chrono::sys_days(std::chrono::year(year) / month / day) + std::chrono::hours(h) +
         std::chrono::minutes(m) + std::chrono::seconds(s);
}

TEST(LlmRetryTest, RetriesConnectionErrorsTimeoutsAndTransientStatuses) {
  for (int status : {0, 408, 409, 429, 500, 502, 503, 504, 599}) {
    EXPECT_TRUE(is_retryable(response_with(status))) << status;
  }
  for (int status : {200, 400, 401, 403, 404, 422}) {
    EXPECT_FALSE(is_retryable(response_with(status))) << status;
  }
}

TEST(LlmRetryTest, BackoffIsFullJitterUnderTheCappedExponential) {
  RetryOptions options;
  options.initial_backoff_seconds = 0.5;
  options.max_backoff_seconds = 4.0;
  std::mt19937_64 random(42);
  for (int retry = 0; retry < 8; ++retry) {
    double ceiling = std::min(4.0, 0.5 * (1 << retry));
    double largest = 0.0;
    for (int i = 0; i < 2000; ++i) {
      double delay = backoff_seconds(retry, options, random);
      ASSERT_GE(delay, 0.0);
      ASSERT_LE(delay, ceiling);
      largest = std::max(largest, delay);
    }
    EXPECT_GT(largest, ceiling * 0.95) << "jitter should span the whole range";
  }
}

TEST(LlmRetryTest, RetryAfterSecondsMillisecondsAndDates) {
  RetryOptions options;  // cap: 30 * 4 = 120 s
  auto now = at(2015, 10, 21, 7, 28, 0);
  EXPECT_EQ(retry_after_seconds({{"retry-after", "3"}}, options, now), 3.0);
  EXPECT_EQ(retry_after_seconds({{"retry-after", " 1.5 "}}, options, now), 1.5);
  EXPECT_EQ(retry_after_seconds({{"retry-after-ms", "250"}, {"retry-after", "9"}}, options, now),
            0.25);
  EXPECT_EQ(retry_after_seconds({{"retry-after", "Wed, 21 Oct 2015 07:28:30 GMT"}}, options, now),
            30.0);
  EXPECT_EQ(retry_after_seconds({{"retry-after", "Wed, 21 Oct 2015 07:27:00 GMT"}}, options, now),
            0.0);
  EXPECT_EQ(retry_after_seconds({{"retry-after", "100000"}}, options, now), 120.0);
  EXPECT_EQ(retry_after_seconds({{"retry-after", "soon"}}, options, now), std::nullopt);
  EXPECT_EQ(retry_after_seconds({{"retry-after", "-5"}}, options, now), std::nullopt);
  EXPECT_EQ(retry_after_seconds({}, options, now), std::nullopt);
}

TEST(LlmRetryTest, HttpDateForms) {
  auto expected = at(1994, 11, 6, 8, 49, 37);
  EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), expected);
  EXPECT_EQ(parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT"), expected);
  EXPECT_EQ(parse_http_date("Sun Nov  6 08:49:37 1994"), expected);
  EXPECT_EQ(parse_http_date("Sun, 31 Feb 1994 08:49:37 GMT"), std::nullopt);
  EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 25:49:37 GMT"), std::nullopt);
  EXPECT_EQ(parse_http_date("yesterday"), std::nullopt);
}

TEST(LlmRetryTest, ResetDurations) {
  EXPECT_EQ(parse_reset_duration("1s"), 1.0);
  EXPECT_EQ(parse_reset_duration("6m0s"), 360.0);
  EXPECT_EQ(parse_reset_duration("20ms"), 0.02);
  EXPECT_EQ(parse_reset_duration("1h2m3.5s"), 3723.5);
  EXPECT_EQ(parse_reset_duration("7"), 7.0);
  EXPECT_EQ(parse_reset_duration("5x"), std::nullopt);
  EXPECT_EQ(parse_reset_duration(""), std::nullopt);
}

TEST(LlmRetryTest, QuotaHeadersPauseBeforeA429) {
  EXPECT_EQ(quota_pause_seconds({{"x-ratelimit-remaining-requests", "0"},
                                 {"x-ratelimit-reset-requests", "2s"}},
                                100),
            2.0);
  EXPECT_EQ(quota_pause_seconds({{"x-ratelimit-remaining-requests", "10"},
                                 {"x-ratelimit-remaining-tokens", "50"},
                                 {"x-ratelimit-reset-tokens", "1m"}},
                                100),
            60.0);
  EXPECT_EQ(quota_pause_seconds({{"x-ratelimit-remaining-requests", "0"}}, 100), 1.0);
  EXPECT_EQ(quota_pause_seconds({{"x-ratelimit-remaining-requests", "10"},
                                 {"x-ratelimit-remaining-tokens", "5000"}},
                                100),
            std::nullopt);
  EXPECT_EQ(quota_pause_seconds({}, 100), std::nullopt);
}

TEST(LlmRetryTest, DecideRetryHonoursRetryAfterAndTheAttemptBudget) {
  RetryOptions options;
  options.max_attempts = 3;
  std::mt19937_64 random(1);
  auto now = system_clock::now();
  RetryDecision told = decide_retry(response_with(429, {{"retry-after", "2"}}), 1, options, random, now);
  EXPECT_TRUE(told.retry);
  EXPECT_EQ(told.delay_seconds, 2.0);
  RetryDecision backoff = decide_retry(response_with(503), 2, options, random, now);
  EXPECT_TRUE(backoff.retry);
  EXPECT_LE(backoff.delay_seconds, options.initial_backoff_seconds * 2);
  EXPECT_FALSE(decide_retry(response_with(503), 3, options, random, now).retry);
  EXPECT_FALSE(decide_retry(response_with(400), 1, options, random, now).retry);
}

RateLimitOptions limits(int max_in_flight, double rpm = 0, double tpm = 0) {
  RateLimitOptions options;
  options.max_in_flight = max_in_flight;
  options.requests_per_minute = rpm;
  options.tokens_per_minute = tpm;
  return options;
}

TEST(LlmRateLimiterTest, InFlightLimitHoldsUntilARelease) {
  RateLimiter limiter(limits(2));
  EXPECT_TRUE(limiter.try_acquire(1, 0).admitted);
  EXPECT_TRUE(limiter.try_acquire(1, 0).admitted);
  RateLimiter::Admission third = limiter.try_acquire(1, 0);
  EXPECT_FALSE(third.admitted);
  EXPECT_EQ(third.wait_seconds, 0.0);
  limiter.release();
  EXPECT_TRUE(limiter.try_acquire(1, 0).admitted);
}

TEST(LlmRateLimiterTest, HalvesOncePerWindowAndGrowsBackByOne) {
  RateLimiter limiter(limits(16));
  std::vector<std::uint64_t> tickets;
  for (int i = 0; i < 16; ++i) tickets.push_back(limiter.try_acquire(1, 0).ticket);
  limiter.on_throttled(tickets[3]);
  EXPECT_EQ(limiter.limit(), 8);
  limiter.on_throttled(tickets[9]);  // admitted before the decrease: same window
  EXPECT_EQ(limiter.limit(), 8);
  for (int i = 0; i < 16; ++i) limiter.release();
  std::uint64_t later = limiter.try_acquire(1, 0).ticket;
  limiter.on_throttled(later);
  EXPECT_EQ(limiter.limit(), 4);
  limiter.on_success();
  EXPECT_EQ(limiter.limit(), 5);
  for (int i = 0; i < 100; ++i) limiter.on_success();
  EXPECT_EQ(limiter.limit(), 16);
}

TEST(LlmRateLimiterTest, NeverHalvesBelowOne) {
  RateLimiter limiter(limits(2));
  for (int i = 0; i < 5; ++i) {
    limiter.on_throttled(limiter.try_acquire(1, 0).ticket);
    limiter.release();
  }
  EXPECT_EQ(limiter.limit(), 1);
}

TEST(LlmRateLimiterTest, RequestsPerMinuteSpacesRequests) {
  RateLimiter limiter(limits(100, /*rpm=*/120));  // two a second, a burst of two
  EXPECT_TRUE(limiter.try_acquire(1, 0).admitted);
  EXPECT_TRUE(limiter.try_acquire(1, 0).admitted);
  RateLimiter::Admission held = limiter.try_acquire(1, 0);
  EXPECT_FALSE(held.admitted);
  EXPECT_NEAR(held.wait_seconds, 0.5, 1e-9);
  EXPECT_TRUE(limiter.try_acquire(1, 0.5).admitted);
}

TEST(LlmRateLimiterTest, TokensPerMinuteAdmitsALargeRequestIntoDebt) {
  RateLimiter limiter(limits(100, 0, /*tpm=*/6000));  // 100 tokens a second
  EXPECT_TRUE(limiter.try_acquire(300, 0).admitted);  // larger than the bucket: debt of 200
  RateLimiter::Admission held = limiter.try_acquire(50, 0);
  EXPECT_FALSE(held.admitted);
  EXPECT_NEAR(held.wait_seconds, 2.5, 1e-9);
  EXPECT_TRUE(limiter.try_acquire(50, 2.5).admitted);
}

TEST(LlmRateLimiterTest, PauseHoldsEverything) {
  RateLimiter limiter(limits(4));
  limiter.pause_until(3.0);
  RateLimiter::Admission held = limiter.try_acquire(1, 1.0);
  EXPECT_FALSE(held.admitted);
  EXPECT_DOUBLE_EQ(held.wait_seconds, 2.0);
  EXPECT_TRUE(limiter.try_acquire(1, 3.0).admitted);
}

}  // namespace
}  // namespace ragmeter::llm
