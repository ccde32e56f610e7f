// The measures trec_eval 10.0 added to all_trec (rbp, rbp_resid, unj), yaap, and the
// judgment-group measures of its qrels_jg format (map_avgjg, P_avgjg,
// Rprec_mult_avgjg), from their descriptions in trec_eval's m_*.c and the papers
// they cite. The arithmetic follows trec_eval's order so that values agree to the bit.
//
// rbp:  Moffat and Zobel, "Rank-Biased Precision for Measurement of Retrieval
//       Effectiveness", TOIS 27(1), 2008: (1 - p) sum_i gain_i p^(i-1).
// yaap: Robertson, "On Smoothing Average Precision", ECIR 2012.
#include <algorithm>
#include <cmath>
#include <limits>

#include "eval/trec_measures.h"

namespace ragmeter {
namespace {

double as_double(long value) { return static_cast<double>(value); }

bool unjudged(long rel) { return rel < 0; }  // not in the pool, or pooled but unjudged

// The gain table trec_eval's rbp uses: every level from 0 to the highest judged one
// gains its own value (empty levels included, which matters for the rescaling), unless
// a (level, gain) parameter overrides it. Kept implicit: a level of 2,000,000,000 must
// not cost 2e9 entries.
class RbpGains {
 public:
  RbpGains(const TrecJudgedRanking& r, std::span<const std::pair<long, double>> overrides)
      : overrides_(overrides),
        highest_(r.level_counts.empty() ? -1 : r.level_counts.rbegin()->first) {
    double lowest = std::numeric_limits<double>::infinity();
    double highest = -std::numeric_limits<double>::infinity();
    for (const auto& [level, gain] : overrides_) {
      lowest = std::min(lowest, gain);
      highest = std::max(highest, gain);
    }
    // The smallest and largest levels of 0..highest_ that keep their own gain.
    for (long level = 0; level <= highest_; ++level) {
      if (!overridden(level)) {
        lowest = std::min(lowest, static_cast<double>(level));
        highest = std::max(highest, static_cast<double>(level));
        break;
      }
    }
    for (long level = highest_; level >= 0; --level) {
      if (!overridden(level)) {
        highest = std::max(highest, static_cast<double>(level));
        lowest = std::min(lowest, static_cast<double>(level));
        break;
      }
    }
    // Any gain outside [0, 1]: all become (gain - min) / (max - min).
    if (lowest < 0.0 || highest > 1.0) {
      offset_ = lowest;
      scale_ = highest - lowest;
    }
  }

  double gain(long rel) const {
    for (const auto& [level, gain] : overrides_) {
      if (level == rel) return rescaled(gain);
    }
    if (rel >= 0 && rel <= highest_) return rescaled(static_cast<double>(rel));
    return 0.0;  // unjudged, not in the pool: no gain, not rescaled (trec_eval's get_gain)
  }

 private:
  bool overridden(long level) const {
    return std::any_of(overrides_.begin(), overrides_.end(),
                       [&](const auto& g) { return g.first == level; });
  }
  double rescaled(double gain) const { return (gain - offset_) / scale_; }

  std::span<const std::pair<long, double>> overrides_;
  long highest_;
  double offset_ = 0.0;
  double scale_ = 1.0;
};

template <typename Fn>
double average_over_groups(std::span<const TrecJudgedRanking> groups, Fn value_of) {
  double sum = 0.0;
  for (const TrecJudgedRanking& group : groups) sum += value_of(group);
  // trec_eval divides only when there is more than one group.
  return groups.size() > 1 ? sum / as_double(static_cast<long>(groups.size())) : sum;
}

}  // namespace

double trec_rbp(const TrecJudgedRanking& r, double persistence,
                std::span<const std::pair<long, double>> overrides) {
  const RbpGains gains(r, overrides);
  double sum = 0.0;
  double weight = 1.0;  // p^i
  for (const long rel : r.rels) {
    const double gain = gains.gain(rel);
    if (gain != 0) sum += gain * weight;
    weight *= persistence;
  }
  return (1.0 - persistence) * sum;
}

double trec_rbp_residual(const TrecJudgedRanking& r, double persistence) {
  double sum = 0.0;
  double weight = 1.0;
  long unjudged_count = 0;
  for (const long rel : r.rels) {
    if (unjudged(rel)) {
      ++unjudged_count;
      sum += weight;
    }
    weight *= persistence;
  }
  return unjudged_count > 0 ? weight + (1 - persistence) * sum : 0.0;
}

double trec_unjudged_at(const TrecJudgedRanking& r, long k) {
  const long n = std::min(k, r.num_ret());
  const long count = std::count_if(r.rels.begin(), r.rels.begin() + std::max(n, 0L), unjudged);
  return as_double(count) / as_double(k);
}

double trec_yaap(const TrecJudgedRanking& r) {
  double sum = 0.0;
  long rel_so_far = 0;
  for (long i = 0; i < r.num_ret(); ++i) {
    if (!r.relevant(r.rels[i])) continue;
    ++rel_so_far;
    sum += as_double(rel_so_far) / as_double(i + 1);
  }
  return std::log((1.0 + sum) / (1.0 + as_double(r.num_rel) - sum));
}

double trec_map_avgjg(std::span<const TrecJudgedRanking> groups) {
  return average_over_groups(groups, trec_average_precision);
}

double trec_precision_avgjg(std::span<const TrecJudgedRanking> groups, long k) {
  return average_over_groups(groups,
                             [k](const TrecJudgedRanking& g) { return trec_precision_at(g, k); });
}

std::vector<double> trec_r_precision_multiples_avgjg(std::span<const TrecJudgedRanking> groups,
                                                     std::span<const double> multiples) {
  std::vector<double> sums(multiples.size(), 0.0);
  for (const TrecJudgedRanking& group : groups) {
    const std::vector<double> values = trec_r_precision_multiples(group, multiples);
    for (std::size_t m = 0; m < sums.size(); ++m) sums[m] += values[m];
  }
  if (groups.size() > 1) {
    for (double& sum : sums) sum /= as_double(static_cast<long>(groups.size()));
  }
  return sums;
}

}  // namespace ragmeter
