// make_deadline_target(): a time limit on each attempt of any Target, for targets that
// cannot stop an attempt themselves (a function of a language binding). One watchdog
// thread holds the deadlines; whichever of the attempt and its deadline ends first calls
// `done`, and the other is dropped.
//
// The book of deadlines owns each attempt's `done` until the attempt ends. A target that
// loses an attempt (frees its callback without calling it, as a Python callback that
// raised inside asyncio's future callbacks did) still sees the attempt end at its
// deadline; when the book only held it weakly, such an attempt vanished from the book
// and its row waited forever.
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "ragmeter/run.h"

namespace ragmeter {
namespace {

using Clock = std::chrono::steady_clock;

struct Pending;
using Deadlines = std::multimap<Clock::time_point, std::shared_ptr<Pending>>;

// One attempt's `done`, called at most once by whichever side claims it first.
struct Pending {
  std::mutex mutex;
  Target::Done done;  // empty once claimed
  // Its entry in Book::deadlines while it is there; guarded by Book::mutex.
  std::optional<Deadlines::iterator> entry;

  Target::Done claim() {
    std::lock_guard<std::mutex> lock(mutex);
    return std::exchange(done, nullptr);
  }
};

// The attempts not yet ended, by deadline. Shared with the attempts' callbacks, so an
// answer arriving after the target is gone (an abandoned coroutine) touches nothing freed.
struct Book {
  std::mutex mutex;
  std::condition_variable changed;
  Deadlines deadlines;
  bool stopping = false;

  // Takes an attempt that ended before its deadline out of the book.
  void forget(Pending& pending) {
    std::lock_guard<std::mutex> lock(mutex);
    if (pending.entry) {
      deadlines.erase(*pending.entry);
      pending.entry.reset();
    }
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
      std::lock_guard<std::mutex> lock(book_->mutex);
      book_->stopping = true;
    }
    book_->changed.notify_all();
    thread_.join();
    target_.reset();  // its attempts still running end here (their `done` may not run)
  }

  void ask(const TargetRequest& request, Done done) override {
    auto pending = std::make_shared<Pending>();
    pending->done = std::move(done);
    {
      std::lock_guard<std::mutex> lock(book_->mutex);
      pending->entry = book_->deadlines.emplace(Clock::now() + timeout_, pending);
    }
    book_->changed.notify_all();
    // The callback holds the attempt weakly (the book owns it until it ends), so the
    // callback being freed uncalled changes nothing.
    std::weak_ptr<Pending> weak = pending;
    target_->ask(request, [book = book_, weak](TargetOutcome outcome) {
      std::shared_ptr<Pending> pending = weak.lock();
      if (!pending) return;  // ended at its deadline, or the target is gone
      Done done = pending->claim();
      if (!done) return;
      book->forget(*pending);
      done(std::move(outcome));
    });
  }

  std::string identity() const override { return target_->identity(); }
  nlohmann::ordered_json diagnostics() const override { return target_->diagnostics(); }
  void cancel() override { target_->cancel(); }

 private:
  void watch() {
    Book& book = *book_;
    std::unique_lock<std::mutex> lock(book.mutex);
    while (!book.stopping) {
      if (book.deadlines.empty()) {
        book.changed.wait(lock);
        continue;
      }
      auto first = book.deadlines.begin();
      // A copy: wait_until reads its time point after waking, when an attempt that
      // ended meanwhile may have freed the entry it came from.
      const Clock::time_point deadline = first->first;
      if (Clock::now() < deadline) {
        book.changed.wait_until(lock, deadline);
        continue;
      }
      std::shared_ptr<Pending> pending = std::move(first->second);
      pending->entry.reset();
      book.deadlines.erase(first);
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
  std::shared_ptr<Book> book_ = std::make_shared<Book>();
  std::thread thread_;  // last: started after the rest is built
};

}  // namespace

std::unique_ptr<Target> make_deadline_target(std::unique_ptr<Target> target, double timeout_seconds) {
  if (!(timeout_seconds > 0)) return target;
  return std::make_unique<DeadlineTarget>(std::move(target), timeout_seconds);
}

}  // namespace ragmeter
