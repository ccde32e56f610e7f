// Metrics of a library user's own (metric.h's register_metric): kept for the life of the
// process, with their texts copied, beside the built-in table.
#include "metrics/registered_metrics.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <mutex>
#include <shared_mutex>
#include <string>

namespace ragmeter {
namespace {

// A registered row and the texts its string_views point into.
struct Registered {
  std::string name, definition;
  MetricInfo info;
};

struct Registry {
  std::shared_mutex mutex;
  std::deque<Registered> metrics;  // a deque: the rows never move once added
};

Registry& registry() {
  static Registry instance;
  return instance;
}

bool valid_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

Status check(const MetricInfo& info) {
  const std::string name(info.name);
  if (!valid_name(info.name)) {
    return invalid_argument("register_metric: the name '" + name +
                            "' must be letters, digits and '_', and not empty");
  }
  for (const MetricInfo& builtin : builtin_metrics()) {
    if (builtin.name == info.name) {
      return invalid_argument("register_metric: '" + name + "' is a built-in metric's name");
    }
  }
  if ((info.score == nullptr) == (info.judged == nullptr)) {
    return invalid_argument("register_metric: '" + name +
                            "' needs exactly one scoring function (score or judged)");
  }
  if (info.needs == sample_fields::kNone) {
    return invalid_argument("register_metric: '" + name +
                            "' names no field it needs (MetricInfo::needs, sample_fields)");
  }
  if (!(std::isfinite(info.min_score) && std::isfinite(info.max_score) &&
        info.min_score < info.max_score)) {
    return invalid_argument("register_metric: '" + name + "' has an empty or infinite range");
  }
  if (info.corpus != nullptr && info.score == nullptr) {
    return invalid_argument("register_metric: '" + name +
                            "' has a corpus form but no per-sample score");
  }
  return ok_status();
}

}  // namespace

Status register_metric(const MetricInfo& info) {
  if (Status status = check(info); !status.ok()) return status;
  Registry& r = registry();
  std::unique_lock lock(r.mutex);
  for (const Registered& metric : r.metrics) {
    if (metric.info.name == info.name) {
      return invalid_argument("register_metric: '" + std::string(info.name) +
                              "' is registered already");
    }
  }
  Registered& added = r.metrics.emplace_back();
  added.name = std::string(info.name);
  added.definition = std::string(info.definition);
  added.info = info;
  added.info.name = added.name;
  added.info.definition = added.definition;
  // Table facts the library reads for its own metrics only.
  added.info.groups = metric_groups::kNone;
  added.info.ragas_scope = {};
  added.info.offline_withdrawn = {};
  return ok_status();
}

std::vector<const MetricInfo*> registered_metrics() {
  Registry& r = registry();
  std::shared_lock lock(r.mutex);
  std::vector<const MetricInfo*> out;
  for (const Registered& metric : r.metrics) out.push_back(&metric.info);
  return out;
}

const MetricInfo* find_registered_metric(std::string_view name) {
  Registry& r = registry();
  std::shared_lock lock(r.mutex);
  for (const Registered& metric : r.metrics) {
    if (metric.info.name == name) return &metric.info;
  }
  return nullptr;
}

}  // namespace ragmeter
