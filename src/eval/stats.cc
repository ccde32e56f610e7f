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
#include <vector>

#include "eval/splitmix64.h"
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
  SplitMix64 rng(SplitMix64(seed ^ (0xD1B54A32D192ED03ULL * (index + 1))).next());
  double sum = 0.0;
  for (std::size_t i = 0; i < values.size(); ++i) sum += values[rng.below(values.size())];
  return sum / static_cast<double>(values.size());
}

// Fills means[b] for every b, `threads` ways in parallel.
void bootstrap_means(std::span<const double> values, const BootstrapOptions& options,
                     std::vector<double>* means) {
  auto work = [&](std::size_t first, std::size_t step) {
    for (std::size_t b = first; b < means->size(); b += step) {
      (*means)[b] = resample_mean(values, options.seed, b);
    }
  };
  auto threads = static_cast<std::size_t>(std::max(1, options.threads));
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work, t, threads);
  work(0, threads);
  for (auto& thread : pool) thread.join();
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
  bootstrap_means(values, options, &means);
  std::sort(means.begin(), means.end());
  double alpha = (1.0 - options.confidence) / 2.0;
  stats.ci_low = percentile_sorted(means, alpha);
  stats.ci_high = percentile_sorted(means, 1.0 - alpha);
  return stats;
}

}  // namespace ragmeter
