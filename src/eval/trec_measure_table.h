// trec_eval's measures as one table (name, parameters, how the summary is formed,
// how a query's values are computed), and the parsing of `-m` selections.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ragmeter/status.h"
#include "ragmeter/trec_eval.h"
#include "eval/trec_measures.h"
#include "eval/trec_prefs.h"

namespace ragmeter::trec {

// What a measure's parameters are (trec_eval's init_meas kinds).
enum class ParamKind {
  kNone,           // no parameters
  kLongCutoffs,    // positive integers, distinct, sorted: one value each ("P_5")
  kDoubleCutoffs,  // numbers, distinct, sorted: one value each ("iprec_at_recall_0.10")
  kDoubles,        // numbers in order, one value ("utility", "11pt_avg")
  kGains,          // level=gain pairs, one value ("ndcg")
  kNamedValues,    // name=number pairs, one value ("rbp.p=0.95")
};

// Which relevance format a measure reads (trec_eval's -R).
enum class RelInput {
  kAny,      // runid, num_q: no judgements
  kQrels,    // qid iter docid rel
  kQrelsJg,  // qid group docid rel: one judged ranking per group
  kPrefs,    // prefs or qrels_prefs: preference counts
};

// How the summary line comes from the queries' values.
enum class Summary {
  kMean,       // sum / queries
  kSum,        // sum (the num_* counts)
  kGeometric,  // exp(mean of the per-query logs)
  kQueries,    // the number of queries (num_q)
  kRunId,      // the run's tag (runid)
  kNone,       // no summary (relstring)
};

struct Params {
  std::vector<long> cutoffs;
  std::vector<double> numbers;                 // double cutoffs or double parameters
  std::vector<std::pair<long, double>> gains;  // level -> gain overrides
  std::vector<std::pair<std::string, double>> named;  // kNamedValues, in the given order
  std::string text;                            // as given, for the name; empty = default
};

struct QueryContext {
  const TrecJudgedRanking& ranking;
  const TrecEvalOptions& options;
  std::span<const TrecJudgedRanking> groups = {};  // qrels_jg: one ranking per group
  const TrecPrefCounts* prefs = nullptr;           // prefs, qrels_prefs
};

// Computes a query's values of one measure into `out` (one per name).
using ComputeFn = void (*)(const QueryContext&, const Params&, std::span<double> out);

struct MeasureDef {
  std::string_view name;
  ParamKind params;
  std::string_view defaults;  // default parameters, spelled as -m takes them
  Summary summary;
  bool per_query;  // printed for each query with -q
  TrecValueKind kind;
  ComputeFn compute;
  TrecEvalVersion since = TrecEvalVersion::k9;  // first release that has it
  bool all_trec = true;                          // in the all_trec set
  RelInput input = RelInput::kQrels;
};

// Every measure of both releases, in trec_eval's order.
std::span<const MeasureDef> measure_table();
// Whether `def` exists in `version`.
bool measure_in(const MeasureDef& def, TrecEvalVersion version);

struct Selected {
  const MeasureDef* def = nullptr;
  Params params;
  std::vector<std::string> names;  // output name of each value
};

// Parses `-m` selections (empty: "official") into the measures of `version` to
// compute, in the table's order. InvalidArgument naming the bad selection.
StatusOr<std::vector<Selected>> select_measures(const std::vector<std::string>& specs,
                                                TrecEvalVersion version);

}  // namespace ragmeter::trec
