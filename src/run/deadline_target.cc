// make_deadline_target(): a time limit on each attempt of any Target, for targets that
// cannot stop an attempt themselves (a function of a language binding). One watchdog
// thread holds the deadlines; whichever of the attempt and its deadline ends first calls
// `done`, and the other is dropped.
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "ragmeter/run.h"

namespace ragmeter {
namespace {

using Clock = std::chrono::steady_clock;

// One attempt's `done`, called at most once by whichever side claims it first.
struct Pending {
  std::mutex mutex;
  Target::Done done;  // empty once claimed

  Target::Done claim() {
    std::lock_guard<std::mutex> lock(mutex);
    return std::exchange(done, nullptr);
  }
};

class DeadlineTarget final : public Target {
 public:
  DeadlineTarget(std::unique_ptr<Target> target, double timeout_seconds)
      : target_(std::move(target)),
        timeout_seconds_(timeout_seconds),
        timeout_(std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_seconds))),
        thread_([this] { watch(); }) {}

  ~DeadlineTarget() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    changed_.notify_all();
    thread_.join();
    target_.reset();  // its attempts still running end here (their `done` may not run)
  }

  void ask(const TargetRequest& request, Done done) override {
    auto pending = std::make_shared<Pending>();
    pending->done = std::move(done);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      deadlines_.emplace(Clock::now() + timeout_, pending);
    }
    changed_.notify_all();
    target_->ask(request, [pending](TargetOutcome outcome) {
      if (Done done = pending->claim()) done(std::move(outcome));
    });
  }

  std::string identity() const override { return target_->identity(); }
  nlohmann::ordered_json diagnostics() const override { return target_->diagnostics(); }

 private:
  void watch() {
    std::unique_lock<std::mutex> lock(mutex_);
    while (!stopping_) {
      if (deadlines_.empty()) {
        changed_.wait(lock);
        continue;
      }
      auto first = deadlines_.begin();
      if (Clock::now() < first->first) {
        changed_.wait_until(lock, first->first);
        continue;
      }
      std::shared_ptr<Pending> pending = first->second.lock();
      deadlines_.erase(first);
      if (!pending) continue;
      lock.unlock();
      if (Done done = pending->claim()) {
        done(target_failure("timeout", fmt::format("no answer within {:g} s", timeout_seconds_),
                            /*retryable=*/true));
      }
      lock.lock();
    }
  }

  std::unique_ptr<Target> target_;
  double timeout_seconds_;
  Clock::duration timeout_;
  std::mutex mutex_;
  std::condition_variable changed_;
  // Attempts by deadline; an entry whose attempt has ended (and dropped its Pending) is
  // skipped when it comes due.
  std::multimap<Clock::time_point, std::weak_ptr<Pending>> deadlines_;
  bool stopping_ = false;
  std::thread thread_;  // last: started after the rest is built
};

}  // namespace

std::unique_ptr<Target> make_deadline_target(std::unique_ptr<Target> target, double timeout_seconds) {
  if (!(timeout_seconds > 0)) return target;
  return std::make_unique<DeadlineTarget>(std::move(target), timeout_seconds);
}

}  // namespace ragmeter
