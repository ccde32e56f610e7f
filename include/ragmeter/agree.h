// How far each metric of a run agrees with people's labels: `ragmeter agree RESULTS
// LABELS` and `ragmeter.agree` (docs/agree.md).
//
// The run's rows (a ResultTable: `eval --out` read back, or a run in memory) are joined
// with the labels (labels.h) by id. Per metric, on the labels whose row the metric scored:
//
//   binary labels    a pass mark chosen on the dev half (choose_threshold: best balanced
//                    accuracy), then on the test half accuracy, balanced accuracy, Cohen's
//                    kappa and Krippendorff's alpha (nominal) of "score >= mark" against
//                    the labels; on all labels ROC AUC, Pearson, Spearman, Kendall's tau-b
//   ordinal labels   Pearson, Spearman, Kendall's tau-b; when every score is a level of
//                    the scale (a 1-5 rubric score against 1-5 ratings) also exact
//                    accuracy, quadratic-weighted kappa and ordinal alpha
//   pairwise         delta = score(b) - score(a) against the preference: pairwise
//                    accuracy, Pearson, Spearman, Kendall's tau-b
//
// Scores of a lower-is-better metric are negated first, so that for every metric a
// positive correlation is agreement and "passes" means "scores at or above the mark".
// Each label is one point (an item labelled by two people counts twice, as each
// person's own verdict). Each statistic has a 95% percentile bootstrap interval over
// items (all labels of a drawn item together; bootstrap_interval in stats.h, the same
// seeded generator as every ragmeter interval; bootstrap.h) and, when items have two or more
// labels, the people's ceiling: the same statistic with one annotator's label in the metric's
// place, over every ordered pair of two labels of one item (alpha: over the annotators
// as its coders). The dev/test split is by item: is_dev_item.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/agreement.h"
#include "ragmeter/bootstrap.h"
#include "ragmeter/labels.h"
#include "ragmeter/result_table.h"

namespace ragmeter {

struct AgreeOptions {
  LabelOptions labels;  // the id column and the scale; the same id column names results rows
  // The metrics to measure; empty: every metric of the run that has labels (its own
  // column, or the generic `label`). A metric not in the run is InvalidArgument.
  std::vector<std::string> metrics;
  std::uint64_t split_seed = 0;  // is_dev_item's seed: another seed, another split
  // Intervals: resamples of the items. More resamples: steadier bounds, linear time.
  BootstrapOptions bootstrap = {.resamples = 1000, .seed = 42, .confidence = 0.95};
};

// The split rule: an item (a row id; pairwise "<id_a> <id_b>") is in the dev half when
// the first 8 hex digits of sha256("ragmeter-agree:<seed>:<item>"), read as a number,
// are even. Deterministic, independent of the other items and of the file's order.
bool is_dev_item(const std::string& item, std::uint64_t seed);

// A statistic's value on one subset of the labels, with its interval.
struct StatisticValue {
  std::optional<double> value;          // nullopt: undefined (see `undefined`)
  std::optional<BootstrapInterval> ci;  // nullopt when the value is, or no resample was defined
  std::int64_t n = 0;                   // labels (or ordered label pairs, for a ceiling)
  std::int64_t items = 0;               // items among them: the bootstrap's units
  std::string undefined;                // why there is no value
};

struct AgreementStatistic {
  std::string name;       // accuracy, balanced_accuracy, cohen_kappa, krippendorff_alpha,
                          // roc_auc, pearson, spearman, kendall_tau_b, pairwise_accuracy
  std::string subset;     // "test" (uses the pass mark chosen on dev) or "all"
  StatisticValue metric;  // the metric against the labels
  std::optional<StatisticValue> ceiling;  // one person against another; nullopt: one label per item
};

// One bin of a calibration plot: the labels whose row's score fell in [low, high) (the
// last bin includes `high`). Bins split the metric's range from the metric table (for a
// metric it lacks, the range of its labelled scores) into 10 equal parts; all labels are
// used, each label one point, as for the statistics.
struct CalibrationBin {
  double low = 0.0, high = 0.0;
  std::int64_t n = 0;                // labels in the bin
  std::optional<double> mean_score;  // in the metric's own units; nullopt when n == 0
  std::optional<double> mean_label;  // binary: the share labelled good; ordinal: the mean label
  // Binary labels: the Wilson score 95% interval of that share (as scipy's
  // binomtest(k, n).proportion_ci(method="wilson")); nullopt otherwise.
  std::optional<std::pair<double, double>> label_ci95;
};

// The Wilson score interval (low, high) of a share of `successes` in `n` trials, z the
// normal quantile of the confidence (1.959964: 95%); nullopt when n == 0.
std::optional<std::pair<double, double>> wilson_interval(std::int64_t successes, std::int64_t n,
                                                         double z = 1.959963984540054);

struct MetricAgreement {
  std::string metric;
  bool higher_is_better = true;  // from the metric table; true for a metric it lacks
  std::string label_column;      // "label" or the metric's own column
  std::int64_t labels = 0;       // labels joined to a row this metric scored
  std::int64_t items = 0;        // distinct items among them
  std::int64_t most_labels_per_item = 0;
  std::int64_t unscored = 0;  // labels whose row(s) the metric skipped or failed
  std::int64_t dev_items = 0, test_items = 0;
  // Binary labels: the pass mark in the metric's own units (a lower-is-better metric
  // passes at or below it) with its balanced accuracy on dev.
  std::optional<Threshold> threshold;
  std::string threshold_undefined;  // why there is none
  bool on_label_scale = false;      // ordinal: every score is a level of the scale
  std::vector<AgreementStatistic> statistics;
  // Binary and ordinal labels, when the metric could be measured: what people said about
  // the rows in each score range (the report's calibration plot). Empty for preferences.
  std::vector<CalibrationBin> calibration;
  // What keeps this metric's agreement from being measured: no scored label, no
  // variance in the scores or in the labels. Its statistics are then left out.
  std::vector<std::string> errors;
};

struct AgreementReport {
  std::string results_name, labels_name;
  std::string id_column;
  LabelScale scale;
  std::uint64_t split_seed = 0;
  BootstrapOptions bootstrap;
  std::int64_t results_rows = 0;
  std::int64_t results_without_id = 0;  // rows with no id (or rejected rows): not joinable
  std::int64_t label_rows = 0;
  std::int64_t labels_used = 0;  // labels joined to a results row
  // Everything that could not be used, with file, line and field: label rows rejected,
  // labels that match no results row, results rows whose id repeats.
  std::vector<RowError> errors;
  std::vector<std::string> ignored_columns;  // of the labels file
  std::vector<MetricAgreement> metrics;
  // True when `errors` or some metric's errors are not empty (exit code 3).
  bool has_errors() const;
};

// Joins `results` (named `results_name` in messages) with `labels` and measures every
// metric. InvalidArgument when a requested metric is not in the run, when no metric has
// labels, or when no label matches a results row (naming the id column). Everything
// else that is wrong is reported inside the report and the rest is computed.
// Thread-safe; uses options.bootstrap.threads threads.
StatusOr<AgreementReport> agree(const ResultTable& results, const std::string& results_name,
                                const LabelSet& labels, const AgreeOptions& options);

// The report as JSON (`ragmeter agree --out`; docs/agree.md has the format).
nlohmann::ordered_json agreement_to_json(const AgreementReport& report);

// The report as the terminal table of `ragmeter agree`.
std::string format_agreement_table(const AgreementReport& report);

}  // namespace ragmeter
