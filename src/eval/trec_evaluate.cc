// trec_eval's evaluation loop: every query in both the qrels and the run, each selected
// measure's values, then the summary over queries (trec_eval.c and meas_avg.c).
#include <fmt/format.h>

#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "eval/trec_measure_table.h"
#include "ragmeter/trec_eval.h"
#include "eval/trec_measures.h"
#include "eval/trec_prefs.h"

namespace ragmeter {
namespace {

constexpr double kMinGeoMean = 0.00001;  // trec_eval's MIN_GEO_MEAN

// Running sums of one selected measure over the evaluated queries.
struct Accumulator {
  const trec::Selected* measure;
  std::vector<double> sums;
};

// The summary value of one of `acc`'s names over `evaluated` queries, or `all` of the
// qrels' queries with -c.
double summary_value(const Accumulator& acc, std::size_t index, long evaluated, long all,
                     const TrecEvalOptions& options) {
  const long queries = options.average_complete ? all : evaluated;
  const double sum = acc.sums[index];
  switch (acc.measure->def->summary) {
    case trec::Summary::kMean:
      return queries > 0 ? sum / static_cast<double>(queries) : sum;
    case trec::Summary::kGeometric: {
      // Queries the run lacks count as the floor (value 0 would be a perfect log).
      const double total = sum + static_cast<double>(queries - evaluated) * std::log(kMinGeoMean);
      return std::exp(total / static_cast<double>(queries));
    }
    case trec::Summary::kQueries:
      return static_cast<double>(queries);
    default:
      return sum;
  }
}

// trec_eval -Z: a value as deviations from the reference mean of its query and name.
constexpr double kMissingZscore = -1000000;  // trec_eval's MISSING_ZSCORE_VALUE

double to_zscore(const std::map<std::string, TrecZscore>* query, const std::string& name,
                 double value) {
  if (query == nullptr) return kMissingZscore;
  const auto found = query->find(name);
  if (found == query->end()) return kMissingZscore;
  const TrecZscore& z = found->second;
  if (z.stddev != 0) return (value - z.mean) / z.stddev;
  return value == z.mean ? 0.0 : kMissingZscore;
}

// trec_eval 10's stand-in ranking for a query the run lacks under -c: one document no
// qrels judges. Then it zeroes the values that document would otherwise move.
const Ranking& missing_query_ranking() {
  static const Ranking ranking = {"ceci_nest_pas_un_docno"};
  return ranking;
}

bool reset_for_missing_query(std::string_view measure) {
  return measure == "num_ret" || measure == "utility" || measure == "unj" ||
         measure == "rbp_resid";
}

// One query's judged rankings: the qrels ranking, one per judgment group, or the
// preference counts.
struct JudgedQuery {
  TrecJudgedRanking ranking;
  std::vector<TrecJudgedRanking> groups;
  TrecPrefCounts prefs;
};
using JudgeFn =
    std::function<StatusOr<JudgedQuery>(const std::string& query, const Ranking& ranking)>;

// The evaluation loop of trec_eval.c over `queries` (the relevance file's query ids,
// in bytewise order).
class Evaluation {
 public:
  Evaluation(const std::vector<trec::Selected>& selected, const TrecEvalOptions& options)
      : options_(options) {
    for (const trec::Selected& s : selected) {
      accumulators_.push_back({&s, std::vector<double>(s.names.size(), 0.0)});
    }
  }

  void add_query(const std::string& query, const JudgedQuery& judged, bool missing) {
    const trec::QueryContext context{judged.ranking, options_, judged.groups, &judged.prefs};
    const std::map<std::string, TrecZscore>* zscores = nullptr;
    if (options_.zscores != nullptr) {
      const auto found = options_.zscores->find(query);
      if (found != options_.zscores->end()) zscores = &found->second;
    }
    for (Accumulator& acc : accumulators_) add_measure(query, context, acc, missing, zscores);
    ++evaluated_;
  }

  // Queries counted as 0 without being evaluated (trec_eval 9's -c).
  void add_unevaluated(long queries) { unevaluated_ += queries; }
  long evaluated() const { return evaluated_; }

  std::vector<TrecMeasureValue> finish() {
    if (!options_.summary) return std::move(lines_);
    for (const Accumulator& acc : accumulators_) add_summary(acc);
    return std::move(lines_);
  }

 private:
  void add_measure(const std::string& query, const trec::QueryContext& context, Accumulator& acc,
                   bool missing, const std::map<std::string, TrecZscore>* zscores) {
    const trec::MeasureDef& def = *acc.measure->def;
    if (def.name == "relstring") {
      if (!options_.per_query) return;
      const long length = static_cast<long>(acc.measure->params.numbers.front());
      const std::string text = missing ? "" : trec_relstring(context.ranking, length);
      lines_.push_back({acc.measure->names.front(), query, 0.0, TrecValueKind::kText,
                        fmt::format("'{}'", text)});
      return;
    }
    values_.assign(acc.sums.size(), 0.0);
    def.compute(context, acc.measure->params, values_);
    const bool zscore = options_.zscores != nullptr;
    for (std::size_t v = 0; v < values_.size(); ++v) {
      if (missing && reset_for_missing_query(def.name)) values_[v] = 0.0;
      if (zscore) values_[v] = to_zscore(zscores, acc.measure->names[v], values_[v]);
      acc.sums[v] += values_[v];
      if (options_.per_query && def.per_query) {
        lines_.push_back({acc.measure->names[v], query, values_[v], def.kind, {}, zscore});
      }
    }
  }

  void add_summary(const Accumulator& acc) {
    const trec::MeasureDef& def = *acc.measure->def;
    if (def.summary == trec::Summary::kNone) return;
    if (def.summary == trec::Summary::kRunId) {
      lines_.push_back({"runid", "all", 0.0, TrecValueKind::kText, options_.run_tag});
      return;
    }
    for (std::size_t v = 0; v < acc.sums.size(); ++v) {
      lines_.push_back({acc.measure->names[v], "all",
                        summary_value(acc, v, evaluated_, evaluated_ + unevaluated_, options_),
                        def.kind, {}, options_.zscores != nullptr});
    }
  }

  const TrecEvalOptions& options_;
  std::vector<Accumulator> accumulators_;
  std::vector<TrecMeasureValue> lines_;
  std::vector<double> values_;
  long evaluated_ = 0;
  long unevaluated_ = 0;
};

Status check_options(const TrecEvalOptions& options) {
  if (options.relevance_level < 0) {
    return invalid_argument(
        fmt::format("relevance level {} is negative (trec_eval -l)", options.relevance_level));
  }
  if (options.max_docs < 0) {
    return invalid_argument(fmt::format("-M {} is negative", options.max_docs));
  }
  return ok_status();
}

std::string_view input_name(trec::RelInput input) {
  switch (input) {
    case trec::RelInput::kQrelsJg:
      return "qrels_jg";
    case trec::RelInput::kPrefs:
      return "prefs or qrels_prefs";
    default:
      return "qrels";
  }
}

// The selected measures, refusing those that read another relevance format.
StatusOr<std::vector<trec::Selected>> select_for(const TrecEvalOptions& options,
                                                 trec::RelInput input) {
  RAGMETER_RETURN_IF_ERROR(check_options(options));
  RAGMETER_ASSIGN_OR_RETURN(std::vector<trec::Selected> selected,
                            trec::select_measures(options.measures, options.version));
  for (const trec::Selected& s : selected) {
    const trec::RelInput needs = s.def->input;
    if (needs == trec::RelInput::kAny || needs == input) continue;
    return invalid_argument(
        fmt::format("measure '{}' needs {} relevance judgements (trec_eval -R); these are {}",
                    s.def->name, input_name(needs), input_name(input)));
  }
  return selected;
}

// Runs the loop over `query_ids` (relevance file order) for `run`.
StatusOr<std::vector<TrecMeasureValue>> evaluate_queries(
    const std::vector<trec::Selected>& selected, const std::vector<std::string>& query_ids,
    const Run& run, const TrecEvalOptions& options, const JudgeFn& judge) {
  Evaluation evaluation(selected, options);
  const bool complete_v10 =
      options.average_complete && options.version != TrecEvalVersion::k9;
  for (const std::string& query : query_ids) {
    const auto ranked = run.find(query);
    if (ranked != run.end() || complete_v10) {
      const bool missing = ranked == run.end();
      StatusOr<JudgedQuery> judged =
          judge(query, missing ? missing_query_ranking() : ranked->second);
      if (!judged.ok()) {
        return invalid_argument(fmt::format("query '{}': {}", query, judged.status().message()));
      }
      evaluation.add_query(query, *judged, missing);
    } else if (options.average_complete) {
      evaluation.add_unevaluated(1);  // trec_eval 9: counts 0, not printed
    }
  }
  if (evaluation.evaluated() == 0) return std::vector<TrecMeasureValue>{};
  return evaluation.finish();
}

TrecRankingOptions ranking_options(const TrecEvalOptions& options) {
  return {.relevance_level = options.relevance_level,
          .max_docs = options.max_docs,
          .judged_only = options.judged_only};
}

template <typename Map>
std::vector<std::string> keys_of(const Map& map) {
  std::vector<std::string> keys;
  keys.reserve(map.size());
  for (const auto& entry : map) keys.push_back(entry.first);
  return keys;
}

}  // namespace

std::vector<std::string> trec_measure_names(TrecEvalVersion version) {
  std::vector<std::string> names;
  for (const trec::MeasureDef& def : trec::measure_table()) {
    if (trec::measure_in(def, version)) names.emplace_back(def.name);
  }
  return names;
}

StatusOr<std::vector<TrecMeasureValue>> trec_evaluate(const Qrels& qrels, const Run& run,
                                                      const TrecEvalOptions& options) {
  RAGMETER_ASSIGN_OR_RETURN(const std::vector<trec::Selected> selected,
                            select_for(options, trec::RelInput::kQrels));
  const TrecRankingOptions ranking = ranking_options(options);
  const JudgeFn judge = [&](const std::string& query,
                           const Ranking& documents) -> StatusOr<JudgedQuery> {
    return JudgedQuery{trec_judged_ranking(documents, qrels.at(query), ranking), {}, {}};
  };
  return evaluate_queries(selected, keys_of(qrels), run, options, judge);
}

StatusOr<std::vector<TrecMeasureValue>> trec_evaluate_jg(const QrelsJg& qrels, const Run& run,
                                                         const TrecEvalOptions& options) {
  RAGMETER_ASSIGN_OR_RETURN(const std::vector<trec::Selected> selected,
                            select_for(options, trec::RelInput::kQrelsJg));
  const TrecRankingOptions ranking = ranking_options(options);
  const JudgeFn judge = [&](const std::string& query,
                           const Ranking& documents) -> StatusOr<JudgedQuery> {
    JudgedQuery judged;
    for (const auto& [group, judgements] : qrels.at(query)) {
      judged.groups.push_back(trec_judged_ranking(documents, judgements, ranking));
    }
    return judged;
  };
  return evaluate_queries(selected, keys_of(qrels), run, options, judge);
}

StatusOr<std::vector<TrecMeasureValue>> trec_evaluate_prefs(const TrecPrefs& prefs,
                                                            const Run& run,
                                                            const TrecEvalOptions& options) {
  RAGMETER_ASSIGN_OR_RETURN(const std::vector<trec::Selected> selected,
                            select_for(options, trec::RelInput::kPrefs));
  const JudgeFn judge = [&](const std::string& query,
                           const Ranking& documents) -> StatusOr<JudgedQuery> {
    JudgedQuery judged;
    RAGMETER_ASSIGN_OR_RETURN(judged.prefs,
                              trec_pref_counts(documents, prefs.at(query), options.max_docs));
    return judged;
  };
  return evaluate_queries(selected, keys_of(prefs), run, options, judge);
}

std::string format_trec_line(const TrecMeasureValue& value) {
  if (value.zscore && value.kind != TrecValueKind::kText) {
    return fmt::format("Z{:<22}\t{}\t{:6.4f}", value.measure, value.query, value.value);
  }
  switch (value.kind) {
    case TrecValueKind::kText:
      return fmt::format("{:<22}\t{}\t{}", value.measure, value.query, value.text);
    case TrecValueKind::kCount:
      return fmt::format("{:<22}\t{}\t{}", value.measure, value.query,
                         static_cast<long>(value.value));
    case TrecValueKind::kReal:
      break;
  }
  return fmt::format("{:<22}\t{}\t{:6.4f}", value.measure, value.query, value.value);
}

}  // namespace ragmeter
