// Exit codes of the `ragmeter` program: a contract that scripts and CI depend on.
//
// A subcommand returns a CommandOutcome: the exit code of a run that did its work (0, 1, 3,
// 130), or the Status that stopped it. main() turns the latter into a message on stderr and
// an exit code in one place (exit_code_for), so that "the input is wrong" (2) and "the
// world failed" (4) stay apart however deep the error was found.
#pragma once

#include <string_view>

#include "ragmeter/status.h"

namespace ragmeter::cli {

constexpr int kExitOk = 0;              // success
constexpr int kExitBelowThreshold = 1;  // a --fail-under threshold was not met
constexpr int kExitUsage = 2;           // bad usage or unusable input
constexpr int kExitPartial = 3;         // the run completed, but rows were rejected or some
                                        // (sample, metric) failed (--allow-failures: 0)
constexpr int kExitUnavailable = 4;     // the work could not be done for a reason outside the
                                        // input: a server unreachable or timed out, a budget
                                        // reached, or a bug (Internal); retrying may help
constexpr int kExitInterrupted = 130;   // stopped by SIGINT or SIGTERM (128 + SIGINT, as
                                        // shells report Ctrl-C); what finished is written

// What a subcommand returns: its exit code, or the error that stopped it.
using CommandOutcome = StatusOr<int>;

// The exit code of an error: kExitUsage for the caller's input (InvalidArgument, NotFound,
// FailedPrecondition), kExitUnavailable for the rest (Unavailable, DeadlineExceeded,
// ResourceExhausted, Internal). Precondition: !status.ok().
int exit_code_for(const Status& status);

// The process exit code of `outcome`; an error is first written to stderr as
// "ragmeter COMMAND: message".
int finish_command(std::string_view command, const CommandOutcome& outcome);

// `status` with "prefix" before its message and the same code ("judge: " + message).
Status prefixed(std::string_view prefix, const Status& status);

}  // namespace ragmeter::cli
