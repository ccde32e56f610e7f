// The CI gates' one rule (gates.h).
#include "ragmeter/gates.h"

#include <fmt/format.h>

#include "ragmeter/compare.h"

namespace ragmeter {
namespace {

const std::string& flag_of(const ThresholdGate& gate, const GateSpelling& spelling) {
  return gate.bound == GateBound::kAtLeast ? spelling.at_least : spelling.at_most;
}

// "30 skipped, 0 failed: REASON", the reason being the most common one of the larger count.
std::string why_not_scored(const MetricSummary& m) {
  std::string text = fmt::format("{} skipped, {} failed", m.skipped, m.failed);
  const std::string& reason = m.failed > m.skipped ? m.top_failure_reason : m.top_skip_reason;
  if (!reason.empty()) text += ": " + reason;
  return text;
}

}  // namespace

Status check_gate_fits(const ThresholdGate& gate, bool higher_is_better, double min_score,
                       double max_score, const GateSpelling& spelling) {
  const std::string& flag = flag_of(gate, spelling);
  if (!(gate.value >= min_score && gate.value <= max_score)) {
    return invalid_argument(fmt::format("{} {}: {} is outside the metric's range [{}, {}]", flag,
                                        gate.metric, gate.value, min_score, max_score));
  }
  if (higher_is_better != (gate.bound == GateBound::kAtLeast)) {
    return invalid_argument(fmt::format(
        "{} {}: {} is better {}, so its gate is a {}; use {}", flag, gate.metric, gate.metric,
        higher_is_better ? "higher" : "lower", higher_is_better ? "minimum" : "maximum",
        higher_is_better ? spelling.at_least : spelling.at_most));
  }
  return ok_status();
}

Status check_gate_fits(const ThresholdGate& gate, const MetricRequest& metric,
                       const GateSpelling& spelling) {
  const MetricInfo& info = *metric.info;
  return check_gate_fits(gate, info.higher_is_better, info.min_score, info.max_score, spelling);
}

StatusOr<PassK> parse_pass_k(std::string_view name) {
  if (name == "mean") return PassK::kMean;
  if (name == "all") return PassK::kAll;
  if (name == "any") return PassK::kAny;
  return invalid_argument(fmt::format(
      "--pass-k {}: use mean (a sample's repeats averaged), all (pass^k: every repeat must "
      "pass) or any (pass@k: one repeat must pass)",
      name));
}

const char* pass_k_name(PassK pass_k) {
  switch (pass_k) {
    case PassK::kMean:
      return "mean";
    case PassK::kAll:
      return "all";
    case PassK::kAny:
      return "any";
  }
  return "mean";
}

GateVerdict check_threshold(const ThresholdGate& gate, const MetricSummary* metric,
                            const GateSpelling& spelling) {
  if (metric == nullptr) {
    return {false, false, fmt::format("{}: not in this run", gate.metric)};
  }
  if (metric->stats.n == 0) {
    return {false, false,
            fmt::format("{}: not scored ({}), so {} {} cannot be checked", gate.metric,
                        why_not_scored(*metric), flag_of(gate, spelling), gate.value)};
  }
  // The samples' scores as the gate reads them: one judgement or the mean of the repeats,
  // each sample's worst repeat (pass^k), or its best (pass@k).
  const std::optional<RepeatSummary>& repeats = metric->repeats;
  const bool worst = repeats && gate.pass_k == PassK::kAll;
  const bool best = repeats && gate.pass_k == PassK::kAny;
  const SummaryStats& s = worst ? repeats->pass_all : best ? repeats->pass_any : metric->stats;
  const bool at_least = gate.bound == GateBound::kAtLeast;
  if (at_least ? s.mean >= gate.value : s.mean <= gate.value) return {};
  std::string read, flaky;
  if (worst || best) {
    read = fmt::format("the mean of each sample's {} of {} repeats; ", worst ? "worst" : "best",
                       repeats->repeats);
  }
  if (repeats) {
    flaky = fmt::format("; {} samples flaky at {}",
                        count_flaky(*repeats, gate.value, metric->higher_is_better), gate.value);
  }
  return {false, true,
          fmt::format("{}: {}mean {:.4f} {} {} ({}95% CI {:.4f}..{:.4f}, n={}, skipped {}, "
                      "failed {}{})",
                      gate.metric, worst ? "pass^k " : best ? "pass@k " : "", s.mean,
                      at_least ? "<" : ">", gate.value, read, s.ci_low, s.ci_high, s.n,
                      metric->skipped, metric->failed, flaky)};
}

GateVerdict check_regression(const MetricComparison& metric, double delta, double alpha) {
  if (metric.stats.n == 0) {
    return {false, false,
            fmt::format("{}: no sample was scored in both runs ({} scored in one run only), so "
                        "--fail-on-regression {} cannot be checked",
                        metric.metric, metric.scored_in_one_only, delta)};
  }
  if (!is_regression(metric, delta, alpha)) return {};
  return {false, true,
          fmt::format("{} got worse by more than {} (95% CI of the change in its good direction "
                      "[{:+.4f}, {:+.4f}], Holm-adjusted p {:.4g} < {})",
                      metric.metric, delta, metric.oriented_ci_low(), metric.oriented_ci_high(),
                      metric.p_holm, alpha)};
}

StatusOr<std::pair<std::string, double>> parse_metric_value(const std::string& spec,
                                                            const std::string& flag) {
  auto eq = spec.find('=');
  if (eq == std::string::npos) return invalid_argument(flag + " expects METRIC=VALUE, got '" + spec + "'");
  std::string number = spec.substr(eq + 1);
  try {
    std::size_t used = 0;
    double value = std::stod(number, &used);
    if (used != number.size()) throw std::invalid_argument("trailing text");
    return std::make_pair(spec.substr(0, eq), value);
  } catch (const std::exception&) {
    return invalid_argument(flag + ": '" + number + "' is not a number");
  }
}


}  // namespace ragmeter
