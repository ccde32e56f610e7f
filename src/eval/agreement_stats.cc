// Correlations, ROC AUC, accuracies, Cohen's kappa, pairwise accuracy and the pass-mark
// search of include/ragmeter/agreement.h. Formulas and their sources are in the header;
// the reference implementations they equal are named there too.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

#include "ragmeter/agreement.h"

namespace ragmeter {
namespace {

std::size_t common_size(std::size_t a, std::size_t b) { return std::min(a, b); }

// Ranks from 1, tied values sharing their average rank (scipy.stats.rankdata "average").
std::vector<double> average_ranks(std::span<const double> values) {
  std::vector<std::size_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
  std::vector<double> ranks(values.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    double rank = (static_cast<double>(i) + static_cast<double>(j)) / 2.0 + 1.0;
    for (std::size_t k = i; k <= j; ++k) ranks[order[k]] = rank;
    i = j + 1;
  }
  return ranks;
}

// Pairs (n choose 2) within each run of equal values of a sorted sequence.
template <typename Equal>
std::int64_t tied_pairs(std::size_t n, Equal equal) {
  std::int64_t pairs = 0;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i + 1;
    while (j < n && equal(i, j)) ++j;
    auto run = static_cast<std::int64_t>(j - i);
    pairs += run * (run - 1) / 2;
    i = j;
  }
  return pairs;
}

// Sorts `y` ascending by merge sort and returns the number of inversions (pairs i < j
// with y[i] > y[j]; equal values are not inversions).
std::int64_t sort_counting_inversions(std::vector<double>* y) {
  std::vector<double> buffer(y->size());
  std::int64_t inversions = 0;
  for (std::size_t width = 1; width < y->size(); width *= 2) {
    for (std::size_t lo = 0; lo < y->size(); lo += 2 * width) {
      std::size_t mid = std::min(lo + width, y->size()), hi = std::min(lo + 2 * width, y->size());
      std::size_t i = lo, j = mid, k = lo;
      while (i < mid && j < hi) {
        if ((*y)[j] < (*y)[i]) {
          inversions += static_cast<std::int64_t>(mid - i);
          buffer[k++] = (*y)[j++];
        } else {
          buffer[k++] = (*y)[i++];
        }
      }
      while (i < mid) buffer[k++] = (*y)[i++];
      while (j < hi) buffer[k++] = (*y)[j++];
    }
    y->swap(buffer);
  }
  return inversions;
}

}  // namespace

std::optional<double> pearson(std::span<const double> x, std::span<const double> y) {
  const std::size_t n = common_size(x.size(), y.size());
  if (n < 2) return std::nullopt;
  double mean_x = 0.0, mean_y = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    mean_x += x[i];
    mean_y += y[i];
  }
  mean_x /= static_cast<double>(n);
  mean_y /= static_cast<double>(n);
  double sxy = 0.0, sxx = 0.0, syy = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    double dx = x[i] - mean_x, dy = y[i] - mean_y;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (sxx == 0.0 || syy == 0.0) return std::nullopt;
  return std::clamp(sxy / (std::sqrt(sxx) * std::sqrt(syy)), -1.0, 1.0);
}

std::optional<double> spearman(std::span<const double> x, std::span<const double> y) {
  const std::size_t n = common_size(x.size(), y.size());
  std::vector<double> rx = average_ranks(x.first(n)), ry = average_ranks(y.first(n));
  return pearson(rx, ry);
}

std::optional<double> kendall_tau_b(std::span<const double> x, std::span<const double> y) {
  const std::size_t n = common_size(x.size(), y.size());
  if (n < 2) return std::nullopt;
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return x[a] != x[b] ? x[a] < x[b] : y[a] < y[b]; });
  const auto all_pairs = static_cast<std::int64_t>(n) * static_cast<std::int64_t>(n - 1) / 2;
  const std::int64_t ties_x =
      tied_pairs(n, [&](std::size_t i, std::size_t j) { return x[order[i]] == x[order[j]]; });
  const std::int64_t ties_xy = tied_pairs(n, [&](std::size_t i, std::size_t j) {
    return x[order[i]] == x[order[j]] && y[order[i]] == y[order[j]];
  });
  std::vector<double> ys(n);
  for (std::size_t i = 0; i < n; ++i) ys[i] = y[order[i]];
  // Within a run of equal x the ys are ascending, so every inversion is a discordant pair.
  const std::int64_t discordant = sort_counting_inversions(&ys);
  const std::int64_t ties_y =
      tied_pairs(n, [&](std::size_t i, std::size_t j) { return ys[i] == ys[j]; });
  const double untied_x = static_cast<double>(all_pairs - ties_x);
  const double untied_y = static_cast<double>(all_pairs - ties_y);
  if (untied_x == 0.0 || untied_y == 0.0) return std::nullopt;
  // Pairs tied in neither are concordant + discordant.
  const std::int64_t untied_both = all_pairs - ties_x - ties_y + ties_xy;
  const auto difference = static_cast<double>(untied_both - 2 * discordant);
  return std::clamp(difference / std::sqrt(untied_x * untied_y), -1.0, 1.0);
}

std::optional<double> roc_auc(std::span<const double> scores, std::span<const int> labels) {
  const std::size_t n = common_size(scores.size(), labels.size());
  std::vector<double> ranks = average_ranks(scores.first(n));
  double positive_rank_sum = 0.0;
  std::int64_t positives = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (labels[i] == 1) {
      positive_rank_sum += ranks[i];
      ++positives;
    }
  }
  const std::int64_t negatives = static_cast<std::int64_t>(n) - positives;
  if (positives == 0 || negatives == 0) return std::nullopt;
  const auto p = static_cast<double>(positives);
  const double u = positive_rank_sum - p * (p + 1.0) / 2.0;
  return u / (p * static_cast<double>(negatives));
}

std::optional<double> accuracy(std::span<const int> predicted, std::span<const int> truth) {
  const std::size_t n = common_size(predicted.size(), truth.size());
  if (n == 0) return std::nullopt;
  std::size_t right = 0;
  for (std::size_t i = 0; i < n; ++i) right += predicted[i] == truth[i];
  return static_cast<double>(right) / static_cast<double>(n);
}

std::optional<double> balanced_accuracy(std::span<const int> predicted,
                                        std::span<const int> truth) {
  const std::size_t n = common_size(predicted.size(), truth.size());
  if (n == 0) return std::nullopt;
  std::vector<int> classes(truth.begin(), truth.begin() + static_cast<std::ptrdiff_t>(n));
  std::sort(classes.begin(), classes.end());
  classes.erase(std::unique(classes.begin(), classes.end()), classes.end());
  double recall_sum = 0.0;
  for (int c : classes) {
    std::size_t total = 0, right = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (truth[i] != c) continue;
      ++total;
      right += predicted[i] == c;
    }
    recall_sum += static_cast<double>(right) / static_cast<double>(total);
  }
  return recall_sum / static_cast<double>(classes.size());
}

std::optional<double> cohen_kappa(std::span<const int> a, std::span<const int> b, int categories,
                                  KappaWeights weights) {
  const std::size_t n = common_size(a.size(), b.size());
  if (categories < 1) return std::nullopt;
  const auto k = static_cast<std::size_t>(categories);
  std::vector<double> observed(k * k, 0.0), rows(k, 0.0), cols(k, 0.0);
  double total = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    if (a[i] < 0 || a[i] >= categories || b[i] < 0 || b[i] >= categories) continue;
    auto r = static_cast<std::size_t>(a[i]), c = static_cast<std::size_t>(b[i]);
    observed[r * k + c] += 1.0;
    rows[r] += 1.0;
    cols[c] += 1.0;
    total += 1.0;
  }
  if (total == 0.0) return std::nullopt;
  double weighted_observed = 0.0, weighted_expected = 0.0;
  for (std::size_t r = 0; r < k; ++r) {
    for (std::size_t c = 0; c < k; ++c) {
      double d = std::fabs(static_cast<double>(r) - static_cast<double>(c));
      double w = weights == KappaWeights::kNone     ? (r == c ? 0.0 : 1.0)
                 : weights == KappaWeights::kLinear ? d
                                                    : d * d;
      weighted_observed += w * observed[r * k + c];
      weighted_expected += w * rows[r] * cols[c] / total;
    }
  }
  if (weighted_expected == 0.0) return std::nullopt;
  return 1.0 - weighted_observed / weighted_expected;
}

std::optional<double> pairwise_accuracy(std::span<const double> delta,
                                        std::span<const double> preference) {
  const std::size_t n = common_size(delta.size(), preference.size());
  double sum = 0.0;
  std::size_t counted = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (preference[i] == 0.0) continue;
    ++counted;
    if (delta[i] == 0.0) {
      sum += 0.5;
    } else if ((delta[i] > 0.0) == (preference[i] > 0.0)) {
      sum += 1.0;
    }
  }
  if (counted == 0) return std::nullopt;
  return sum / static_cast<double>(counted);
}

std::optional<Threshold> choose_threshold(std::span<const double> scores,
                                          std::span<const int> labels) {
  const std::size_t n = common_size(scores.size(), labels.size());
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return scores[a] > scores[b]; });
  std::int64_t positives = 0;
  for (std::size_t i = 0; i < n; ++i) positives += labels[i] == 1;
  const std::int64_t negatives = static_cast<std::int64_t>(n) - positives;
  if (positives == 0 || negatives == 0) return std::nullopt;
  // Sweep the threshold down through the distinct scores: at t, every score >= t is
  // predicted 1. Balanced accuracy (tp / P + tn / N) / 2 compares as tp N + tn P.
  std::int64_t true_positives = 0, false_positives = 0;
  std::int64_t best_key = -1;
  double best_value = 0.0;
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    for (; j < n && scores[order[j]] == scores[order[i]]; ++j) {
      (labels[order[j]] == 1 ? true_positives : false_positives) += 1;
    }
    std::int64_t key = true_positives * negatives + (negatives - false_positives) * positives;
    if (key >= best_key) {  // >=: a lower threshold as good wins
      best_key = key;
      best_value = scores[order[i]];
    }
    i = j;
  }
  Threshold t;
  t.value = best_value;
  t.balanced_accuracy = static_cast<double>(best_key) /
                        (2.0 * static_cast<double>(positives) * static_cast<double>(negatives));
  return t;
}

}  // namespace ragmeter
