#include "progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

namespace ragmeter::cli {
namespace {

constexpr auto kMinRedraw = std::chrono::milliseconds(100);  // as rows finish
constexpr auto kClockRedraw = std::chrono::seconds(1);       // while none finishes
constexpr int kBarWidth = 20;

// "1,234,567"
std::string with_commas(std::int64_t n) {
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

// "0:07", "12:05", "1:02:09"
std::string clock_text(double seconds) {
  const auto total = static_cast<long long>(std::max(0.0, seconds));
  if (total >= 3600) {
    return fmt::format("{}:{:02}:{:02}", total / 3600, (total / 60) % 60, total % 60);
  }
  return fmt::format("{}:{:02}", total / 60, total % 60);
}

}  // namespace

std::string progress_line(const char* label, std::int64_t rows, std::optional<std::int64_t> total,
                          std::int64_t failed, double seconds) {
  const double rate = seconds > 0 ? static_cast<double>(rows) / seconds : 0.0;
  std::string line;
  if (total && *total > 0) {
    const double done =
        std::clamp(static_cast<double>(rows) / static_cast<double>(*total), 0.0, 1.0);
    const int filled = static_cast<int>(done * kBarWidth);
    line = fmt::format("{} [{}{}] {:3.0f}%  {}/{} rows  {:.0f} rows/s  {} elapsed", label,
                       std::string(filled, '#'), std::string(kBarWidth - filled, '.'),
                       100.0 * done, with_commas(rows), with_commas(*total), rate,
                       clock_text(seconds));
    if (rows >= *total) {
      line += "  0:00 left";
    } else if (rate > 0) {
      line += "  " + clock_text(static_cast<double>(*total - rows) / rate) + " left";
    } else {
      line += "  ? left";
    }
  } else {
    line = fmt::format("{}: {} rows  {:.0f} rows/s  {} elapsed", label, with_commas(rows), rate,
                       clock_text(seconds));
  }
  if (failed >= 0) line += fmt::format("  {} failed", with_commas(failed));
  return line;
}

Progress::Progress(bool quiet, const char* label)
    : label_(label),
      enabled_(!quiet && isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {
  if (enabled_) clock_ = std::thread([this] { keep_clock(); });
}

Progress::~Progress() { finish(); }

void Progress::set_total(std::int64_t total) {
  std::lock_guard<std::mutex> lock(mutex_);
  total_ = total;
}

void Progress::count_total(TotalCount count, bool now) {
  if (!enabled_) return;
  auto run = [this, count = std::move(count)] {
    if (auto total = count(stop_counting_)) set_total(*total);
  };
  if (now) {
    run();
  } else {
    counter_ = std::thread(std::move(run));
  }
}

void Progress::update(std::int64_t rows, std::int64_t failed) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mutex_);
  rows_ = rows;
  failed_ = failed;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_draw_ < kMinRedraw) return;
  draw_locked(now);
}

void Progress::draw_locked(std::chrono::steady_clock::time_point now) {
  if (stopped_) return;
  last_draw_ = now;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  const std::string line = progress_line(label_, rows_, total_, failed_, seconds);
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::keep_clock() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopped_) {
    if (wake_.wait_for(lock, kClockRedraw, [this] { return stopped_; })) break;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_draw_ >= kClockRedraw) draw_locked(now);
  }
}

void Progress::finish() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (enabled_ && drawn_ && !stopped_) std::fprintf(stderr, "\r\033[K");
    drawn_ = false;
    stopped_ = true;
  }
  wake_.notify_all();
  if (clock_.joinable()) clock_.join();
  stop_counting_.store(true);
  if (counter_.joinable()) counter_.join();
}

}  // namespace ragmeter::cli
