// Retrieval metrics over a ranked list of document ids and relevance judgements,
// with trec_eval's semantics (see docs/metrics.md for the variants).
//
// Pure functions, thread-safe.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

namespace ragmeter {

// Relevance judgements of one query: document id -> level. Level >= 1 is relevant
// (trec_eval's default relevance level); 0 or below is judged non-relevant, and a
// negative level (trec_eval: "in the pool, unjudged") also has no nDCG gain.
// Documents not in the map are non-relevant.
using Judgements = std::unordered_map<std::string, int>;

// A ranked list, best first. Duplicate ids count once, at their first position: later
// copies are dropped and the documents after them move up.
using Ranking = std::vector<std::string>;

// Every function takes `k` as a cutoff; k <= 0 means no cutoff (the whole ranking).
// Precision at k: relevant in the top k / k (trec_eval P_k divides by k even when
// fewer than k were retrieved). With k <= 0: relevant retrieved / retrieved.
double precision_at_k(const Ranking& ranking, const Judgements& qrels, int k);
// Relevant in the top k / relevant judged; 0 when nothing is relevant.
double recall_at_k(const Ranking& ranking, const Judgements& qrels, int k);
// Harmonic mean of precision_at_k and recall_at_k; 0 when both are 0.
double f1_at_k(const Ranking& ranking, const Judgements& qrels, int k);
// 1 if any of the top k is relevant, else 0 (trec_eval success_k).
double hit_rate_at_k(const Ranking& ranking, const Judgements& qrels, int k);
// 1 / rank of the first relevant document; 0 if none (trec_eval recip_rank).
double reciprocal_rank(const Ranking& ranking, const Judgements& qrels, int k = 0);
// Average precision: the precision at each relevant document in the top k, summed and
// divided by all relevant documents judged, retrieved or not (trec_eval map;
// map_cut_k with k > 0).
double average_precision(const Ranking& ranking, const Judgements& qrels, int k = 0);
// Precision at R, R = number of relevant documents judged (trec_eval Rprec); 0 when
// R = 0.
double r_precision(const Ranking& ranking, const Judgements& qrels);
// nDCG at k with gain = relevance level and a log2(rank + 1) discount; the ideal
// ranking is the k best of every judged document, retrieved or not (trec_eval ndcg /
// ndcg_cut_k); 0 when no judged document has a gain. With `graded` false every
// relevant document has gain 1.
double ndcg_at_k(const Ranking& ranking, const Judgements& qrels, int k, bool graded = true);

// ragas's id-based context precision: share of distinct retrieved ids that are among
// the reference ids (set semantics, rank ignored). 0 for an empty retrieval (ragas:
// NaN).
double id_context_precision(const std::vector<std::string>& retrieved_ids,
                            const std::vector<std::string>& reference_ids);
// ragas's id-based context recall: share of distinct reference ids that were retrieved.
// 0 when there are no reference ids (ragas: NaN).
double id_context_recall(const std::vector<std::string>& retrieved_ids,
                         const std::vector<std::string>& reference_ids);

}  // namespace ragmeter
