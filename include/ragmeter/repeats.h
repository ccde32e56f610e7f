// Repeated judgements (`ragmeter eval --repeat N`, EvalOptions::repeat): how the N
// judgements of one (sample, metric) become its row, and what the summary says about the
// judge's own noise. docs/output.md ("Repeats") has the definitions with examples.
//
//  - A sample's score is the mean of its N repeats; its row keeps every repeat's score and
//    their standard deviation.
//  - A score passes a mark t when it is >= t for a higher-is-better metric, <= t for a
//    lower-is-better one (the direction of the metric's CI gate, gates.h).
//  - pass^k: every repeat passes; the sample's pass^k score is its worst repeat (the lowest,
//    or the highest for a lower-is-better metric), which passes t exactly when every repeat
//    does. pass@k: at least one repeat passes; its score is the best repeat.
//  - Flaky at t: some repeat passes t and some does not (the worst fails, the best passes).
//  - The variance of single judgements splits into the samples' part and the judge's part
//    by a one-way random-effects ANOVA, samples as groups and repeats within them
//    (variance_components).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "ragmeter/metric.h"
#include "ragmeter/stats.h"

namespace ragmeter {

// The one-way random-effects ANOVA of n groups (samples), group i holding k_i values (its
// repeats), N = sum k_i values in all, ȳ_i the group means and ȳ the mean of all N values:
//   MS_between = sum_i k_i (ȳ_i - ȳ)^2 / (n - 1)
//   MS_within  = sum_i sum_r (y_ir - ȳ_i)^2 / (N - n)
//   k0         = (N - sum_i k_i^2 / N) / (n - 1)          (= k when every group has k)
//   within     = MS_within                                 (the judge's variance)
//   between    = max(0, (MS_between - MS_within) / k0)     (the samples' variance)
//   judge_share = within / (within + between)
// `between` is the usual moment estimator truncated at 0 (it is negative when the repeats
// of a sample differ more than the samples do); with it, 1 - judge_share is the
// intraclass correlation ICC(1) = (MS_b - MS_w) / (MS_b + (k - 1) MS_w) for equal k.
struct VarianceComponents {
  bool defined = false;         // n >= 2 and N > n; else every number below is 0
  std::int64_t groups = 0;      // n
  std::int64_t values = 0;      // N
  double grand_mean = 0.0;      // ȳ
  double ms_between = 0.0;
  double ms_within = 0.0;
  double k0 = 0.0;
  double within = 0.0;
  double between = 0.0;
  std::optional<double> judge_share;  // nullopt when within + between is 0 (all values equal)
};

// The components of `groups` (each group non-empty; empty groups are ignored). Thread-safe.
VarianceComponents variance_components(std::span<const std::vector<double>> groups);

// Whether `score` passes the mark (>= for higher-is-better, <= for lower-is-better).
bool passes_mark(double score, double mark, bool higher_is_better);

// The worst (pass^k) and best (pass@k) of a sample's repeat scores in the metric's
// direction. Precondition: `scores` is not empty.
double worst_repeat(std::span<const double> scores, bool higher_is_better);
double best_repeat(std::span<const double> scores, bool higher_is_better);

// True when some of `scores` pass the mark and some do not.
bool repeats_straddle(std::span<const double> scores, double mark, bool higher_is_better);

// One (sample, metric)'s result from its repeats' results (repeats[r] is repeat r + 1's;
// not empty). Every repeat `ok`: `ok`, the mean of their scores, repeat 1's evidence and
// note, and MetricResult::repeat_scores, repeat_evidence and (with a `mark`) flaky set.
// Otherwise the first failed repeat (else the first skipped one) decides the outcome, with
// its reason prefixed "repeat R of N: " unless every repeat has that outcome and reason (a
// missing field skips every repeat alike), and its evidence; the scores of the repeats that
// were scored are still kept. Thread-safe.
MetricResult combine_repeats(std::vector<MetricResult> repeats, std::optional<double> mark,
                             bool higher_is_better);

// What the summary says about a judged metric's repeats (MetricSummary::repeats), over the
// samples whose every repeat was scored (the metric's `n`).
struct RepeatSummary {
  int repeats = 0;  // k: judgements per sample
  VarianceComponents variance;
  // The mean over samples of the standard deviation (n - 1) of their k repeats.
  double mean_sample_std = 0.0;
  // sqrt(within / n): the standard deviation the judge alone gives the mean of a run that
  // judges each of these n samples once. Two such runs of one system differ by the
  // judge alone with a standard deviation of sqrt(2) times this.
  double single_run_judge_std = 0.0;
  // The per-sample pass^k scores (worst repeat) and pass@k scores (best repeat),
  // summarised as the metric's scores are (mean, std, bootstrap interval).
  SummaryStats pass_all;
  SummaryStats pass_any;
  // Each sample's worst and best repeat, in input order (the gates count flaky samples at
  // their own value from them). 16 bytes per sample.
  std::vector<double> worst;
  std::vector<double> best;
  // EvalOptions::pass_marks' mark for the metric, if any, and the samples flaky at it.
  std::optional<double> pass_mark;
  std::int64_t flaky = 0;
};

// The samples of `summary` flaky at `mark`: worst fails it, best passes it.
std::int64_t count_flaky(const RepeatSummary& summary, double mark, bool higher_is_better);

}  // namespace ragmeter
