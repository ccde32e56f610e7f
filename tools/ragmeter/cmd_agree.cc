// `ragmeter agree RESULTS LABELS`: how far each metric of a run agrees with people's labels.
#include <fstream>
#include <iostream>
#include <thread>

#include <fmt/format.h>

#include "commands.h"
#include "exit_codes.h"
#include "ragmeter/agree.h"
#include "ragmeter/results.h"

namespace ragmeter::cli {
namespace {

struct AgreeArgs {
  std::string results, labels;
  std::string id_column = "id";
  std::string annotator_column = "annotator";
  std::string scale = "binary";
  std::vector<std::string> metrics;
  std::string labels_format = "auto";
  std::string out;
  std::uint64_t split_seed = 0;
  std::uint64_t seed = 42;
  int resamples = 1000;
  int threads = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
};

StatusOr<AgreeOptions> options_from(const AgreeArgs& args) {
  AgreeOptions options;
  RAGMETER_ASSIGN_OR_RETURN(options.labels.scale, parse_label_scale(args.scale));
  options.labels.id_column = args.id_column;
  options.labels.annotator_column = args.annotator_column;
  options.metrics = args.metrics;
  options.split_seed = args.split_seed;
  options.bootstrap.seed = args.seed;
  options.bootstrap.resamples = args.resamples;
  options.bootstrap.threads = args.threads;
  return options;
}

StatusOr<AgreementReport> run(const AgreeArgs& args) {
  RAGMETER_ASSIGN_OR_RETURN(AgreeOptions options, options_from(args));
  if (!args.out.empty()) RAGMETER_RETURN_IF_ERROR(check_output_path(args.out, "--out"));
  RAGMETER_ASSIGN_OR_RETURN(ResultTable results, read_results_jsonl(args.results));
  RAGMETER_ASSIGN_OR_RETURN(DatasetFormat format, parse_dataset_format(args.labels_format));
  RAGMETER_ASSIGN_OR_RETURN(auto reader, open_dataset(args.labels, format));
  LabelSet labels = read_labels(*reader, args.labels, results.metrics, options.labels);
  auto report = agree(results, args.results, labels, options);
  if (!report.ok()) {
    for (const RowError& e : labels.errors) std::cerr << "ragmeter: " << e.to_string() << "\n";
  }
  return report;
}

CommandOutcome run_agree(const AgreeArgs& args) {
  auto report = run(args);
  if (!report.ok()) {
    return report.status();
  }
  std::cout << format_agreement_table(*report);
  if (!args.out.empty()) {
    std::ofstream out(args.out, std::ios::binary | std::ios::trunc);
    if (!out.is_open()) return invalid_argument("cannot write --out " + args.out);
    out << agreement_to_json(*report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
        << "\n";
    out.flush();
    if (!out) return unavailable("could not write --out " + args.out);
  }
  return report->has_errors() ? kExitPartial : kExitOk;
}

}  // namespace

CommandRun add_agree_command(CLI::App& parent) {
  auto args = std::make_shared<AgreeArgs>();
  CLI::App* cmd = parent.add_subcommand(
      "agree",
      "How far each metric of a run agrees with your labels (kappa, AUROC, correlations).");
  cmd->footer(
      "LABELS (JSONL, JSON or CSV): an `id` column naming a row of RESULTS (`id_a`, `id_b` for\n"
      "pairwise preferences) and a label column: `label` (every metric) or a metric's name,\n"
      "optionally `:ANNOTATOR` (`label:alice`), or an `annotator` column. Binary labels: 1 = the\n"
      "row is good. Per metric: a pass mark chosen on a dev half of the items (best balanced\n"
      "accuracy), accuracy, balanced accuracy, Cohen's kappa and Krippendorff's alpha on the "
      "other\n"
      "half; ROC AUC, Pearson, Spearman and Kendall's tau-b on all labels; pairwise accuracy for\n"
      "preferences; each with a bootstrap 95% interval over items and, where items have two or\n"
      "more labels, the same statistic between people (docs/agree.md).\n\n"
      "Examples:\n"
      "  ragmeter eval data.jsonl --metrics faithfulness --out results.jsonl\n"
      "  ragmeter agree results.jsonl labels.csv\n"
      "  ragmeter agree results.jsonl ratings.jsonl --scale ordinal:1..5 --out agreement.json\n"
      "  ragmeter agree results.jsonl prefs.csv --scale pairwise:-2..2 --metrics "
      "factual_correctness\n\n"
      "Exit codes: 0 ok; 2 bad usage or unusable input (no label matches a row); 3 some labels or\n"
      "rows could not be used, or a metric could not be measured (listed; the rest is computed).");
  cmd->add_option("results", args->results, "Results of a run (ragmeter eval --out, JSONL)")
      ->required();
  cmd->add_option("labels", args->labels, "Labels file (JSONL, JSON or CSV)")->required();
  cmd->add_option("--id", args->id_column, "Column naming a row in both files")
      ->capture_default_str();
  cmd->add_option("--scale", args->scale, "binary, ordinal:LO..HI, pairwise or pairwise:LO..HI")
      ->capture_default_str();
  cmd->add_option("--metrics,-m", args->metrics,
                  "Metrics to measure (comma-separated); default: every metric with labels")
      ->delimiter(',');
  cmd->add_option("--annotator-column", args->annotator_column,
                  "Column naming who gave a row's labels")
      ->capture_default_str();
  cmd->add_option("--labels-format", args->labels_format, "auto, jsonl, json or csv")
      ->capture_default_str();
  cmd->add_option("--out,-o", args->out, "Write the agreement as JSON to FILE");
  cmd->add_option("--split-seed", args->split_seed, "Seed of the dev/test split of items")
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "Seed of the bootstrap")->capture_default_str();
  cmd->add_option("--bootstrap-resamples", args->resamples, "Bootstrap resamples")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--threads,-j", args->threads, "Threads for the bootstrap")
      ->check(CLI::Range(1, 1024));
  return [args] { return run_agree(*args); };
}

}  // namespace ragmeter::cli
