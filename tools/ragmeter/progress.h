// A one-line progress display on stderr, shown only when stderr is a terminal.
#pragma once

#include <chrono>
#include <cstdint>

namespace ragmeter::cli {

class Progress {
 public:
  // Enabled when stderr is a terminal and `quiet` is false. `label` starts the line.
  explicit Progress(bool quiet, const char* label = "scoring");
  ~Progress();
  // Rows seen so far (and of them failed, shown when >= 0); redraws at most ten times
  // a second.
  void update(std::int64_t rows, std::int64_t failed = -1);
  // Clears the line.
  void finish();

 private:
  const char* label_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace ragmeter::cli
