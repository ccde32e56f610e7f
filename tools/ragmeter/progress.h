// A one-line progress display on stderr, shown only when stderr is a terminal.
#pragma once

#include <chrono>
#include <cstdint>

namespace ragmeter::cli {

class Progress {
 public:
  // Enabled when stderr is a terminal and `quiet` is false.
  explicit Progress(bool quiet);
  ~Progress();
  // Rows seen so far; redraws at most ten times a second.
  void update(std::int64_t rows);
  // Clears the line.
  void finish();

 private:
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

}  // namespace ragmeter::cli
