// An AgreementReport as JSON (`ragmeter agree --out`) and as the terminal table.
#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "ragmeter/agree.h"

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::size_t kErrorsShown = 20;

std::string split_rule(std::uint64_t seed) {
  return fmt::format(
      "an item (a row id; pairwise \"<id_a> <id_b>\") is in dev when the first 8 hex digits of "
      "sha256(\"ragmeter-agree:{}:\" + item) are an even number, else in test",
      seed);
}

Json number_or_null(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

Json value_json(const StatisticValue& v) {
  Json out = {{"value", number_or_null(v.value)},
              {"ci95", v.ci ? Json::array({v.ci->low, v.ci->high}) : Json(nullptr)},
              {"n", v.n},
              {"items", v.items}};
  if (!v.undefined.empty()) out["undefined"] = v.undefined;
  if (v.ci && v.ci->undefined > 0) out["resamples_undefined"] = v.ci->undefined;
  return out;
}

// The CI gate that a pass mark suggests: --fail-under for higher-is-better metrics.
std::string gate_of(const MetricAgreement& m) {
  return fmt::format("{} {}={:.4g}", m.higher_is_better ? "--fail-under" : "--fail-over", m.metric,
                     m.threshold->value);
}

Json metric_json(const MetricAgreement& m, const LabelScale& scale) {
  Json out = {{"metric", m.metric},
              {"higher_is_better", m.higher_is_better},
              {"label_column", m.label_column},
              {"labels", m.labels},
              {"items", m.items},
              {"most_labels_per_item", m.most_labels_per_item},
              {"unscored", m.unscored},
              {"dev_items", m.dev_items},
              {"test_items", m.test_items}};
  if (scale.kind == LabelKind::kBinary) {
    if (m.threshold) {
      out["threshold"] = {{"value", m.threshold->value},
                          {"dev_balanced_accuracy", m.threshold->balanced_accuracy},
                          {"passes", m.higher_is_better ? "score >= value" : "score <= value"},
                          {"gate", gate_of(m)}};
    } else {
      out["threshold"] = nullptr;
      if (!m.threshold_undefined.empty()) out["threshold_undefined"] = m.threshold_undefined;
    }
  }
  if (scale.kind == LabelKind::kOrdinal) out["on_label_scale"] = m.on_label_scale;
  out["errors"] = m.errors;
  Json stats = Json::object();
  for (const AgreementStatistic& s : m.statistics) {
    Json entry = {{"subset", s.subset}};
    entry.update(value_json(s.metric));
    entry["ceiling"] = s.ceiling ? value_json(*s.ceiling) : Json(nullptr);
    stats[s.name] = std::move(entry);
  }
  out["statistics"] = std::move(stats);
  if (scale.kind != LabelKind::kPairwise) {
    Json bins = Json::array();
    for (const CalibrationBin& b : m.calibration) {
      bins.push_back(
          {{"low", b.low},
           {"high", b.high},
           {"n", b.n},
           {"mean_score", number_or_null(b.mean_score)},
           {"mean_label", number_or_null(b.mean_label)},
           {"label_ci95", b.label_ci95 ? Json::array({b.label_ci95->first, b.label_ci95->second})
                                       : Json(nullptr)}});
    }
    out["calibration"] = std::move(bins);
  }
  return out;
}

std::string cell(const StatisticValue& v) {
  if (!v.value) return "undefined";
  std::string text = fmt::format("{:.3f}", *v.value);
  if (v.ci) text += fmt::format(" [{:.3f}, {:.3f}]", v.ci->low, v.ci->high);
  return text;
}

void print_metric(const MetricAgreement& m, const LabelScale& scale, std::string* out) {
  *out += fmt::format(
      "\n{} ({} is better; {} labels on {} items, at most {} per item; {} dev / {} test items{})\n",
      m.metric, m.higher_is_better ? "higher" : "lower", m.labels, m.items, m.most_labels_per_item,
      m.dev_items, m.test_items, m.unscored ? fmt::format("; {} labels unscored", m.unscored) : "");
  for (const std::string& error : m.errors) *out += "  error: " + error + "\n";
  if (!m.errors.empty()) return;
  if (scale.kind == LabelKind::kBinary) {
    if (m.threshold) {
      *out += fmt::format(
          "  pass mark (chosen on dev): score {} {:.4g}, balanced accuracy {:.3f} on dev; as a CI "
          "gate on the mean: {}\n",
          m.higher_is_better ? ">=" : "<=", m.threshold->value, m.threshold->balanced_accuracy,
          gate_of(m));
    } else {
      *out += "  pass mark: none (" + m.threshold_undefined + ")\n";
    }
  }
  if (scale.kind == LabelKind::kOrdinal && !m.on_label_scale) {
    *out += "  scores are not levels of the scale: no accuracy, kappa or alpha\n";
  }
  const bool ceilings =
      std::any_of(m.statistics.begin(), m.statistics.end(),
                  [](const AgreementStatistic& s) { return s.ceiling.has_value(); });
  std::string header =
      fmt::format("  {:<19} {:<4} {:>6}  {:<24}  {}", "statistic", "on", "n", "value [95% CI]",
                  ceilings ? "people (ceiling) [95% CI], n" : "");
  *out += header.substr(0, header.find_last_not_of(' ') + 1) + "\n";
  for (const AgreementStatistic& s : m.statistics) {
    std::string ceiling;
    if (s.ceiling) ceiling = fmt::format("{}, {}", cell(*s.ceiling), s.ceiling->n);
    std::string value = cell(s.metric);
    if (!s.metric.value) value += " (" + s.metric.undefined + ")";
    std::string line = fmt::format("  {:<19} {:<4} {:>6}  {:<24}  {}", s.name, s.subset, s.metric.n,
                                   value, ceiling);
    *out += line.substr(0, line.find_last_not_of(' ') + 1) + "\n";
  }
  if (!ceilings) *out += "  (one label per item: no people's ceiling)\n";
}

}  // namespace

nlohmann::ordered_json agreement_to_json(const AgreementReport& report) {
  Json errors = Json::array();
  for (const RowError& e : report.errors) {
    errors.push_back(
        {{"file", e.file}, {"line", e.line}, {"field", e.field}, {"message", e.message}});
  }
  Json metrics = Json::array();
  for (const MetricAgreement& m : report.metrics) metrics.push_back(metric_json(m, report.scale));
  return {{"ragmeter_version", RAGMETER_VERSION},
          {"results", report.results_name},
          {"labels", report.labels_name},
          {"id_column", report.id_column},
          {"scale", report.scale.to_string()},
          {"split", {{"seed", report.split_seed}, {"rule", split_rule(report.split_seed)}}},
          {"bootstrap",
           {{"unit", "item"},
            {"resamples", report.bootstrap.resamples},
            {"seed", report.bootstrap.seed},
            {"confidence", report.bootstrap.confidence}}},
          {"rows",
           {{"results", report.results_rows},
            {"results_without_id", report.results_without_id},
            {"label_rows", report.label_rows},
            {"labels_used", report.labels_used}}},
          {"errors", std::move(errors)},
          {"ignored_columns", report.ignored_columns},
          {"metrics", std::move(metrics)}};
}

std::string format_agreement_table(const AgreementReport& report) {
  std::string out = fmt::format(
      "results: {} ({} rows, {} without an id)\nlabels:  {} ({} rows, scale {}; {} labels "
      "joined)\nsplit:   {}\n95% CI:  percentile bootstrap over items, {} resamples, seed {}\n",
      report.results_name, report.results_rows, report.results_without_id, report.labels_name,
      report.label_rows, report.scale.to_string(), report.labels_used,
      split_rule(report.split_seed), report.bootstrap.resamples, report.bootstrap.seed);
  if (!report.ignored_columns.empty()) {
    out += fmt::format("ignored label columns: {}\n", fmt::join(report.ignored_columns, ", "));
  }
  for (const MetricAgreement& m : report.metrics) print_metric(m, report.scale, &out);
  out +=
      "\non: test = the half the pass mark was not chosen on; all = every label. A "
      "lower-is-better\n"
      "metric's scores are negated first. people: one annotator's label in the metric's place.\n";
  if (!report.errors.empty()) {
    out += fmt::format("\n{} labels or rows could not be used:\n", report.errors.size());
    for (std::size_t i = 0; i < std::min(report.errors.size(), kErrorsShown); ++i) {
      out += "  " + report.errors[i].to_string() + "\n";
    }
    if (report.errors.size() > kErrorsShown) {
      out += fmt::format("  ... and {} more (all of them in --out)\n",
                         report.errors.size() - kErrorsShown);
    }
  }
  return out;
}

}  // namespace ragmeter
