// ragmeter: evaluate retrieval-augmented generation. One program, one subcommand per job.
#include <iostream>
#include <string>
#include <string_view>
#include <utility>

#include "cli_reference.h"
#include "commands.h"
#include "exit_codes.h"
#include "ragmeter/build_info.h"

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
  // A build without some optional dependencies says so (docs/library.md).
  const std::string_view left_out = ragmeter::dependencies_left_out();
  app.set_version_flag("--version", std::string("ragmeter " RAGMETER_VERSION) +
                                        (left_out.empty() ? std::string()
                                                          : " (built without " + std::string(left_out) + ")"));
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
  // Every subcommand's error reaches the user, and its exit code, here (exit_codes.h).
  const std::pair<const char*, const ragmeter::cli::CommandRun*> commands[] = {
      {"eval", &run_eval}, {"compare", &run_compare}, {"agree", &run_agree},
      {"report", &run_report}, {"gen", &run_gen}, {"ir", &run_ir},
      {"metrics", &run_metrics}, {"run", &run_run}};
  for (const auto& [name, run] : commands) {
    if (app.got_subcommand(name)) return ragmeter::cli::finish_command(name, (*run)());
  }
  std::cerr << app.help();
  return ragmeter::cli::kExitUsage;
}
