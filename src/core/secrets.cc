// The registry of secrets that redact_secrets() removes (status.h).
#include <atomic>
#include <cctype>
#include <mutex>
#include <string>
#include <vector>

#include "ragmeter/status.h"

namespace ragmeter {
namespace {

std::mutex& secrets_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::vector<std::string>& secrets() {
  static auto* values = new std::vector<std::string>();  // never destroyed: used at exit too
  return *values;
}

std::atomic<bool> any_secret{false};

}  // namespace

void register_secret(std::string_view value) {
  if (value.size() < 4) return;
  std::lock_guard<std::mutex> lock(secrets_mutex());
  for (const std::string& known : secrets()) {
    if (known == value) return;
  }
  secrets().emplace_back(value);
  any_secret.store(true, std::memory_order_release);
}

std::string redact_secrets(std::string text) {
  if (!any_secret.load(std::memory_order_acquire) || text.empty()) return text;
  std::lock_guard<std::mutex> lock(secrets_mutex());
  for (const std::string& secret : secrets()) text = redact_secret(std::move(text), secret);
  return text;
}

std::string redact_secret(std::string text, std::string_view secret) {
  if (secret.empty()) return text;
  // Random keys of this length do not occur in ordinary text; shorter ones may.
  constexpr std::size_t kAnywhereFrom = 16;
  auto word_byte = [](unsigned char c) {
    return std::isalnum(c) != 0 || c == '-' || c == '_' || c >= 0x80;
  };
  const std::string_view mark = "[redacted]";
  for (size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, at)) {
    const size_t end = at + secret.size();
    const bool alone = (at == 0 || !word_byte(static_cast<unsigned char>(text[at - 1]))) &&
                       (end == text.size() || !word_byte(static_cast<unsigned char>(text[end])));
    if (secret.size() >= kAnywhereFrom || alone) {
      text.replace(at, secret.size(), mark);
      at += mark.size();
    } else {
      at += 1;
    }
  }
  return text;
}

}  // namespace ragmeter
