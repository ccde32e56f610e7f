// A run's summary from per-row results (summary_builder.h); evaluate() uses it too.
#include "ragmeter/summary_builder.h"

#include <cmath>

#include "ragmeter/repeats.h"

namespace ragmeter {
namespace {

// At most this many distinct reasons are counted per metric and outcome (failure
// messages can be many); later new ones are not.
constexpr std::size_t kMaxReasons = 256;

void count_reason(std::map<std::string, std::int64_t>* reasons, const std::string& reason) {
  auto it = reasons->find(reason);
  if (it != reasons->end()) {
    ++it->second;
  } else if (reasons->size() < kMaxReasons) {
    reasons->emplace(reason, 1);
  }
}

std::string most_common(const std::map<std::string, std::int64_t>& reasons) {
  const std::pair<const std::string, std::int64_t>* best = nullptr;
  for (const auto& entry : reasons) {
    if (best == nullptr || entry.second > best->second) best = &entry;
  }
  return best ? best->first : std::string();
}

}  // namespace

RepeatSummary SummaryBuilder::summarize_repeats(const std::vector<std::vector<double>>& groups,
                                                bool higher_is_better,
                                                std::optional<double> mark) const {
  RepeatSummary out;
  out.repeats = static_cast<int>(groups.front().size());
  out.variance = variance_components(groups);
  double std_sum = 0.0;
  for (const std::vector<double>& group : groups) {
    std_sum += summarize(group, {.resamples = 0}).std;
    out.worst.push_back(worst_repeat(group, higher_is_better));
    out.best.push_back(best_repeat(group, higher_is_better));
  }
  const double n = static_cast<double>(groups.size());
  out.mean_sample_std = std_sum / n;
  out.single_run_judge_std = std::sqrt(out.variance.within / n);
  out.pass_all = summarize(out.worst, bootstrap_);
  out.pass_any = summarize(out.best, bootstrap_);
  out.pass_mark = mark;
  if (mark) out.flaky = count_flaky(out, *mark, higher_is_better);
  return out;
}

SummaryBuilder::SummaryBuilder(const EvalOptions& options)
    : metrics_(options.metrics),
      scoring_(options.scoring),
      bootstrap_(options.bootstrap),
      pass_marks_(options.pass_marks),
      accumulators_(options.metrics.size()) {
  bootstrap_.threads = options.threads;
}

Status SummaryBuilder::add_row(const std::vector<MetricResult>& results, std::string_view language) {
  if (results.size() != accumulators_.size()) {
    return invalid_argument("a row has " + std::to_string(results.size()) + " results for " +
                            std::to_string(accumulators_.size()) + " metrics");
  }
  for (std::size_t m = 0; m < results.size(); ++m) {
    RAGMETER_RETURN_IF_ERROR(check_score_range(metrics_[m], results[m]));
  }
  for (std::size_t m = 0; m < results.size(); ++m) {
    const MetricResult& r = results[m];
    add_outcome(m, r.outcome, r.score, r.reason, r.corpus_stats, r.note);
    if (r.outcome == Outcome::kOk && !r.repeat_scores.empty()) {
      std::vector<double>& group = accumulators_[m].repeat_groups.emplace_back();
      for (const std::optional<double>& score : r.repeat_scores) group.push_back(score.value_or(0.0));
    }
  }
  ++summary_.rows_read;
  count_language(language);
  return ok_status();
}

void SummaryBuilder::count_language(std::string_view language) {
  if (!language.empty()) ++summary_.languages[std::string(language)];
}

void SummaryBuilder::add_outcome(std::size_t metric, Outcome outcome, double score,
                                 const std::string& reason,
                                 const std::vector<double>& corpus_stats,
                                 const std::string& note) {
  Accumulator& acc = accumulators_[metric];
  switch (outcome) {
    case Outcome::kOk:
      acc.scores.push_back(score);
      if (!note.empty()) {
        ++acc.noted;
        count_reason(&acc.notes, note);
      }
      if (!corpus_stats.empty()) {
        if (acc.corpus_stats.empty()) acc.corpus_stats.assign(corpus_stats.size(), 0.0);
        for (std::size_t i = 0; i < acc.corpus_stats.size() && i < corpus_stats.size(); ++i) {
          acc.corpus_stats[i] += corpus_stats[i];
        }
      }
      break;
    case Outcome::kSkipped:
      ++acc.skipped;
      count_reason(&acc.skip_reasons, reason);
      break;
    case Outcome::kFailed:
      ++acc.failed;
      count_reason(&acc.failure_reasons, reason);
      break;
  }
}

void SummaryBuilder::add_rejected() {
  ++summary_.rows_read;
  ++summary_.rows_rejected;
}

EvalSummary SummaryBuilder::finish() && {
  for (std::size_t m = 0; m < metrics_.size(); ++m) {
    const MetricRequest& request = metrics_[m];
    Accumulator& acc = accumulators_[m];
    MetricSummary metric;
    metric.name = request.name;
    metric.stats = summarize(acc.scores, bootstrap_);
    metric.skipped = acc.skipped;
    metric.failed = acc.failed;
    metric.higher_is_better = request.info->higher_is_better;
    metric.min_score = request.info->min_score;
    metric.max_score = request.info->max_score;
    metric.fields = required_fields_text(request.info->needs);
    metric.top_skip_reason = most_common(acc.skip_reasons);
    metric.top_failure_reason = most_common(acc.failure_reasons);
    metric.noted = acc.noted;
    metric.top_note = most_common(acc.notes);
    if (request.info->corpus != nullptr && !acc.scores.empty()) {
      metric.corpus = request.info->corpus(acc.corpus_stats, request, scoring_);
    }
    if (!acc.repeat_groups.empty()) {
      auto mark = pass_marks_.find(request.name);
      metric.repeats = summarize_repeats(
          acc.repeat_groups, metric.higher_is_better,
          mark == pass_marks_.end() ? std::nullopt : std::optional<double>(mark->second));
      acc.repeat_groups.clear();
    }
    summary_.metrics.push_back(std::move(metric));
  }
  summary_.ragas = ragas_score(summary_.metrics);
  return std::move(summary_);
}

}  // namespace ragmeter
