// Adapters for the retrieval metrics over a dataset row.
//
// Relevance comes from ids when the row has both `retrieved_context_ids` and
// `reference_context_ids`; otherwise from text: each retrieved chunk is matched to the
// reference context it is most similar to (normalised Levenshtein similarity, as ragas's
// non-LLM context precision), and counts as that reference when the similarity reaches
// the threshold. A second chunk matching an already matched reference is a duplicate
// and counts as non-relevant, just as a repeated id would not add a relevant document.
#include <unordered_set>

#include "metrics/adapters.h"
#include "ragmeter/retrieval.h"
#include "ragmeter/string_similarity.h"

namespace ragmeter::adapters {
namespace {

struct RankingWithJudgements {
  Ranking ranking;
  Judgements qrels;
};

// Best similarity of `chunk` to each reference: index and value of the maximum.
std::pair<std::size_t, double> best_reference(const std::string& chunk,
                                              const std::vector<std::string>& references) {
  std::pair<std::size_t, double> best{0, -1.0};
  for (std::size_t j = 0; j < references.size(); ++j) {
    double similarity = ragmeter::levenshtein_similarity(chunk, references[j]);
    if (similarity > best.second) best = {j, similarity};
  }
  return best;
}

RankingWithJudgements from_ids(const Sample& s) {
  RankingWithJudgements out;
  out.ranking = *s.retrieved_context_ids;
  for (const auto& id : *s.reference_context_ids) out.qrels[id] = 1;
  return out;
}

RankingWithJudgements from_text(const Sample& s, double threshold) {
  RankingWithJudgements out;
  const auto& references = *s.reference_contexts;
  for (std::size_t j = 0; j < references.size(); ++j) out.qrels["ref:" + std::to_string(j)] = 1;
  std::unordered_set<std::size_t> matched;
  const auto& chunks = *s.retrieved_contexts;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    auto [j, similarity] = best_reference(chunks[i], references);
    if (similarity >= threshold && matched.insert(j).second) {
      out.ranking.push_back("ref:" + std::to_string(j));
    } else {
      out.ranking.push_back("chunk:" + std::to_string(i));
    }
  }
  return out;
}

// The ranking and judgements of a row: from ids when it has both lists, else from texts
// (the fields were checked: sample_fields::kContextIdsOrTexts).
RankingWithJudgements relevance(const Sample& s, const ScoringOptions& o) {
  if (s.retrieved_context_ids && s.reference_context_ids) return from_ids(s);
  return from_text(s, o.context_match_threshold);
}

template <typename Fn>
MetricResult rank_metric(const Sample& s, const ScoringOptions& o, Fn fn) {
  const RankingWithJudgements r = relevance(s, o);
  return MetricResult::ok(fn(r.ranking, r.qrels));
}

}  // namespace

MetricResult precision(const Sample& s, const MetricRequest& r, const ScoringOptions& o) {
  return rank_metric(s, o, [&](auto& x, auto& q) { return precision_at_k(x, q, r.k); });
}
MetricResult recall(const Sample& s, const MetricRequest& r, const ScoringOptions& o) {
  return rank_metric(s, o, [&](auto& x, auto& q) { return recall_at_k(x, q, r.k); });
}
MetricResult f1(const Sample& s, const MetricRequest& r, const ScoringOptions& o) {
  return rank_metric(s, o, [&](auto& x, auto& q) { return f1_at_k(x, q, r.k); });
}
MetricResult hit_rate(const Sample& s, const MetricRequest& r, const ScoringOptions& o) {
  return rank_metric(s, o, [&](auto& x, auto& q) { return hit_rate_at_k(x, q, r.k); });
}
MetricResult mrr(const Sample& s, const MetricRequest& r, const ScoringOptions& o) {
  return rank_metric(s, o, [&](auto& x, auto& q) { return reciprocal_rank(x, q, r.k); });
}
MetricResult map(const Sample& s, const MetricRequest& r, const ScoringOptions& o) {
  return rank_metric(s, o, [&](auto& x, auto& q) { return average_precision(x, q, r.k); });
}
MetricResult r_precision(const Sample& s, const MetricRequest&, const ScoringOptions& o) {
  return rank_metric(s, o, [&](auto& x, auto& q) { return ragmeter::r_precision(x, q); });
}
MetricResult ndcg(const Sample& s, const MetricRequest& r, const ScoringOptions& o) {
  return rank_metric(s, o, [&](auto& x, auto& q) { return ndcg_at_k(x, q, r.k, false); });
}

MetricResult id_based_context_precision(const Sample& s, const MetricRequest&,
                                        const ScoringOptions&) {
  return MetricResult::ok(id_context_precision(*s.retrieved_context_ids, *s.reference_context_ids));
}

MetricResult id_based_context_recall(const Sample& s, const MetricRequest&,
                                     const ScoringOptions&) {
  return MetricResult::ok(id_context_recall(*s.retrieved_context_ids, *s.reference_context_ids));
}

// ragas NonLLMContextPrecisionWithReference: v_i = max_j sim(C_i, R_j) >= threshold;
// score = sum_k precision@k * v_k / sum_k v_k (0 when no chunk is relevant; ragas adds
// 1e-10 to the denominator, we do not).
MetricResult non_llm_context_precision(const Sample& s, const MetricRequest&,
                                       const ScoringOptions& o) {
  double numerator = 0.0;
  int relevant = 0;
  const auto& chunks = *s.retrieved_contexts;
  nlohmann::ordered_json verdicts = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < chunks.size(); ++k) {
    bool useful = best_reference(chunks[k], *s.reference_contexts).second >= o.context_match_threshold;
    verdicts.push_back(useful ? 1 : 0);
    if (!useful) continue;
    ++relevant;
    numerator += static_cast<double>(relevant) / static_cast<double>(k + 1);
  }
  MetricResult result = MetricResult::ok(relevant == 0 ? 0.0 : numerator / relevant);
  result.evidence = {{"verdicts", verdicts}};
  return result;
}

// ragas NonLLMContextRecall: share of reference contexts whose best similarity to some
// retrieved chunk is > threshold (strict, as ragas).
MetricResult non_llm_context_recall(const Sample& s, const MetricRequest&, const ScoringOptions& o) {
  int found = 0;
  for (const auto& reference : *s.reference_contexts) {
    if (best_reference(reference, *s.retrieved_contexts).second > o.context_match_threshold) ++found;
  }
  return MetricResult::ok(static_cast<double>(found) /
                          static_cast<double>(s.reference_contexts->size()));
}

}  // namespace ragmeter::adapters
