// trec_eval's evaluation loop: every query in both the qrels and the run, each selected
// measure's values, then the summary over queries (trec_eval.c and meas_avg.c).
#include <fmt/format.h>

#include <cmath>
#include <string>
#include <vector>

#include "eval/trec_measure_table.h"
#include "ragmeter/trec_eval.h"
#include "ragmeter/trec_measures.h"

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

}  // namespace

std::vector<std::string> trec_measure_names() {
  std::vector<std::string> names;
  for (const trec::MeasureDef& def : trec::measure_table()) names.emplace_back(def.name);
  return names;
}

StatusOr<std::vector<TrecMeasureValue>> trec_evaluate(const Qrels& qrels, const Run& run,
                                                      const TrecEvalOptions& options) {
  if (options.relevance_level < 0) {
    return invalid_argument(
        fmt::format("relevance level {} is negative (trec_eval -l)", options.relevance_level));
  }
  if (options.max_docs < 0) {
    return invalid_argument(fmt::format("-M {} is negative", options.max_docs));
  }
  RAGMETER_ASSIGN_OR_RETURN(const std::vector<trec::Selected> selected,
                            trec::select_measures(options.measures));
  std::vector<Accumulator> accumulators;
  for (const trec::Selected& s : selected) {
    accumulators.push_back({&s, std::vector<double>(s.names.size(), 0.0)});
  }
  const TrecRankingOptions ranking_options{.relevance_level = options.relevance_level,
                                           .max_docs = options.max_docs,
                                           .judged_only = options.judged_only};
  std::vector<TrecMeasureValue> lines;
  std::vector<double> values;
  long evaluated = 0;
  // Run order is query-id order (std::map, bytewise like strcmp), which is trec_eval's.
  for (const auto& [query, ranking] : run) {
    const auto judged = qrels.find(query);
    if (judged == qrels.end()) continue;  // no judgements: trec_eval ignores the query
    const TrecJudgedRanking ranked = trec_judged_ranking(ranking, judged->second, ranking_options);
    const trec::QueryContext context{ranked, options};
    for (Accumulator& acc : accumulators) {
      const trec::MeasureDef& def = *acc.measure->def;
      if (def.name == "relstring") {
        if (options.per_query) {
          const long length = static_cast<long>(acc.measure->params.numbers.front());
          lines.push_back({acc.measure->names.front(), query, 0.0, TrecValueKind::kText,
                           fmt::format("'{}'", trec_relstring(ranked, length))});
        }
        continue;
      }
      values.assign(acc.sums.size(), 0.0);
      def.compute(context, acc.measure->params, values);
      for (std::size_t v = 0; v < values.size(); ++v) {
        acc.sums[v] += values[v];
        if (options.per_query && def.per_query) {
          lines.push_back({acc.measure->names[v], query, values[v], def.kind, {}});
        }
      }
    }
    ++evaluated;
  }
  if (evaluated == 0) return std::vector<TrecMeasureValue>{};
  const long all_queries = static_cast<long>(qrels.size());
  for (const Accumulator& acc : accumulators) {
    const trec::MeasureDef& def = *acc.measure->def;
    if (def.summary == trec::Summary::kNone) continue;
    if (def.summary == trec::Summary::kRunId) {
      lines.push_back({"runid", "all", 0.0, TrecValueKind::kText, options.run_tag});
      continue;
    }
    for (std::size_t v = 0; v < acc.sums.size(); ++v) {
      lines.push_back({acc.measure->names[v], "all",
                       summary_value(acc, v, evaluated, all_queries, options), def.kind, {}});
    }
  }
  return lines;
}

std::string format_trec_line(const TrecMeasureValue& value) {
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
