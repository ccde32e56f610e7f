// Internal to `agree` (src/eval/agree*.cc): one metric's labels joined to its scores,
// grouped by item, and the measuring of them (agree_measures.cc).
#pragma once

#include <string>
#include <vector>

#include "ragmeter/agree.h"

namespace ragmeter::agree_internal {

// One label and what the metric said about its row (pairwise: score(b) - score(a)),
// oriented so that higher is better.
struct LabelPoint {
  double score = 0.0;
  double label = 0.0;
};

// An item: one results row (pairwise: one pair of rows) with every label it has.
struct Item {
  std::string key;
  bool dev = false;
  std::vector<LabelPoint> points;
};

// Fills `out`'s counts, threshold and statistics from `items` (the metric's scored
// labels) on `scale`; out->metric and out->higher_is_better are set by the caller.
void measure_metric(const std::vector<Item>& items, const LabelScale& scale,
                    const BootstrapOptions& bootstrap, MetricAgreement* out);

// The calibration bins (agree.h's CalibrationBin) of a measured metric's labels: points
// hold oriented scores (negated when lower is better), turned back into the metric's
// units; [low, high] is its range. Ordinal and binary scales only.
std::vector<CalibrationBin> calibration_bins(const std::vector<Item>& items, bool higher_is_better,
                                             double low, double high, LabelKind kind);

}  // namespace ragmeter::agree_internal
