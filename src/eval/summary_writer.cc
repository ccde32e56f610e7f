// The summary JSON and the terminal table.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "ragmeter/results.h"

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

Json nullable(bool present, double value) { return present ? Json(value) : Json(nullptr); }

Json stats_json(const SummaryStats& stats) {
  return {{"mean", stats.mean}, {"std", stats.std}, {"ci95", {stats.ci_low, stats.ci_high}}};
}

// MetricSummary::repeats (repeats.h): the judge's share of the variance and the gates'
// readings of the samples.
Json repeats_json(const RepeatSummary& r) {
  const VarianceComponents& v = r.variance;
  Json object;
  object["k"] = r.repeats;
  object["judge_variance"] = nullable(v.defined, v.within);
  object["sample_variance"] = nullable(v.defined, v.between);
  object["judge_share"] = v.judge_share ? Json(*v.judge_share) : Json(nullptr);
  object["ms_between"] = nullable(v.defined, v.ms_between);
  object["ms_within"] = nullable(v.defined, v.ms_within);
  object["mean_sample_std"] = r.mean_sample_std;
  object["single_run_judge_std"] = nullable(v.defined, r.single_run_judge_std);
  object["pass_all"] = stats_json(r.pass_all);
  object["pass_any"] = stats_json(r.pass_any);
  if (r.pass_mark) {
    object["pass_mark"] = *r.pass_mark;
    object["flaky"] = r.flaky;
  }
  return object;
}

Json metric_json(const MetricSummary& metric, std::int64_t rows) {
  bool scored = metric.stats.n > 0;
  Json object;
  object["mean"] = nullable(scored, metric.stats.mean);
  object["std"] = nullable(scored, metric.stats.std);
  object["ci95"] = scored ? Json::array({metric.stats.ci_low, metric.stats.ci_high}) : Json(nullptr);
  object["n"] = metric.stats.n;
  object["skipped"] = metric.skipped;
  object["failed"] = metric.failed;
  // A mean over fewer than all accepted rows is labelled as such.
  object["complete"] = metric.stats.n == rows;
  if (metric.corpus) object["corpus"] = *metric.corpus;
  object["higher_is_better"] = metric.higher_is_better;
  if (metric.noted > 0) object["note"] = {{"rows", metric.noted}, {"text", metric.top_note}};
  if (metric.repeats) object["repeats"] = repeats_json(*metric.repeats);
  return object;
}

// The run's repeats (--repeat N > 1): {"requested", "judgements", "temperature"[, "note"]}.
Json repeat_json(const EvalSummary& summary) {
  Json object = {{"requested", summary.repeat_requested},
                 {"judgements", summary.judgements},
                 {"temperature", summary.repeat_temperature}};
  if (!summary.judged_once_reason.empty()) {
    object["note"] = summary.judged_once_reason + ": each sample was judged once";
  }
  return object;
}

// The lines the table adds for repeats: what was run, then per repeated metric the judge's
// share of the variance and the gates' readings.
std::string repeat_lines(const EvalSummary& summary) {
  if (summary.repeat_requested <= 1) return {};
  if (summary.judgements == 1) {
    return fmt::format("repeats: {}: each sample was judged once, not {} times\n",
                       summary.judged_once_reason, summary.repeat_requested);
  }
  std::string out = fmt::format(
      "repeats: each judged metric {} times per sample (temperature {}, seeds 1..{})\n",
      summary.judgements, summary.repeat_temperature, summary.judgements);
  for (const MetricSummary& metric : summary.metrics) {
    if (!metric.repeats) continue;
    const RepeatSummary& r = *metric.repeats;
    std::string share = r.variance.judge_share
                            ? fmt::format("{:.0f}%", 100.0 * *r.variance.judge_share)
                            : std::string("-");
    out += fmt::format(
        "  {}: judge {} of the variance (judge std {:.4f}, samples std {:.4f}); "
        "pass^k mean {:.4f}, pass@k mean {:.4f}",
        metric.name, share, std::sqrt(r.variance.within), std::sqrt(r.variance.between),
        r.pass_all.mean, r.pass_any.mean);
    if (r.pass_mark) out += fmt::format("; {} flaky at {}", r.flaky, *r.pass_mark);
    out += "\n";
  }
  return out;
}

// The languages of a run, most rows first (ties by code).
std::vector<std::pair<std::string, std::int64_t>> by_count(
    const std::map<std::string, std::int64_t>& languages) {
  std::vector<std::pair<std::string, std::int64_t>> out(languages.begin(), languages.end());
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return out;
}

}  // namespace

Json summary_to_json(const EvalSummary& summary, const RunInfo& info) {
  std::int64_t accepted = summary.rows_read - summary.rows_rejected;
  Json metrics = Json::object();
  for (const auto& metric : summary.metrics) metrics[metric.name] = metric_json(metric, accepted);
  Json out;
  out["metrics"] = std::move(metrics);
  const JudgeUsage& usage = info.usage;
  out["usage"] = {{"requests", usage.requests},           {"prompt_tokens", usage.prompt_tokens},
                  {"completion_tokens", usage.completion_tokens},
                  {"cached_tokens", usage.cached_tokens}, {"cost_usd", usage.cost_usd},
                  {"cache_hits", usage.cache_hits},       {"failed_calls", usage.failed_calls},
                  {"key_redacted_replies", usage.key_redacted_replies}};
  if (usage.images > 0) {  // vision calls: images sent, their estimated share of prompt_tokens
    out["usage"]["images"] = usage.images;
    out["usage"]["image_tokens_estimated"] = usage.image_tokens;
  }
  if (!info.usage_by_call.is_null()) out["usage"]["by_call"] = info.usage_by_call;
  if (summary.ragas) {
    out["ragas_score"] = {{"value", summary.ragas->value}, {"of", summary.ragas->of}};
  }
  out["judge"] = {{"name", info.judge}};
  if (!info.judged_languages.is_null()) out["judge"]["languages"] = info.judged_languages;
  if (usage.adaptive) {
    out["judge"]["concurrency"] = {{"ceiling", usage.concurrency_ceiling},
                                   {"settled", usage.concurrency_settled},
                                   {"lowest", usage.concurrency_lowest},
                                   {"server_parallelism", usage.server_parallelism}};
    out["judge"]["timed_out_attempts"] = usage.timed_out_attempts;
    out["judge"]["abandoned_server_seconds"] = usage.abandoned_server_seconds;
    out["judge"]["estimated_usage_calls"] = usage.estimated_usage_calls;
  }
  if (summary.repeat_requested > 1) out["repeat"] = repeat_json(summary);
  out["rows"] = {{"read", summary.rows_read}, {"rejected", summary.rows_rejected}};
  Json languages = Json::object();
  for (const auto& [code, rows] : by_count(summary.languages)) languages[code] = rows;
  out["languages"] = std::move(languages);
  if (!info.dataset.empty()) out["dataset"] = info.dataset;
  if (summary.cancelled) out["cancelled"] = true;
  if (!info.run.is_null()) out["run"] = info.run;
  return out;
}

std::string summary_json_text(const EvalSummary& summary, const RunInfo& info) {
  return summary_to_json(summary, info).dump(2) + "\n";
}

std::string format_summary_table(const EvalSummary& summary) {
  std::int64_t accepted = summary.rows_read - summary.rows_rejected;
  // Metrics skipped on every accepted row are folded into one line per reason below.
  auto all_skipped = [&](const MetricSummary& m) {
    return accepted > 0 && m.stats.n == 0 && m.failed == 0 && m.skipped == accepted;
  };
  std::size_t width = 6;
  for (const auto& metric : summary.metrics) {
    if (!all_skipped(metric)) width = std::max(width, metric.name.size());
  }
  std::string out = fmt::format("{:<{}}  {:>4}  {:>7}  {:>7}  {:>17}  {:>7}  {:>7}  {:>6}\n",
                                "metric", width, "dir", "mean", "std", "95% CI", "n", "skipped",
                                "failed");
  bool any_partial = false, any_lower = false;
  std::vector<std::pair<std::string, std::vector<std::string>>> folded;  // reason -> metrics
  std::vector<const MetricSummary*> failing;
  std::vector<const MetricSummary*> noted;
  for (const auto& metric : summary.metrics) {
    if (all_skipped(metric)) {
      std::string reason = metric.top_skip_reason.empty() ? "needs " + metric.fields
                                                          : metric.top_skip_reason;
      auto group = std::find_if(folded.begin(), folded.end(),
                                [&](const auto& g) { return g.first == reason; });
      if (group == folded.end()) group = folded.insert(folded.end(), {reason, {}});
      group->second.push_back(metric.name);
      continue;
    }
    const SummaryStats& s = metric.stats;
    bool partial = s.n < accepted;
    any_partial |= partial;
    any_lower |= !metric.higher_is_better;
    if (metric.failed > 0) failing.push_back(&metric);
    if (metric.noted > 0) noted.push_back(&metric);
    std::string mean = s.n > 0 ? fmt::format("{:.4f}", s.mean) : "-";
    std::string std_text = s.n > 0 ? fmt::format("{:.4f}", s.std) : "-";
    std::string ci = s.n > 0 ? fmt::format("[{:.4f}, {:.4f}]", s.ci_low, s.ci_high) : "-";
    out += fmt::format("{:<{}}  {:>4}  {:>7}  {:>7}  {:>17}  {:>7}  {:>7}  {:>6}{}\n", metric.name,
                       width, metric.higher_is_better ? "up" : "down", mean, std_text, ci, s.n,
                       metric.skipped, metric.failed, partial ? " *" : "");
    if (metric.corpus) {
      out += fmt::format("{:<{}}  {:>4}  {:>7.4f}  (corpus-level)\n", "  corpus", width, "",
                         *metric.corpus);
    }
  }
  for (const auto& [reason, names] : folded) {
    out += fmt::format("skipped on every row ({}): {}\n", reason, fmt::join(names, ", "));
  }
  for (const MetricSummary* metric : failing) {
    out += fmt::format("{} failed on {} rows; most common reason: {}\n", metric->name,
                       metric->failed, metric->top_failure_reason);
  }
  for (const MetricSummary* metric : noted) {
    out += fmt::format("note: {} on {} of {} scored rows: {}\n", metric->name, metric->noted,
                       metric->stats.n, metric->top_note);
  }
  if (summary.ragas) {
    out += fmt::format("ragas_score (harmonic mean of {}): {:.4f}\n", fmt::join(summary.ragas->of, ", "),
                       summary.ragas->value);
  }
  out += repeat_lines(summary);
  out += fmt::format("rows: {} read, {} rejected\n", summary.rows_read, summary.rows_rejected);
  if (!summary.languages.empty()) {
    std::vector<std::string> parts;
    for (const auto& [code, rows] : by_count(summary.languages)) {
      parts.push_back(fmt::format("{} {}", code, rows));
    }
    out += fmt::format("languages: {}\n", fmt::join(parts, ", "));
  }
  if (any_lower) out += "dir: up = higher is better, down = lower is better\n";
  if (any_partial) out += "* mean over fewer than all rows (the others were skipped or failed)\n";
  return out;
}

}  // namespace ragmeter
