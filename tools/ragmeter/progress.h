// The progress display on stderr, shown only when stderr is a terminal: a bar with the
// share done, rows done of the total, rate, time elapsed and time left when the total is
// known; rows, rate and time elapsed otherwise. Redrawn as rows finish (at most ten times
// a second) and at least every second while nothing finishes, so a stalled run shows its
// clock moving. Writes nothing when stderr is not a terminal.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace ragmeter::cli {

// The display's line for `rows` done of `total` (nullopt: unknown) after `seconds`;
// `failed` >= 0 is shown. E.g. "scoring [#####...............]  25%  1,000/4,000 rows
// 500 rows/s  0:02 elapsed  0:06 left". Exposed for tests.
std::string progress_line(const char* label, std::int64_t rows, std::optional<std::int64_t> total,
                          std::int64_t failed, double seconds);

class Progress {
 public:
  // Enabled when stderr is a terminal and `quiet` is false. `label` starts the line.
  explicit Progress(bool quiet, const char* label = "scoring");
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  bool enabled() const { return enabled_; }
  // The total, when known (the bar and the time left need it).
  void set_total(std::int64_t total);
  // Sets the total from `count` (nullopt: unknown), called at once when `now`, else on a
  // thread of its own so the run need not wait; `count` should give up when its flag
  // turns true (finish() sets it). Nothing when disabled.
  using TotalCount = std::function<std::optional<std::int64_t>(const std::atomic<bool>& stop)>;
  void count_total(TotalCount count, bool now);
  // Rows seen so far (and of them failed, shown when >= 0).
  void update(std::int64_t rows, std::int64_t failed = -1);
  // Clears the line and stops the clock's redraws.
  void finish();

 private:
  void draw_locked(std::chrono::steady_clock::time_point now);
  void keep_clock();

  const char* label_;
  const bool enabled_;
  const std::chrono::steady_clock::time_point start_;
  std::mutex mutex_;  // guards everything below, and the terminal line
  std::condition_variable wake_;
  bool stopped_ = false;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_draw_;
  std::int64_t rows_ = 0;
  std::int64_t failed_ = -1;
  std::optional<std::int64_t> total_;
  std::thread clock_;  // redraws every second while enabled
  std::atomic<bool> stop_counting_{false};
  std::thread counter_;  // count_total's, when not at once
};

}  // namespace ragmeter::cli
