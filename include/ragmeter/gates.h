// CI gates: the one rule behind `ragmeter eval --fail-under / --fail-over`, `ragmeter
// compare --fail-on-regression` and the Python package's ragmeter.testing.assert_thresholds.
//
// 1. A gate fits its metric or is refused before anything runs (a usage error): its value
//    lies in the metric's range, and its bound points the metric's way: a minimum (the mean
//    must be at least the value) for a higher-is-better metric, a maximum for a
//    lower-is-better one. The other bound would be a gate that fails when the metric gets
//    better.
// 2. A gate passes only on evidence. One on a metric nothing was scored for (every sample
//    skipped or failed; for compare, no sample scored in both runs) fails and says that
//    the metric was not scored, and why (its most common skip or failure reason): a gate
//    never passes, or fails with a made-up number, for want of data.
//
// Under repeats (EvalOptions::repeat, repeats.h) the rule is the same, over the samples'
// scores as the gate's PassK reads them: the mean of their repeats (the default), their
// worst repeat (pass^k: a sample passes a value only when every repeat does) or their best
// (pass@k: when one does). So --pass-k all passes only where the default passes, and the
// default only where --pass-k any passes; for a 0/1 metric the pass^k mean is the share of
// samples that passed in every repeat. A metric judged once has one score per sample, and
// the three read it alike. A failed gate also counts the samples flaky at its value
// (their repeats on both sides of it). docs/output.md ("Repeats") says why.
#pragma once

#include <string>
#include <utility>
#include <string_view>

#include "ragmeter/evaluate.h"
#include "ragmeter/metric.h"
#include "ragmeter/status.h"

namespace ragmeter {

struct MetricComparison;  // compare.h

enum class GateBound {
  kAtLeast,  // the mean must be >= value (`--fail-under`), for higher-is-better metrics
  kAtMost,   // the mean must be <= value (`--fail-over`), for lower-is-better metrics
};

// How a gate reads a repeated sample (`--pass-k`).
enum class PassK {
  kMean,  // the mean of its repeats (`--pass-k mean`, the default)
  kAll,   // pass^k: its worst repeat (`--pass-k all`)
  kAny,   // pass@k: its best repeat (`--pass-k any`)
};

// Splits a gate's "METRIC=VALUE" into the metric name and the number. InvalidArgument,
// naming `what` (the flag or keyword it came from), when there is no '=' or VALUE is not
// a number.
StatusOr<std::pair<std::string, double>> parse_metric_value(const std::string& spec, const std::string& what);

// "mean", "all", "any" -> PassK; InvalidArgument naming the three otherwise.
StatusOr<PassK> parse_pass_k(std::string_view name);
const char* pass_k_name(PassK pass_k);

struct ThresholdGate {
  std::string metric;  // as requested, with its cutoff: "ndcg@10"
  double value = 0.0;
  GateBound bound = GateBound::kAtLeast;
  PassK pass_k = PassK::kMean;
};

// How the caller spells the two bounds in messages: the CLI's flags by default; the
// Python helper passes its keyword arguments.
struct GateSpelling {
  std::string at_least = "--fail-under";
  std::string at_most = "--fail-over";
};

// Rule 1 for a metric of direction `higher_is_better` and range [min_score, max_score]:
// OK, or InvalidArgument "--fail-under M: 1.5 is outside the metric's range [0, 1]" /
// "--fail-under M: M is better lower; use --fail-over". Thread-safe.
Status check_gate_fits(const ThresholdGate& gate, bool higher_is_better, double min_score,
                       double max_score, const GateSpelling& spelling = {});
// The same for a requested metric (its table entry), before a run.
Status check_gate_fits(const ThresholdGate& gate, const MetricRequest& metric,
                       const GateSpelling& spelling = {});

// What a gate concluded. `message` is one line saying why it failed (empty when it
// passed), the same text from the CLI and from Python:
//   "faithfulness: mean 0.5000 < 0.8 (95% CI 0.2000..0.8000, n=10, skipped 0, failed 0)"
//   "faithfulness: pass^k mean 0.5000 < 0.8 (the mean of each sample's worst of 5 repeats;
//    95% CI 0.2000..0.8000, n=10, skipped 0, failed 0; 3 samples flaky at 0.8)"
//   "ragchecker_hallucination: not scored (30 skipped, 0 failed: withdrawn from the
//    offline judge: ...), so --fail-over 0.2 cannot be checked"
struct GateVerdict {
  bool passed = true;
  bool scored = true;  // false: nothing was scored, the gate failed by rule 2
  std::string message;
};

// Rule 2 for a threshold over a run's summary of `gate.metric`; `metric` null when the
// run has no such metric (a failure: "M: not in this run"). The caller has checked
// check_gate_fits. Thread-safe.
GateVerdict check_threshold(const ThresholdGate& gate, const MetricSummary* metric,
                            const GateSpelling& spelling = {});

// `compare --fail-on-regression METRIC=DELTA`: fails when the metric got worse by more
// than `delta` with confidence (is_regression, compare.h), and, by rule 2, when no sample
// was scored in both runs. Thread-safe.
GateVerdict check_regression(const MetricComparison& metric, double delta, double alpha);

}  // namespace ragmeter
