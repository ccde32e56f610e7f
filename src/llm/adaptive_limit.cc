#include "llm/adaptive_limit.h"

#include <algorithm>
#include <cmath>

namespace ragmeter::llm {

AdaptiveLimit::AdaptiveLimit(int ceiling)
    : ceiling_(std::max(ceiling, 1)), aimd_(ceiling_), lowest_(ceiling_) {}

int AdaptiveLimit::measured_parallelism() const {
  if (observations_.empty()) return 0;
  return *std::max_element(observations_.begin(), observations_.end());
}

int AdaptiveLimit::limit() const {
  int cap = ceiling_;
  if (announced_cap_ > 0) cap = std::min(cap, announced_cap_);
  if (int measured = measured_parallelism(); measured > 0) cap = std::min(cap, measured + 1);
  return std::max(1, std::min(static_cast<int>(aimd_), cap));
}

void AdaptiveLimit::set_server_slots(int slots) {
  if (slots <= 0) return;
  announced_cap_ = slots + 1;
  note_limit();
}

void AdaptiveLimit::on_sent(std::uint64_t ticket) { last_ticket_ = std::max(last_ticket_, ticket); }

void AdaptiveLimit::on_generation_start() {
  ++generating_;
  peak_ = std::max(peak_, generating_);
  if (waiting_ > 0) saturated_ = true;
}

// An observation closes when a generation ends: the peak since the last one counts when
// one of our requests waited meanwhile (the server could have taken it and did not), or
// when it is no lower than the parallelism measured so far (then nothing waited because
// the server took all we sent: the + 1 probe found a slot, and the cap rises).
void AdaptiveLimit::on_generation_end() {
  int measured = measured_parallelism();
  if (saturated_ || waiting_ > 0 || (measured > 0 && peak_ >= measured)) observe();
  generating_ = std::max(generating_ - 1, 0);
  peak_ = generating_;
  saturated_ = waiting_ > 0 && generating_ > 0;
}

void AdaptiveLimit::on_waiting_change(int delta) {
  waiting_ = std::max(waiting_ + delta, 0);
  if (waiting_ > 0 && generating_ > 0) saturated_ = true;
}

void AdaptiveLimit::observe() {
  if (peak_ <= 0) return;
  observations_.push_back(peak_);
  if (observations_.size() > static_cast<size_t>(kWindow)) observations_.pop_front();
  note_limit();
}

void AdaptiveLimit::on_success() {
  aimd_ = std::min<double>(ceiling_, aimd_ + 1.0);
}

void AdaptiveLimit::on_overload(std::uint64_t ticket) {
  if (ticket <= decrease_ticket_) return;
  aimd_ = std::max(1.0, std::floor(limit() / 2.0));
  decrease_ticket_ = last_ticket_;
  note_limit();
}

void AdaptiveLimit::note_limit() { lowest_ = std::min(lowest_, limit()); }

}  // namespace ragmeter::llm
