// Agreement between two raters: a metric and people, or two people. The pure statistics
// behind `ragmeter agree` (include/ragmeter/agree.h joins a results file with a labels
// file and calls these).
//
// Every function is pure and thread-safe, takes equally long spans (InvalidArgument is
// not possible: a length mismatch is a programming error and the shorter length is
// used) and returns std::nullopt where the statistic is undefined (an empty input, no
// variance, one class only): never NaN. Each follows a reference implementation, named
// on its line, to the last few bits (tests/oracle/test_agreement.py checks them to 1e-9):
//
//   pearson, spearman, kendall_tau_b     scipy.stats.pearsonr, spearmanr, kendalltau (tau-b)
//   roc_auc                              sklearn.metrics.roc_auc_score
//   accuracy, balanced_accuracy          sklearn.metrics.accuracy_score, balanced_accuracy_score
//   cohen_kappa                          sklearn.metrics.cohen_kappa_score(labels=all levels)
//   krippendorff_alpha                   krippendorff.alpha (the `krippendorff` package)
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace ragmeter {

// Pearson's r: covariance over the product of the standard deviations. nullopt when
// fewer than 2 values or either side is constant.
std::optional<double> pearson(std::span<const double> x, std::span<const double> y);

// Spearman's rho: Pearson's r of the ranks, tied values sharing their average rank.
std::optional<double> spearman(std::span<const double> x, std::span<const double> y);

// Kendall's tau-b, (concordant - discordant) / sqrt((n0 - ties in x) (n0 - ties in y))
// with n0 = n (n - 1) / 2 (Kendall, 1945), counted in O(n log n) by Knight's merge
// sort (1966). nullopt when either side is constant or n < 2.
std::optional<double> kendall_tau_b(std::span<const double> x, std::span<const double> y);

// The area under the ROC curve of `scores` for `labels` (1 positive, 0 negative): the
// probability that a random positive scores above a random negative, a tie counting
// half (the Mann-Whitney U statistic over n_pos n_neg). nullopt unless both classes occur.
std::optional<double> roc_auc(std::span<const double> scores, std::span<const int> labels);

// The share of positions where `predicted` equals `truth`. nullopt when empty.
std::optional<double> accuracy(std::span<const int> predicted, std::span<const int> truth);

// The mean over the classes present in `truth` of the recall of that class (the share
// of its positions `predicted` gets right). For two classes, (TPR + TNR) / 2. nullopt
// when empty.
std::optional<double> balanced_accuracy(std::span<const int> predicted, std::span<const int> truth);

enum class KappaWeights { kNone, kLinear, kQuadratic };

// Cohen's kappa (1960) of two raters over `categories` ordered categories, values being
// category indices 0 .. categories - 1 (a value outside is ignored with its pair):
// 1 - sum(w o) / sum(w e), o the observed and e the expected (from the marginals)
// confusion matrix, w = 1 off the diagonal (kNone), |i - j| (kLinear) or (i - j)^2
// (kQuadratic; Cohen's weighted kappa, 1968). nullopt when sum(w e) is 0 (both raters
// used one and the same category).
std::optional<double> cohen_kappa(std::span<const int> a, std::span<const int> b, int categories,
                                  KappaWeights weights = KappaWeights::kNone);

enum class AlphaLevel { kNominal, kOrdinal, kInterval };

// Krippendorff's alpha (Krippendorff, 2011, "Computing Krippendorff's alpha-reliability"):
// 1 - (n - 1) sum_ck o_ck d_ck / sum_ck n_c n_k d_ck over the coincidence matrix o of
// the values of each unit (`units[u]` holds the values its coders gave; missing values
// are simply absent; a unit with fewer than 2 values is not pairable and ignored).
// Distances: nominal c != k; interval (c - k)^2; ordinal (sum of n_g for g from c to k,
// minus (n_c + n_k) / 2)^2 over the distinct values in order. nullopt when no unit is
// pairable or the expected disagreement is 0 (every pairable value the same).
std::optional<double> krippendorff_alpha(const std::vector<std::vector<double>>& units,
                                         AlphaLevel level);

// Pairwise accuracy for preferences: over the positions where `preference` is not 0
// (its sign says which of two items people prefer; > 0 the second), the share where
// `delta` (the metric's second minus first score) has the same sign, a delta of 0
// counting half. nullopt when no position has a preference.
std::optional<double> pairwise_accuracy(std::span<const double> delta,
                                        std::span<const double> preference);

// A pass mark for binary labels: the score t for which "score >= t predicts 1" has the
// highest balanced accuracy over (`scores`, `labels`). Candidates are the distinct
// scores; among equally good ones the lowest is chosen (the most lenient gate that does
// as well). Balanced accuracies are compared exactly (as fractions of counts).
struct Threshold {
  double value = 0.0;
  double balanced_accuracy = 0.0;  // over the data it was chosen on
};
// nullopt unless both labels 0 and 1 occur.
std::optional<Threshold> choose_threshold(std::span<const double> scores,
                                          std::span<const int> labels);

}  // namespace ragmeter
