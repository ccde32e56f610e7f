// `ragmeter ir`: trec_eval-compatible retrieval measures of a TREC run against qrels.
#include <fmt/format.h>

#include <array>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "exit_codes.h"
#include "ragmeter/trec.h"

namespace ragmeter::cli {
namespace {

struct IrArgs {
  std::string qrels_path;
  std::string run_path;
  bool per_query = false;
  std::vector<std::string> measures;
};

// trec_eval's names of the measure families `ir` computes, in its output order.
constexpr std::array<const char*, 8> kMeasureFamilies = {
    "map", "Rprec", "recip_rank", "P", "recall", "ndcg", "ndcg_cut", "success"};

constexpr const char* kFooter =
    "Output: one line per measure, `measure<TAB>query<TAB>value` with 4 decimals, as\n"
    "trec_eval prints it: with -q every evaluated query first, then the mean over those\n"
    "queries as query `all`. Only queries in both files are evaluated (trec_eval without\n"
    "-c). Documents are ranked by score, ties by document id descending; the rank column\n"
    "is ignored. Relevance >= 1 is relevant; nDCG gain = relevance level.\n"
    "Cutoffs: P, recall, ndcg_cut at 5 10 15 20 30 100 200 500 1000; success at 1 5 10.\n\n"
    "Example:\n"
    "  ragmeter ir --qrels qrels.txt --run bm25.run -q -m map -m ndcg_cut\n"
    "  qrels.txt lines: `query iteration document relevance`  (q1 0 doc7 2)\n"
    "  bm25.run lines:  `query Q0 document rank score tag`    (q1 Q0 doc7 1 12.5 bm25)";

// Reports a file that cannot be used; returns the exit code for it.
int input_error(const Status& status) {
  std::cerr << "ragmeter ir: " << status.message() << "\n";
  return kExitUsage;
}

int run_ir(const IrArgs& args) {
  const StatusOr<Qrels> qrels = read_qrels(args.qrels_path);
  if (!qrels.ok()) return input_error(qrels.status());
  const StatusOr<Run> run = read_run(args.run_path);
  if (!run.ok()) return input_error(run.status());
  const std::vector<TrecMeasureValue> lines =
      trec_evaluate(*qrels, *run, {.per_query = args.per_query, .measures = args.measures});
  if (lines.empty()) {
    std::cerr << fmt::format(
        "ragmeter ir: no query is in both the qrels ({} queries) and the run ({} queries); "
        "check that both files use the same query ids\n",
        qrels->size(), run->size());
    return kExitUsage;
  }
  for (const TrecMeasureValue& line : lines) fmt::print("{}\n", format_trec_line(line));
  return kExitOk;
}

}  // namespace

CommandRun add_ir_command(CLI::App& parent) {
  auto args = std::make_shared<IrArgs>();
  CLI::App* cmd = parent.add_subcommand(
      "ir", "Score a TREC run against TREC qrels with trec_eval's measures and semantics.");
  cmd->footer(kFooter);
  cmd->add_option("--qrels", args->qrels_path, "Relevance judgements (TREC qrels file)")
      ->required();
  cmd->add_option("--run", args->run_path, "Ranked results (TREC run file)")->required();
  cmd->add_flag("-q", args->per_query, "Also print every measure for every query");
  cmd->add_option("-m,--measure", args->measures,
                  "Measure family to print, repeatable (default: all of them)")
      ->check(CLI::IsMember(
          std::vector<std::string>(kMeasureFamilies.begin(), kMeasureFamilies.end())));
  return [args] { return run_ir(*args); };
}

}  // namespace ragmeter::cli
