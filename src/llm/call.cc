#include "llm/call.h"

#include <limits>

#include "llm/openai_client.h"

namespace ragmeter::llm {

void Call::book_usage(const TokenUsage& usage, const std::string& model) {
  usage_.prompt_tokens += usage.prompt_tokens;
  usage_.completion_tokens += usage.completion_tokens;
  usage_.cached_tokens += usage.cached_tokens;
  client_->add_usage(usage, model);
}

void Call::set_body(nlohmann::json body) {
  body_ = std::move(body);
  if (streams_) {
    body_["stream"] = true;
    body_["stream_options"] = {{"include_usage", true}};
  }
  body_text_ = body_.dump();
  exchange_attempts_ = 0;
}

double Call::charged_seconds(double now) const {
  if (first_sent_ < 0) return 0.0;
  double queued = queued_seconds_;
  if (in_flight_) queued += (behind_until_ >= 0 ? behind_until_ : now) - sent_at_;
  return now - first_sent_ - queued;
}

double Call::seconds_left(double deadline_seconds, double now) const {
  if (deadline_seconds <= 0 || first_sent_ < 0) return std::numeric_limits<double>::infinity();
  return deadline_seconds - charged_seconds(now);
}

Status Call::record_failure(Status status) {
  status = client_->redacted(status);
  client_->record(*this, status, false);
  return status;
}

void Call::record_success(bool from_cache) { client_->record(*this, ok_status(), from_cache); }

bool Call::cache_takes_writes() const { return client_->cache().mode() == CacheMode::kReadWrite; }

// A failed write costs a later miss, not this call: the reply is good. A reply that
// echoes the key is stored without it.
void Call::put_in_cache(const std::string& value) {
  [[maybe_unused]] Status stored =
      client_->cache().put(key_, kind_, redact_secrets(client_->redact(value)));
}

}  // namespace ragmeter::llm
