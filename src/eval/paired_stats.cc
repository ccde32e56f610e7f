// Paired statistics of two runs' scores on the same samples.
//
// - The mean difference's interval is the percentile bootstrap over pairs (Efron, 1979):
//   resampling pairs and taking mean(new) - mean(base) is resampling the differences,
//   so it is summarize() on the differences, with its generator and seed rules.
// - The test is the paired sign-flip (randomisation) test (Fisher, 1935): under H0 each
//   difference is as likely to be +d as -d; the statistic is |sum of differences|; the
//   two-sided p-value is the share of sign assignments whose |sum| is at least the
//   observed one. Exact by enumeration for few non-zero differences, else Monte Carlo
//   with (1 + hits) / (1 + draws) (never 0, as scipy.stats.permutation_test). It tests
//   the same quantity the interval is about (the mean difference), needs no normality
//   (scores are bounded and often 0/1), and handles ties by leaving zeros out.
// - Holm's step-down correction (Holm, 1979) across the metrics compared.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "eval/splitmix64.h"
#include "ragmeter/compare.h"

namespace ragmeter {
namespace {

// Sums within this relative distance of the observed one count as "at least as
// extreme": the same sum reached by another order of additions must not be missed.
constexpr double kRelativeTolerance = 1e-9;

double exact_p_value(const std::vector<double>& d, double threshold) {
  const std::size_t m = d.size();
  const std::uint64_t total = std::uint64_t{1} << m;
  std::uint64_t hits = 0;
  for (std::uint64_t mask = 0; mask < total; ++mask) {
    double sum = 0.0;
    for (std::size_t i = 0; i < m; ++i) sum += ((mask >> i) & 1U) ? -d[i] : d[i];
    hits += std::fabs(sum) >= threshold;
  }
  return static_cast<double>(hits) / static_cast<double>(total);
}

double monte_carlo_p_value(const std::vector<double>& d, double threshold, int draws,
                           std::uint64_t seed) {
  SplitMix64 rng(seed);
  std::uint64_t hits = 0;
  for (int b = 0; b < draws; ++b) {
    double sum = 0.0;
    std::uint64_t bits = 0;
    for (std::size_t i = 0; i < d.size(); ++i) {
      if (i % 64 == 0) bits = rng.next();
      sum += (bits & 1U) ? -d[i] : d[i];
      bits >>= 1;
    }
    hits += std::fabs(sum) >= threshold;
  }
  return static_cast<double>(hits + 1) / static_cast<double>(draws + 1);
}

}  // namespace

double sign_flip_p_value(std::span<const double> diffs, const PairedTestOptions& options,
                         bool* exact) {
  std::vector<double> d;
  double scale = 0.0;
  for (double x : diffs) {
    if (std::fabs(x) <= options.tie_tolerance) continue;
    d.push_back(x);
    scale += std::fabs(x);
  }
  *exact = true;
  if (d.empty()) return 1.0;
  double observed = std::fabs(std::accumulate(d.begin(), d.end(), 0.0));
  double threshold = observed - kRelativeTolerance * scale;
  if (static_cast<int>(d.size()) <= options.exact_max_nonzero && d.size() < 63) {
    return exact_p_value(d, threshold);
  }
  *exact = false;
  return monte_carlo_p_value(d, threshold, std::max(1, options.permutations),
                             options.permutation_seed);
}

std::vector<double> holm_adjust(std::span<const double> p_values) {
  const std::size_t m = p_values.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return p_values[a] < p_values[b]; });
  std::vector<double> adjusted(m);
  double running = 0.0;
  for (std::size_t rank = 0; rank < m; ++rank) {
    double value = std::min(1.0, static_cast<double>(m - rank) * p_values[order[rank]]);
    running = std::max(running, value);
    adjusted[order[rank]] = running;
  }
  return adjusted;
}

StatusOr<PairedStats> paired_stats(std::span<const double> base, std::span<const double> next,
                                   bool higher_is_better, const PairedTestOptions& options) {
  if (base.size() != next.size()) {
    return invalid_argument("paired_stats: the two runs have different numbers of values");
  }
  PairedStats stats;
  stats.n = static_cast<std::int64_t>(base.size());
  if (base.empty()) return stats;
  std::vector<double> diffs(base.size());
  double sum_base = 0.0, sum_new = 0.0;
  for (std::size_t i = 0; i < base.size(); ++i) {
    diffs[i] = next[i] - base[i];
    sum_base += base[i];
    sum_new += next[i];
    double better = higher_is_better ? diffs[i] : -diffs[i];
    if (std::fabs(diffs[i]) <= options.tie_tolerance) {
      ++stats.ties;
    } else if (better > 0) {
      ++stats.wins;
    } else {
      ++stats.losses;
    }
  }
  const auto n = static_cast<double>(base.size());
  stats.mean_base = sum_base / n;
  stats.mean_new = sum_new / n;
  SummaryStats summary = summarize(diffs, options.bootstrap);
  stats.mean_diff = summary.mean;
  stats.ci_low = summary.ci_low;
  stats.ci_high = summary.ci_high;
  stats.p_value = sign_flip_p_value(diffs, options, &stats.p_exact);
  return stats;
}

}  // namespace ragmeter
