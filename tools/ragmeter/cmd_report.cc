// `ragmeter report RESULTS.jsonl [--summary S.json] -o report.html`: a run's HTML report.
#include <fstream>
#include <iostream>

#include "commands.h"
#include "exit_codes.h"
#include "ragmeter/report.h"
#include "stop_signal.h"

namespace ragmeter::cli {
namespace {

struct ReportArgs {
  std::string results;
  std::string summary;
  std::string out;
};

int run_report(const ReportArgs& args) {
  // Ctrl-C ends the command at once; the report is whole or not written (OutputFile).
  install_stop_handlers(StopMode::kImmediate);
  ReportInput input;
  input.results_path = args.results;
  if (Status s = read_results_rows(args.results, &input.rows); !s.ok()) {
    std::cerr << "ragmeter: " << s.message() << "\n";
    return kExitUsage;
  }
  if (!args.summary.empty()) {
    std::ifstream in(args.summary);
    if (!in) {
      std::cerr << "ragmeter: cannot open --summary " << args.summary << "\n";
      return kExitUsage;
    }
    input.summary = nlohmann::ordered_json::parse(in, nullptr, false);
    if (input.summary.is_discarded() || !input.summary.is_object()) {
      std::cerr << "ragmeter: --summary " << args.summary << " is not a JSON object\n";
      return kExitUsage;
    }
  }
  if (args.out == "-") {  // standard output, as `-o -` means to Unix tools
    std::cout << render_report(input);
    std::cout.flush();
    if (!std::cout) {
      std::cerr << "ragmeter: cannot write the report to standard output\n";
      return kExitUsage;
    }
    return kExitOk;
  }
  OutputFile out(args.out);
  out.stream() << render_report(input);
  if (Status s = out.commit(); !s.ok()) {
    std::cerr << "ragmeter: " << s.message() << "\n";
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace

CommandRun add_report_command(CLI::App& parent) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = parent.add_subcommand(
      "report", "Write a run's results (eval --out) as one self-contained HTML file.");
  cmd->footer(
      "The file holds its style, script and data: it opens from disk or as a CI artifact and\n"
      "fetches nothing. Give --summary (eval --summary) for the run's identity and usage.\n"
      "The results may be eval's JSONL or its CSV (by the .csv extension; the CSV holds no\n"
      "evidence, so sample pages show no claims). `-o -` writes the page to standard output.\n\n"
      "Example:\n"
      "  ragmeter report results.jsonl --summary summary.json -o report.html");
  cmd->add_option("results", args->results, "Results file (ragmeter eval --out, JSONL or CSV)")
      ->required();
  cmd->add_option("--summary", args->summary, "The run's summary JSON (ragmeter eval --summary)");
  cmd->add_option("--out,-o", args->out, "The HTML file to write (- for standard output)")
      ->required();
  return [args] { return run_report(*args); };
}

}  // namespace ragmeter::cli
