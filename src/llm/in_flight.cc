#include "llm/in_flight.h"

#include <algorithm>

namespace ragmeter::llm {

std::uint64_t InFlightAttempts::begin(Call& call, double at) {
  call.in_flight_ = true;
  // An attempt sent while none of ours is in flight waits behind nothing of ours.
  call.behind_until_ = attempts_.empty() ? at : -1;
  call.send_order_ = ++attempts_sent_;
  attempts_.emplace(call.send_order_, &call);
  call.abandoned_ = false;
  call.past_deadline_ = false;
  call.sent_at_ = call.last_byte_at_ = at;
  call.first_data_at_ = -1;
  call.service_start_ = at;
  call.progress_ = StreamProgress();
  std::uint64_t serial = ++call.serial_;
  if (call.streams_) {
    call.waiting_ = true;
    adaptive_.on_waiting_change(+1);
  }
  largest_prompt_ = std::max(largest_prompt_, call.prompt_tokens_);
  return serial;
}

void InFlightAttempts::on_data(Call& call, std::string_view bytes, double at) {
  call.last_byte_at_ = last_progress_at_ = at;
  if (!call.streams_) {
    if (call.behind_until_ < 0) call.behind_until_ = at;  // the server is answering it
    return;
  }
  if (call.progress_.feed(bytes) == 0 && !call.progress_.done()) return;
  if (call.waiting_ && call.progress_.data_events() > 0) first_data(call, at);
  if (call.generating_ && call.progress_.done()) {
    call.generating_ = false;
    adaptive_.on_generation_end();
  }
}

void InFlightAttempts::first_data(Call& call, double at) {
  call.waiting_ = false;
  adaptive_.on_waiting_change(-1);
  call.first_data_at_ = at;
  if (call.behind_until_ < 0) call.behind_until_ = at;  // being served
  // A server serving one request at a time starts the next after its previous reply.
  call.service_start_ = std::max(call.sent_at_, last_reply_at_);
  call.generating_ = true;
  adaptive_.on_generation_start();
}

std::optional<AbandonedAttempt> InFlightAttempts::end(Call& call, const HttpResponse& response,
                                                      double at) {
  call.in_flight_ = false;
  attempts_.erase(call.send_order_);
  call.queued_seconds_ += (call.behind_until_ >= 0 ? call.behind_until_ : at) - call.sent_at_;
  // The oldest attempt still in flight no longer waits behind one of ours.
  if (!attempts_.empty()) {
    Call* oldest = attempts_.begin()->second;
    if (oldest->behind_until_ < 0) oldest->behind_until_ = at;
  }
  stop_counting(call);
  if (response.cancelled || response.timed_out) {
    AbandonedAttempt abandoned;
    // Cancelled by the watchdog (no sign of life), or by cancel() (the run is stopping).
    abandoned.timed_out = response.timed_out || (call.abandoned_ && !call.past_deadline_);
    // From when the server could have started it (after the reply before it) to now.
    double start =
        call.first_data_at_ >= 0 ? call.service_start_ : std::max(call.sent_at_, last_reply_at_);
    abandoned.server_seconds = std::max(0.0, at - start);
    return abandoned;
  }
  if (response.status != 0) {
    last_progress_at_ = at;
    last_reply_at_ = at;
  }
  return std::nullopt;
}

void InFlightAttempts::stop_counting(Call& call) {
  if (call.waiting_) {
    call.waiting_ = false;
    adaptive_.on_waiting_change(-1);
  }
  if (call.generating_) {
    call.generating_ = false;
    adaptive_.on_generation_end();
  }
}

// Prompt tokens per second of a streamed reply: its prompt over the time from when the
// server could start it to its first chunk (queueing makes this an underestimate: the
// stall limit errs long).
void InFlightAttempts::note_speed(const Call& call, double prompt_tokens) {
  if (call.first_data_at_ < 0 || prompt_tokens <= 0) return;
  double seconds = call.first_data_at_ - call.service_start_;
  if (seconds <= 0) return;
  prompt_speeds_.push_back(prompt_tokens / seconds);
  if (prompt_speeds_.size() > 9) prompt_speeds_.pop_front();
}

double InFlightAttempts::stall_limit() const {
  double limit = timeout_seconds_;
  if (prompt_speeds_.empty()) return limit;
  std::vector<double> speeds(prompt_speeds_.begin(), prompt_speeds_.end());
  std::nth_element(speeds.begin(), speeds.begin() + speeds.size() / 2, speeds.end());
  double speed = speeds[speeds.size() / 2];
  return speed > 0 ? std::max(limit, 3.0 * largest_prompt_ / speed) : limit;
}

double InFlightAttempts::stall_due(const Call& call) const {
  return std::max(call.last_byte_at_, last_progress_at_) + stall_limit();
}

std::vector<std::uint64_t> InFlightAttempts::exchanges() const {
  std::vector<std::uint64_t> ids;
  for (const auto& [order, call] : attempts_) ids.push_back(call->exchange_);
  return ids;
}

}  // namespace ragmeter::llm
