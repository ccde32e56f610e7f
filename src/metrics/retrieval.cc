// Retrieval metrics with trec_eval's semantics (trec_eval 9.x, default relevance
// level 1), and ragas's id-based context precision/recall.
//
// Every ranked metric first turns the ranking into a list of relevance levels, one
// per distinct document, best first; the formulas then only read that list.
#include "ragmeter/retrieval.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace ragmeter {
namespace {

// trec_eval's default relevance level (-l1): levels at or above it are relevant.
constexpr int kRelevanceLevel = 1;

bool is_relevant(int level) { return level >= kRelevanceLevel; }

// How many of the first documents to look at: k, or all of them when k <= 0.
std::size_t cutoff(int k, std::size_t size) {
  return k > 0 ? std::min(static_cast<std::size_t>(k), size) : size;
}

// Levels of the first `k` distinct documents of `ranking` (all of them when k <= 0).
// A repeated id keeps its first position and later copies are dropped, so the
// documents after it move up. Unjudged documents and negative levels (trec_eval's
// "in the pool but unjudged") read as 0: no measure here tells them from non-relevant.
std::vector<int> ranked_levels(const Ranking& ranking, const Judgements& qrels, int k) {
  const std::size_t limit = cutoff(k, ranking.size());
  std::vector<int> levels;
  levels.reserve(limit);
  std::unordered_set<std::string_view> seen;
  seen.reserve(limit);
  for (const std::string& id : ranking) {
    if (levels.size() == limit) break;
    if (!seen.insert(id).second) continue;
    const auto judged = qrels.find(id);
    levels.push_back(judged == qrels.end() ? 0 : std::max(judged->second, 0));
  }
  return levels;
}

long count_relevant(const std::vector<int>& levels) {
  return std::count_if(levels.begin(), levels.end(), is_relevant);
}

// R: the number of relevant documents judged for the query, retrieved or not.
long count_relevant(const Judgements& qrels) {
  return std::count_if(qrels.begin(), qrels.end(),
                       [](const auto& judgement) { return is_relevant(judgement.second); });
}

// Index of the first relevant level, or levels.size() when there is none.
std::size_t first_relevant(const std::vector<int>& levels) {
  return std::find_if(levels.begin(), levels.end(), is_relevant) - levels.begin();
}

double ratio(double numerator, double denominator) {
  return denominator > 0 ? numerator / denominator : 0.0;
}

// nDCG gain of a level: the level itself (trec_eval's default gains), or 1 for any
// relevant document when `graded` is false. Levels are already clamped at 0.
double gain(int level, bool graded) {
  if (graded) return level;
  return is_relevant(level) ? 1.0 : 0.0;
}

// Sum of gains discounted by log2(rank + 1), rank counted from 1, in rank order (the
// order trec_eval adds them in, so the sums agree to the last bit or two).
double dcg(const std::vector<int>& levels, bool graded) {
  double sum = 0.0;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const double g = gain(levels[i], graded);
    if (g > 0) sum += g / std::log2(static_cast<double>(i + 2));
  }
  return sum;
}

// DCG of the best possible ranking of the first k places: every judged document with
// a positive gain, highest level first.
double ideal_dcg(const Judgements& qrels, int k, bool graded) {
  std::vector<int> levels;
  for (const auto& [id, level] : qrels) {
    if (gain(std::max(level, 0), graded) > 0) levels.push_back(level);
  }
  std::sort(levels.begin(), levels.end(), std::greater<>());
  levels.resize(cutoff(k, levels.size()));
  return dcg(levels, graded);
}

std::unordered_set<std::string_view> distinct(const std::vector<std::string>& ids) {
  return {ids.begin(), ids.end()};
}

// Share of `part`'s distinct ids that are in `whole`; 0 when `part` is empty.
double share_found(const std::vector<std::string>& part, const std::vector<std::string>& whole) {
  const auto part_ids = distinct(part);
  const auto whole_ids = distinct(whole);
  const auto found = std::count_if(part_ids.begin(), part_ids.end(),
                                   [&](std::string_view id) { return whole_ids.contains(id); });
  return ratio(static_cast<double>(found), static_cast<double>(part_ids.size()));
}

}  // namespace

double precision_at_k(const Ranking& ranking, const Judgements& qrels, int k) {
  const std::vector<int> levels = ranked_levels(ranking, qrels, k);
  const double retrieved = k > 0 ? k : static_cast<double>(levels.size());
  return ratio(static_cast<double>(count_relevant(levels)), retrieved);
}

double recall_at_k(const Ranking& ranking, const Judgements& qrels, int k) {
  const std::vector<int> levels = ranked_levels(ranking, qrels, k);
  return ratio(static_cast<double>(count_relevant(levels)),
               static_cast<double>(count_relevant(qrels)));
}

double f1_at_k(const Ranking& ranking, const Judgements& qrels, int k) {
  const double precision = precision_at_k(ranking, qrels, k);
  const double recall = recall_at_k(ranking, qrels, k);
  return ratio(2 * precision * recall, precision + recall);
}

double hit_rate_at_k(const Ranking& ranking, const Judgements& qrels, int k) {
  const std::vector<int> levels = ranked_levels(ranking, qrels, k);
  return first_relevant(levels) < levels.size() ? 1.0 : 0.0;
}

double reciprocal_rank(const Ranking& ranking, const Judgements& qrels, int k) {
  const std::vector<int> levels = ranked_levels(ranking, qrels, k);
  const std::size_t first = first_relevant(levels);
  return first < levels.size() ? 1.0 / static_cast<double>(first + 1) : 0.0;
}

double average_precision(const Ranking& ranking, const Judgements& qrels, int k) {
  const std::vector<int> levels = ranked_levels(ranking, qrels, k);
  double sum = 0.0;
  long relevant_so_far = 0;
  for (std::size_t i = 0; i < levels.size(); ++i) {
    if (!is_relevant(levels[i])) continue;
    ++relevant_so_far;
    sum += static_cast<double>(relevant_so_far) / static_cast<double>(i + 1);
  }
  // Relevant documents never retrieved contribute precision 0: divide by all of R.
  return ratio(sum, static_cast<double>(count_relevant(qrels)));
}

double r_precision(const Ranking& ranking, const Judgements& qrels) {
  const long relevant = count_relevant(qrels);
  if (relevant == 0) return 0.0;
  return precision_at_k(ranking, qrels, static_cast<int>(relevant));
}

double ndcg_at_k(const Ranking& ranking, const Judgements& qrels, int k, bool graded) {
  const std::vector<int> levels = ranked_levels(ranking, qrels, k);
  return ratio(dcg(levels, graded), ideal_dcg(qrels, k, graded));
}

double id_context_precision(const std::vector<std::string>& retrieved_ids,
                            const std::vector<std::string>& reference_ids) {
  return share_found(retrieved_ids, reference_ids);
}

double id_context_recall(const std::vector<std::string>& retrieved_ids,
                         const std::vector<std::string>& reference_ids) {
  return share_found(reference_ids, retrieved_ids);
}

}  // namespace ragmeter
