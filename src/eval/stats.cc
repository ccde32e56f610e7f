// Mean, sample standard deviation and the percentile bootstrap (Efron, 1979) of the mean.
//
// The resampling uses its own small generator (splitmix64) rather than std::mt19937 +
// std::uniform_int_distribution, whose output differs between standard libraries: a
// seed must give the same interval on every platform. Each resample has its own
// generator, seeded from (seed, index), so resamples can run on any number of threads
// and still give the same interval.
#include <algorithm>
#include <cmath>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "eval/splitmix64.h"
#include "ragmeter/bootstrap.h"
#include "ragmeter/stats.h"

namespace ragmeter {
namespace {

// numpy.percentile's default (linear) interpolation on sorted data, q in [0, 1].
double percentile_sorted(const std::vector<double>& sorted, double q) {
  double position = q * static_cast<double>(sorted.size() - 1);
  auto lower = static_cast<std::size_t>(std::floor(position));
  std::size_t upper = std::min(lower + 1, sorted.size() - 1);
  double fraction = position - static_cast<double>(lower);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction;
}

double resample_mean(std::span<const double> values, std::uint64_t seed, std::size_t index) {
  SplitMix64 rng = resample_generator(seed, index);
  double sum = 0.0;
  for (std::size_t i = 0; i < values.size(); ++i) sum += values[rng.below(values.size())];
  return sum / static_cast<double>(values.size());
}

// Calls work(b) for every resample b < count, `threads` ways in parallel.
template <typename Work>
void for_each_resample(std::size_t count, int threads, Work work) {
  auto ways = static_cast<std::size_t>(std::max(1, threads));
  auto run = [&](std::size_t first) {
    for (std::size_t b = first; b < count; b += ways) work(b);
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < ways; ++t) pool.emplace_back(run, t);
  run(0);
  for (auto& thread : pool) thread.join();
}

// The two-sided percentile bounds of `sorted` for `confidence`.
std::pair<double, double> percentile_bounds(const std::vector<double>& sorted, double confidence) {
  double alpha = (1.0 - confidence) / 2.0;
  return {percentile_sorted(sorted, alpha), percentile_sorted(sorted, 1.0 - alpha)};
}

}  // namespace

SummaryStats summarize(std::span<const double> values, const BootstrapOptions& options) {
  SummaryStats stats;
  stats.n = static_cast<std::int64_t>(values.size());
  if (values.empty()) return stats;
  double sum = 0.0;
  for (double v : values) sum += v;
  stats.mean = sum / static_cast<double>(values.size());
  if (values.size() > 1) {
    double squares = 0.0;
    for (double v : values) squares += (v - stats.mean) * (v - stats.mean);
    stats.std = std::sqrt(squares / static_cast<double>(values.size() - 1));
  }
  stats.ci_low = stats.ci_high = stats.mean;
  if (values.size() < 2 || options.resamples <= 0) return stats;

  std::vector<double> means(static_cast<std::size_t>(options.resamples));
  for_each_resample(means.size(), options.threads,
                    [&](std::size_t b) { means[b] = resample_mean(values, options.seed, b); });
  std::sort(means.begin(), means.end());
  std::tie(stats.ci_low, stats.ci_high) = percentile_bounds(means, options.confidence);
  return stats;
}

std::optional<BootstrapInterval> bootstrap_interval(
    std::size_t clusters,
    const std::function<std::optional<double>(std::span<const std::size_t>)>& statistic,
    const BootstrapOptions& options) {
  if (clusters == 0 || options.resamples <= 0) return std::nullopt;
  std::vector<std::optional<double>> values(static_cast<std::size_t>(options.resamples));
  for_each_resample(values.size(), options.threads, [&](std::size_t b) {
    SplitMix64 rng = resample_generator(options.seed, b);
    std::vector<std::size_t> drawn(clusters);
    for (auto& index : drawn) index = rng.below(clusters);
    values[b] = statistic(drawn);
  });
  std::vector<double> defined;
  for (const auto& v : values) {
    if (v) defined.push_back(*v);
  }
  if (defined.empty()) return std::nullopt;
  std::sort(defined.begin(), defined.end());
  BootstrapInterval interval;
  std::tie(interval.low, interval.high) = percentile_bounds(defined, options.confidence);
  interval.undefined = static_cast<std::int64_t>(values.size() - defined.size());
  return interval;
}

}  // namespace ragmeter
