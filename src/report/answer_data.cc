// The report data's "answer" block: the judgements of report_answer.h, made over the run's
// rows, with the fields the page shows beside them.
#include "report/answer_data.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/report_answer.h"

namespace ragmeter::report_internal {
namespace {

using Json = nlohmann::ordered_json;

// The statistics a headline shows agreement by, first defined one first: kappa (binary,
// or quadratic-weighted on an ordinal scale), then what the scale always has.
constexpr const char* kAgreementStatistics[] = {"cohen_kappa", "roc_auc", "spearman",
                                                "pairwise_accuracy"};

std::optional<double> ok_score(const Json& row, const std::string& metric) {
  auto status = row.find("status");
  if (status == row.end() || !status->is_object() || row.contains("row_error")) return std::nullopt;
  auto s = status->find(metric);
  if (s == status->end() || !s->is_string() || s->get_ref<const std::string&>() != "ok") {
    return std::nullopt;
  }
  auto scores = row.find("scores");
  if (scores == row.end() || !scores->is_object()) return std::nullopt;
  auto v = scores->find(metric);
  if (v == scores->end() || !v->is_number()) return std::nullopt;
  return v->get<double>();
}

std::vector<ScoreColumn> score_columns(const std::vector<Json>& rows, const Json& metrics) {
  std::vector<ScoreColumn> columns;
  for (const Json& m : metrics) {
    ScoreColumn column = score_column_for(m["name"].get<std::string>());
    column.scores.reserve(rows.size());
    for (const Json& row : rows) column.scores.push_back(ok_score(row, column.metric));
    columns.push_back(std::move(column));
  }
  return columns;
}

Json agreement_of(const Json& agreement, const std::string& metric) {
  if (!agreement.is_object() || !agreement.contains("metrics") ||
      !agreement["metrics"].is_array()) {
    return nullptr;
  }
  for (const Json& m : agreement["metrics"]) {
    if (!m.is_object() || m.value("metric", "") != metric || !m.contains("statistics")) continue;
    for (const char* name : kAgreementStatistics) {
      const Json& stats = m["statistics"];
      if (!stats.is_object() || !stats.contains(name) || !stats[name]["value"].is_number())
        continue;
      return {{"statistic", name},
              {"value", stats[name]["value"]},
              {"ci95", stats[name].value("ci95", Json(nullptr))},
              {"ceiling", stats[name].contains("ceiling") && stats[name]["ceiling"].is_object()
                              ? stats[name]["ceiling"].value("value", Json(nullptr))
                              : Json(nullptr)},
              {"scale", agreement.value("scale", "")}};
    }
  }
  return nullptr;
}

Json headline_json(const Json& metrics, const Json& agreement) {
  std::vector<std::string> names;
  for (const Json& m : metrics) names.push_back(m["name"].get<std::string>());
  Json out = Json::array();
  for (const std::string& name : headline_metrics(names)) {
    for (const Json& m : metrics) {
      if (m["name"] != name) continue;
      Json h = {{"metric", name}};
      for (const char* key : {"higher_is_better", "mean", "ci95", "n", "skipped", "failed"}) {
        h[key] = m.value(key, Json(nullptr));
      }
      h["part"] = rag_part_name(rag_part_of(name));
      h["agreement"] = agreement_of(agreement, name);
      out.push_back(std::move(h));
    }
  }
  return out;
}

Json part_metrics_json(const std::vector<PartMetric>& metrics) {
  Json out = Json::array();
  for (const PartMetric& m : metrics) {
    out.push_back({{"metric", m.metric},
                   {"higher_is_better", m.higher_is_better},
                   {"n", m.n},
                   {"mean", m.mean},
                   {"normalized_mean", m.normalized_mean}});
  }
  return out;
}

Json weaker_part_json(const WeakerPart& w) {
  const SummaryStats& d = w.difference;
  return {{"part", w.weaker ? Json(rag_part_name(*w.weaker)) : Json(nullptr)},
          {"headline", w.headline},
          {"explanation", w.explanation},
          {"retrieval", part_metrics_json(w.retrieval)},
          {"generation", part_metrics_json(w.generation)},
          {"not_counted", w.not_counted},
          {"retrieval_score", d.n > 0 ? Json(w.retrieval_score) : Json(nullptr)},
          {"generation_score", d.n > 0 ? Json(w.generation_score) : Json(nullptr)},
          {"difference",
           {{"n", d.n},
            {"mean", d.n > 0 ? Json(d.mean) : Json(nullptr)},
            {"ci95", d.n > 0 ? Json::array({d.ci_low, d.ci_high}) : Json(nullptr)}}}};
}

Json worst_json(const std::vector<WorstSample>& worst, const std::vector<Json>& rows) {
  Json out = Json::array();
  for (const WorstSample& w : worst) {
    const Json& row = rows[w.row];
    Json low = Json::array();
    for (const LowScore& s : w.low_scores) {
      std::string why;
      if (row.contains("evidence") && row["evidence"].is_object() &&
          row["evidence"].contains(s.metric)) {
        why = explain_score(row["evidence"][s.metric]);
      }
      low.push_back({{"metric", s.metric}, {"score", s.score}, {"why", why}});
    }
    Json question =
        row.contains("user_input") ? row["user_input"] : row.value("question", Json(""));
    out.push_back({{"row", w.row},
                   {"id", row.value("id", Json(nullptr))},
                   {"question", question.is_string() ? question : Json(question.dump())},
                   {"mean_normalized", w.mean_normalized},
                   {"metrics_scored", w.metrics_scored},
                   {"low_scores", std::move(low)}});
  }
  return out;
}

double oriented_size(const Json& m) {
  return m["mean_diff"].is_number() ? std::fabs(m["mean_diff"].get<double>()) : 0.0;
}

}  // namespace

Json changes_summary(const Json& comparison) {
  Json changed = Json::array();
  std::vector<std::string> unchanged, no_pairs;
  for (const Json& m : comparison["metrics"]) {
    std::string verdict = m.value("verdict", "");
    if (verdict == "better" || verdict == "worse") {
      Json entry;
      for (const char* key : {"metric", "verdict", "higher_is_better", "n", "mean_base", "mean_new",
                              "mean_diff", "ci95", "p_holm"}) {
        entry[key] = m.value(key, Json(nullptr));
      }
      changed.push_back(std::move(entry));
    } else if (verdict == "no pairs") {
      no_pairs.push_back(m["metric"].get<std::string>());
    } else {
      unchanged.push_back(m["metric"].get<std::string>());
    }
  }
  std::stable_sort(changed.begin(), changed.end(), [](const Json& a, const Json& b) {
    bool a_worse = a["verdict"] == "worse", b_worse = b["verdict"] == "worse";
    if (a_worse != b_worse) return a_worse;
    return oriented_size(a) > oriented_size(b);
  });
  const std::size_t better = static_cast<std::size_t>(std::count_if(
      changed.begin(), changed.end(), [](const Json& m) { return m["verdict"] == "better"; }));
  const std::size_t compared = changed.size() + unchanged.size();
  const double alpha = comparison.value("alpha", 0.05);
  std::string summary =
      changed.empty()
          ? fmt::format(
                "No metric changed significantly ({} compared; a change needs a Holm-adjusted "
                "p below {} and a 95% interval clear of 0).",
                compared, alpha)
          : fmt::format(
                "{} of {} metrics changed: {} better, {} worse (Holm-adjusted p below {} and "
                "a 95% interval clear of 0).",
                changed.size(), compared, better, changed.size() - better, alpha);
  return {{"base", comparison.value("base", "")},
          {"new", comparison.value("new", "")},
          {"matched", comparison.value("matched", 0)},
          {"alpha", alpha},
          {"compared", compared},
          {"changed", std::move(changed)},
          {"unchanged", unchanged},
          {"no_pairs", no_pairs},
          {"summary", summary}};
}

Json histogram_json(const std::vector<double>& scores, double low, double high) {
  constexpr int kBins = 10;
  std::vector<std::int64_t> counts(kBins, 0);
  const double width = high > low ? high - low : 1.0;
  for (double v : scores) {
    int b = static_cast<int>(std::floor((v - low) / width * kBins));
    ++counts[static_cast<std::size_t>(std::clamp(b, 0, kBins - 1))];
  }
  return {{"low", low}, {"high", high}, {"counts", counts}};
}

Json run_answer(const ReportInput& input, const Json& metrics) {
  std::vector<ScoreColumn> columns = score_columns(input.rows, metrics);
  const Json& summary = input.summary;
  Json ragas = summary.is_object() && summary.contains("ragas_score") ? summary["ragas_score"]
                                                                      : Json(nullptr);
  return {{"headline", headline_json(metrics, input.agreement)},
          {"ragas_score", ragas},
          {"weaker_part", weaker_part_json(weaker_part(columns))},
          {"worst", worst_json(worst_samples(columns), input.rows)},
          {"changes", input.changes.is_null() ? Json(nullptr) : changes_summary(input.changes)}};
}

}  // namespace ragmeter::report_internal
