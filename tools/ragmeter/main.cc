// ragmeter: evaluate retrieval-augmented generation. One program, one subcommand per job.
#include <iostream>
#include <string_view>

#include "cli_reference.h"
#include "commands.h"
#include "exit_codes.h"

int main(int argc, char** argv) {
  CLI::App app{
      "ragmeter: scores RAG systems (retrieval, answer text, and later judged metrics) with\n"
      "explicit outcomes for every (sample, metric) and summary statistics.\n\n"
      "Start with:  ragmeter eval examples/halueval_rag.jsonl\n"
      "             ragmeter metrics            (every metric, its fields, its definition)\n"
      "             ragmeter ir --qrels Q --run R   (trec_eval-compatible IR measures)\n"
      "             ragmeter gen DOCS --out testset.jsonl   (a test set from your documents)\n"
      "             ragmeter run testset.jsonl --target URL --out answers.jsonl   (your system answers)\n"
      "             ragmeter report RESULTS.jsonl -o report.html   (an HTML report of a run)\n"
      "             ragmeter compare BASE.jsonl NEW.jsonl   (did a change help? paired statistics)\n"
      "             ragmeter agree RESULTS.jsonl LABELS.csv   (does a metric agree with your labels?)",
      "ragmeter"};
  app.set_version_flag("--version", "ragmeter " RAGMETER_VERSION);
  app.require_subcommand(1);
  app.fallthrough(false);

  auto run_eval = ragmeter::cli::add_eval_command(app);
  auto run_compare = ragmeter::cli::add_compare_command(app);
  auto run_agree = ragmeter::cli::add_agree_command(app);
  auto run_report = ragmeter::cli::add_report_command(app);
  auto run_gen = ragmeter::cli::add_gen_command(app);
  auto run_ir = ragmeter::cli::add_ir_command(app);
  auto run_metrics = ragmeter::cli::add_metrics_command(app);
  auto run_run = ragmeter::cli::add_run_command(app);

  // Not an option of the app: docs/cli.md is written from the definitions above.
  if (argc == 2 && std::string_view(argv[1]) == "--cli-reference") {
    std::cout << ragmeter::cli::cli_reference_markdown(app);
    return ragmeter::cli::kExitOk;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? ragmeter::cli::kExitOk : ragmeter::cli::kExitUsage;
  }
  if (app.got_subcommand("eval")) return run_eval();
  if (app.got_subcommand("compare")) return run_compare();
  if (app.got_subcommand("agree")) return run_agree();
  if (app.got_subcommand("report")) return run_report();
  if (app.got_subcommand("gen")) return run_gen();
  if (app.got_subcommand("ir")) return run_ir();
  if (app.got_subcommand("metrics")) return run_metrics();
  if (app.got_subcommand("run")) return run_run();
  std::cerr << app.help();
  return ragmeter::cli::kExitUsage;
}
