// Exit codes of the `ragmeter` program: a contract that scripts and CI depend on.
#pragma once

namespace ragmeter::cli {

constexpr int kExitOk = 0;              // success
constexpr int kExitBelowThreshold = 1;  // a --fail-under threshold was not met
constexpr int kExitUsage = 2;           // bad usage or unusable input
constexpr int kExitPartial = 3;         // the run completed, but rows were rejected or some
                                        // (sample, metric) failed (--allow-failures: 0)
constexpr int kExitInterrupted = 130;   // stopped by SIGINT or SIGTERM (128 + SIGINT, as
                                        // shells report Ctrl-C); what finished is written

}  // namespace ragmeter::cli
