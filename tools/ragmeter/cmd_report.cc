// `ragmeter report RESULTS.jsonl [--summary S.json] [--compare BASE.jsonl] [--agree A.json]
// -o report.html`: a run's HTML report, leading with the answer.
#include <fstream>
#include <iostream>

#include "commands.h"
#include "exit_codes.h"
#include "ragmeter/compare.h"
#include "ragmeter/report.h"
#include "stop_signal.h"

namespace ragmeter::cli {
namespace {

struct ReportArgs {
  std::string results;
  std::string summary;
  std::string compare;
  std::string id_column;
  std::string agree;
  std::string out;
};

// A JSON object from `path` (the value of `flag`), or an error naming both.
StatusOr<nlohmann::ordered_json> read_json_object(const std::string& path,
                                                  const std::string& flag) {
  std::ifstream in(path);
  if (!in) return not_found("cannot open " + flag + " " + path);
  auto value = nlohmann::ordered_json::parse(in, nullptr, false);
  if (value.is_discarded() || !value.is_object()) {
    return invalid_argument(flag + " " + path + " is not a JSON object");
  }
  return value;
}

// The base run compared with this one, as `ragmeter compare BASE RESULTS` computes it
// (its default seed, resamples and alpha); the changed samples are on the report's pages.
StatusOr<nlohmann::ordered_json> changes_from(const ReportArgs& args) {
  CompareOptions options;
  options.id_column = args.id_column;
  options.top_changes = 0;
  RAGMETER_ASSIGN_OR_RETURN(RunResults base, read_run_results(args.compare, options));
  RAGMETER_ASSIGN_OR_RETURN(RunResults next, read_run_results(args.results, options));
  RAGMETER_ASSIGN_OR_RETURN(RunComparison comparison, compare_runs(base, next, options));
  return comparison_to_json(comparison);
}

// The agreement JSON must be `ragmeter agree --out`'s: an object with a "metrics" array.
StatusOr<nlohmann::ordered_json> agreement_from(const std::string& path) {
  RAGMETER_ASSIGN_OR_RETURN(auto value, read_json_object(path, "--agree"));
  if (!value.contains("metrics") || !value["metrics"].is_array()) {
    return invalid_argument("--agree " + path +
                            ": field 'metrics' is missing or not an array (is it the JSON of "
                            "`ragmeter agree --out`?)");
  }
  return value;
}

Status read_inputs(const ReportArgs& args, ReportInput* input) {
  input->results_path = args.results;
  RAGMETER_RETURN_IF_ERROR(read_results_rows(args.results, &input->rows));
  if (!args.summary.empty()) {
    RAGMETER_ASSIGN_OR_RETURN(input->summary, read_json_object(args.summary, "--summary"));
  }
  if (!args.compare.empty()) {
    RAGMETER_ASSIGN_OR_RETURN(input->changes, changes_from(args));
  }
  if (!args.agree.empty()) {
    RAGMETER_ASSIGN_OR_RETURN(input->agreement, agreement_from(args.agree));
  }
  return ok_status();
}

CommandOutcome run_report(const ReportArgs& args) {
  // Ctrl-C ends the command at once; the report is whole or not written (OutputFile).
  install_stop_handlers(StopMode::kImmediate);
  ReportInput input;
  RAGMETER_RETURN_IF_ERROR(read_inputs(args, &input));
  if (args.out == "-") {  // standard output, as `-o -` means to Unix tools
    std::cout << render_report(input);
    std::cout.flush();
    if (!std::cout) return unavailable("could not write the report to standard output");
    return kExitOk;
  }
  OutputFile out(args.out);
  out.stream() << render_report(input);
  RAGMETER_RETURN_IF_ERROR(out.commit());
  return kExitOk;
}

}  // namespace

CommandRun add_report_command(CLI::App& parent) {
  auto args = std::make_shared<ReportArgs>();
  CLI::App* cmd = parent.add_subcommand(
      "report", "Write a run's results (eval --out) as one self-contained HTML file.");
  cmd->footer(
      "The file holds its style, script and data: it opens from disk or as a CI artifact and\n"
      "fetches nothing. Its first screen gives the headline metrics, the weaker part (retrieval\n"
      "or generation) and why, and the worst samples (docs/report.md). Give --summary (eval\n"
      "--summary) for the run's identity and usage, --compare for the metrics that changed\n"
      "since a base run and their paired differences, --agree for agreement and calibration\n"
      "charts. The results may be eval's JSONL or its CSV (by the .csv extension; the CSV\n"
      "holds no evidence, so sample pages show no claims). `-o -` writes the page to standard\n"
      "output.\n\n"
      "Examples:\n"
      "  ragmeter report results.jsonl --summary summary.json -o report.html\n"
      "  ragmeter report new.jsonl --compare base.jsonl --id id -o report.html\n"
      "  ragmeter agree results.jsonl labels.csv --out agreement.json\n"
      "  ragmeter report results.jsonl --agree agreement.json -o report.html");
  cmd->add_option("results", args->results, "Results file (ragmeter eval --out, JSONL or CSV)")
      ->required();
  cmd->add_option("--summary", args->summary, "The run's summary JSON (ragmeter eval --summary)");
  cmd->add_option("--compare", args->compare,
                  "Results of a base run of the same test set: the report shows what changed "
                  "(as ragmeter compare BASE RESULTS)");
  cmd->add_option("--id", args->id_column,
                  "With --compare: the column naming a sample in both runs (default: the "
                  "question and its reference)");
  cmd->add_option("--agree", args->agree,
                  "Agreement with your labels (ragmeter agree --out JSON): agreement and "
                  "calibration charts");
  cmd->add_option("--out,-o", args->out, "The HTML file to write (- for standard output)")
      ->required();
  return [args] { return run_report(*args); };
}

}  // namespace ragmeter::cli
