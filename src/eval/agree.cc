// `agree`: joining a run's rows with people's labels by id, metric by metric, and the
// dev/test split of items. The statistics are in agree_measures.cc.
#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "eval/agree_items.h"
#include "io/sha256.h"
#include "ragmeter/metric.h"

namespace ragmeter {
namespace {

using agree_internal::Item;
using agree_internal::LabelPoint;

RowError error_at(const std::string& file, std::int64_t line, std::string field,
                  std::string message) {
  RowError error;
  error.file = file;
  error.line = line;
  error.field = std::move(field);
  error.message = std::move(message);
  return error;
}

// Row ids -> row positions. Rows without an id are counted; a repeated id is an error
// (its first row is used).
std::unordered_map<std::string, std::size_t> index_rows(const ResultTable& results,
                                                        const std::string& name,
                                                        const std::string& id_column,
                                                        AgreementReport* report) {
  std::unordered_map<std::string, std::size_t> index;
  for (std::size_t r = 0; r < results.rows.size(); ++r) {
    const RowResult& row = results.rows[r];
    const nlohmann::ordered_json* id = nullptr;
    if (!row.error && row.fields.is_object()) {
      auto it = row.fields.find(id_column);
      if (it != row.fields.end() && (it->is_string() || it->is_number_integer())) id = &*it;
    }
    if (id == nullptr) {
      ++report->results_without_id;
      continue;
    }
    std::string key = id->is_string() ? id->get<std::string>() : id->dump();
    auto [it, added] = index.emplace(key, r);
    if (!added) {
      report->errors.push_back(
          error_at(name, row.index + 1, id_column,
                   fmt::format("id '{}' repeats row {}; labels of it are joined to that first row",
                               key, it->second + 1)));
    }
  }
  return index;
}

const MetricInfo* table_entry(const std::string& metric) {
  return find_metric(std::string_view(metric).substr(0, metric.find('@')));
}

bool higher_is_better(const std::string& metric) {
  const MetricInfo* info = table_entry(metric);
  return info == nullptr || info->higher_is_better;
}

// The metric's range from the table; for a metric it lacks, the range of the scores.
std::pair<double, double> score_range(const std::string& metric, const std::vector<Item>& items,
                                      bool higher) {
  if (const MetricInfo* info = table_entry(metric)) return {info->min_score, info->max_score};
  double low = 0.0, high = 0.0;
  bool first = true;
  for (const Item& item : items) {
    for (const LabelPoint& p : item.points) {
      double score = higher ? p.score : -p.score;
      low = first ? score : std::min(low, score);
      high = first ? score : std::max(high, score);
      first = false;
    }
  }
  return {low, high};
}

// The metrics to measure and the column each one's labels come from.
StatusOr<std::vector<std::pair<std::string, std::string>>> metrics_with_labels(
    const ResultTable& results, const std::string& results_name, const LabelSet& labels,
    const std::vector<std::string>& requested) {
  std::set<std::string> own;
  bool generic = false;
  for (const Label& label : labels.labels) {
    if (label.target.empty()) {
      generic = true;
    } else {
      own.insert(label.target);
    }
  }
  std::vector<std::string> names = requested.empty() ? results.metrics : requested;
  std::vector<std::pair<std::string, std::string>> chosen;
  for (const std::string& name : names) {
    if (std::find(results.metrics.begin(), results.metrics.end(), name) == results.metrics.end()) {
      return invalid_argument(fmt::format("metric '{}' is not in {} (its metrics: {})", name,
                                          results_name, fmt::join(results.metrics, ", ")));
    }
    if (own.count(name)) {
      chosen.emplace_back(name, name);
    } else if (generic) {
      chosen.emplace_back(name, "label");
    } else if (!requested.empty()) {
      chosen.emplace_back(name, "");  // asked for, but no column labels it
    }
  }
  if (chosen.empty()) {
    return invalid_argument(fmt::format(
        "no metric of {} has labels in {}: give a 'label' column or one named after a metric "
        "({})",
        results_name, labels.name, fmt::join(results.metrics, ", ")));
  }
  return chosen;
}

// The labels whose row(s) exist, with an error for each other labels row.
std::vector<const Label*> joinable_labels(const LabelSet& labels,
                                          const std::unordered_map<std::string, std::size_t>& rows,
                                          const std::string& results_name,
                                          const std::string& id_column, AgreementReport* report) {
  std::vector<const Label*> kept;
  std::set<std::int64_t> reported_lines;
  const bool pairwise = labels.scale.kind == LabelKind::kPairwise;
  for (const Label& label : labels.labels) {
    std::string missing_field, missing_id;
    if (!rows.count(label.id)) {
      missing_field = pairwise ? id_column + "_a" : id_column;
      missing_id = label.id;
    } else if (pairwise && !rows.count(label.id_b)) {
      missing_field = id_column + "_b";
      missing_id = label.id_b;
    }
    if (missing_field.empty()) {
      kept.push_back(&label);
    } else if (reported_lines.insert(label.line).second) {
      report->errors.push_back(
          error_at(labels.name, label.line, missing_field,
                   fmt::format("'{}' matches no row of {} (by its '{}' column)", missing_id,
                               results_name, id_column)));
    }
  }
  return kept;
}

// The items of one metric: its labels grouped by item in first-seen order, each label
// with the metric's oriented score (pairwise: the difference), unscored ones counted.
std::vector<Item> items_of(const ResultTable& results, std::size_t metric_index,
                           const std::string& target, bool higher,
                           const std::vector<const Label*>& labels,
                           const std::unordered_map<std::string, std::size_t>& rows,
                           const AgreeOptions& options, std::int64_t* unscored) {
  const double sign = higher ? 1.0 : -1.0;
  auto score_of = [&](const std::string& id, double* out) {
    const MetricResult& r = results.rows[rows.at(id)].results[metric_index];
    if (r.outcome != Outcome::kOk) return false;
    *out = sign * r.score;
    return true;
  };
  std::vector<Item> items;
  std::map<std::string, std::size_t> position;
  for (const Label* label : labels) {
    if (label->target != target) continue;
    const bool pairwise = !label->id_b.empty();
    double a = 0.0, b = 0.0;
    if (!score_of(label->id, &a) || (pairwise && !score_of(label->id_b, &b))) {
      ++*unscored;
      continue;
    }
    std::string key = pairwise ? label->id + " " + label->id_b : label->id;
    auto [it, added] = position.emplace(key, items.size());
    if (added) items.push_back({key, is_dev_item(key, options.split_seed), {}});
    items[it->second].points.push_back({pairwise ? b - a : a, label->value});
  }
  return items;
}

}  // namespace

bool is_dev_item(const std::string& item, std::uint64_t seed) {
  std::string digest = sha256_hex(fmt::format("ragmeter-agree:{}:{}", seed, item));
  if (digest.size() < 8) return false;  // no hash (out of memory): test
  return std::stoul(digest.substr(0, 8), nullptr, 16) % 2 == 0;
}

bool AgreementReport::has_errors() const {
  if (!errors.empty()) return true;
  return std::any_of(metrics.begin(), metrics.end(),
                     [](const MetricAgreement& m) { return !m.errors.empty(); });
}

StatusOr<AgreementReport> agree(const ResultTable& results, const std::string& results_name,
                                const LabelSet& labels, const AgreeOptions& options) {
  AgreementReport report;
  report.results_name = results_name;
  report.labels_name = labels.name;
  report.id_column = options.labels.id_column;
  report.scale = labels.scale;
  report.split_seed = options.split_seed;
  report.bootstrap = options.bootstrap;
  report.results_rows = static_cast<std::int64_t>(results.rows.size());
  report.label_rows = labels.rows_read;
  report.errors = labels.errors;
  report.ignored_columns = labels.ignored_columns;
  if (labels.labels.empty()) {
    return invalid_argument(fmt::format(
        "no usable label in {} ({} rows read{})", labels.name, labels.rows_read,
        labels.errors.empty() ? "" : "; the first error: " + labels.errors.front().to_string()));
  }
  RAGMETER_ASSIGN_OR_RETURN(auto chosen,
                            metrics_with_labels(results, results_name, labels, options.metrics));
  auto rows = index_rows(results, results_name, report.id_column, &report);
  auto joinable = joinable_labels(labels, rows, results_name, report.id_column, &report);
  if (joinable.empty()) {
    return invalid_argument(fmt::format(
        "no label of {} matches a row of {} by the '{}' column ({} of its {} rows have one)",
        labels.name, results_name, report.id_column,
        report.results_rows - report.results_without_id, report.results_rows));
  }
  report.labels_used = static_cast<std::int64_t>(joinable.size());
  for (const auto& [metric, column] : chosen) {
    MetricAgreement m;
    m.metric = metric;
    m.higher_is_better = higher_is_better(metric);
    m.label_column = column;
    auto index =
        static_cast<std::size_t>(std::find(results.metrics.begin(), results.metrics.end(), metric) -
                                 results.metrics.begin());
    if (column.empty()) {
      m.errors.push_back(
          fmt::format("{} has no column labelling it ('label' or '{}')", labels.name, metric));
      report.metrics.push_back(std::move(m));
      continue;
    }
    std::vector<Item> items = items_of(results, index, column == "label" ? "" : metric,
                                       m.higher_is_better, joinable, rows, options, &m.unscored);
    agree_internal::measure_metric(items, labels.scale, options.bootstrap, &m);
    if (m.errors.empty() && labels.scale.kind != LabelKind::kPairwise) {
      auto [low, high] = score_range(metric, items, m.higher_is_better);
      m.calibration =
          agree_internal::calibration_bins(items, m.higher_is_better, low, high, labels.scale.kind);
    }
    report.metrics.push_back(std::move(m));
  }
  return report;
}

}  // namespace ragmeter
