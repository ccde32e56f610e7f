// Summary statistics of per-sample scores: mean, standard deviation and a seeded,
// reproducible percentile-bootstrap confidence interval of the mean.
#pragma once

#include <cstdint>
#include <span>

namespace ragmeter {

struct BootstrapOptions {
  int resamples = 1000;        // more: a steadier interval, linear cost in time
  std::uint64_t seed = 42;     // the same seed and data give the same interval
  double confidence = 0.95;    // two-sided coverage of the interval
  // Resamples are split across this many threads. Each resample draws from its own
  // generator seeded by (seed, resample index), so the interval does not depend on it.
  int threads = 1;
};

struct SummaryStats {
  std::int64_t n = 0;
  double mean = 0.0;
  double std = 0.0;      // sample standard deviation (n - 1 in the denominator); 0 when n < 2
  double ci_low = 0.0;   // percentile bootstrap interval of the mean (linear interpolation
  double ci_high = 0.0;  // between order statistics, as numpy.percentile)
};

// Summarises `values`. With n == 0 every field is 0 and n says so; with n == 1 the
// interval collapses to the value. Deterministic for a given seed; thread-safe.
SummaryStats summarize(std::span<const double> values, const BootstrapOptions& options = {});

}  // namespace ragmeter
