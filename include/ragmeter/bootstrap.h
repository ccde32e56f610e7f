// A percentile bootstrap interval of any statistic over independent units, with the
// seeded, reproducible resampling of summarize() (stats.h).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>

#include "ragmeter/stats.h"

namespace ragmeter {

struct BootstrapInterval {
  double low = 0.0;
  double high = 0.0;
  std::int64_t undefined = 0;  // resamples whose statistic was undefined
};

// The interval of a statistic over `clusters` independent units (items; with several
// labels per item, all of an item's labels move together): resample b draws `clusters`
// unit indices with replacement from its own generator, seeded by (options.seed, b)
// exactly as summarize() seeds resample b, so the draws of resample b are the same
// whatever the statistic; `statistic` computes the value on the drawn indices (a unit
// drawn twice appears twice). Resamples where it is undefined (nullopt: one class
// drawn, no variance) are left out and counted. The bounds are the (1 - confidence) / 2
// and (1 + confidence) / 2 percentiles of the defined values, linearly interpolated as
// numpy.percentile. `statistic` is called from options.threads threads at once: it must
// be thread-safe. nullopt when clusters == 0, options.resamples <= 0, or no resample
// was defined.
std::optional<BootstrapInterval> bootstrap_interval(
    std::size_t clusters,
    const std::function<std::optional<double>(std::span<const std::size_t>)>& statistic,
    const BootstrapOptions& options = {});

}  // namespace ragmeter
