// Errors as values: Status and StatusOr<T>, in abseil's vocabulary.
//
// A function that can fail returns Status (or StatusOr<T> when it also produces a
// value). Both are cheap to move, [[nodiscard]], and thread-compatible (not
// thread-safe for concurrent mutation, like any value type).
#pragma once

#include <cassert>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace ragmeter {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,    // bad input: a malformed row, an unknown flag value
  kNotFound,           // a file or a named thing does not exist
  kUnavailable,        // a service or resource cannot be reached now; retrying may help
  kDeadlineExceeded,   // a timeout
  kFailedPrecondition, // the system is not in a state where the operation makes sense
  kInternal,           // a broken invariant: a bug in ragmeter
  kResourceExhausted,  // a budget or quota was reached
};

// Returns the name of `code`, e.g. "InvalidArgument".
const char* status_code_name(StatusCode code);

// Secrets (API keys) that no error message or reason may carry. The judge client
// registers the key it reads from the environment when it is made; from then on every
// Status message and every MetricResult reason is passed through redact_secrets() when
// it is constructed, so no error path can write the key to a log, a result or a report,
// whatever text a server echoes back. Values shorter than 4 bytes are not registered
// (they cannot be told apart from ordinary text). Thread-safe.
void register_secret(std::string_view value);
// `text` with every registered secret replaced by "[redacted]" (redact_secret). Cheap
// when none is registered. Thread-safe.
std::string redact_secrets(std::string text);
// `text` with `secret` replaced by "[redacted]": every occurrence of a secret of 16 bytes
// or more; a shorter one only where it stands as a word of its own (the bytes either side
// are not ASCII letters or digits, '-', '_' or non-ASCII), so that a short placeholder key
// ("x", "EMPTY", common for local servers) is still taken out of "Bearer x" or "key 'x'"
// but does not turn "max_tokens" into "ma[redacted]_tokens" in a stored reply. An empty
// secret changes nothing.
std::string redact_secret(std::string text, std::string_view secret);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  // The message is redacted (redact_secrets): a Status never carries a registered key.
  Status(StatusCode code, std::string message)
      : code_(code), message_(redact_secrets(std::move(message))) {}

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // "InvalidArgument: message", or "OK".
  std::string to_string() const;

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status ok_status() { return Status(); }
inline Status invalid_argument(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
inline Status not_found(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status unavailable(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
inline Status internal_error(std::string m) { return {StatusCode::kInternal, std::move(m)}; }
inline Status failed_precondition(std::string m) {
  return {StatusCode::kFailedPrecondition, std::move(m)};
}

// Holds either a value of type T or a non-OK Status.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(const T& value) : value_(value) {}                    // NOLINT: implicit by design
  StatusOr(T&& value) : value_(std::move(value)) {}              // NOLINT
  StatusOr(Status status) : status_(std::move(status)) {         // NOLINT
    assert(!status_.ok() && "StatusOr constructed from an OK status without a value");
    if (status_.ok()) status_ = internal_error("StatusOr built from OK status");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  // Precondition: ok().
  const T& value() const& { return *value_; }
  T& value() & { return *value_; }
  T&& value() && { return std::move(*value_); }
  const T& operator*() const& { return *value_; }
  T& operator*() & { return *value_; }
  const T* operator->() const { return &*value_; }
  T* operator->() { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace ragmeter

#define RAGMETER_CONCAT_INNER_(a, b) a##b
#define RAGMETER_CONCAT_(a, b) RAGMETER_CONCAT_INNER_(a, b)

// Returns from the enclosing function when `expr` (a Status) is not OK.
#define RAGMETER_RETURN_IF_ERROR(expr)                  \
  do {                                                  \
    ::ragmeter::Status ragmeter_status_ = (expr);       \
    if (!ragmeter_status_.ok()) return ragmeter_status_; \
  } while (0)

// `lhs = value of expr` (a StatusOr), or returns its Status when not OK.
#define RAGMETER_ASSIGN_OR_RETURN(lhs, expr) \
  RAGMETER_ASSIGN_OR_RETURN_IMPL_(RAGMETER_CONCAT_(ragmeter_statusor_, __LINE__), lhs, expr)
#define RAGMETER_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                    \
  if (!tmp.ok()) return tmp.status();                   \
  lhs = std::move(tmp).value()
