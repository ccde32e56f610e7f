// RunEvaluation: run_target's rows, as they are finished, read by evaluate() on its own
// thread through a bounded queue.
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "ragmeter/run.h"

namespace ragmeter {
namespace {

struct QueuedRow {
  Row row;
  std::optional<RowError> error;
};

// The queue between the run (producer) and evaluate()'s reader (consumer).
class RowQueue {
 public:
  explicit RowQueue(std::size_t capacity) : capacity_(capacity) {}

  // False when the consumer has stopped (the row is dropped).
  bool push(QueuedRow row) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return rows_.size() < capacity_ || consumer_gone_; });
    if (consumer_gone_) return false;
    rows_.push_back(std::move(row));
    changed_.notify_all();
    return true;
  }

  void close() {
    std::lock_guard<std::mutex> lock(mutex_);
    closed_ = true;
    changed_.notify_all();
  }

  void consumer_gone() {
    std::lock_guard<std::mutex> lock(mutex_);
    consumer_gone_ = true;
    changed_.notify_all();
  }

  // The next row, or nullopt once closed and drained.
  std::optional<QueuedRow> pop() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return !rows_.empty() || closed_; });
    if (rows_.empty()) return std::nullopt;
    QueuedRow row = std::move(rows_.front());
    rows_.pop_front();
    changed_.notify_all();
    return row;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<QueuedRow> rows_;
  std::size_t capacity_;
  bool closed_ = false;
  bool consumer_gone_ = false;
};

class QueueReader final : public RowReader {
 public:
  explicit QueueReader(RowQueue& queue) : queue_(queue) {}
  Result next(Row* row, RowError* error) override {
    std::optional<QueuedRow> item = queue_.pop();
    if (!item) return Result::kEnd;
    if (item->error) {
      *error = std::move(*item->error);
      return Result::kError;
    }
    *row = std::move(item->row);
    return Result::kRow;
  }

 private:
  RowQueue& queue_;
};

class ThreadedRunEvaluation final : public RunEvaluation {
 public:
  ThreadedRunEvaluation(EvalOptions options, ResultSink& results, std::string source_name,
                        ProgressCallback progress)
      : options_(std::move(options)),
        source_name_(std::move(source_name)),
        queue_(std::max<std::size_t>(1024, 4 * options_.batch_rows)),
        reader_(queue_) {
    thread_ = std::thread([this, &results, progress = std::move(progress)] {
      result_ = evaluate(reader_, source_name_, options_, results, progress);
      queue_.consumer_gone();
    });
  }

  ~ThreadedRunEvaluation() override {
    queue_.close();
    if (thread_.joinable()) thread_.join();
  }

  Status on_row(const RunRow& run_row) override {
    // The run was stopped (RunOptions::cancel): its unanswered rows are not for scoring.
    if (!run_row.outcome.ok() && run_row.outcome.failure.kind == "interrupted") return ok_status();
    QueuedRow item;
    if (run_row.outcome.ok()) {
      item.row.fields = run_row_json(run_row);
      item.row.line = run_row.index + 1;  // its line in the run's output
      item.row.index = run_row.index;
    } else {
      RowError error;
      error.file = source_name_;
      error.line = run_row.index + 1;
      error.field = "run_error";
      error.message = run_row.outcome.failure.kind + ": " + run_row.outcome.failure.message;
      error.index = run_row.index;
      item.error = std::move(error);
    }
    if (!queue_.push(std::move(item))) {
      if (thread_.joinable()) thread_.join();
      if (result_.ok() && result_->cancelled) return ok_status();  // stopped: rows are dropped
      return result_.ok() ? internal_error("the evaluation stopped before its input ended")
                          : result_.status();
    }
    return ok_status();
  }

  StatusOr<EvalSummary> finish() override {
    queue_.close();
    if (thread_.joinable()) thread_.join();
    return result_;
  }

 private:
  EvalOptions options_;
  std::string source_name_;
  RowQueue queue_;
  QueueReader reader_;
  StatusOr<EvalSummary> result_{internal_error("the evaluation did not run")};
  std::thread thread_;  // last: started once the rest is built
};

}  // namespace

std::unique_ptr<RunEvaluation> RunEvaluation::start(EvalOptions options, ResultSink& results,
                                                    std::string source_name,
                                                    ProgressCallback progress) {
  return std::make_unique<ThreadedRunEvaluation>(std::move(options), results,
                                                 std::move(source_name), std::move(progress));
}

}  // namespace ragmeter
