// `ragmeter ir`: trec_eval's measures of a TREC run against qrels, with its options and
// its command line (`ragmeter ir [options] QRELS RUN`, RUN "-" for standard input).
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <optional>
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
  std::string qrels_option;  // --qrels, the older spelling of the first positional
  std::string run_option;    // --run
  std::string rel_format = "qrels";
  std::string results_format = "trec_results";
  std::string zscores_path;
  int version = static_cast<int>(kDefaultTrecEvalVersion);
  bool no_summary = false;
  TrecEvalOptions options;
};

std::string footer() {
  std::string names;
  for (const std::string& name : trec_measure_names(TrecEvalVersion::k10)) names += " " + name;
  return fmt::format(
      "Output: one line per measure, `measure<TAB>query<TAB>value`, as trec_eval prints\n"
      "it: with -q every evaluated query first, then the summary as query `all` (the mean\n"
      "over the queries; num_* counts are sums; gm_map and gm_bpref geometric means).\n"
      "Only queries in both files are evaluated unless -c. Documents are ranked by score,\n"
      "ties by document id descending; the rank column is ignored.\n\n"
      "Measures (-m, repeatable; default `official`): a set (official, all_trec, set,\n"
      "qrels_jg, all_prefs, prefs) or a name, with parameters after a dot as trec_eval\n"
      "takes them: P.5,10 (cutoffs), iprec_at_recall.0.5, Rprec_mult.1.0,\n"
      "utility.1,-1,0,0, set_F.0.5, relstring.20, ndcg.1=1,2=5 (gain per level),\n"
      "rbp.p=0.95. The *_avgjg measures need -R qrels_jg, prefs_* -R prefs or\n"
      "qrels_prefs. Names (trec_eval 10;\n"
      "rbp, rbp_resid and unj are not in 9):\n {}\n\n"
      "--trec-eval-version: 10 (default) is trec_eval's current release; 9 is 9.0.x, the\n"
      "version pytrec_eval wraps. They differ in recall cutoffs (iprec_at_recall,\n"
      "11pt_avg), score precision, all_trec and -c; see docs/trec_eval.md.\n\n"
      "Example (trec_eval's own command line works as is):\n"
      "  ragmeter ir -q -m map -m P.5,10 -l2 -c qrels.txt bm25.run\n"
      "  qrels.txt lines: `query iteration document relevance`  (q1 0 doc7 2)\n"
      "  bm25.run lines:  `query Q0 document rank score tag`    (q1 Q0 doc7 1 12.5 bm25)\n"
      "See docs/trec_eval.md.",
      names);
}

// Settles the file paths and formats given in either spelling; an error message or "".
std::string resolve_inputs(IrArgs& args) {
  if (!args.qrels_option.empty()) {
    if (!args.run_path.empty()) return "give the qrels either as --qrels or as the first file";
    args.run_path = args.qrels_path;  // `ir --qrels Q R`: the one positional is the run
    args.qrels_path = args.qrels_option;
  }
  if (!args.run_option.empty()) {
    if (!args.run_path.empty()) return "give the run either as --run or as the second file";
    args.run_path = args.run_option;
  }
  if (args.qrels_path.empty() || args.run_path.empty()) {
    return "expected the qrels and the run: ragmeter ir [options] QRELS RUN (RUN - for stdin)";
  }
  if (args.rel_format != "qrels" && args.rel_format != "qrels_jg" &&
      args.rel_format != "prefs" && args.rel_format != "qrels_prefs") {
    return fmt::format("-R {}: unknown relevance format (qrels, qrels_jg, prefs, qrels_prefs)",
                       args.rel_format);
  }
  if (args.results_format != "trec_results") {
    return fmt::format("-T {}: unknown results format (trec_results)", args.results_format);
  }
  if (args.version != 9 && args.version != 10) {
    return fmt::format("--trec-eval-version {}: expected 9 or 10", args.version);
  }
  return "";
}

CommandOutcome print_lines(const StatusOr<std::vector<TrecMeasureValue>>& lines, std::size_t qrels_queries,
                std::size_t run_queries) {
  if (!lines.ok()) return lines.status();
  if (lines->empty()) {
    return invalid_argument(fmt::format(
        "no query is in both the qrels ({} queries) and the run ({} queries); "
        "check that both files use the same query ids",
        qrels_queries, run_queries));
  }
  std::string out;
  for (const TrecMeasureValue& line : *lines) {
    out += format_trec_line(line);
    out += '\n';
  }
  fmt::print("{}", out);
  return kExitOk;
}

CommandOutcome run_ir(IrArgs& args) {
  if (const std::string error = resolve_inputs(args); !error.empty()) {
    return invalid_argument(error);
  }
  TrecEvalOptions& options = args.options;
  options.version = static_cast<TrecEvalVersion>(args.version);
  options.summary = !args.no_summary;
  std::optional<TrecZscores> zscores;
  if (!args.zscores_path.empty()) {
    StatusOr<TrecZscores> read = read_trec_zscores(args.zscores_path);
    if (!read.ok()) return read.status();
    zscores = std::move(read).value();
    options.zscores = &*zscores;
  }
  const bool prefs = args.rel_format == "prefs" || args.rel_format == "qrels_prefs";
  const StatusOr<Run> run = read_run(args.run_path, &options.run_tag, options.version, prefs);
  if (!run.ok()) return run.status();
  if (prefs) {
    const StatusOr<TrecPrefs> judged = args.rel_format == "prefs"
                                           ? read_trec_prefs(args.qrels_path)
                                           : read_qrels_prefs(args.qrels_path);
    if (!judged.ok()) return judged.status();
    return print_lines(trec_evaluate_prefs(*judged, *run, options), judged->size(), run->size());
  }
  if (args.rel_format == "qrels_jg") {
    const StatusOr<QrelsJg> qrels = read_qrels_jg(args.qrels_path);
    if (!qrels.ok()) return qrels.status();
    return print_lines(trec_evaluate_jg(*qrels, *run, options), qrels->size(), run->size());
  }
  const StatusOr<Qrels> qrels = read_qrels(args.qrels_path);
  if (!qrels.ok()) return qrels.status();
  return print_lines(trec_evaluate(*qrels, *run, options), qrels->size(), run->size());
}

}  // namespace

CommandRun add_ir_command(CLI::App& parent) {
  auto args = std::make_shared<IrArgs>();
  TrecEvalOptions& options = args->options;
  CLI::App* cmd = parent.add_subcommand(
      "ir", "Score a TREC run against TREC qrels with trec_eval's measures and semantics.");
  cmd->footer(footer());
  cmd->add_option("QRELS", args->qrels_path, "Relevance judgements (TREC qrels file)");
  cmd->add_option("RUN", args->run_path, "Ranked results (TREC run file; - reads stdin)");
  cmd->add_option("--qrels", args->qrels_option, "The qrels file (same as the first file)");
  cmd->add_option("--run", args->run_option, "The run file (same as the second file)");
  cmd->add_flag("-q,--query_eval_wanted", options.per_query,
                "Also print every measure for every query");
  // One value per -m, so that `-m map qrels run` leaves the files to the positionals.
  cmd->add_option("-m,--measure", options.measures,
                  "Measure, measure.params or set (official, all_trec, set, qrels_jg); "
                  "repeatable")
      ->allow_extra_args(false);
  cmd->add_option("-l,--relevance-level,--level_for_rel", options.relevance_level,
                  "Lowest relevance level counted as relevant (default 1)");
  cmd->add_flag("-c,--complete,--complete_rel_info_wanted", options.average_complete,
                "Average over every query in the qrels; a query missing from the run "
                "counts 0 (trec_eval 10 also prints it with -q)");
  cmd->add_flag("-n,--nosummary", args->no_summary, "Print no summary (`all`) lines");
  cmd->add_option("-M,--max-docs,--Max_retrieved_per_topic", options.max_docs,
                  "Evaluate only the first N documents of each query (default: all)");
  cmd->add_flag("-J,--judged-only,--Judged_docs_only", options.judged_only,
                "Drop documents the qrels do not judge before ranking");
  cmd->add_option("-N,--num-docs,--Number_docs_in_coll", options.num_docs_in_collection,
                  "Documents in the collection (utility's fourth coefficient)");
  cmd->add_option("-R,--Rel_info_format", args->rel_format,
                  "Relevance format: qrels (default), qrels_jg (judgment groups), prefs "
                  "(qid group subgroup docid level) or qrels_prefs (qrels read as prefs)");
  cmd->add_option("-T,--Results_format", args->results_format,
                  "Results format: trec_results (the only one)");
  cmd->add_option("-Z,--Zscore", args->zscores_path,
                  "Print z-scores against the `qid measure mean stddev` lines of this file");
  cmd->add_option("--trec-eval-version", args->version,
                  "Which trec_eval to reproduce: 10 (default, current release) or 9 "
                  "(9.0.x, as pytrec_eval)");
  return [args] { return run_ir(*args); };
}

}  // namespace ragmeter::cli
