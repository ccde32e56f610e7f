// The deterministic tool-call metrics, as their sources compute them:
//   ragas 0.4.3, ragas/metrics/collections/tool_call_accuracy (metric.py, util.py):
//     accuracy = [names aligned] * sum_{paired i, same name} arg_match(pred_i, ref_i) / |ref|
//     arg_match = |{k in ref.args : k in pred.args and str(pred[k]) == str(ref[k])}| / |ref.args|
//   ragas 0.4.3, ragas/metrics/collections/tool_call_f1: F1 of sets of (name, args), round 4.
//   DeepEval 4.3.1, deepeval/metrics/tool_correctness/tool_correctness.py
//     (_calculate_non_exact_match_score, _compute_weighted_lcs, _calculate_exact_match_score,
//     _compare_dicts).
// docs/agents.md states each definition and its questionable corners.
#include "ragmeter/tool_metrics.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "metrics/python_values.h"

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

// ragas's exact_match_args: the share of reference arguments whose str() the prediction
// repeats.
double ragas_argument_match(const Json& predicted, const Json& reference) {
  if (reference.empty() && predicted.empty()) return 1.0;
  if (reference.empty()) return 0.0;
  double score = 0.0;
  for (auto it = reference.begin(); it != reference.end(); ++it) {
    auto found = predicted.find(it.key());
    if (found != predicted.end() && python_str(*found) == python_str(it.value())) score += 1.0;
  }
  return score / static_cast<double>(reference.size());
}

// ragas's sorted_key_for_tool_call: (name, arg1, str(v1), arg2, str(v2), ...), argument
// names sorted.
std::vector<std::string> ragas_sort_key(const ToolCall& call) {
  std::vector<std::string> names;
  for (auto it = call.args.begin(); it != call.args.end(); ++it) names.push_back(it.key());
  std::sort(names.begin(), names.end());
  std::vector<std::string> key = {call.name};
  for (const std::string& name : names) {
    key.push_back(name);
    key.push_back(python_str(call.args.at(name)));
  }
  return key;
}

std::vector<ToolCall> ragas_sorted(std::vector<ToolCall> calls) {
  std::vector<std::pair<std::vector<std::string>, std::size_t>> keys;
  for (std::size_t i = 0; i < calls.size(); ++i) keys.emplace_back(ragas_sort_key(calls[i]), i);
  std::stable_sort(keys.begin(), keys.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<ToolCall> out;
  for (const auto& [key, index] : keys) out.push_back(std::move(calls[index]));
  return out;
}

std::vector<std::string> names_of(const std::vector<ToolCall>& calls) {
  std::vector<std::string> names;
  for (const ToolCall& call : calls) names.push_back(call.name);
  return names;
}

// Python's round(value, 4): the double nearest the correctly rounded decimal.
double python_round4(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.4f", value);
  return std::strtod(text, nullptr);
}

bool ragas_same_call(const ToolCall& a, const ToolCall& b) {
  return a.name == b.name && python_equal(a.args, b.args);
}

// A list with ragas's set semantics: equal calls kept once.
std::vector<const ToolCall*> distinct_calls(const std::vector<ToolCall>& calls) {
  std::vector<const ToolCall*> out;
  for (const ToolCall& call : calls) {
    bool seen = std::any_of(out.begin(), out.end(),
                            [&](const ToolCall* kept) { return ragas_same_call(*kept, call); });
    if (!seen) out.push_back(&call);
  }
  return out;
}

// DeepEval's ToolCall.__eq__: name, input_parameters and output.
bool deepeval_same_call(const ToolCall& a, const ToolCall& b) {
  return a.name == b.name && python_equal(a.args, b.args) && python_equal(a.output, b.output);
}

// DeepEval's _compare_dicts: equal objects 1; else each shared key adds 1/|all keys| when
// its values are equal, or the recursive similarity / |all keys| when both are objects.
double deepeval_compare_dicts(const Json& expected, const Json& called) {
  if (python_equal(expected, called)) return 1.0;
  std::size_t total = called.size();
  for (auto it = expected.begin(); it != expected.end(); ++it) {
    if (!called.contains(it.key())) ++total;
  }
  double score = 0.0;
  for (auto it = expected.begin(); it != expected.end(); ++it) {
    auto other = called.find(it.key());
    if (other == called.end()) continue;
    if (python_equal(it.value(), *other)) {
      score += 1.0 / static_cast<double>(total);
    } else if (it.value().is_object() && other->is_object()) {
      score += deepeval_compare_dicts(it.value(), *other) / static_cast<double>(total);
    }
  }
  return score;
}

// The score of pairing an expected call with a called one (0 when the names differ).
double deepeval_match(const ToolCall& expected, const ToolCall& called,
                      const DeepEvalToolOptions& options) {
  if (expected.name != called.name) return 0.0;
  double score = 1.0;
  if (options.input_parameters) score *= deepeval_compare_dicts(expected.args, called.args);
  if (options.output && !python_equal(expected.output, called.output)) score = 0.0;
  return score;
}

double deepeval_default(const std::vector<ToolCall>& called, const std::vector<ToolCall>& expected,
                        const DeepEvalToolOptions& options) {
  double total = 0.0;
  std::vector<const ToolCall*> taken;  // DeepEval's set of matched called tools
  auto is_taken = [&taken](const ToolCall& call) {
    return std::any_of(taken.begin(), taken.end(),
                       [&](const ToolCall* t) { return deepeval_same_call(*t, call); });
  };
  for (const ToolCall& want : expected) {
    double best = 0.0;
    const ToolCall* best_call = nullptr;
    for (const ToolCall& candidate : called) {
      if (is_taken(candidate)) continue;
      if (want.name != candidate.name) continue;
      const double score = deepeval_match(want, candidate, options);
      if (score > best) {
        best = score;
        best_call = &candidate;
      }
    }
    if (best > 0) {
      total += best;
      taken.push_back(best_call);
    }
  }
  return total / static_cast<double>(expected.size());
}

// DeepEval's _compute_weighted_lcs, its backtracking included (the score is the sum of the
// diagonal steps' gains, as DeepEval adds them).
double deepeval_weighted_lcs(const std::vector<ToolCall>& called,
                             const std::vector<ToolCall>& expected,
                             const DeepEvalToolOptions& options) {
  const std::size_t m = expected.size(), n = called.size();
  std::vector<std::vector<double>> dp(m + 1, std::vector<double>(n + 1, 0.0));
  for (std::size_t i = 1; i <= m; ++i) {
    for (std::size_t j = 1; j <= n; ++j) {
      const double up = dp[i - 1][j], left = dp[i][j - 1];
      if (expected[i - 1].name != called[j - 1].name) {
        dp[i][j] = std::max(up, left);
        continue;
      }
      const double score = deepeval_match(expected[i - 1], called[j - 1], options);
      dp[i][j] = std::max({up, left, score > 0 ? dp[i - 1][j - 1] + score : 0.0});
    }
  }
  double total = 0.0;
  for (std::size_t i = m, j = n; i > 0 && j > 0;) {
    if (dp[i][j] == dp[i - 1][j]) {
      --i;
    } else if (dp[i][j] == dp[i][j - 1]) {
      --j;
    } else {
      total += dp[i][j] - dp[i - 1][j - 1];
      --i;
      --j;
    }
  }
  return total;
}

double deepeval_exact(const std::vector<ToolCall>& called, const std::vector<ToolCall>& expected,
                      const DeepEvalToolOptions& options) {
  if (called.size() != expected.size()) return 0.0;
  for (std::size_t i = 0; i < called.size(); ++i) {
    if (called[i].name != expected[i].name) return 0.0;
    if (options.input_parameters && !python_equal(called[i].args, expected[i].args)) return 0.0;
    if (options.output && !python_equal(called[i].output, expected[i].output)) return 0.0;
  }
  return 1.0;
}

}  // namespace

double ragas_tool_call_accuracy(const std::vector<ToolCall>& predicted_calls,
                                const std::vector<ToolCall>& reference_calls, bool strict_order) {
  if (predicted_calls.empty() && reference_calls.empty()) return 1.0;
  if (predicted_calls.empty() || reference_calls.empty()) return 0.0;
  const std::vector<ToolCall> predicted = strict_order ? predicted_calls : ragas_sorted(predicted_calls);
  const std::vector<ToolCall> reference = strict_order ? reference_calls : ragas_sorted(reference_calls);
  std::vector<std::string> predicted_names = names_of(predicted);
  std::vector<std::string> reference_names = names_of(reference);
  if (!strict_order) {
    std::sort(predicted_names.begin(), predicted_names.end());
    std::sort(reference_names.begin(), reference_names.end());
  }
  const bool aligned = predicted_names == reference_names;
  double score = 0.0;
  const std::size_t compared = std::min(predicted.size(), reference.size());
  for (std::size_t i = 0; i < compared; ++i) {
    if (reference[i].name == predicted[i].name) {
      score += ragas_argument_match(predicted[i].args, reference[i].args);
    }
  }
  score /= static_cast<double>(reference.size());
  if (compared < reference.size()) {
    score *= static_cast<double>(compared) / static_cast<double>(reference.size());
  }
  return aligned ? score : 0.0;
}

double ragas_tool_call_f1(const std::vector<ToolCall>& predicted,
                          const std::vector<ToolCall>& reference) {
  const std::vector<const ToolCall*> actual = distinct_calls(predicted);
  const std::vector<const ToolCall*> expected = distinct_calls(reference);
  std::size_t true_positives = 0;
  for (const ToolCall* call : actual) {
    true_positives += std::any_of(expected.begin(), expected.end(), [&](const ToolCall* want) {
      return ragas_same_call(*call, *want);
    });
  }
  const double tp = static_cast<double>(true_positives);
  const double fp = static_cast<double>(actual.size() - true_positives);
  const double fn = static_cast<double>(expected.size() - true_positives);
  const double precision = tp + fp > 0 ? tp / (tp + fp) : 0.0;
  const double recall = tp + fn > 0 ? tp / (tp + fn) : 0.0;
  const double f1 = precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0.0;
  return python_round4(f1);
}

double deepeval_tool_correctness(const std::vector<ToolCall>& called,
                                 const std::vector<ToolCall>& expected,
                                 const DeepEvalToolOptions& options) {
  using Matching = DeepEvalToolOptions::Matching;
  if (options.matching == Matching::kExact) {
    if (called.empty() && expected.empty()) return 1.0;
    return deepeval_exact(called, expected, options);
  }
  if (expected.empty()) return called.empty() ? 1.0 : 0.0;
  if (options.matching == Matching::kOrdered) {
    return deepeval_weighted_lcs(called, expected, options) / static_cast<double>(expected.size());
  }
  return deepeval_default(called, expected, options);
}

}  // namespace ragmeter
