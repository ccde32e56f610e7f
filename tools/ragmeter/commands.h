// The subcommands of the `ragmeter` program. Each add_*_command registers its options
// on a CLI11 subcommand of `parent` and returns the function main() runs when that
// subcommand is selected; the function returns the exit code of a run that did its work,
// or the error that stopped it, which main() reports and maps (exit_codes.h).
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

#include "exit_codes.h"

namespace ragmeter::cli {

using CommandRun = std::function<CommandOutcome()>;

CommandRun add_agree_command(CLI::App& parent);
CommandRun add_compare_command(CLI::App& parent);
CommandRun add_eval_command(CLI::App& parent);
CommandRun add_report_command(CLI::App& parent);
CommandRun add_gen_command(CLI::App& parent);
CommandRun add_ir_command(CLI::App& parent);
CommandRun add_metrics_command(CLI::App& parent);
CommandRun add_run_command(CLI::App& parent);

}  // namespace ragmeter::cli
