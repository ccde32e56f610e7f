// make_pooled_target(): a BlockingTarget behind the asynchronous Target interface, on a
// fixed pool of threads, one per worker slot.
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "ragmeter/run.h"

namespace ragmeter {
namespace {

class PooledTarget final : public Target {
 public:
  PooledTarget(std::shared_ptr<BlockingTarget> target, int workers) : target_(std::move(target)) {
    for (int worker = 0; worker < workers; ++worker) {
      threads_.emplace_back([this, worker] { serve(worker); });
    }
  }

  ~PooledTarget() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
      queue_.clear();
    }
    wake_.notify_all();
    for (auto& thread : threads_) thread.join();
  }

  void ask(const TargetRequest& request, Done done) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.emplace_back(request, std::move(done));
    }
    wake_.notify_one();
  }

  std::string identity() const override { return target_->identity(); }
  nlohmann::ordered_json diagnostics() const override { return target_->diagnostics(); }

  void cancel() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.clear();  // never started: their `done` is not called
    }
    target_->cancel();
  }

 private:
  void serve(int worker) {
    while (true) {
      std::pair<TargetRequest, Done> job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
        if (stopping_) return;
        job = std::move(queue_.front());
        queue_.pop_front();
      }
      TargetOutcome outcome;
      try {
        outcome = target_->answer(job.first, worker);
      } catch (const std::exception& e) {
        outcome = target_failure("target_error", std::string("the target threw: ") + e.what());
      }
      job.second(std::move(outcome));
    }
  }

  std::shared_ptr<BlockingTarget> target_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::pair<TargetRequest, Done>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;  // last: started after the rest is built
};

}  // namespace

std::unique_ptr<Target> make_pooled_target(std::shared_ptr<BlockingTarget> target, int workers) {
  return std::make_unique<PooledTarget>(std::move(target), std::max(1, workers));
}

}  // namespace ragmeter
