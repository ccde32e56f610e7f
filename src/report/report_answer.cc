// The judgements a report leads with: the headline metrics, the weaker part and the worst
// samples (report_answer.h has the rules).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "ragmeter/metric.h"
#include "report/report_answer.h"

namespace ragmeter {
namespace {

constexpr std::string_view kRagasFour[] = {"faithfulness", "answer_relevancy", "context_precision",
                                           "context_recall"};

PartMetric part_metric(const ScoreColumn& column) {
  PartMetric m;
  m.metric = column.metric;
  m.higher_is_better = column.higher_is_better;
  double sum = 0.0, normalized = 0.0;
  for (const auto& score : column.scores) {
    if (!score) continue;
    ++m.n;
    sum += *score;
    normalized += normalized_score(column, *score);
  }
  if (m.n > 0) {
    m.mean = sum / static_cast<double>(m.n);
    m.normalized_mean = normalized / static_cast<double>(m.n);
  }
  return m;
}

// Per row, the mean normalized score over the part's columns the row was scored on.
std::vector<std::optional<double>> part_scores(std::span<const ScoreColumn> columns, RagPart part,
                                               std::size_t rows) {
  std::vector<double> sum(rows, 0.0);
  std::vector<int> count(rows, 0);
  for (const ScoreColumn& column : columns) {
    if (rag_part_of(column.metric) != part) continue;
    for (std::size_t r = 0; r < rows && r < column.scores.size(); ++r) {
      if (!column.scores[r]) continue;
      sum[r] += normalized_score(column, *column.scores[r]);
      ++count[r];
    }
  }
  std::vector<std::optional<double>> out(rows);
  for (std::size_t r = 0; r < rows; ++r) {
    if (count[r] > 0) out[r] = sum[r] / count[r];
  }
  return out;
}

// "faithfulness 0.27, answer_relevancy 0.20 (lower is better)".
std::string metric_list(const std::vector<PartMetric>& metrics) {
  std::vector<std::string> parts;
  for (const PartMetric& m : metrics) {
    parts.push_back(fmt::format("{} {:.2f}{}", m.metric, m.mean,
                                m.higher_is_better ? "" : " (lower is better)"));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::string interval_text(const SummaryStats& d) {
  return fmt::format("{:+.2f} [95% CI {:+.2f}, {:+.2f}] over {} samples", d.mean, d.ci_low,
                     d.ci_high, d.n);
}

std::string missing_part_text(RagPart part) {
  return part == RagPart::kRetrieval
             ? "no retrieval metric was scored in this run (context_precision, context_recall, "
               "context_entity_recall or an IR metric such as recall@k would measure it)"
             : "no generation metric was scored in this run (faithfulness, answer_relevancy or "
               "noise sensitivity would measure it)";
}

void explain(WeakerPart* w, std::int64_t min_samples) {
  if (w->retrieval.empty() || w->generation.empty()) {
    w->headline = "Which part is weaker cannot be said";
    w->explanation =
        "Because " +
        missing_part_text(w->retrieval.empty() ? RagPart::kRetrieval : RagPart::kGeneration) + ".";
    return;
  }
  const SummaryStats& d = w->difference;
  if (d.n < min_samples) {
    w->headline = "Which part is weaker cannot be said";
    w->explanation = fmt::format(
        "Only {} samples were scored on both retrieval and generation metrics (at least {} are "
        "needed).",
        d.n, min_samples);
    return;
  }
  std::string scores = fmt::format(
      "generation scores {:.2f} ({}) and retrieval {:.2f} ({}), each metric put on its range "
      "with 1 the best",
      w->generation_score, metric_list(w->generation), w->retrieval_score,
      metric_list(w->retrieval));
  if (!w->weaker) {
    w->headline = "Neither part is clearly weaker";
    w->explanation =
        fmt::format("Per sample, generation - retrieval = {}, an interval that holds 0; {}.",
                    interval_text(d), scores);
    return;
  }
  const bool generation = *w->weaker == RagPart::kGeneration;
  const PartMetric& lowest = generation ? w->generation.front() : w->retrieval.front();
  w->headline = generation ? "Generation is the weaker part" : "Retrieval is the weaker part";
  w->explanation =
      fmt::format("Per sample, generation - retrieval = {}: {}. Its lowest metric is {}.",
                  interval_text(d), scores, lowest.metric);
}

}  // namespace

ScoreColumn score_column_for(const std::string& metric) {
  ScoreColumn column;
  column.metric = metric;
  if (const MetricInfo* info = find_metric(std::string_view(metric).substr(0, metric.find('@')))) {
    column.higher_is_better = info->higher_is_better;
    column.min_score = info->min_score;
    column.max_score = info->max_score;
  }
  return column;
}

double normalized_score(const ScoreColumn& column, double score) {
  double width = column.max_score - column.min_score;
  double u = width > 0 ? (score - column.min_score) / width : 1.0;
  u = std::clamp(u, 0.0, 1.0);
  return column.higher_is_better ? u : 1.0 - u;
}

std::vector<std::string> headline_metrics(std::span<const std::string> run_metrics,
                                          std::size_t count) {
  std::vector<std::string> out;
  for (std::string_view name : kRagasFour) {
    if (std::find(run_metrics.begin(), run_metrics.end(), name) != run_metrics.end()) {
      out.emplace_back(name);
    }
  }
  for (const std::string& name : run_metrics) {
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  }
  if (out.size() > count) out.resize(count);
  return out;
}

WeakerPart weaker_part(std::span<const ScoreColumn> columns, const WeakerPartOptions& options) {
  WeakerPart w;
  std::size_t rows = 0;
  for (const ScoreColumn& column : columns) {
    rows = std::max(rows, column.scores.size());
    RagPart part = rag_part_of(column.metric);
    PartMetric m = part_metric(column);
    if (part == RagPart::kRetrieval && m.n > 0) {
      w.retrieval.push_back(std::move(m));
    } else if (part == RagPart::kGeneration && m.n > 0) {
      w.generation.push_back(std::move(m));
    } else if (part == RagPart::kEndToEnd || part == RagPart::kOther) {
      w.not_counted.push_back(column.metric);
    }
  }
  auto by_normalized_mean = [](const PartMetric& a, const PartMetric& b) {
    return a.normalized_mean < b.normalized_mean;
  };
  std::stable_sort(w.retrieval.begin(), w.retrieval.end(), by_normalized_mean);
  std::stable_sort(w.generation.begin(), w.generation.end(), by_normalized_mean);
  auto retrieval = part_scores(columns, RagPart::kRetrieval, rows);
  auto generation = part_scores(columns, RagPart::kGeneration, rows);
  std::vector<double> diffs;
  double r_sum = 0.0, g_sum = 0.0;
  for (std::size_t r = 0; r < rows; ++r) {
    if (!retrieval[r] || !generation[r]) continue;
    diffs.push_back(*generation[r] - *retrieval[r]);
    r_sum += *retrieval[r];
    g_sum += *generation[r];
  }
  if (!diffs.empty()) {
    w.difference = summarize(diffs, options.bootstrap);
    w.retrieval_score = r_sum / static_cast<double>(diffs.size());
    w.generation_score = g_sum / static_cast<double>(diffs.size());
  }
  if (!w.retrieval.empty() && !w.generation.empty() && w.difference.n >= options.min_samples) {
    if (w.difference.ci_high < 0) w.weaker = RagPart::kGeneration;
    if (w.difference.ci_low > 0) w.weaker = RagPart::kRetrieval;
  }
  explain(&w, options.min_samples);
  return w;
}

std::vector<WorstSample> worst_samples(std::span<const ScoreColumn> columns, std::size_t count,
                                       std::size_t reasons) {
  std::size_t rows = 0;
  for (const ScoreColumn& column : columns) rows = std::max(rows, column.scores.size());
  std::vector<WorstSample> candidates;
  for (std::size_t r = 0; r < rows; ++r) {
    WorstSample sample;
    sample.row = r;
    double sum = 0.0;
    for (const ScoreColumn& column : columns) {
      if (r >= column.scores.size() || !column.scores[r]) continue;
      double u = normalized_score(column, *column.scores[r]);
      sum += u;
      ++sample.metrics_scored;
      if (u < 0.5) sample.low_scores.push_back({column.metric, *column.scores[r], u});
    }
    if (sample.low_scores.empty()) continue;
    sample.mean_normalized = sum / static_cast<double>(sample.metrics_scored);
    candidates.push_back(std::move(sample));
  }
  auto worse = [](const WorstSample& a, const WorstSample& b) {
    if (a.mean_normalized != b.mean_normalized) return a.mean_normalized < b.mean_normalized;
    if (a.metrics_scored != b.metrics_scored) return a.metrics_scored > b.metrics_scored;
    return a.row < b.row;
  };
  std::size_t keep = std::min(count, candidates.size());
  std::partial_sort(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(keep),
                    candidates.end(), worse);
  candidates.resize(keep);
  for (WorstSample& sample : candidates) {
    std::stable_sort(
        sample.low_scores.begin(), sample.low_scores.end(),
        [](const LowScore& a, const LowScore& b) { return a.normalized < b.normalized; });
    if (sample.low_scores.size() > reasons) sample.low_scores.resize(reasons);
  }
  return candidates;
}

}  // namespace ragmeter
