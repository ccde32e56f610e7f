// The registry of secrets that redact_secrets() removes (status.h).
#include <atomic>
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
  for (const std::string& secret : secrets()) {
    for (size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, at)) {
      text.replace(at, secret.size(), "[redacted]");
    }
  }
  return text;
}

}  // namespace ragmeter
