// Building a run's summary from per-row results that were scored elsewhere: by another
// process, another machine, or another run's shards (the Ray path of the Python package,
// python/ragmeter/ray.py). evaluate() builds its own summary with the same class, so a
// summary built here from the same results in the same order is the same, number for
// number: means, standard deviations, the bootstrap interval (the same seed), counts,
// corpus values (summed row by row, in input order), the most common reasons.
//
//   SummaryBuilder builder(options);              // options.metrics, scoring, bootstrap
//   for (each row in input order) builder.add_row(results_of_row);   // or add_rejected()
//   EvalSummary summary = std::move(builder).finish();
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ragmeter/evaluate.h"
#include "ragmeter/metric.h"

namespace ragmeter {

class SummaryBuilder {
 public:
  // Keeps copies of options.metrics, options.scoring, options.bootstrap (threads:
  // options.threads, which does not change the interval) and options.pass_marks.
  explicit SummaryBuilder(const EvalOptions& options);

  // One scored row: results[m] belongs to options.metrics[m]; `language` (the sample's,
  // "zh") is counted in EvalSummary::languages unless empty. InvalidArgument (and nothing
  // is added) when results has another size than the metrics; Internal (nothing added)
  // when a score lies outside its metric's declared range (check_score_range).
  // A repeated `ok` result (MetricResult::repeat_scores) also goes into its metric's
  // MetricSummary::repeats (8 bytes per repeat until finish()).
  Status add_row(const std::vector<MetricResult>& results, std::string_view language = {});
  // Counts one scored row in `language` (for callers using add_outcome); empty: not counted.
  void count_language(std::string_view language);
  // The same for one metric's outcome of the next row, for callers that hold results
  // by column; a row is complete when each metric got one (the caller keeps rows
  // aligned). `corpus_stats` and `note` (MetricResult::note) may be empty.
  void add_outcome(std::size_t metric, Outcome outcome, double score, const std::string& reason,
                   const std::vector<double>& corpus_stats, const std::string& note = {});
  // A row that could not be read or turned into a sample: counted in rows read and
  // rejected, not in any metric's counts (as evaluate() counts it).
  void add_rejected();
  // Counts a scored row in rows_read for callers using add_outcome.
  void count_row() { ++summary_.rows_read; }
  void set_cancelled() { summary_.cancelled = true; }

  std::size_t metric_count() const { return accumulators_.size(); }

  // The summary of everything added. Costs the bootstrap (resamples x scored rows per
  // metric); memory is one double per scored (row, metric), as evaluate()'s.
  EvalSummary finish() &&;

 private:
  struct Accumulator {
    std::vector<double> scores;
    std::int64_t skipped = 0;
    std::int64_t failed = 0;
    std::vector<double> corpus_stats;
    std::int64_t noted = 0;
    std::map<std::string, std::int64_t> skip_reasons, failure_reasons, notes;
    // The repeat scores of each `ok` repeated result (MetricResult::repeat_scores).
    std::vector<std::vector<double>> repeat_groups;
  };

  // MetricSummary::repeats of a metric's repeated samples (repeats.h).
  RepeatSummary summarize_repeats(const std::vector<std::vector<double>>& groups,
                                  bool higher_is_better, std::optional<double> mark) const;

  std::vector<MetricRequest> metrics_;
  ScoringOptions scoring_;
  BootstrapOptions bootstrap_;
  std::map<std::string, double> pass_marks_;
  std::vector<Accumulator> accumulators_;
  EvalSummary summary_;
};

}  // namespace ragmeter
