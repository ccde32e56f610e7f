// trec_eval's per-query measures as pure functions (trec_eval 9.0.x, the version
// pytrec_eval wraps, and trec_eval 10.0's additions and changes). Each takes the judged ranking of one query (its documents'
// relevance values in rank order plus the query's judgement counts) and returns the
// value trec_eval computes for that query; averaging over queries is trec_eval.h's.
//
// Thread-safe: no function holds state. Formulas from trec_eval's documentation and
// source (m_*.c); each function names the measure it computes.
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ragmeter/retrieval.h"

namespace ragmeter {

// One query's ranking as trec_eval evaluates it.
struct TrecJudgedRanking {
  // Relevance value of a retrieved document that is not in the qrels at all.
  static constexpr long kNotInPool = -1;
  // Relevance value of a retrieved document judged with a negative level (trec_eval:
  // "in the pool but unjudged", as infAP's sampled pools mark them).
  static constexpr long kUnjudged = -2;

  // Relevance of each retrieved document, best first: its judged level (>= 0),
  // kNotInPool or kUnjudged.
  std::vector<long> rels;
  // Level -> documents of this query judged at it, retrieved or not, for every level
  // >= 0 judged at least once (trec_eval's rel_levels, without its empty levels). A map,
  // not an array indexed by level, so that a level of 2,000,000,000 costs one entry.
  std::map<long, long> level_counts;
  long relevance_level = 1;  // levels at or above it are relevant (trec_eval -l)
  long num_rel = 0;          // judged documents at or above relevance_level (R)
  long num_rel_ret = 0;      // retrieved documents at or above relevance_level

  long num_ret() const { return static_cast<long>(rels.size()); }
  bool relevant(long rel) const { return rel >= relevance_level; }
  // Judged documents below relevance_level (levels 0 .. relevance_level - 1).
  long num_nonrel() const;
};

// How a run's ranking becomes a judged ranking (trec_eval's -l, -M and -J).
struct TrecRankingOptions {
  long relevance_level = 1;   // -l: lowest relevant level. Higher makes fewer documents relevant.
  long max_docs = 0;          // -M: documents looked at per query, 0 = all. Cuts every measure.
  bool judged_only = false;   // -J: drop retrieved documents the qrels do not judge (level < 0
                              // or absent) before ranking. trec_eval warns against it.
};

// The judged ranking of `ranking` (already in trec_eval's order, see trec.h) against
// one query's `judgements`. A document listed twice counts once, at its first place
// (trec_eval rejects such a run). The first `max_docs` distinct documents are kept,
// then, with judged_only, the unjudged ones are dropped.
TrecJudgedRanking trec_judged_ranking(const Ranking& ranking, const Judgements& judgements,
                                      const TrecRankingOptions& options = {});

// ---- Counts -------------------------------------------------------------------------
// num_nonrel_judged_ret: retrieved documents judged below the relevance level.
long trec_num_nonrel_judged_ret(const TrecJudgedRanking& r);

// ---- Ranked measures ----------------------------------------------------------------
// map: sum of the precision at each relevant retrieved document / R; 0 when R = 0.
double trec_average_precision(const TrecJudgedRanking& r);
// map_cut_k: map counting only the first k documents (later relevant ones add 0).
double trec_average_precision_at(const TrecJudgedRanking& r, long k);
// gm_map's per-query value: log(max(map, 0.00001)); the summary is exp(mean).
double trec_log_average_precision(const TrecJudgedRanking& r);
// Rprec: relevant in the first R / R; 0 when R = 0.
double trec_r_precision(const TrecJudgedRanking& r);
// bpref (Buckley and Voorhees, SIGIR 2004): for each relevant retrieved document,
// 1 - min(judged non-relevant above it, R) / min(judged non-relevant, R); summed / R.
// Documents not judged are ignored.
double trec_bpref(const TrecJudgedRanking& r);
// gm_bpref's per-query value: log(max(bpref, 0.00001)).
double trec_log_bpref(const TrecJudgedRanking& r);
// infAP (Yilmaz and Aslam, CIKM 2006), with trec_eval's epsilon 0.00001.
double trec_inferred_ap(const TrecJudgedRanking& r);
// recip_rank: 1 / rank of the first relevant document; 0 when none is retrieved.
double trec_reciprocal_rank(const TrecJudgedRanking& r);
// P_k: relevant in the first k / k (k, not the number retrieved, is the denominator).
double trec_precision_at(const TrecJudgedRanking& r, long k);
// recall_k: relevant in the first k / R; 0 when R = 0.
double trec_recall_at(const TrecJudgedRanking& r, long k);
// relative_P_k: relevant in the first k / min(k, R); 0 when R = 0.
double trec_relative_precision_at(const TrecJudgedRanking& r, long k);
// success_k: 1 when a relevant document is in the first k, else 0.
double trec_success_at(const TrecJudgedRanking& r, long k);
// How a recall level x becomes a number of relevant documents.
enum class TrecRecallCutoff {
  kPlusNineTenths,  // (long)(x * R + 0.9): trec_eval 9.0.x
  kRounded,         // lround(x * R), halves away from 0: trec_eval 10.0
};
// iprec_at_recall_x for each recall level x in `recall_levels` (ascending): the
// highest precision at any rank whose recall reaches x, x made a number of relevant
// documents by `cutoff`.
std::vector<double> trec_interpolated_precision(
    const TrecJudgedRanking& r, std::span<const double> recall_levels,
    TrecRecallCutoff cutoff = TrecRecallCutoff::kPlusNineTenths);
// 11pt_avg: the mean of trec_interpolated_precision over `recall_levels`.
double trec_11pt_average(const TrecJudgedRanking& r, std::span<const double> recall_levels,
                         TrecRecallCutoff cutoff = TrecRecallCutoff::kPlusNineTenths);
// Rprec_mult_x for each multiple x of R (ascending): precision at rank
// (long)(x * R + 0.9); past the end of the ranking, relevant retrieved / that rank.
std::vector<double> trec_r_precision_multiples(const TrecJudgedRanking& r,
                                               std::span<const double> multiples);
// binG: mean over the R relevant documents of 1 / log2(2 + non-relevant above it);
// unretrieved ones add 0.
double trec_binary_g(const TrecJudgedRanking& r);

// ---- Gain-based measures ------------------------------------------------------------
// A relevance level's gain. Default: the level itself (level 0 gains 0, negative
// values and unjudged documents 0); trec_eval's `ndcg.1=3.5,2=9` overrides levels.
struct TrecGain {
  long level = 0;
  double gain = 0.0;
  long count = 0;  // judged documents of the query at this level
};
// The query's gains in trec_eval's order (ascending gain; equal gains keep their
// order), from the judged levels and the (level, gain) `overrides` given as measure
// parameters. trec_eval compares gains by their difference truncated to an integer,
// so its order of gains less than 1 apart is arbitrary; integer gains sort the same.
std::vector<TrecGain> trec_gains(const TrecJudgedRanking& r,
                                 std::span<const std::pair<long, double>> overrides = {});
// ndcg: DCG / ideal DCG, discount log2(rank + 1); 0 when the ideal DCG is 0.
double trec_ndcg(const TrecJudgedRanking& r, std::span<const TrecGain> gains);
// ndcg_cut_k: ndcg over the first k places of both rankings, default gains.
double trec_ndcg_at(const TrecJudgedRanking& r, long k);
// ndcg_rel: ndcg averaged over the ideal ranking's positive-gain places, taken at
// each retrieved document with a positive gain, and at the end for the rest.
double trec_ndcg_rel(const TrecJudgedRanking& r, std::span<const TrecGain> gains);
// Rndcg: ndcg averaged at the places where the ideal gain changes (the R levels).
double trec_r_ndcg(const TrecJudgedRanking& r, std::span<const TrecGain> gains);
// G: sum of gain / log2(2 + ideal cost so far - gain so far), over the ideal gain.
double trec_g(const TrecJudgedRanking& r, std::span<const TrecGain> gains);

// ---- Set measures (the retrieved documents as an unranked set) ----------------------
double trec_set_precision(const TrecJudgedRanking& r);           // set_P: rel_ret / ret
double trec_set_recall(const TrecJudgedRanking& r);              // set_recall: rel_ret / R
double trec_set_relative_precision(const TrecJudgedRanking& r);  // rel_ret / min(ret, R)
double trec_set_map(const TrecJudgedRanking& r);                 // rel_ret^2 / (ret * R)
// set_F: (beta + 1) P R / (beta P + R) (trec_eval's set_F parameter is beta).
double trec_set_f(const TrecJudgedRanking& r, double beta = 1.0);
// utility: a * rel_ret + b * nonrel_ret + c * rel_not_ret + d * nonrel_not_ret, with
// the collection's size for the last term (trec_eval -N; 0 by default).
double trec_utility(const TrecJudgedRanking& r, std::span<const double> coefficients,
                    long num_docs_in_collection = 0);

// ---- trec_eval 10.0's measures (src/eval/trec_measures_v10.cc) --------------------
// rbp (Moffat and Zobel, TOIS 2008): (1 - p) * sum over ranks i = 0.. of gain_i p^i.
// Gains are the levels (0 .. the highest judged), with `overrides` (level, gain); when
// any gain lies outside [0, 1] all are rescaled to (gain - min) / (max - min).
// Unjudged and unpooled documents gain 0.
double trec_rbp(const TrecJudgedRanking& r, double persistence = 0.9,
                std::span<const std::pair<long, double>> overrides = {});
// rbp_resid: how much rbp could still grow if every unjudged or unpooled retrieved
// document had gain 1, plus the weight p^n past the n retrieved:
// p^n + (1 - p) * sum of p^i over those documents; 0 when there is none of them.
double trec_rbp_residual(const TrecJudgedRanking& r, double persistence = 0.9);
// unj_k: unjudged or unpooled documents among the first k / k.
double trec_unjudged_at(const TrecJudgedRanking& r, long k);
// yaap (Robertson, ECIR 2012): log((1 + S) / (1 + R - S)), S the sum of the
// precisions at the relevant retrieved documents (map's numerator).
double trec_yaap(const TrecJudgedRanking& r);

// ---- Judgment groups (trec_eval -R qrels_jg): one judged ranking per group ----------
// map_avgjg: each group's average precision (0 for a group with no relevant document
// retrieved), averaged over the groups.
double trec_map_avgjg(std::span<const TrecJudgedRanking> groups);
// P_avgjg_k: trec_precision_at per group, averaged over the groups.
double trec_precision_avgjg(std::span<const TrecJudgedRanking> groups, long k);
// Rprec_mult_avgjg_x: trec_r_precision_multiples per group, averaged over the groups.
std::vector<double> trec_r_precision_multiples_avgjg(std::span<const TrecJudgedRanking> groups,
                                                     std::span<const double> multiples);

// relstring: one character per document of the first `length`: the level 0-9, '>'
// above 9, '-' not in the pool, '.' in the pool but unjudged.
std::string trec_relstring(const TrecJudgedRanking& r, long length = 10);

}  // namespace ragmeter
