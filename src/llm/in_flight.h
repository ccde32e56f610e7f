// The judge client's attempts in flight and what they show of the server: which attempt
// waits behind this client's own earlier ones (time not charged to a call's deadline),
// the server's last sign of life, and how fast it evaluates prompts (from streamed
// replies), hence how long it may stay silent before an attempt is given up (the stall
// limit). Keeps the adaptive in-flight limit's counts of attempts waiting and generating.
//
// Loop thread only; time is passed in (seconds on the client's monotonic clock).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string_view>
#include <vector>

#include "llm/adaptive_limit.h"
#include "llm/call.h"
#include "llm/http_transport.h"

namespace ragmeter::llm {

// What an attempt that ended without a reply (the watchdog or cancel() ended it) cost.
struct AbandonedAttempt {
  bool timed_out = false;     // counted as a timed-out attempt (not a deadline, not a stop)
  double server_seconds = 0;  // from when the server could have started it to its end
};

class InFlightAttempts {
 public:
  // `timeout_seconds`: the configured stall limit, the least it can be. `adaptive` (which
  // must outlive this) is told of the attempts waiting and generating.
  InFlightAttempts(double timeout_seconds, AdaptiveLimit& adaptive)
      : timeout_seconds_(timeout_seconds), adaptive_(adaptive) {}

  // `call`'s attempt was sent at `at`. Returns its serial (its watchdog's).
  std::uint64_t begin(Call& call, double at);
  // Bytes of `call`'s attempt arrived at `at`.
  void on_data(Call& call, std::string_view bytes, double at);
  // `call`'s attempt ended at `at` with `response`; what it cost when it was abandoned.
  std::optional<AbandonedAttempt> end(Call& call, const HttpResponse& response, double at);

  // Adds the prompt speed of `call`'s streamed reply (a 2xx) to the recent ones.
  void note_speed(const Call& call, double prompt_tokens);
  // The configured timeout, or 3x the measured time of the server for the largest
  // prompt sent so far (the server may be silent that long evaluating it).
  double stall_limit() const;
  // When `call`'s attempt counts as stalled: stall_limit() after the last byte of it or
  // of any other attempt of this client.
  double stall_due(const Call& call) const;

  // The transport's ids of the attempts in flight, oldest first.
  std::vector<std::uint64_t> exchanges() const;

 private:
  void first_data(Call& call, double at);
  void stop_counting(Call& call);

  const double timeout_seconds_;
  AdaptiveLimit& adaptive_;
  // Attempts sent and not yet ended, by send order (Call::send_order_).
  std::map<std::uint64_t, Call*> attempts_;
  std::uint64_t attempts_sent_ = 0;
  double last_progress_at_ = 0;       // the last byte or reply from the server, any attempt
  double last_reply_at_ = -1;         // the last attempt that ended with a reply
  double largest_prompt_ = 0;         // estimated tokens, over every attempt sent
  std::deque<double> prompt_speeds_;  // tokens per second, recent streamed replies
};

}  // namespace ragmeter::llm
