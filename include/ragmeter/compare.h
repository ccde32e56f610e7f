// Comparing two runs of the same test set: paired statistics per metric.
//
// A user changes one thing (the retriever's k, a prompt, a model) and scores the same
// samples again. `compare_runs` matches the two runs' per-sample results row by row and,
// per metric, reports both means, the mean paired difference with a paired bootstrap
// interval, a paired sign-flip permutation test, win / tie / loss counts, and Holm's
// correction across the metrics compared that changed on some pair. Every difference is
// also given "oriented": multiplied by -1 for metrics where lower is better, so a positive
// oriented difference is always an improvement.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/stats.h"
#include "ragmeter/status.h"

namespace ragmeter {

// ---- Paired statistics of one metric ----------------------------------------------

struct PairedTestOptions {
  // The paired bootstrap of the mean difference (resampling pairs): summarize() over the
  // differences, so the same splitmix64 generator and seed rules as the summary's CI.
  BootstrapOptions bootstrap = {.resamples = 10000, .seed = 42, .confidence = 0.95};
  // The sign-flip test is exact (every one of the 2^m sign assignments of the m non-zero
  // differences) when m <= this; 2^20 assignments take a few milliseconds. Larger m uses
  // Monte Carlo. More: exact for larger samples, time doubling with each step.
  int exact_max_nonzero = 20;
  // Monte Carlo sign-flip draws (m > exact_max_nonzero): the p-value's standard error is
  // at most 0.5 / sqrt(draws). Cost: draws x n additions.
  int permutations = 20000;
  std::uint64_t permutation_seed = 42;  // the same seed and data give the same p-value
  // |difference| at or below this is a tie (and a zero difference for the test).
  double tie_tolerance = 1e-12;
};

struct PairedStats {
  std::int64_t n = 0;      // pairs (samples scored in both runs)
  double mean_base = 0.0;
  double mean_new = 0.0;
  double mean_diff = 0.0;  // mean of (new - base), in the metric's own units
  double ci_low = 0.0;     // paired bootstrap percentile interval of mean_diff
  double ci_high = 0.0;
  // Two-sided p-value of the paired sign-flip test of H0: each pair's difference is as
  // likely to have either sign (base and new exchangeable within a pair). Statistic:
  // |sum of differences|. 1 when n == 0 or every difference is a tie.
  double p_value = 1.0;
  bool p_exact = true;     // true: full enumeration; false: Monte Carlo, (1 + hits) / (1 + draws)
  std::int64_t wins = 0;   // pairs where new is better in the metric's direction
  std::int64_t ties = 0;
  std::int64_t losses = 0;
};

// Paired statistics of `base[i]` against `next[i]` (equal lengths; InvalidArgument
// otherwise). `higher_is_better` decides what a win is; the differences themselves are
// new - base in the metric's units. Deterministic for given options; thread-safe.
StatusOr<PairedStats> paired_stats(std::span<const double> base, std::span<const double> next,
                                   bool higher_is_better, const PairedTestOptions& options = {});

// The sign-flip test alone on differences `diffs` (see PairedStats::p_value). Sets
// *exact to whether it enumerated. Differences within options.tie_tolerance of 0 are
// dropped (flipping them changes nothing).
double sign_flip_p_value(std::span<const double> diffs, const PairedTestOptions& options,
                         bool* exact);

// Holm's step-down adjustment of p-values (Holm, 1979): sorted ascending p_(1..m),
// adjusted p_(i) = max over j <= i of min(1, (m - j + 1) p_(j)); returned in the input
// order. Controls the family-wise error rate across the m tests.
std::vector<double> holm_adjust(std::span<const double> p_values);

// ---- Comparing two results files ---------------------------------------------------

struct CompareOptions {
  // The column naming a row in both runs. Empty: `user_input` (or `question`) plus the
  // SHA-256 of the sample's reference and reference contexts (what the test set gives,
  // not what the system retrieved, which a changed retriever changes), so one question
  // with two different references is two rows. A key repeated within a run gets "#2",
  // "#3", ... in input order.
  std::string id_column;
  PairedTestOptions test;
  double alpha = 0.05;  // the level of "statistical confidence" for regressions
  int top_changes = 5;  // samples listed per metric as the ones that changed most
};

// One sample of a run as read back from its results file.
struct ResultsRow {
  std::string key;
  std::int64_t line = 0;         // 1-based line in the results file
  nlohmann::ordered_json row;    // the whole results object (fields, scores, status, ...)
};

// A results file (`ragmeter eval --out`, JSONL) read into memory.
struct RunResults {
  std::string path;
  std::vector<ResultsRow> rows;
  std::vector<std::string> metrics;  // metric names in first-seen order
  std::int64_t rejected_rows = 0;    // rows written as {"row_error": ...}, not matchable
};

// Reads a results file. InvalidArgument naming the file and line when a line is not a
// JSON object, has no "status" object, or lacks `options.id_column` when that is set;
// NotFound when the file cannot be opened.
StatusOr<RunResults> read_run_results(const std::string& path, const CompareOptions& options);

// One sample whose score changed, with what both runs said about it.
struct SampleChange {
  std::string key;
  double base = 0.0;
  double next = 0.0;
  double oriented_diff = 0.0;      // (next - base), times -1 when lower is better
  const nlohmann::ordered_json* base_row = nullptr;  // into the RunResults compared
  const nlohmann::ordered_json* new_row = nullptr;
};

// The paired differences of one metric, oriented (positive = new is better) and binned
// for a chart: `better[k]` counts pairs whose oriented difference d is in
// (k * width / 10, (k + 1) * width / 10], `worse[k]` those with -d in that range (k = 0 is
// next to no change), `ties` those within the tie tolerance of 0. `width` is the metric's
// range (max - min from the metric table; 1 for a metric it lacks), the largest possible
// |d|; a difference beyond it (a score outside the table's range) goes in the last bin.
struct DiffHistogram {
  static constexpr int kBinsPerSide = 10;
  double width = 1.0;
  std::vector<std::int64_t> worse = std::vector<std::int64_t>(kBinsPerSide, 0);
  std::vector<std::int64_t> better = std::vector<std::int64_t>(kBinsPerSide, 0);
  std::int64_t ties = 0;
};

// Adds one oriented difference to `histogram`; |d| <= tie_tolerance is a tie.
void add_difference(double oriented_diff, double tie_tolerance, DiffHistogram* histogram);

struct MetricComparison {
  std::string metric;
  bool higher_is_better = true;  // from the metric table; true for unknown (user) metrics
  bool known_direction = true;   // false: not in the metric table (a user critic)
  PairedStats stats;
  double p_holm = 1.0;           // Holm-adjusted across the family (in_holm_family)
  // Samples scored in one run and skipped or failed in the other: not in the pairs.
  std::int64_t scored_in_one_only = 0;
  std::vector<SampleChange> top_changes;  // largest |difference| first, at most top_changes
  DiffHistogram differences;              // every pair's oriented difference, binned
  // The oriented interval (lower bound, upper bound) of the mean difference.
  double oriented_ci_low() const;
  double oriented_ci_high() const;
  double oriented_mean_diff() const;
};

struct RunComparison {
  std::string base_path, new_path;
  std::int64_t matched = 0;
  std::vector<std::string> only_in_base;  // keys present in one run only, in file order
  std::vector<std::string> only_in_new;
  std::vector<MetricComparison> metrics;  // metrics present in both runs, base order
  std::vector<std::string> metrics_only_in_base, metrics_only_in_new;
  double alpha = 0.05;
  std::int64_t holm_family = 0;  // metrics in Holm's family (in_holm_family)
};

// Whether a metric is one of the tests Holm's correction counts: it has at least one
// non-zero paired difference (a win or a loss). A metric whose pairs all tie, or that has
// no pairs, has p = 1 whatever the data and would only dilute the family; it keeps
// p_holm = 1.
bool in_holm_family(const MetricComparison& metric);

// Matches rows by key and compares every metric both runs have. `base` and `next` must
// outlive the result (top_changes point into them). InvalidArgument when no row matches.
StatusOr<RunComparison> compare_runs(const RunResults& base, const RunResults& next,
                                     const CompareOptions& options);

// The regression rule of `ragmeter compare --fail-on-regression METRIC=DELTA`: true when
// the metric got worse by more than `delta` with confidence, i.e. the upper end of the
// oriented 95% interval of the mean difference is below -delta AND the Holm-adjusted
// p-value is below the comparison's alpha. No pairs: false.
bool is_regression(const MetricComparison& metric, double delta, double alpha);

// What a comparison says about one metric, the rule of `ragmeter compare`'s verdict
// column: kBetter when the Holm-adjusted p-value is below `alpha` and the whole oriented
// 95% interval of the mean difference is above 0; kWorse when p_holm < alpha and the
// interval is below 0; kNoSignificantChange otherwise; kNoPairs when no sample was
// scored in both runs.
enum class ChangeVerdict { kBetter, kWorse, kNoSignificantChange, kNoPairs };
ChangeVerdict change_verdict(const MetricComparison& metric, double alpha);
// "better", "worse", "no significant change", "no pairs".
const char* change_verdict_name(ChangeVerdict verdict);

// The comparison as JSON (for --json and the HTML comparison report): {"ragmeter_version",
// "base", "new",
// "matched", "only_in_base", "only_in_new", "metrics_only_in_base", "metrics_only_in_new",
// "alpha", "holm_family", "metrics": [{"metric",
// "higher_is_better", "n", "mean_base", "mean_new", "mean_diff", "ci95", "p_value",
// "p_exact", "p_holm", "wins", "ties", "losses", "scored_in_one_only", "verdict"
// (change_verdict_name), "differences": {"width", "worse", "ties", "better"} (DiffHistogram),
// "top_changes": [{"key", "base", "new", "oriented_diff", "base_row", "new_row"}]}]}.
nlohmann::ordered_json comparison_to_json(const RunComparison& comparison);

}  // namespace ragmeter
