// Repeated judgements: the variance components and the pass marks (repeats.h).
#include "ragmeter/repeats.h"

#include <algorithm>
#include <string>

namespace ragmeter {
namespace {

// The repeat that decides a result that is not `ok`: the first failed one, else the first
// skipped one; repeats.size() when every repeat is ok.
std::size_t deciding_repeat(const std::vector<MetricResult>& repeats) {
  for (Outcome outcome : {Outcome::kFailed, Outcome::kSkipped}) {
    for (std::size_t r = 0; r < repeats.size(); ++r) {
      if (repeats[r].outcome == outcome) return r;
    }
  }
  return repeats.size();
}

}  // namespace

MetricResult combine_repeats(std::vector<MetricResult> repeats, std::optional<double> mark,
                             bool higher_is_better) {
  MetricResult out;
  std::vector<double> scored;
  bool any_evidence = false;
  for (const MetricResult& repeat : repeats) {
    const bool ok = repeat.outcome == Outcome::kOk;
    out.repeat_scores.push_back(ok ? std::optional<double>(repeat.score) : std::nullopt);
    if (ok) scored.push_back(repeat.score);
    any_evidence = any_evidence || !repeat.evidence.is_null();
  }
  const std::size_t decider = deciding_repeat(repeats);
  if (decider < repeats.size()) {
    const MetricResult& first = repeats[decider];
    const bool alike = std::all_of(repeats.begin(), repeats.end(), [&](const MetricResult& r) {
      return r.outcome == first.outcome && r.reason == first.reason;
    });
    out.outcome = first.outcome;
    out.reason = alike ? first.reason
                       : "repeat " + std::to_string(decider + 1) + " of " +
                             std::to_string(repeats.size()) + ": " + first.reason;
  } else {
    double sum = 0.0;
    for (double score : scored) sum += score;
    out.score = sum / static_cast<double>(scored.size());
    out.note = repeats.front().note;
    if (mark) out.flaky = repeats_straddle(scored, *mark, higher_is_better);
  }
  if (any_evidence) {
    out.repeat_evidence = nlohmann::ordered_json::array();
    for (MetricResult& repeat : repeats) out.repeat_evidence.push_back(std::move(repeat.evidence));
    out.evidence = out.repeat_evidence[decider < repeats.size() ? decider : 0];
  }
  return out;
}

VarianceComponents variance_components(std::span<const std::vector<double>> groups) {
  VarianceComponents out;
  double sum = 0.0;
  double squared_sizes = 0.0;
  for (const std::vector<double>& group : groups) {
    if (group.empty()) continue;
    ++out.groups;
    out.values += static_cast<std::int64_t>(group.size());
    squared_sizes += static_cast<double>(group.size()) * static_cast<double>(group.size());
    for (double value : group) sum += value;
  }
  if (out.groups < 2 || out.values <= out.groups) return VarianceComponents{};
  const double n = static_cast<double>(out.groups);
  const double total = static_cast<double>(out.values);
  out.grand_mean = sum / total;
  double ss_between = 0.0;
  double ss_within = 0.0;
  for (const std::vector<double>& group : groups) {
    if (group.empty()) continue;
    double group_sum = 0.0;
    for (double value : group) group_sum += value;
    const double mean = group_sum / static_cast<double>(group.size());
    ss_between += static_cast<double>(group.size()) * (mean - out.grand_mean) * (mean - out.grand_mean);
    for (double value : group) ss_within += (value - mean) * (value - mean);
  }
  out.defined = true;
  out.ms_between = ss_between / (n - 1.0);
  out.ms_within = ss_within / (total - n);
  out.k0 = (total - squared_sizes / total) / (n - 1.0);
  out.within = out.ms_within;
  out.between = std::max(0.0, (out.ms_between - out.ms_within) / out.k0);
  if (out.within + out.between > 0.0) out.judge_share = out.within / (out.within + out.between);
  return out;
}

bool passes_mark(double score, double mark, bool higher_is_better) {
  return higher_is_better ? score >= mark : score <= mark;
}

double worst_repeat(std::span<const double> scores, bool higher_is_better) {
  return higher_is_better ? *std::min_element(scores.begin(), scores.end())
                          : *std::max_element(scores.begin(), scores.end());
}

double best_repeat(std::span<const double> scores, bool higher_is_better) {
  return higher_is_better ? *std::max_element(scores.begin(), scores.end())
                          : *std::min_element(scores.begin(), scores.end());
}

bool repeats_straddle(std::span<const double> scores, double mark, bool higher_is_better) {
  if (scores.empty()) return false;
  return !passes_mark(worst_repeat(scores, higher_is_better), mark, higher_is_better) &&
         passes_mark(best_repeat(scores, higher_is_better), mark, higher_is_better);
}

std::int64_t count_flaky(const RepeatSummary& summary, double mark, bool higher_is_better) {
  std::int64_t flaky = 0;
  for (std::size_t i = 0; i < summary.worst.size() && i < summary.best.size(); ++i) {
    const double pair[] = {summary.worst[i], summary.best[i]};
    if (repeats_straddle(pair, mark, higher_is_better)) ++flaky;
  }
  return flaky;
}

}  // namespace ragmeter
