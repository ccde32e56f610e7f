// trec_eval over TREC files: which measures (trec_eval's -m), how a run is read
// (-l, -M, -J, -N), per-query values (-q), the summary over queries (-c, -n), z-scores
// (-Z) and the judgment-group format (-R qrels_jg), printed as trec_eval prints them.
// Matches trec_eval 9.0.x, the version pytrec_eval wraps (tests/oracle/test_trec_eval.py
// compares every measure), or trec_eval 10.0 (TrecEvalOptions::version; hand-computed
// cases in tests/unit/trec_v10_test.cc). docs/trec_eval.md lists the differences.
//
// Thread-compatible: the functions hold no global state.
#pragma once

#include <string>
#include <vector>

#include "ragmeter/status.h"
#include "ragmeter/trec.h"

namespace ragmeter {

struct TrecEvalOptions {
  bool per_query = false;  // -q: also print each query's values, before the summary.
  // -m: measures, as trec_eval spells them: a name ("map"), a name with parameters
  // after a dot ("P.5,7" cutoffs, "iprec_at_recall.0.5,1", "utility.1,-1,0,0",
  // "set_F.0.5", "ndcg.1=2,2=8" gains per level), or a set: "official" (trec_eval's
  // default), "all_trec" (every measure below), "set" (the unranked ones).
  // Empty = "official". The first parameters given for a measure win.
  std::vector<std::string> measures;
  long relevance_level = 1;        // -l: levels at or above are relevant (>= 0).
  bool average_complete = false;   // -c: average over every query of the qrels; a query
                                   // the run lacks counts 0 (gm_*: 0.00001).
  long max_docs = 0;               // -M: documents looked at per query; 0 = all.
  bool judged_only = false;        // -J: drop unjudged documents before ranking.
  long num_docs_in_collection = 0;  // -N: only utility's fourth term reads it.
  std::string run_tag;             // printed as `runid` (read_run's run_tag).
  // Which release's semantics (trec.h). 9 changes: rounding of recall cutoffs
  // (iprec_at_recall, 11pt_avg), the all_trec set (10 adds rbp, rbp_resid, unj) and
  // -c (10 evaluates each query the run lacks as if one unjudged document had been
  // retrieved, and prints it with -q). Read the run with the same version.
  TrecEvalVersion version = kDefaultTrecEvalVersion;
  bool summary = true;             // false = trec_eval -n: no `all` lines.
  // -Z: when set, every value of a query becomes (value - mean) / stddev with the mean
  // and stddev of that query and measure (-1000000 when absent, or when stddev is 0
  // and the value differs from the mean), before the summary; lines print as "Z<name>".
  // Not owned; must outlive the call.
  const TrecZscores* zscores = nullptr;
};

// How trec_eval prints a value: "%.4f", an integer (the num_* counts), or text
// (runid, relstring).
enum class TrecValueKind { kReal, kCount, kText };

// One trec_eval output line: measure name, query id (or "all"), value.
struct TrecMeasureValue {
  std::string measure;
  std::string query;
  double value = 0.0;
  TrecValueKind kind = TrecValueKind::kReal;
  std::string text;     // the value of a kText line
  bool zscore = false;  // -Z: printed as "Z<name>" with "%6.4f", counts too
};

// Every measure name `-m` accepts for `version`, in trec_eval's order (its
// measures.c), sets apart. The *_avgjg measures need qrels_jg input
// (trec_evaluate_jg), the prefs_* ones preferences (trec_evaluate_prefs).
std::vector<std::string> trec_measure_names(TrecEvalVersion version = kDefaultTrecEvalVersion);

// Evaluates `run` against `qrels` as trec_eval does. Only queries in both are
// evaluated, in query-id order (bytewise), unless average_complete (see
// TrecEvalOptions::version for what happens to the missing queries); the summary
// ("all") is the mean over those queries (num_* counts: the sum; gm_map, gm_bpref:
// the geometric mean; num_q: the number of queries). Lines come in trec_eval's order:
// with per_query, each query's lines (measures in trec_eval's order; gm_*, num_q and
// runid are summary-only, relstring per-query only), then the summary lines.
// No line at all when no query is in both (trec_eval stops with an error then).
// An unknown measure or set, bad parameters ("P.0", "P.5,5", "utility.1,2") or a
// negative relevance level: InvalidArgument naming it.
// A measure that needs qrels_jg input (map_avgjg...) is InvalidArgument here.
StatusOr<std::vector<TrecMeasureValue>> trec_evaluate(const Qrels& qrels, const Run& run,
                                                      const TrecEvalOptions& options = {});

// The same over judgment groups (trec_eval -R qrels_jg): the *_avgjg measures average
// each group's value over the query's groups; runid and num_q as above; any other
// measure is InvalidArgument (trec_eval refuses it for this format too).
StatusOr<std::vector<TrecMeasureValue>> trec_evaluate_jg(const QrelsJg& qrels, const Run& run,
                                                         const TrecEvalOptions& options = {});

// The same over preferences (trec_eval -R prefs, -R qrels_prefs): the prefs_* measures
// (trec_prefs.h); runid and num_q as above; any other measure is InvalidArgument, and
// so are preferences that contradict themselves (naming the query). Read `run` with
// ties_by_id_ascending (trec.h): trec_eval ranks ties that way for preferences. -l and
// -J do not apply (levels are preferences here).
StatusOr<std::vector<TrecMeasureValue>> trec_evaluate_prefs(const TrecPrefs& prefs,
                                                            const Run& run,
                                                            const TrecEvalOptions& options = {});

// Formats one line as trec_eval does: "%-22s\t%s\t%6.4f" (counts "%ld", text as is;
// z-scores "Z%-22s\t%s\t%6.4f").
std::string format_trec_line(const TrecMeasureValue& value);

}  // namespace ragmeter
