// Reading two results files, matching their rows and comparing them metric by metric.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <unordered_map>

#include "ragmeter/claim_ledger.h"
#include "ragmeter/compare.h"
#include "ragmeter/dataset.h"
#include "ragmeter/metric.h"

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

const Json* first_field(const Json& row, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    auto it = row.find(name);
    if (it != row.end() && !it->is_null()) return &*it;
  }
  return nullptr;
}

std::string text_of(const Json& value) {
  return value.is_string() ? value.get<std::string>() : value.dump();
}

// The default key: the question and a hash of what the test set gave with it (its
// reference and reference contexts). Not the retrieved contexts: those are what a
// changed retriever changes, and the same question must still match.
std::string default_key(const Json& row) {
  const Json* question = first_field(row, {"user_input", "question"});
  const Json* reference = first_field(row, {"reference", "ground_truth", "ground_truths"});
  const Json* contexts = first_field(row, {"reference_contexts"});
  Json given = Json::array({reference ? *reference : Json(), contexts ? *contexts : Json()});
  std::string key = question ? text_of(*question) : std::string();
  return key + " [reference " + content_id(given.dump()).substr(0, 12) + "]";
}

// The metric's direction from the metric table ("ndcg@10" -> "ndcg").
const MetricInfo* table_entry(const std::string& metric) {
  return find_metric(std::string_view(metric).substr(0, metric.find('@')));
}

bool scored(const Json& row, const std::string& metric, double* value) {
  auto status = row.find("status");
  if (status == row.end() || !status->is_object()) return false;
  auto s = status->find(metric);
  if (s == status->end() || !s->is_string() || s->get<std::string>() != "ok") return false;
  auto scores = row.find("scores");
  if (scores == row.end() || !scores->is_object()) return false;
  auto v = scores->find(metric);
  if (v == scores->end() || !v->is_number()) return false;
  *value = v->get<double>();
  return true;
}

}  // namespace

StatusOr<RunResults> read_run_results(const std::string& path, const CompareOptions& options) {
  RAGMETER_ASSIGN_OR_RETURN(auto reader, open_dataset(path, DatasetFormat::kJsonl));
  RunResults results;
  results.path = path;
  std::unordered_map<std::string, int> seen_keys;
  Row row;
  RowError error;
  for (RowReader::Result r; (r = reader->next(&row, &error)) != RowReader::Result::kEnd;) {
    if (r == RowReader::Result::kError) return invalid_argument(error.to_string());
    const Json& fields = row.fields;
    auto where = [&] { return path + ":" + std::to_string(row.line) + ": "; };
    if (fields.contains("row_error")) {
      ++results.rejected_rows;
      continue;
    }
    auto status = fields.find("status");
    if (status == fields.end() || !status->is_object()) {
      return invalid_argument(where() + "field 'status': missing or not an object (is this a "
                                        "`ragmeter eval --out` results file?)");
    }
    for (const auto& [metric, _] : status->items()) {
      if (std::find(results.metrics.begin(), results.metrics.end(), metric) ==
          results.metrics.end()) {
        results.metrics.push_back(metric);
      }
    }
    std::string key;
    if (!options.id_column.empty()) {
      auto id = fields.find(options.id_column);
      if (id == fields.end() || id->is_null()) {
        return invalid_argument(where() + "field '" + options.id_column + "' (--id) is missing");
      }
      key = text_of(*id);
    } else {
      key = default_key(fields);
    }
    int occurrence = ++seen_keys[key];
    if (occurrence > 1) key += "#" + std::to_string(occurrence);
    results.rows.push_back({std::move(key), row.line, fields});
  }
  return results;
}

double MetricComparison::oriented_mean_diff() const {
  return higher_is_better ? stats.mean_diff : -stats.mean_diff;
}
double MetricComparison::oriented_ci_low() const {
  return higher_is_better ? stats.ci_low : -stats.ci_high;
}
double MetricComparison::oriented_ci_high() const {
  return higher_is_better ? stats.ci_high : -stats.ci_low;
}

StatusOr<RunComparison> compare_runs(const RunResults& base, const RunResults& next,
                                     const CompareOptions& options) {
  RunComparison out;
  out.base_path = base.path;
  out.new_path = next.path;
  out.alpha = options.alpha;
  std::unordered_map<std::string, std::size_t> new_index;
  for (std::size_t i = 0; i < next.rows.size(); ++i) new_index.emplace(next.rows[i].key, i);
  std::vector<std::pair<std::size_t, std::size_t>> pairs;  // (base row, new row)
  std::vector<bool> new_matched(next.rows.size(), false);
  for (std::size_t i = 0; i < base.rows.size(); ++i) {
    auto it = new_index.find(base.rows[i].key);
    if (it == new_index.end()) {
      out.only_in_base.push_back(base.rows[i].key);
      continue;
    }
    pairs.emplace_back(i, it->second);
    new_matched[it->second] = true;
  }
  for (std::size_t j = 0; j < next.rows.size(); ++j) {
    if (!new_matched[j]) out.only_in_new.push_back(next.rows[j].key);
  }
  out.matched = static_cast<std::int64_t>(pairs.size());
  if (pairs.empty()) {
    return invalid_argument("no row of " + base.path + " matches a row of " + next.path +
                            (options.id_column.empty()
                                 ? " by user_input and reference (name an id column "
                                   "with --id)"
                                 : " by --id " + options.id_column));
  }
  for (const auto& metric : base.metrics) {
    if (std::find(next.metrics.begin(), next.metrics.end(), metric) == next.metrics.end()) {
      out.metrics_only_in_base.push_back(metric);
      continue;
    }
    MetricComparison mc;
    mc.metric = metric;
    const MetricInfo* info = table_entry(metric);
    mc.known_direction = info != nullptr;
    mc.higher_is_better = info == nullptr || info->higher_is_better;
    mc.differences.width = info ? info->max_score - info->min_score : 1.0;
    std::vector<double> a, b;
    std::vector<SampleChange> changes;
    for (auto [i, j] : pairs) {
      double x = 0.0, y = 0.0;
      bool in_base = scored(base.rows[i].row, metric, &x);
      bool in_new = scored(next.rows[j].row, metric, &y);
      if (in_base != in_new) ++mc.scored_in_one_only;
      if (!in_base || !in_new) continue;
      a.push_back(x);
      b.push_back(y);
      double oriented = mc.higher_is_better ? y - x : x - y;
      add_difference(oriented, options.test.tie_tolerance, &mc.differences);
      if (std::fabs(oriented) > options.test.tie_tolerance) {
        changes.push_back({base.rows[i].key, x, y, oriented, &base.rows[i].row, &next.rows[j].row});
      }
    }
    RAGMETER_ASSIGN_OR_RETURN(mc.stats, paired_stats(a, b, mc.higher_is_better, options.test));
    auto keep = std::min(changes.size(), static_cast<std::size_t>(std::max(0, options.top_changes)));
    std::partial_sort(changes.begin(), changes.begin() + static_cast<std::ptrdiff_t>(keep),
                      changes.end(), [](const SampleChange& l, const SampleChange& r) {
                        return std::fabs(l.oriented_diff) > std::fabs(r.oriented_diff);
                      });
    changes.resize(keep);
    mc.top_changes = std::move(changes);
    out.metrics.push_back(std::move(mc));
  }
  for (const auto& metric : next.metrics) {
    if (std::find(base.metrics.begin(), base.metrics.end(), metric) == base.metrics.end()) {
      out.metrics_only_in_new.push_back(metric);
    }
  }
  // Holm's family: the metrics with at least one non-zero paired difference. A metric whose
  // pairs all tie (or that has none) is no test at all: its p is 1 whatever happens, so
  // counting it would only raise the others' adjusted p (a real regression once went
  // unflagged behind metrics that had not moved). It keeps p Holm = 1.
  std::vector<double> p;
  for (const auto& mc : out.metrics) {
    if (in_holm_family(mc)) p.push_back(mc.stats.p_value);
  }
  std::vector<double> adjusted = holm_adjust(p);
  std::size_t k = 0;
  for (auto& mc : out.metrics) {
    mc.p_holm = in_holm_family(mc) ? adjusted[k++] : 1.0;
  }
  out.holm_family = static_cast<std::int64_t>(p.size());
  return out;
}

bool in_holm_family(const MetricComparison& metric) {
  return metric.stats.wins + metric.stats.losses > 0;
}

void add_difference(double oriented_diff, double tie_tolerance, DiffHistogram* histogram) {
  double size = std::fabs(oriented_diff);
  if (size <= tie_tolerance) {
    ++histogram->ties;
    return;
  }
  // Bin k holds (k * width / 10, (k + 1) * width / 10]: ceil, less one. The 1e-9 keeps a
  // difference on an edge in the bin below it despite rounding (0.3 * 10 is 3.0000000000000004).
  double bins = DiffHistogram::kBinsPerSide;
  auto k = static_cast<int>(std::ceil(size / histogram->width * bins - 1e-9)) - 1;
  k = std::clamp(k, 0, DiffHistogram::kBinsPerSide - 1);
  ++(oriented_diff > 0 ? histogram->better : histogram->worse)[static_cast<std::size_t>(k)];
}

ChangeVerdict change_verdict(const MetricComparison& metric, double alpha) {
  if (metric.stats.n == 0) return ChangeVerdict::kNoPairs;
  if (metric.p_holm < alpha && metric.oriented_ci_low() > 0) return ChangeVerdict::kBetter;
  if (metric.p_holm < alpha && metric.oriented_ci_high() < 0) return ChangeVerdict::kWorse;
  return ChangeVerdict::kNoSignificantChange;
}

const char* change_verdict_name(ChangeVerdict verdict) {
  switch (verdict) {
    case ChangeVerdict::kBetter:
      return "better";
    case ChangeVerdict::kWorse:
      return "worse";
    case ChangeVerdict::kNoSignificantChange:
      return "no significant change";
    case ChangeVerdict::kNoPairs:
      return "no pairs";
  }
  return "no pairs";
}

bool is_regression(const MetricComparison& metric, double delta, double alpha) {
  if (metric.stats.n == 0) return false;
  return metric.oriented_ci_high() < -delta && metric.p_holm < alpha;
}

nlohmann::ordered_json comparison_to_json(const RunComparison& c) {
  Json metrics = Json::array();
  for (const auto& mc : c.metrics) {
    const PairedStats& s = mc.stats;
    Json top = Json::array();
    for (const auto& change : mc.top_changes) {
      top.push_back({{"key", change.key},
                     {"base", change.base},
                     {"new", change.next},
                     {"oriented_diff", change.oriented_diff},
                     {"base_row", *change.base_row},
                     {"new_row", *change.new_row}});
    }
    bool any = s.n > 0;
    auto num = [&](double v) { return any ? Json(v) : Json(nullptr); };
    metrics.push_back({{"metric", mc.metric},
                       {"higher_is_better", mc.higher_is_better},
                       {"known_direction", mc.known_direction},
                       {"n", s.n},
                       {"mean_base", num(s.mean_base)},
                       {"mean_new", num(s.mean_new)},
                       {"mean_diff", num(s.mean_diff)},
                       {"ci95", any ? Json::array({s.ci_low, s.ci_high}) : Json(nullptr)},
                       {"p_value", s.p_value},
                       {"p_exact", s.p_exact},
                       {"p_holm", mc.p_holm},
                       {"wins", s.wins},
                       {"ties", s.ties},
                       {"losses", s.losses},
                       {"scored_in_one_only", mc.scored_in_one_only},
                       {"verdict", change_verdict_name(change_verdict(mc, c.alpha))},
                       {"differences",
                        {{"width", mc.differences.width},
                         {"worse", mc.differences.worse},
                         {"ties", mc.differences.ties},
                         {"better", mc.differences.better}}},
                       {"top_changes", std::move(top)}});
  }
  return {{"ragmeter_version", RAGMETER_VERSION},
          {"base", c.base_path},
          {"new", c.new_path},
          {"matched", c.matched},
          {"only_in_base", c.only_in_base},
          {"only_in_new", c.only_in_new},
          {"metrics_only_in_base", c.metrics_only_in_base},
          {"metrics_only_in_new", c.metrics_only_in_new},
          {"alpha", c.alpha},
          {"holm_family", c.holm_family},
          {"metrics", std::move(metrics)}};
}

}  // namespace ragmeter
