// The statistics of one metric's labels (agree.h says which, on which subset), each
// with its bootstrap interval over items and, where items have several labels, the
// people's ceiling.
#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "eval/agree_items.h"

namespace ragmeter::agree_internal {
namespace {

using Items = std::vector<const Item*>;
using Statistic = std::function<std::optional<double>(const Items&)>;

constexpr const char* kNeedsVariation = "needs scores and labels that vary";
constexpr const char* kNeedsBothClasses = "needs labels of both classes";
constexpr const char* kOneCategory = "no disagreement is expected: one category only";

// The labels of `items` as columns: the metric's score (or a prediction from it) and the label.
struct Columns {
  std::vector<double> score, label;
  std::vector<int> predicted, truth;
};

Columns columns_of(const Items& items, const std::function<double(double)>& transform) {
  Columns c;
  for (const Item* item : items) {
    for (const LabelPoint& p : item->points) {
      c.score.push_back(p.score);
      c.label.push_back(p.label);
      double t = transform(p.score);
      c.predicted.push_back(static_cast<int>(t));
      c.truth.push_back(static_cast<int>(p.label));
    }
  }
  return c;
}

// Every ordered pair of two labels of one item: the first in the metric's place.
Columns label_pairs(const Items& items) {
  Columns c;
  for (const Item* item : items) {
    for (std::size_t i = 0; i < item->points.size(); ++i) {
      for (std::size_t j = 0; j < item->points.size(); ++j) {
        if (i == j) continue;
        c.score.push_back(item->points[i].label);
        c.label.push_back(item->points[j].label);
        c.predicted.push_back(static_cast<int>(item->points[i].label));
        c.truth.push_back(static_cast<int>(item->points[j].label));
      }
    }
  }
  return c;
}

std::int64_t count_points(const Items& items) {
  std::int64_t n = 0;
  for (const Item* item : items) n += static_cast<std::int64_t>(item->points.size());
  return n;
}

std::int64_t count_pairs(const Items& items) {
  std::int64_t n = 0;
  for (const Item* item : items) {
    auto m = static_cast<std::int64_t>(item->points.size());
    n += m * (m - 1);
  }
  return n;
}

StatisticValue measure(const Items& subset, const Statistic& statistic, std::int64_t n,
                       const char* undefined, const BootstrapOptions& bootstrap) {
  StatisticValue out;
  out.n = n;
  out.items = static_cast<std::int64_t>(subset.size());
  out.value = statistic(subset);
  if (!out.value) {
    out.undefined = undefined;
    return out;
  }
  out.ci = bootstrap_interval(
      subset.size(),
      [&](std::span<const std::size_t> drawn) {
        Items chosen;
        chosen.reserve(drawn.size());
        for (std::size_t i : drawn) chosen.push_back(subset[i]);
        return statistic(chosen);
      },
      bootstrap);
  return out;
}

// One statistic: how it reads the metric's labels and how it reads two people's.
struct StatisticSpec {
  const char* name;
  bool on_test;  // uses the pass mark: measured on the test half
  const char* undefined;
  std::function<std::optional<double>(const Columns&)> of_columns;
  // Krippendorff's alpha reads units, not columns: the metric's (score, label) per
  // label, the people's labels per item.
  std::function<std::optional<double>(const Items&, bool people)> of_units;
};

std::vector<std::vector<double>> metric_units(const Items& items,
                                              const std::function<double(double)>& transform) {
  std::vector<std::vector<double>> units;
  for (const Item* item : items) {
    for (const LabelPoint& p : item->points) units.push_back({transform(p.score), p.label});
  }
  return units;
}

std::vector<std::vector<double>> people_units(const Items& items) {
  std::vector<std::vector<double>> units;
  for (const Item* item : items) {
    std::vector<double> unit;
    for (const LabelPoint& p : item->points) unit.push_back(p.label);
    units.push_back(std::move(unit));
  }
  return units;
}

StatisticSpec alpha_spec(bool on_test, AlphaLevel level, std::function<double(double)> transform) {
  return {"krippendorff_alpha", on_test, kOneCategory, nullptr,
          [level, transform](const Items& items, bool people) {
            return krippendorff_alpha(people ? people_units(items) : metric_units(items, transform),
                                      level);
          }};
}

std::vector<StatisticSpec> correlation_specs() {
  return {
      {"pearson", false, kNeedsVariation,
       [](const Columns& c) { return pearson(c.score, c.label); }},
      {"spearman", false, kNeedsVariation,
       [](const Columns& c) { return spearman(c.score, c.label); }},
      {"kendall_tau_b", false, kNeedsVariation,
       [](const Columns& c) { return kendall_tau_b(c.score, c.label); }},
  };
}

std::vector<StatisticSpec> binary_specs(std::function<double(double)> passes) {
  std::vector<StatisticSpec> specs = {
      {"accuracy", true, "no labels",
       [](const Columns& c) { return accuracy(c.predicted, c.truth); }},
      {"balanced_accuracy", true, kNeedsBothClasses,
       [](const Columns& c) { return balanced_accuracy(c.predicted, c.truth); }},
      {"cohen_kappa", true, kOneCategory,
       [](const Columns& c) { return cohen_kappa(c.predicted, c.truth, 2); }},
      alpha_spec(true, AlphaLevel::kNominal, passes),
      {"roc_auc", false, kNeedsBothClasses,
       [](const Columns& c) { return roc_auc(c.score, c.truth); }},
  };
  for (auto& spec : correlation_specs()) specs.push_back(std::move(spec));
  return specs;
}

std::vector<StatisticSpec> ordinal_specs(const LabelScale& scale, bool on_scale) {
  std::vector<StatisticSpec> specs = correlation_specs();
  if (!on_scale) return specs;
  const int low = scale.low, levels = scale.high - scale.low + 1;
  specs.push_back({"accuracy", false, "no labels",
                   [](const Columns& c) { return accuracy(c.predicted, c.truth); }});
  specs.push_back({"cohen_kappa", false, kOneCategory, [levels, low](const Columns& c) {
                     std::vector<int> a, b;
                     for (int v : c.predicted) a.push_back(v - low);
                     for (int v : c.truth) b.push_back(v - low);
                     return cohen_kappa(a, b, levels, KappaWeights::kQuadratic);
                   }});
  specs.push_back(alpha_spec(false, AlphaLevel::kOrdinal, [](double s) { return s; }));
  return specs;
}

std::vector<StatisticSpec> pairwise_specs() {
  std::vector<StatisticSpec> specs = {
      {"pairwise_accuracy", false, "no label prefers one row",
       [](const Columns& c) { return pairwise_accuracy(c.score, c.label); }},
  };
  for (auto& spec : correlation_specs()) specs.push_back(std::move(spec));
  return specs;
}

// The statistic of `spec` over items, for the metric (`transform` turns a score into
// the prediction compared with a label) or for people (`people`: label pairs).
Statistic statistic_of(const StatisticSpec& spec, std::function<double(double)> transform,
                       bool people) {
  if (spec.of_units) {
    return [spec, people](const Items& items) { return spec.of_units(items, people); };
  }
  return [spec, transform, people](const Items& items) {
    return spec.of_columns(people ? label_pairs(items) : columns_of(items, transform));
  };
}

std::optional<std::string> no_variance(const std::vector<Item>& items, bool scores,
                                       const std::string& what) {
  std::optional<double> first;
  std::int64_t n = 0;
  for (const Item& item : items) {
    for (const LabelPoint& p : item.points) {
      double v = scores ? p.score : p.label;
      if (first && v != *first) return std::nullopt;
      first = v;
      ++n;
    }
  }
  if (!first) return std::nullopt;
  return fmt::format(
      "{} do not vary: every one of its {} labelled rows has {} {}, so "
      "agreement cannot be measured",
      what, n, scores ? "score" : "label", *first);
}

// Pairwise: a metric that never tells the two rows of a pair apart, or labels that never
// prefer one; preferences that all point one way are fine (pairwise accuracy is defined).
std::vector<std::string> pairwise_unmeasurable(const std::vector<Item>& items) {
  bool delta = false, preference = false;
  std::int64_t n = 0;
  for (const Item& item : items) {
    for (const LabelPoint& p : item.points) {
      delta = delta || p.score != 0.0;
      preference = preference || p.label != 0.0;
      ++n;
    }
  }
  std::vector<std::string> errors;
  if (!delta) {
    errors.push_back(
        fmt::format("its scores do not vary within a pair: every one of its {} "
                    "labelled pairs has difference 0, so agreement cannot be measured",
                    n));
  }
  if (!preference) errors.push_back("no label prefers one row of a pair (every label is 0)");
  return errors;
}

void count_items(const std::vector<Item>& items, MetricAgreement* out) {
  for (const Item& item : items) {
    auto m = static_cast<std::int64_t>(item.points.size());
    out->labels += m;
    out->most_labels_per_item = std::max(out->most_labels_per_item, m);
    (item.dev ? out->dev_items : out->test_items) += 1;
  }
  out->items = static_cast<std::int64_t>(items.size());
}

bool scores_on_scale(const std::vector<Item>& items, const LabelScale& scale) {
  for (const Item& item : items) {
    for (const LabelPoint& p : item.points) {
      // An ordinal metric is higher-is-better: its oriented score is its own.
      if (p.score != std::floor(p.score) || p.score < scale.low || p.score > scale.high)
        return false;
    }
  }
  return true;
}

// The pass mark from the dev half's labels; its reason when there is none.
std::optional<Threshold> pass_mark(const Items& dev, std::string* undefined) {
  Columns c = columns_of(dev, [](double s) { return s; });
  auto mark = choose_threshold(c.score, c.truth);
  if (!mark) {
    *undefined =
        dev.empty() ? "the dev half has no labels" : "the dev half has labels of one class only";
  }
  return mark;
}

}  // namespace

void measure_metric(const std::vector<Item>& items, const LabelScale& scale,
                    const BootstrapOptions& bootstrap, MetricAgreement* out) {
  count_items(items, out);
  if (items.empty()) {
    out->errors.push_back("no label of a row this metric scored");
    return;
  }
  if (scale.kind == LabelKind::kPairwise) {
    out->errors = pairwise_unmeasurable(items);
  } else {
    for (bool scores : {true, false}) {
      if (auto error = no_variance(items, scores, scores ? "its scores" : "the labels")) {
        out->errors.push_back(*error);
      }
    }
  }
  if (!out->errors.empty()) return;
  Items all, dev, test;
  for (const Item& item : items) {
    all.push_back(&item);
    (item.dev ? dev : test).push_back(&item);
  }
  std::function<double(double)> transform = [](double s) { return s; };
  std::vector<StatisticSpec> specs;
  std::optional<Threshold> mark;
  if (scale.kind == LabelKind::kBinary) {
    mark = pass_mark(dev, &out->threshold_undefined);
    double t = mark ? mark->value : 0.0;
    transform = [t](double s) { return s >= t ? 1.0 : 0.0; };
    specs = binary_specs(transform);
    if (mark) {
      out->threshold = *mark;
      if (!out->higher_is_better) out->threshold->value = -mark->value;
    }
  } else if (scale.kind == LabelKind::kOrdinal) {
    out->on_label_scale = scores_on_scale(items, scale);
    specs = ordinal_specs(scale, out->on_label_scale);
  } else {
    specs = pairwise_specs();
  }
  for (const StatisticSpec& spec : specs) {
    AgreementStatistic stat;
    stat.name = spec.name;
    stat.subset = spec.on_test ? "test" : "all";
    const Items& subset = spec.on_test ? test : all;
    if (spec.on_test && !mark) {
      stat.metric.items = static_cast<std::int64_t>(subset.size());
      stat.metric.n = count_points(subset);
      stat.metric.undefined = "no pass mark: " + out->threshold_undefined;
    } else {
      stat.metric = measure(subset, statistic_of(spec, transform, false), count_points(subset),
                            spec.undefined, bootstrap);
    }
    Items shared;
    for (const Item* item : subset) {
      if (item->points.size() >= 2) shared.push_back(item);
    }
    if (!shared.empty()) {
      stat.ceiling = measure(shared, statistic_of(spec, transform, true), count_pairs(shared),
                             spec.undefined, bootstrap);
    }
    out->statistics.push_back(std::move(stat));
  }
}

}  // namespace ragmeter::agree_internal
