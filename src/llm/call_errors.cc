#include "llm/call_errors.h"

#include <cstdio>
#include <utility>

#include "llm/openai_protocol.h"
#include "llm/retry_policy.h"

namespace ragmeter::llm {

Status deadline_exceeded(std::string message) {
  return {StatusCode::kDeadlineExceeded, std::move(message)};
}

Status resource_exhausted(std::string message) {
  return {StatusCode::kResourceExhausted, std::move(message)};
}

std::string number_text(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

bool format_rejected(const Call& call) {
  return call.body_.contains("response_format") &&
         is_format_rejection(call.last_.status, call.last_.body);
}

Status last_attempt_status(const Call& call, double stall_limit, const std::string& api_key_env) {
  const HttpResponse& response = call.last_;
  std::string attempts = " (" + std::to_string(call.exchange_attempts_) + " attempts)";
  if (response.status == 0 && response.timed_out) {
    return deadline_exceeded("no reply within " + number_text(stall_limit) +
                             " s of the server's last sign of life" + attempts);
  }
  if (response.status == 0) return unavailable("connection failed: " + response.error + attempts);
  std::string what = "HTTP " + std::to_string(response.status) + " from the server";
  if (response.status == 401 || response.status == 403) {
    // The server's text may quote the key: only its name is given.
    return failed_precondition(what + ": authentication failed; check the key in $" + api_key_env);
  }
  what += ": " + server_error_message(response.body);
  if (format_rejected(call)) return invalid_argument(what + " (response_format not accepted)");
  if (is_retryable(response)) return unavailable(what + attempts);
  if (response.status == 404) {
    // A wrong base URL (most servers' ends in /v1) or a model the server does not have:
    // where the request went tells which.
    what += " (sent to " + call.url_ +
            (call.url_.find("/v1/") == std::string::npos
                 ? "; most servers' base URL ends in /v1)"
                 : ")");
  }
  if (response.status == 400 || response.status == 404 || response.status == 422) {
    return invalid_argument(what);
  }
  return unavailable(what);
}

namespace {

std::string deadline_prefix(const Call& call, double deadline_seconds) {
  return "no usable reply within the call's deadline of " + number_text(deadline_seconds) + " s (" +
         std::to_string(call.attempts_) + " attempts); ";
}

}  // namespace

Status deadline_status(const Call& call, double deadline_seconds, const Status& last) {
  return deadline_exceeded(deadline_prefix(call, deadline_seconds) + "the last: " + last.message());
}

Status deadline_abandoned_status(const Call& call, double deadline_seconds) {
  return deadline_exceeded(deadline_prefix(call, deadline_seconds) +
                           "the last attempt was abandoned unfinished");
}

Status bad_envelope_status(const Call& call, const Status& envelope) {
  return unavailable("HTTP " + std::to_string(call.last_.status) + " from the server, but " +
                     envelope.message() + " (" + std::to_string(call.exchange_attempts_) +
                     " attempts)");
}

Status budget_spent_status(double max_cost_usd) {
  return resource_exhausted("the cost budget of $" + number_text(max_cost_usd) + " is spent");
}

}  // namespace ragmeter::llm
