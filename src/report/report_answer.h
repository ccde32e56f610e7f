// What a run's report says first (docs/report.md, "The first screen"): the headline
// metrics, which part of the RAG system is the weaker one and why, and the worst samples
// with their reasons. Pure functions over a run's scores, so every judgement the page
// states is made here, in C++, and the page only draws it.
//
// The parts. A metric measures retrieval (what was retrieved: does it hold what the answer
// needs, ranked first), generation (what the generator made of the question and the
// retrieved contexts: grounded, on the question, not thrown by noise), the end-to-end
// outcome (the answer against a reference or a rubric: a wrong answer may come from either
// part, so it says nothing about which) or something else (safety critics, user critics).
// rag_part_of says which, from an explicit table (src/report/rag_parts.cc).
//
// The weaker part. Each score is put on its metric's range oriented so that 0 is the worst
// and 1 the best score (normalized_score). A sample's part score is the mean of its
// normalized scores over the part's metrics it was scored on. Over the samples that have
// both part scores, the paired difference generation - retrieval gets a percentile
// bootstrap 95% interval (summarize in stats.h): an interval wholly below 0 makes
// generation the weaker part, wholly above 0 retrieval; an interval that holds 0, fewer
// than `min_samples` such samples, or a part with no scored metric leave it undecided, and
// the explanation says which.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/stats.h"

namespace ragmeter {

enum class RagPart { kRetrieval, kGeneration, kEndToEnd, kOther };

// "retrieval", "generation", "end-to-end", "other".
const char* rag_part_name(RagPart part);

// The part `metric` measures ("ndcg@10" is looked up as "ndcg"): every metric of the
// retrieval family, and the judged metrics the table in rag_parts.cc names, are
// retrieval; a metric not in the metric table (a user critic) is kOther. Thread-safe.
RagPart rag_part_of(std::string_view metric);

// One metric's scores over a run's rows, in row order.
struct ScoreColumn {
  std::string metric;
  bool higher_is_better = true;  // from the metric table
  double min_score = 0.0;        // the metric's range, from the metric table
  double max_score = 1.0;
  std::vector<std::optional<double>> scores;  // nullopt: skipped, failed or a rejected row
};

// A ScoreColumn of `metric` with its direction and range from the metric table (higher is
// better on [0, 1] for a metric the table lacks) and no scores yet.
ScoreColumn score_column_for(const std::string& metric);

// `score` on the column's range, oriented: 0 is the worst score the metric can give, 1
// the best (a lower-is-better metric's 0 becomes 1). Clamped to [0, 1].
double normalized_score(const ScoreColumn& column, double score);

// The metrics a report leads with: ragas's four (faithfulness, answer_relevancy,
// context_precision, context_recall) that the run has, in that order, then the run's
// other metrics in its order, up to `count` in all.
std::vector<std::string> headline_metrics(std::span<const std::string> run_metrics,
                                          std::size_t count = 4);

struct PartMetric {
  std::string metric;
  bool higher_is_better = true;
  std::int64_t n = 0;            // rows scored
  double mean = 0.0;             // in the metric's own units
  double normalized_mean = 0.0;  // of normalized_score
};

struct WeakerPartOptions {
  // Fewer samples scored on both parts than this: undecided. Below 10 a bootstrap
  // interval of a mean is too ragged to decide on.
  std::int64_t min_samples = 10;
  BootstrapOptions bootstrap;  // the interval of the paired difference (1,000 resamples, seed 42)
};

struct WeakerPart {
  // kRetrieval or kGeneration: that part is the weaker one; nullopt: undecided.
  std::optional<RagPart> weaker;
  std::vector<PartMetric> retrieval, generation;  // lowest normalized mean first
  std::vector<std::string> not_counted;           // end-to-end and other metrics
  // Over the samples scored on both parts: each part's mean score and the paired
  // difference generation - retrieval with its interval (n = 0: no such sample).
  double retrieval_score = 0.0, generation_score = 0.0;
  SummaryStats difference;
  // The verdict in a few words ("Generation is the weaker part", "Neither part is clearly
  // weaker", "Which part is weaker cannot be said") and why, in a sentence or two: the
  // metrics that point there and the interval, or what keeps the data from saying.
  std::string headline;
  std::string explanation;
};

// Which part is weaker (the rule at the top of this file). Deterministic; thread-safe.
WeakerPart weaker_part(std::span<const ScoreColumn> columns, const WeakerPartOptions& options = {});

// A metric on which a sample scored in the worse half of the metric's range.
struct LowScore {
  std::string metric;
  double score = 0.0;       // in the metric's own units
  double normalized = 0.0;  // normalized_score, below 0.5
};

struct WorstSample {
  std::size_t row = 0;           // index into the columns' rows
  double mean_normalized = 0.0;  // over the metrics the row was scored on
  std::int64_t metrics_scored = 0;
  std::vector<LowScore> low_scores;  // lowest first, at most `reasons`
};

// The `count` samples with the lowest mean normalized score over the metrics they were
// scored on (ties: more metrics scored first, then row order), among the samples that
// score in the worse half of some metric's range; each with its `reasons` lowest such
// metrics. Rows scored on no metric are left out. Deterministic; thread-safe.
std::vector<WorstSample> worst_samples(std::span<const ScoreColumn> columns, std::size_t count = 5,
                                       std::size_t reasons = 3);

// A short account of a score from its evidence (one metric's entry of a results row's
// "evidence"): "1 of 3 claims supported; not supported: “...”" for claim-based metrics,
// "1 of 4 contexts useful" for context_precision, "the response is noncommittal" for
// answer_relevancy, the entities missed for context_entity_recall. Empty when the
// evidence has nothing to add to the score. Quoted texts are cut to about 120 bytes.
std::string explain_score(const nlohmann::ordered_json& evidence);

}  // namespace ragmeter
