#include "llm/admission.h"

#include <algorithm>
#include <utility>

namespace ragmeter::llm {

Admission::Admission(const RateLimitOptions& limits, std::shared_ptr<PermitSource> permits)
    : limiter_(limits), permits_(std::move(permits)) {}

Admission::Step Admission::next(double now, bool halted) {
  if (slots_pending_ || waiting_.empty()) return {};
  if (halted) return take_front(Step::Kind::kHalted);
  // A format probe is out: the next JSON call waits for its answer (and its format).
  if (probes_in_flight_ > 0 && waiting_.front()->probes_format()) return {};
  RateLimiter::Admission admission = limiter_.try_acquire(waiting_.front()->tokens_, now);
  if (!admission.admitted) {
    return admission.wait_seconds > 0 ? wake_after(admission.wait_seconds) : Step{};
  }
  if (std::optional<Step> held = ask_permits()) return std::move(*held);
  Step step = take_front(Step::Kind::kSend);
  step.call->ticket_ = admission.ticket;
  return step;
}

// One rate limit and budget across clients (judge_hooks.h).
std::optional<Admission::Step> Admission::ask_permits() {
  if (!permits_) return std::nullopt;
  Permit permit = permits_->acquire(waiting_.front()->tokens_);
  if (permit.kind == Permit::Kind::kGranted) return std::nullopt;
  limiter_.release();
  if (permit.kind == Permit::Kind::kRefused) {
    Step step = take_front(Step::Kind::kRefused);
    step.refusal = permit.reason;
    return step;
  }
  return wake_after(std::max(permit.wait_seconds, 0.001));
}

Admission::Step Admission::take_front(Step::Kind kind) {
  Step step;
  step.kind = kind;
  step.call = std::move(waiting_.front());
  waiting_.pop_front();
  return step;
}

Admission::Step Admission::wake_after(double seconds) {
  if (wake_set_) return {};
  wake_set_ = true;
  Step step;
  step.kind = Step::Kind::kWake;
  step.wait_seconds = seconds;
  return step;
}

void Admission::server_slots_known(int slots) {
  if (slots > 0) limiter_.adaptive().set_server_slots(slots);
  slots_pending_ = false;
}

void Admission::on_send(Call& call) {
  call.probing_ = call.probes_format();
  if (call.probing_) ++probes_in_flight_;
}

void Admission::end_probe(Call& call) {
  if (!call.probing_) return;
  call.probing_ = false;
  --probes_in_flight_;
}

}  // namespace ragmeter::llm
