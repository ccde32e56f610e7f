// The deterministic tool-call metrics of ragas 0.4.3 and DeepEval 4.3.1, each as its source
// computes it (docs/agents.md gives every definition and where the sources' choices are
// questionable). Pure functions of the predicted and the reference calls; thread-safe.
#pragma once

#include <vector>

#include "ragmeter/conversation.h"

namespace ragmeter {

// ragas's ToolCallAccuracy (ragas.metrics.collections, 0.4.3). Both lists empty: 1; one of
// them empty: 0. With `strict_order` false both lists are first sorted by (name, then each
// argument name and str(value), argument names sorted). 0 unless the name sequences are
// equal (as sorted multisets when not strict); else the mean over the reference calls of
// the share of reference arguments whose Python str() equals the predicted argument's (a
// call with no arguments on both sides scores 1, a reference without arguments 0).
double ragas_tool_call_accuracy(const std::vector<ToolCall>& predicted,
                                const std::vector<ToolCall>& reference, bool strict_order);

// ragas's ToolCallF1 (0.4.3): F1 of the two lists taken as sets of (name, arguments), the
// arguments compared by Python == with objects unordered (1 == 1.0 == true); duplicates
// count once; both empty: 0. Rounded to 4 decimals as ragas rounds it (Python's round()).
double ragas_tool_call_f1(const std::vector<ToolCall>& predicted,
                          const std::vector<ToolCall>& reference);

// DeepEval's ToolCorrectnessMetric (4.3.1) with no available_tools and strict_mode off.
struct DeepEvalToolOptions {
  enum class Matching { kDefault, kOrdered, kExact };
  Matching matching = Matching::kDefault;  // should_consider_ordering / should_exact_match
  bool input_parameters = false;  // ToolCallParams.INPUT_PARAMETERS in evaluation_params
  bool output = false;            // ToolCallParams.OUTPUT in evaluation_params
};

// kDefault: each expected call takes the best-scoring called call not already taken (a
// called call equal to a taken one, by name, arguments and output, counts as taken too);
// score = sum / number expected. kOrdered: a longest common subsequence weighted by the
// match scores, / number expected. kExact: 1 when the lists match position by position,
// else 0. Match score: 1 for the same name, times the argument similarity (shared keys with
// equal values, recursing into objects, / all keys) with input_parameters, 0 on a different
// output with output. Both lists empty: 1; nothing expected but something called: 0.
double deepeval_tool_correctness(const std::vector<ToolCall>& called,
                                 const std::vector<ToolCall>& expected,
                                 const DeepEvalToolOptions& options);

// ragas 0.4.3's topic adherence from its verdicts: per topic whether the assistant answered
// it and whether it is a reference topic (equal lengths, not empty). TP = answered and
// reference, FP = answered and not reference, FN = refused and reference; precision =
// TP / (TP + FP + 1e-10), recall = TP / (TP + FN + 1e-10), F1 = 2PR / (P + R + 1e-10), the
// 1e-10 as ragas adds it (so a perfect score is 1 - 1e-10, and nothing to count is 0).
enum class TopicAdherenceMode { kF1, kPrecision, kRecall };
double ragas_topic_adherence(const std::vector<bool>& answered, const std::vector<bool>& in_reference,
                             TopicAdherenceMode mode);

}  // namespace ragmeter
