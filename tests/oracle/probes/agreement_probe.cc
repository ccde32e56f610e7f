// Oracle probe for tests/oracle/test_agreement.py: one request per stdin line, one
// answer per stdout line, {"value": number or null}:
//   {"op": "pearson" | "spearman" | "kendall", "x": [...], "y": [...]}
//   {"op": "roc_auc", "scores": [...], "labels": [0/1...]}
//   {"op": "accuracy" | "balanced_accuracy", "predicted": [...], "truth": [...]}
//   {"op": "kappa", "a": [...], "b": [...], "categories": k, "weights":
//   "none"|"linear"|"quadratic"}
//   {"op": "alpha", "units": [[values of unit 0], ...], "level": "nominal"|"ordinal"|"interval"}
//   {"op": "pairwise", "delta": [...], "preference": [...]}
//   {"op": "threshold", "scores": [...], "labels": [...]} -> {"value", "balanced_accuracy"}
//   {"op": "bootstrap_auc", "scores": [...], "labels": [...], "resamples": n, "seed": s}
//       -> {"low", "high", "undefined"}: the bootstrap interval of roc_auc over rows
#include <string>
#include <vector>

#include "json_lines_probe.h"
#include "ragmeter/agreement.h"
#include "ragmeter/bootstrap.h"

namespace {

using nlohmann::json;

json value_of(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

ragmeter::KappaWeights weights_of(const std::string& name) {
  if (name == "linear") return ragmeter::KappaWeights::kLinear;
  if (name == "quadratic") return ragmeter::KappaWeights::kQuadratic;
  return ragmeter::KappaWeights::kNone;
}

ragmeter::AlphaLevel level_of(const std::string& name) {
  if (name == "ordinal") return ragmeter::AlphaLevel::kOrdinal;
  if (name == "interval") return ragmeter::AlphaLevel::kInterval;
  return ragmeter::AlphaLevel::kNominal;
}

json bootstrap_auc(const json& in) {
  auto scores = in["scores"].get<std::vector<double>>();
  auto labels = in["labels"].get<std::vector<int>>();
  ragmeter::BootstrapOptions options;
  options.resamples = in.value("resamples", 1000);
  options.seed = in.value("seed", std::uint64_t{42});
  options.threads = in.value("threads", 1);
  auto interval = ragmeter::bootstrap_interval(
      scores.size(),
      [&](std::span<const std::size_t> drawn) {
        std::vector<double> s;
        std::vector<int> l;
        for (std::size_t i : drawn) {
          s.push_back(scores[i]);
          l.push_back(labels[i]);
        }
        return ragmeter::roc_auc(s, l);
      },
      options);
  if (!interval) return {{"low", nullptr}, {"high", nullptr}};
  return {{"low", interval->low}, {"high", interval->high}, {"undefined", interval->undefined}};
}

json answer(const json& in) {
  const std::string op = in.at("op");
  auto doubles = [&](const char* key) { return in.at(key).get<std::vector<double>>(); };
  auto ints = [&](const char* key) { return in.at(key).get<std::vector<int>>(); };
  if (op == "pearson") return {{"value", value_of(ragmeter::pearson(doubles("x"), doubles("y")))}};
  if (op == "spearman")
    return {{"value", value_of(ragmeter::spearman(doubles("x"), doubles("y")))}};
  if (op == "kendall")
    return {{"value", value_of(ragmeter::kendall_tau_b(doubles("x"), doubles("y")))}};
  if (op == "roc_auc")
    return {{"value", value_of(ragmeter::roc_auc(doubles("scores"), ints("labels")))}};
  if (op == "accuracy")
    return {{"value", value_of(ragmeter::accuracy(ints("predicted"), ints("truth")))}};
  if (op == "balanced_accuracy") {
    return {{"value", value_of(ragmeter::balanced_accuracy(ints("predicted"), ints("truth")))}};
  }
  if (op == "kappa") {
    return {{"value", value_of(ragmeter::cohen_kappa(ints("a"), ints("b"), in.at("categories"),
                                                     weights_of(in.value("weights", "none"))))}};
  }
  if (op == "alpha") {
    auto units = in.at("units").get<std::vector<std::vector<double>>>();
    return {{"value", value_of(ragmeter::krippendorff_alpha(units, level_of(in.at("level"))))}};
  }
  if (op == "pairwise") {
    return {
        {"value", value_of(ragmeter::pairwise_accuracy(doubles("delta"), doubles("preference")))}};
  }
  if (op == "threshold") {
    auto t = ragmeter::choose_threshold(doubles("scores"), ints("labels"));
    if (!t) return {{"value", nullptr}};
    return {{"value", t->value}, {"balanced_accuracy", t->balanced_accuracy}};
  }
  if (op == "bootstrap_auc") return bootstrap_auc(in);
  return {{"error", "unknown op " + op}};
}

}  // namespace

int main() { return ragmeter::probes::serve_json_lines(answer); }
