// trec_eval's per-query measures (trec_eval 9.0.x as pytrec_eval wraps it), from the
// measure descriptions and formulas of trec_eval's m_*.c. The arithmetic is done in
// the same order as trec_eval's, so values agree to the last bit, including the NaN
// trec_eval produces for a few degenerate inputs (noted where they arise).
#include "eval/trec_measures.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string_view>
#include <unordered_set>

namespace ragmeter {
namespace {

constexpr double kMinGeoMean = 0.00001;   // trec_eval's MIN_GEO_MEAN
constexpr double kInfApEpsilon = 0.00001;  // trec_eval's INFAP_EPSILON

double as_double(long value) { return static_cast<double>(value); }

// Relevant documents among the first `k` retrieved (all of them when k exceeds it).
long relevant_in_top(const TrecJudgedRanking& r, long k) {
  const long n = std::min(k, r.num_ret());
  return std::count_if(r.rels.begin(), r.rels.begin() + std::max(n, 0L),
                       [&](long rel) { return r.relevant(rel); });
}

// A count of relevant documents from a fraction of R, as trec_eval 9.0.x makes it.
long cutoff_from_fraction(double fraction, long num_rel) {
  return static_cast<long>(fraction * as_double(num_rel) + 0.9);
}

// The same for a recall level, as `cutoff` says (trec_eval 10.0 rounds).
long recall_cutoff(double level, long num_rel, TrecRecallCutoff cutoff) {
  if (cutoff == TrecRecallCutoff::kRounded) return std::lround(level * as_double(num_rel));
  return cutoff_from_fraction(level, num_rel);
}

double gain_of(long rel, std::span<const TrecGain> gains) {
  for (const TrecGain& gain : gains) {
    if (gain.level == rel) return gain.gain;
  }
  return 0.0;
}

double discount(long index) { return std::log2(as_double(index + 2)); }

// Walks the ideal ranking: every judged document, highest gain first, as trec_eval's
// ndcg family does (levels whose count is used up are skipped; after the last level
// the gain is 0). gain() is the gain at the current place; before the first advance()
// it is the highest gain of the table, which may belong to a level with no documents.
class IdealWalk {
 public:
  explicit IdealWalk(std::span<const TrecGain> gains)
      : gains_(gains), level_(static_cast<long>(gains.size()) - 1) {
    gain_ = level_ >= 0 ? gains_[level_].gain : 0.0;
  }
  double gain() const { return gain_; }
  // Moves to the next place of the ideal ranking; returns its gain.
  double advance() {
    ++used_;
    while (level_ >= 0 && used_ > gains_[level_].count) {
      used_ = 1;
      --level_;
      gain_ = level_ >= 0 ? gains_[level_].gain : 0.0;
    }
    return gain_;
  }

 private:
  std::span<const TrecGain> gains_;
  long level_;
  long used_ = 0;
  double gain_ = 0.0;
};

double log_clamped(double value) { return std::log(std::max(value, kMinGeoMean)); }

}  // namespace

long TrecJudgedRanking::num_nonrel() const {
  long count = 0;
  for (auto it = level_counts.begin(); it != level_counts.end() && it->first < relevance_level;
       ++it) {
    count += it->second;
  }
  return count;
}

TrecJudgedRanking trec_judged_ranking(const Ranking& ranking, const Judgements& judgements,
                                      const TrecRankingOptions& options) {
  TrecJudgedRanking r;
  r.relevance_level = options.relevance_level;
  for (const auto& [doc, level] : judgements) {
    if (level >= 0) ++r.level_counts[level];
  }
  for (auto it = r.level_counts.lower_bound(r.relevance_level); it != r.level_counts.end(); ++it) {
    r.num_rel += it->second;
  }
  const std::size_t limit = options.max_docs > 0 ? static_cast<std::size_t>(options.max_docs)
                                                 : ranking.size();
  std::unordered_set<std::string_view> seen;
  seen.reserve(std::min(limit, ranking.size()));
  r.rels.reserve(std::min(limit, ranking.size()));
  for (const std::string& doc : ranking) {
    if (seen.size() == limit) break;
    if (!seen.insert(doc).second) continue;
    const auto judged = judgements.find(doc);
    long rel = TrecJudgedRanking::kNotInPool;
    if (judged != judgements.end()) {
      rel = judged->second >= 0 ? judged->second : TrecJudgedRanking::kUnjudged;
    }
    if (options.judged_only && rel < 0) continue;
    r.rels.push_back(rel);
    if (rel >= 0 && r.relevant(rel)) ++r.num_rel_ret;
  }
  return r;
}

long trec_num_nonrel_judged_ret(const TrecJudgedRanking& r) {
  return std::count_if(r.rels.begin(), r.rels.end(),
                       [&](long rel) { return rel >= 0 && !r.relevant(rel); });
}

double trec_average_precision_at(const TrecJudgedRanking& r, long k) {
  if (r.num_rel == 0) return 0.0;
  double sum = 0.0;
  long rel_so_far = 0;
  const long n = std::min(k, r.num_ret());
  for (long i = 0; i < n; ++i) {
    if (!r.relevant(r.rels[i])) continue;
    ++rel_so_far;
    sum += as_double(rel_so_far) / as_double(i + 1);
  }
  return sum / as_double(r.num_rel);
}

double trec_average_precision(const TrecJudgedRanking& r) {
  return trec_average_precision_at(r, r.num_ret());
}

double trec_log_average_precision(const TrecJudgedRanking& r) {
  return log_clamped(trec_average_precision(r));
}

double trec_r_precision(const TrecJudgedRanking& r) {
  if (r.num_rel == 0) return 0.0;
  return as_double(relevant_in_top(r, r.num_rel)) / as_double(r.num_rel);
}

double trec_bpref(const TrecJudgedRanking& r) {
  const long num_nonrel = r.num_nonrel();
  long nonrel_so_far = 0;
  double bpref = 0.0;
  for (const long rel : r.rels) {
    if (rel < 0) continue;  // not judged: bpref looks only at judged documents
    if (!r.relevant(rel)) {
      ++nonrel_so_far;
      continue;
    }
    if (nonrel_so_far > 0) {
      bpref += 1.0 - as_double(std::min(nonrel_so_far, r.num_rel)) /
                         as_double(std::min(num_nonrel, r.num_rel));
    } else {
      bpref += 1.0;
    }
  }
  if (r.num_rel != 0) bpref /= as_double(r.num_rel);
  return bpref;
}

double trec_log_bpref(const TrecJudgedRanking& r) { return log_clamped(trec_bpref(r)); }

double trec_inferred_ap(const TrecJudgedRanking& r) {
  long nonrel_so_far = 0;
  long rel_so_far = 0;
  long unjudged_so_far = 0;
  double inf_ap = 0.0;
  for (long j = 0; j < r.num_ret(); ++j) {
    const long rel = r.rels[j];
    if (rel == TrecJudgedRanking::kNotInPool) continue;
    if (rel == TrecJudgedRanking::kUnjudged) {
      ++unjudged_so_far;
      continue;
    }
    if (!r.relevant(rel)) {
      ++nonrel_so_far;
      continue;
    }
    ++rel_so_far;
    if (j == 0) {
      inf_ap += 1.0;
      continue;
    }
    const double fj = as_double(j);
    // Precision above: the judged documents above, in proportion, the unpooled as 0.
    inf_ap += 1.0 / (fj + 1.0) +
              (fj / (fj + 1.0)) *
                  (as_double(rel_so_far - 1 + nonrel_so_far + unjudged_so_far) / fj) *
                  ((as_double(rel_so_far - 1) + kInfApEpsilon) /
                   (as_double(rel_so_far - 1 + nonrel_so_far) + 2 * kInfApEpsilon));
  }
  if (r.num_rel != 0) inf_ap /= as_double(r.num_rel);
  return inf_ap;
}

double trec_reciprocal_rank(const TrecJudgedRanking& r) {
  for (long i = 0; i < r.num_ret(); ++i) {
    if (r.relevant(r.rels[i])) return 1.0 / as_double(i + 1);
  }
  return 0.0;
}

double trec_precision_at(const TrecJudgedRanking& r, long k) {
  return as_double(relevant_in_top(r, k)) / as_double(k);
}

double trec_recall_at(const TrecJudgedRanking& r, long k) {
  if (r.num_rel == 0) return 0.0;
  return as_double(relevant_in_top(r, k)) / as_double(r.num_rel);
}

double trec_relative_precision_at(const TrecJudgedRanking& r, long k) {
  if (r.num_rel == 0) return 0.0;
  return as_double(relevant_in_top(r, k)) / as_double(std::min(k, r.num_rel));
}

double trec_success_at(const TrecJudgedRanking& r, long k) {
  return relevant_in_top(r, k) > 0 ? 1.0 : 0.0;
}

std::vector<double> trec_interpolated_precision(const TrecJudgedRanking& r,
                                                std::span<const double> recall_levels,
                                                TrecRecallCutoff cutoff) {
  const long n = static_cast<long>(recall_levels.size());
  std::vector<double> values(n, 0.0);
  std::vector<long> cutoffs(n);
  for (long c = 0; c < n; ++c) cutoffs[c] = recall_cutoff(recall_levels[c], r.num_rel, cutoff);
  long cut = n - 1;
  while (cut >= 0 && cutoffs[cut] > r.num_rel_ret) --cut;  // recall never reached: 0
  // Walk up from the bottom of the ranking keeping the best precision seen below; with
  // nothing retrieved (possible with -J) trec_eval's 0/0 makes this NaN.
  double best = as_double(r.num_rel_ret) / as_double(r.num_ret());
  long rel_so_far = r.num_rel_ret;
  for (long i = r.num_ret(); i > 0 && rel_so_far > 0; --i) {
    best = std::max(best, as_double(rel_so_far) / as_double(i));
    if (!r.relevant(r.rels[i - 1])) continue;
    while (cut >= 0 && rel_so_far == cutoffs[cut]) values[cut--] = best;
    --rel_so_far;
  }
  while (cut >= 0) values[cut--] = best;
  return values;
}

double trec_11pt_average(const TrecJudgedRanking& r, std::span<const double> recall_levels,
                         TrecRecallCutoff cutoff) {
  const std::vector<double> values = trec_interpolated_precision(r, recall_levels, cutoff);
  double sum = 0.0;
  // trec_eval adds them from the highest recall level down.
  for (auto it = values.rbegin(); it != values.rend(); ++it) sum += *it;
  return sum / as_double(static_cast<long>(values.size()));
}

std::vector<double> trec_r_precision_multiples(const TrecJudgedRanking& r,
                                               std::span<const double> multiples) {
  const long n = static_cast<long>(multiples.size());
  std::vector<double> values(n, 0.0);
  std::vector<long> cutoffs(n);
  for (long c = 0; c < n; ++c) cutoffs[c] = cutoff_from_fraction(multiples[c], r.num_rel);
  long cut = n - 1;
  while (cut >= 0 && cutoffs[cut] > r.num_ret()) {
    values[cut] = as_double(r.num_rel_ret) / as_double(cutoffs[cut]);
    --cut;
  }
  long rel_so_far = r.num_rel_ret;
  for (long i = r.num_ret(); i > 0 && rel_so_far > 0; --i) {
    const double precision = as_double(rel_so_far) / as_double(i);
    while (cut >= 0 && i == cutoffs[cut]) values[cut--] = precision;
    if (r.relevant(r.rels[i - 1])) --rel_so_far;
  }
  return values;
}

double trec_binary_g(const TrecJudgedRanking& r) {
  double sum = 0.0;
  long rel_so_far = 0;
  for (long i = 0; i < r.num_ret(); ++i) {
    if (!r.relevant(r.rels[i])) continue;
    ++rel_so_far;
    sum += 1.0 / std::log2(as_double(3 + i - rel_so_far));
  }
  return rel_so_far > 0 ? sum / as_double(r.num_rel) : 0.0;
}

std::vector<TrecGain> trec_gains(const TrecJudgedRanking& r,
                                 std::span<const std::pair<long, double>> overrides) {
  std::vector<TrecGain> gains;
  gains.reserve(overrides.size() + r.level_counts.size());
  for (const auto& [level, gain] : overrides) gains.push_back({level, gain, 0});
  // trec_eval also lists the levels between 0 and the highest that nobody is judged at,
  // with no documents: they change no measure, so they are left out.
  for (const auto& entry : r.level_counts) {
    const long level = entry.first;  // a plain variable: clang 14 cannot capture bindings
    const long count = entry.second;
    const auto given = std::find_if(gains.begin(), gains.begin() + overrides.size(),
                                    [&](const TrecGain& g) { return g.level == level; });
    if (given != gains.begin() + overrides.size()) {
      given->count = count;
    } else {
      gains.push_back({level, static_cast<double>(level), count});
    }
  }
  std::stable_sort(gains.begin(), gains.end(),
                   [](const TrecGain& a, const TrecGain& b) { return a.gain < b.gain; });
  return gains;
}

double trec_ndcg(const TrecJudgedRanking& r, std::span<const TrecGain> gains) {
  IdealWalk ideal(gains);
  double results_dcg = 0.0;
  double ideal_dcg = 0.0;
  long i = 0;
  for (; i < r.num_ret() && ideal.gain() > 0.0; ++i) {
    const double gain = gain_of(r.rels[i], gains);
    if (gain != 0) results_dcg += gain / discount(i);
    if (ideal.advance() > 0.0) ideal_dcg += ideal.gain() / discount(i);
  }
  for (; i < r.num_ret(); ++i) {
    const double gain = gain_of(r.rels[i], gains);
    if (gain != 0) results_dcg += gain / discount(i);
  }
  for (; ideal.gain() > 0.0; ++i) {
    if (ideal.advance() > 0.0) ideal_dcg += ideal.gain() / discount(i);
  }
  return ideal_dcg > 0.0 ? results_dcg / ideal_dcg : 0.0;
}

double trec_ndcg_at(const TrecJudgedRanking& r, long k) {
  const std::vector<TrecGain> gains = trec_gains(r);
  IdealWalk ideal(gains);
  double results_dcg = 0.0;
  double ideal_dcg = 0.0;
  for (long i = 0; i < std::min(k, r.num_ret()); ++i) {
    const double gain = gain_of(r.rels[i], gains);
    if (gain > 0) results_dcg += gain / discount(i);
  }
  for (long i = 0; i < k && ideal.gain() > 0.0; ++i) {
    if (ideal.advance() > 0.0) ideal_dcg += ideal.gain() / discount(i);
  }
  return ideal_dcg > 0.0 ? results_dcg / ideal_dcg : 0.0;
}

double trec_ndcg_rel(const TrecJudgedRanking& r, std::span<const TrecGain> gains) {
  IdealWalk ideal(gains);
  double results_dcg = 0.0;
  double ideal_dcg = 0.0;
  double sum = 0.0;
  long num_rel = 0;
  long num_rel_ret = 0;
  long i = 0;
  for (; i < r.num_ret() && ideal.gain() > 0.0; ++i) {
    const double gain = gain_of(r.rels[i], gains);
    if (gain != 0) results_dcg += gain / discount(i);
    if (ideal.advance() > 0.0) {
      ++num_rel;
      ideal_dcg += ideal.gain() / discount(i);
    }
    if (gain > 0) {
      sum += results_dcg / ideal_dcg;
      ++num_rel_ret;
    }
  }
  for (; i < r.num_ret(); ++i) {
    const double gain = gain_of(r.rels[i], gains);
    if (gain != 0) results_dcg += gain / discount(i);
    if (gain > 0) {
      sum += results_dcg / ideal_dcg;
      ++num_rel_ret;
    }
  }
  for (; ideal.gain() > 0.0; ++i) {
    if (ideal.advance() > 0.0) {
      ++num_rel;
      ideal_dcg += ideal.gain() / discount(i);
    }
  }
  // The relevant documents not retrieved count at the final DCG. With no positive
  // gain at all this is 0 * (0 / 0), NaN, and the measure 0, as in trec_eval.
  sum += as_double(num_rel - num_rel_ret) * results_dcg / ideal_dcg;
  return sum > 0.0 ? sum / as_double(num_rel) : 0.0;
}

double trec_r_ndcg(const TrecJudgedRanking& r, std::span<const TrecGain> gains) {
  if (r.num_rel == 0) return 0.0;
  IdealWalk ideal(gains);
  double results_dcg = 0.0;
  double ideal_dcg = 0.0;
  double previous_gain = ideal.gain();
  double sum = 0.0;
  long points = 0;
  // At each place where the ideal gain changes, the nDCG of the places before it.
  const auto at_boundary = [&] {
    if (previous_gain == ideal.gain()) return;
    if (ideal_dcg > 0.0) {
      sum += results_dcg / ideal_dcg;
      ++points;
    }
    previous_gain = ideal.gain();
  };
  long i = 0;
  for (; i < r.num_ret() && ideal.gain() > 0.0; ++i) {
    const double gain = gain_of(r.rels[i], gains);
    ideal.advance();
    at_boundary();
    if (gain != 0) results_dcg += gain / discount(i);
    if (ideal.gain() > 0.0) ideal_dcg += ideal.gain() / discount(i);
  }
  if (i < r.num_ret()) {
    for (; i < r.num_ret(); ++i) {
      const double gain = gain_of(r.rels[i], gains);
      if (gain != 0) results_dcg += gain / discount(i);
    }
    if (ideal_dcg > 0.0) {
      sum += results_dcg / ideal_dcg;
      ++points;
    }
  }
  for (; ideal.gain() > 0.0; ++i) {
    ideal.advance();
    at_boundary();
    if (ideal.gain() > 0.0) ideal_dcg += ideal.gain() / discount(i);
  }
  return sum / as_double(points);  // no point at all (no positive gain): NaN, as trec_eval
}

double trec_g(const TrecJudgedRanking& r, std::span<const TrecGain> gains) {
  constexpr double kMinCost = 1.0;
  IdealWalk ideal(gains);
  double results_g = 0.0;
  double sum_results = 0.0;
  double sum_ideal = 0.0;
  double sum_cost = 0.0;
  long i = 0;
  for (; i < r.num_ret() && ideal.gain() > 0.0; ++i) {
    const double gain = gain_of(r.rels[i], gains);
    sum_results += gain;
    const double ideal_gain = ideal.advance();
    if (ideal_gain > 0.0) sum_ideal += ideal_gain;
    sum_cost += ideal_gain >= kMinCost ? ideal_gain : kMinCost;
    if (gain != 0) results_g += gain / std::log2(2 + sum_cost - sum_results);
  }
  for (; i < r.num_ret(); ++i) {
    const double gain = gain_of(r.rels[i], gains);
    sum_results += gain;
    sum_cost += kMinCost;
    if (gain != 0) results_g += gain / std::log2(2 + sum_cost - sum_results);
  }
  while (ideal.gain() > 0.0) {
    if (ideal.advance() > 0.0) sum_ideal += ideal.gain();
  }
  return sum_ideal > 0.0 ? results_g / sum_ideal : 0.0;
}

double trec_set_precision(const TrecJudgedRanking& r) {
  return r.num_ret() > 0 ? as_double(r.num_rel_ret) / as_double(r.num_ret()) : 0.0;
}

double trec_set_recall(const TrecJudgedRanking& r) {
  return r.num_rel > 0 ? as_double(r.num_rel_ret) / as_double(r.num_rel) : 0.0;
}

double trec_set_relative_precision(const TrecJudgedRanking& r) {
  const long most = std::min(r.num_ret(), r.num_rel);
  return most > 0 ? as_double(r.num_rel_ret) / as_double(most) : 0.0;
}

double trec_set_map(const TrecJudgedRanking& r) {
  if (r.num_ret() == 0 || r.num_rel == 0) return 0.0;
  return (as_double(r.num_rel_ret) * as_double(r.num_rel_ret)) /
         (as_double(r.num_ret()) * as_double(r.num_rel));
}

double trec_set_f(const TrecJudgedRanking& r, double beta) {
  if (r.num_ret() == 0 || r.num_rel == 0 || r.num_rel_ret == 0) return 0.0;
  const double precision = as_double(r.num_rel_ret) / as_double(r.num_ret());
  const double recall = as_double(r.num_rel_ret) / as_double(r.num_rel);
  return (beta + 1.0) * precision * recall / (beta * precision + recall);
}

double trec_utility(const TrecJudgedRanking& r, std::span<const double> coefficients,
                    long num_docs_in_collection) {
  if (coefficients.size() != 4) return 0.0;
  return coefficients[0] * as_double(r.num_rel_ret) +
         coefficients[1] * as_double(r.num_ret() - r.num_rel_ret) +
         coefficients[2] * as_double(r.num_rel - r.num_rel_ret) +
         coefficients[3] *
             as_double(num_docs_in_collection + r.num_rel_ret - r.num_ret() - r.num_rel);
}

std::string trec_relstring(const TrecJudgedRanking& r, long length) {
  std::string out;
  const long n = std::max(0L, std::min(length, r.num_ret()));
  for (long i = 0; i < n; ++i) {
    const long rel = r.rels[i];
    if (rel > 9) {
      out += '>';
    } else if (rel >= 0) {
      out += static_cast<char>('0' + rel);
    } else if (rel == TrecJudgedRanking::kNotInPool) {
      out += '-';
    } else if (rel == TrecJudgedRanking::kUnjudged) {
      out += '.';
    } else {
      out += '<';
    }
  }
  return out;
}

}  // namespace ragmeter
