// Which waiting judge call is sent next, and when: the client's queue of calls waiting to
// be sent, its rate limiter (adaptive in-flight limit, request and token buckets, pauses
// the server asked for), the limits and budget shared with other clients (PermitSource,
// judge_hooks.h), one format probe at a time, and the wait for the server's slot count.
//
// Decisions only: the client acts on each Step (sends, fails, sets the timer). Loop thread
// only; time is passed in (seconds on the client's monotonic clock).
#pragma once

#include <deque>
#include <memory>
#include <optional>
#include <string>

#include "llm/call.h"
#include "llm/rate_limiter.h"
#include "ragmeter/judge_hooks.h"
#include "ragmeter/llm.h"

namespace ragmeter::llm {

class Admission {
 public:
  // `permits` null: no limits shared with other clients.
  Admission(const RateLimitOptions& limits, std::shared_ptr<PermitSource> permits);

  struct Step {
    enum class Kind {
      kIdle,     // nothing can go now: the queue is empty, or it waits for an attempt to
                 // end, the server's slots, or a timer already set
      kSend,     // `call` was admitted (its ticket_ set) and left the queue: send it
      kHalted,   // the client halted: `call` left the queue; fail it with the halt's status
      kRefused,  // the shared budget refused `call` (it left the queue) for `refusal`
      kWake,     // nothing can go before `wait_seconds`: run the pump again then, and
                 // call on_wake() first (until then no other kWake is given)
    };
    Kind kind = Kind::kIdle;
    std::shared_ptr<Call> call;
    std::string refusal;
    double wait_seconds = 0.0;
  };

  // The next step for the queue's front call at `now`; `halted`: the client stopped
  // sending. Call it again after each step but kIdle and kWake.
  Step next(double now, bool halted);
  void on_wake() { wake_set_ = false; }

  // Queues `call` after the calls waiting (a new call, a repair) or before them (a retry,
  // a weaker response format: no fresh call goes ahead of it).
  void push_back(std::shared_ptr<Call> call) { waiting_.push_back(std::move(call)); }
  void push_front(std::shared_ptr<Call> call) { waiting_.push_front(std::move(call)); }
  // Drops the calls waiting (they end as their last holders let go of them).
  void clear() { waiting_.clear(); }

  // Nothing goes until server_slots_known(): the client asked the server how many
  // requests it serves at once. `slots` > 0 sets the in-flight limit's starting cap.
  void wait_for_server_slots() { slots_pending_ = true; }
  void server_slots_known(int slots);

  // An admitted call is being sent: it counts as the format probe when it probes.
  void on_send(Call& call);
  // The attempt of an admitted call ended: its in-flight slot and its probe are free.
  void release_slot() { limiter_.release(); }
  void end_probe(Call& call);

  RateLimiter& limiter() { return limiter_; }
  const RateLimiter& limiter() const { return limiter_; }

 private:
  Step take_front(Step::Kind kind);
  Step wake_after(double seconds);
  // Asks the shared permits for the front call (its in-flight slot already taken): no
  // step when granted, else what the refusal or the wait means.
  std::optional<Step> ask_permits();

  RateLimiter limiter_;
  const std::shared_ptr<PermitSource> permits_;
  std::deque<std::shared_ptr<Call>> waiting_;
  int probes_in_flight_ = 0;    // calls sent with probing_ set
  bool wake_set_ = false;       // a kWake was given and its timer has not run yet
  bool slots_pending_ = false;  // the server's slots not yet known
};

}  // namespace ragmeter::llm
