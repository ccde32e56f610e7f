#include "progress.h"

#include <unistd.h>

#include <cstdio>

namespace ragmeter::cli {

Progress::Progress(bool quiet, const char* label)
    : label_(label),
      enabled_(!quiet && isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

Progress::~Progress() { finish(); }

void Progress::update(std::int64_t rows, std::int64_t failed) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  double seconds = std::chrono::duration<double>(now - start_).count();
  double rate = seconds > 0 ? static_cast<double>(rows) / seconds : 0.0;
  std::fprintf(stderr, "\r\033[K%s: %lld rows  %.0f rows/s  %.1fs", label_,
               static_cast<long long>(rows), rate, seconds);
  if (failed >= 0) std::fprintf(stderr, "  %lld failed", static_cast<long long>(failed));
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::finish() {
  if (enabled_ && drawn_) std::fprintf(stderr, "\r\033[K");
  drawn_ = false;
}

}  // namespace ragmeter::cli
