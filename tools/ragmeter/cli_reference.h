// The CLI reference (docs/cli.md), written from the program's own option definitions so it
// cannot drift from them: `ragmeter --cli-reference > docs/cli.md`, checked current by
// tests/cli/test_cli_reference.py.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace ragmeter::cli {

// Markdown: the program's description, then one section per subcommand (in the order they
// were added) holding its description and its `--help` text verbatim, with the exit codes
// (exit_codes.h) at the end.
std::string cli_reference_markdown(const CLI::App& app);

}  // namespace ragmeter::cli
