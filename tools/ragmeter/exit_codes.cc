// Errors to exit codes, in one place (exit_codes.h).
#include "exit_codes.h"

#include <iostream>
#include <string>

namespace ragmeter::cli {

int exit_code_for(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk:
      return kExitOk;
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotFound:
    case StatusCode::kFailedPrecondition:
      return kExitUsage;
    case StatusCode::kUnavailable:
    case StatusCode::kDeadlineExceeded:
    case StatusCode::kResourceExhausted:
    case StatusCode::kInternal:
      return kExitUnavailable;
  }
  return kExitUnavailable;
}

int finish_command(std::string_view command, const CommandOutcome& outcome) {
  if (outcome.ok()) return *outcome;
  std::cerr << "ragmeter " << command << ": " << outcome.status().message() << "\n";
  return exit_code_for(outcome.status());
}

Status prefixed(std::string_view prefix, const Status& status) {
  return Status(status.code(), std::string(prefix) + status.message());
}

}  // namespace ragmeter::cli
