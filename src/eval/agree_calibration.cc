// The calibration bins of `agree` (agree.h's CalibrationBin) and the Wilson interval of
// their shares.
#include <algorithm>
#include <cmath>

#include "eval/agree_items.h"

namespace ragmeter {

std::optional<std::pair<double, double>> wilson_interval(std::int64_t successes, std::int64_t n,
                                                         double z) {
  if (n <= 0) return std::nullopt;
  const double trials = static_cast<double>(n);
  const double share = static_cast<double>(successes) / trials;
  const double z2 = z * z;
  const double centre = (share + z2 / (2 * trials)) / (1 + z2 / trials);
  const double half =
      z / (1 + z2 / trials) * std::sqrt(share * (1 - share) / trials + z2 / (4 * trials * trials));
  return std::make_pair(std::max(0.0, centre - half), std::min(1.0, centre + half));
}

namespace agree_internal {

std::vector<CalibrationBin> calibration_bins(const std::vector<Item>& items, bool higher_is_better,
                                             double low, double high, LabelKind kind) {
  constexpr int kBins = 10;
  const double width = (high - low) / kBins;
  std::vector<CalibrationBin> bins(kBins);
  std::vector<double> score_sum(kBins, 0.0), label_sum(kBins, 0.0);
  for (int b = 0; b < kBins; ++b) {
    bins[b].low = low + width * b;
    bins[b].high = b + 1 == kBins ? high : low + width * (b + 1);
  }
  for (const Item& item : items) {
    for (const LabelPoint& p : item.points) {
      const double score = higher_is_better ? p.score : -p.score;
      int b = width > 0 ? static_cast<int>(std::floor((score - low) / width)) : 0;
      b = std::clamp(b, 0, kBins - 1);
      ++bins[b].n;
      score_sum[b] += score;
      label_sum[b] += p.label;
    }
  }
  for (int b = 0; b < kBins; ++b) {
    CalibrationBin& bin = bins[b];
    if (bin.n == 0) continue;
    const double n = static_cast<double>(bin.n);
    bin.mean_score = score_sum[b] / n;
    bin.mean_label = label_sum[b] / n;
    if (kind == LabelKind::kBinary) {
      bin.label_ci95 =
          wilson_interval(static_cast<std::int64_t>(std::llround(label_sum[b])), bin.n);
    }
  }
  return bins;
}

}  // namespace agree_internal
}  // namespace ragmeter
