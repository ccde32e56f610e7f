#include "llm/retry_policy.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <vector>

namespace ragmeter::llm {
namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

// A whole string as a finite non-negative number.
std::optional<double> parse_number(std::string_view text) {
  text = trim(text);
  double value = 0.0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() ||
      !std::isfinite(value) || value < 0) {
    return std::nullopt;
  }
  return value;
}

std::optional<double> header_number(const std::map<std::string, std::string>& headers,
                                    const std::string& name) {
  auto found = headers.find(name);
  if (found == headers.end()) return std::nullopt;
  return parse_number(found->second);
}

std::optional<unsigned> month_number(std::string_view name) {
  static constexpr std::array<std::string_view, 12> kMonths = {
      "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (size_t i = 0; i < kMonths.size(); ++i) {
    if (name == kMonths[i]) return static_cast<unsigned>(i + 1);
  }
  return std::nullopt;
}

std::vector<std::string_view> split_date(std::string_view text) {
  std::vector<std::string_view> tokens;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == ' ' || text[i] == ',' || text[i] == '-') {
      if (i > start) tokens.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  return tokens;
}

std::optional<std::chrono::seconds> parse_clock_time(std::string_view text) {
  if (text.size() != 8 || text[2] != ':' || text[5] != ':') return std::nullopt;
  auto field = [&](size_t at) { return parse_number(text.substr(at, 2)); };
  auto hours = field(0), minutes = field(3), seconds = field(6);
  if (!hours || !minutes || !seconds || *hours > 23 || *minutes > 59 || *seconds > 60) {
    return std::nullopt;
  }
  return std::chrono::seconds(static_cast<long>(*hours * 3600 + *minutes * 60 + *seconds));
}

}  // namespace

bool is_retryable(const HttpResponse& response) {
  int status = response.status;
  return status == 0 || status == 408 || status == 409 || status == 429 || status >= 500;
}

double backoff_seconds(int retry, const RetryOptions& options, std::mt19937_64& random) {
  double ceiling = options.initial_backoff_seconds * std::ldexp(1.0, std::clamp(retry, 0, 60));
  ceiling = std::min(ceiling, options.max_backoff_seconds);
  if (!(ceiling > 0)) return 0.0;
  return std::uniform_real_distribution<double>(0.0, ceiling)(random);
}

// The tokens of the three forms, weekday dropped, all give day before year:
// "06 Nov 1994 08:49:37 GMT", "06 Nov 94 08:49:37 GMT", "Nov 6 08:49:37 1994".
std::optional<std::chrono::system_clock::time_point> parse_http_date(std::string_view text) {
  std::vector<std::string_view> tokens = split_date(trim(text));
  if (tokens.size() < 5) return std::nullopt;
  std::optional<unsigned> month;
  std::optional<std::chrono::seconds> time_of_day;
  std::vector<double> numbers;
  for (size_t i = 1; i < tokens.size(); ++i) {
    if (auto m = month_number(tokens[i])) {
      month = m;
    } else if (auto t = parse_clock_time(tokens[i])) {
      time_of_day = t;
    } else if (auto n = parse_number(tokens[i])) {
      numbers.push_back(*n);
    } else if (tokens[i] != "GMT" && tokens[i] != "UTC") {
      return std::nullopt;
    }
  }
  if (!month || !time_of_day || numbers.size() != 2) return std::nullopt;
  int year = static_cast<int>(numbers[1]);
  if (year < 100) year += year >= 70 ? 1900 : 2000;  // RFC 850's two-digit years
  std::chrono::year_month_day date{std::chrono::year(year), std::chrono::month(*month),
                                   std::chrono::day(static_cast<unsigned>(numbers[0]))};
  if (!date.ok()) return std::nullopt;
  return std::chrono::sys_days(date) + *time_of_day;
}

std::optional<double> parse_reset_duration(std::string_view text) {
  text = trim(text);
  if (auto bare = parse_number(text)) return bare;
  double total = 0.0;
  bool any = false;
  while (!text.empty()) {
    size_t digits = 0;
    while (digits < text.size() && (std::isdigit(static_cast<unsigned char>(text[digits])) ||
                                    text[digits] == '.')) {
      ++digits;
    }
    auto value = parse_number(text.substr(0, digits));
    if (!value) return std::nullopt;
    text.remove_prefix(digits);
    double unit = 0.0;
    if (text.starts_with("ms")) {
      unit = 0.001;
      text.remove_prefix(2);
    } else if (!text.empty() && (text[0] == 's' || text[0] == 'm' || text[0] == 'h')) {
      unit = text[0] == 's' ? 1.0 : text[0] == 'm' ? 60.0 : 3600.0;
      text.remove_prefix(1);
    } else {
      return std::nullopt;
    }
    total += *value * unit;
    any = true;
  }
  if (!any) return std::nullopt;
  return total;
}

std::optional<double> retry_after_seconds(const std::map<std::string, std::string>& headers,
                                          const RetryOptions& options,
                                          std::chrono::system_clock::time_point now) {
  std::optional<double> wait;
  if (auto ms = header_number(headers, "retry-after-ms")) {
    wait = *ms / 1000.0;
  } else if (auto found = headers.find("retry-after"); found != headers.end()) {
    if (auto seconds = parse_number(found->second)) {
      wait = seconds;
    } else if (auto date = parse_http_date(found->second)) {
      wait = std::chrono::duration<double>(*date - now).count();
    }
  }
  if (!wait) return std::nullopt;
  return std::clamp(*wait, 0.0, options.max_backoff_seconds * 4);
}

std::optional<double> quota_pause_seconds(const std::map<std::string, std::string>& headers,
                                          double tokens_per_request) {
  // Without a reset header the quota is assumed to refill within a second.
  auto reset = [&](const std::string& name) {
    auto found = headers.find(name);
    std::optional<double> seconds;
    if (found != headers.end()) seconds = parse_reset_duration(found->second);
    return seconds.value_or(1.0);
  };
  std::optional<double> pause;
  auto requests = header_number(headers, "x-ratelimit-remaining-requests");
  if (requests && *requests < 1) pause = reset("x-ratelimit-reset-requests");
  auto tokens = header_number(headers, "x-ratelimit-remaining-tokens");
  if (tokens && *tokens < tokens_per_request) {
    pause = std::max(pause.value_or(0.0), reset("x-ratelimit-reset-tokens"));
  }
  return pause;
}

RetryDecision decide_retry(const HttpResponse& response, int attempts_made,
                           const RetryOptions& options, std::mt19937_64& random,
                           std::chrono::system_clock::time_point now) {
  if (!is_retryable(response) || attempts_made >= options.max_attempts) return {};
  if (auto wait = retry_after_seconds(response.headers, options, now)) return {true, *wait};
  return {true, backoff_seconds(attempts_made - 1, options, random)};
}

}  // namespace ragmeter::llm
