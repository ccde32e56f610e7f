// `ragmeter ir`: trec_eval's measures of a TREC run against qrels, with its options.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "exit_codes.h"
#include "ragmeter/trec.h"
#include "ragmeter/trec_eval.h"

namespace ragmeter::cli {
namespace {

struct IrArgs {
  std::string qrels_path;
  std::string run_path;
  TrecEvalOptions options;
};

std::string footer() {
  std::string names;
  for (const std::string& name : trec_measure_names()) names += " " + name;
  return fmt::format(
      "Output: one line per measure, `measure<TAB>query<TAB>value`, as trec_eval 9 prints\n"
      "it: with -q every evaluated query first, then the summary as query `all` (the mean\n"
      "over the queries; num_* counts are sums; gm_map and gm_bpref geometric means).\n"
      "Only queries in both files are evaluated unless -c. Documents are ranked by score,\n"
      "ties by document id descending; the rank column is ignored.\n\n"
      "Measures (-m, repeatable; default `official`): a set (official, all_trec, set) or\n"
      "a name, with parameters after a dot as trec_eval takes them: P.5,10 (cutoffs),\n"
      "iprec_at_recall.0.5, Rprec_mult.1.0, utility.1,-1,0,0, set_F.0.5, relstring.20,\n"
      "ndcg.1=1,2=5 (gain per level). Names:\n {}\n\n"
      "Example:\n"
      "  ragmeter ir --qrels qrels.txt --run bm25.run -q -m map -m P.5,10 -l2 -c\n"
      "  qrels.txt lines: `query iteration document relevance`  (q1 0 doc7 2)\n"
      "  bm25.run lines:  `query Q0 document rank score tag`    (q1 Q0 doc7 1 12.5 bm25)\n"
      "See docs/trec_eval.md.",
      names);
}

// Reports a file or option that cannot be used; returns the exit code for it.
int input_error(const Status& status) {
  std::cerr << "ragmeter ir: " << status.message() << "\n";
  return kExitUsage;
}

int run_ir(IrArgs& args) {
  const StatusOr<Qrels> qrels = read_qrels(args.qrels_path);
  if (!qrels.ok()) return input_error(qrels.status());
  const StatusOr<Run> run = read_run(args.run_path, &args.options.run_tag);
  if (!run.ok()) return input_error(run.status());
  const StatusOr<std::vector<TrecMeasureValue>> lines = trec_evaluate(*qrels, *run, args.options);
  if (!lines.ok()) return input_error(lines.status());
  if (lines->empty()) {
    std::cerr << fmt::format(
        "ragmeter ir: no query is in both the qrels ({} queries) and the run ({} queries); "
        "check that both files use the same query ids\n",
        qrels->size(), run->size());
    return kExitUsage;
  }
  std::string out;
  for (const TrecMeasureValue& line : *lines) {
    out += format_trec_line(line);
    out += '\n';
  }
  fmt::print("{}", out);
  return kExitOk;
}

}  // namespace

CommandRun add_ir_command(CLI::App& parent) {
  auto args = std::make_shared<IrArgs>();
  TrecEvalOptions& options = args->options;
  CLI::App* cmd = parent.add_subcommand(
      "ir", "Score a TREC run against TREC qrels with trec_eval's measures and semantics.");
  cmd->footer(footer());
  cmd->add_option("--qrels", args->qrels_path, "Relevance judgements (TREC qrels file)")
      ->required();
  cmd->add_option("--run", args->run_path, "Ranked results (TREC run file)")->required();
  cmd->add_flag("-q", options.per_query, "Also print every measure for every query");
  cmd->add_option("-m,--measure", options.measures,
                  "Measure, measure.params or set (official, all_trec, set); repeatable");
  cmd->add_option("-l,--relevance-level", options.relevance_level,
                  "Lowest relevance level counted as relevant (default 1)");
  cmd->add_flag("-c,--complete", options.average_complete,
                "Average over every query in the qrels; a query missing from the run "
                "counts 0");
  cmd->add_option("-M,--max-docs", options.max_docs,
                  "Evaluate only the first N documents of each query (default: all)");
  cmd->add_flag("-J,--judged-only", options.judged_only,
                "Drop documents the qrels do not judge before ranking");
  cmd->add_option("-N,--num-docs", options.num_docs_in_collection,
                  "Documents in the collection (utility's fourth coefficient)");
  return [args] { return run_ir(*args); };
}

}  // namespace ragmeter::cli
