// Adapters from a multi-turn Sample to the tool-call metrics (tool_metrics.h): a
// single-turn sample, or one without expected tool calls, is `skipped` with the reason.
#include <optional>

#include "metrics/adapters.h"
#include "ragmeter/tool_metrics.h"

namespace ragmeter::adapters {
namespace {

struct ToolCallLists {
  std::vector<ToolCall> called;
  std::vector<ToolCall> expected;
};

// The called and expected tool calls, or why the sample has none to compare. An empty
// list of expected calls is given (it expects no call); only an absent one skips.
std::optional<MetricResult> tool_call_lists(const Sample& sample, ToolCallLists* out) {
  if (!sample.conversation) {
    return single_turn_row_skip();
  }
  const Conversation& conversation = *sample.conversation;
  if (!conversation.reference_tool_calls) {
    return MetricResult::skipped(
        "field 'reference_tool_calls' is missing (DeepEval's name: 'expected_tools')");
  }
  out->called = conversation.tool_calls();
  out->expected = *conversation.reference_tool_calls;
  return std::nullopt;
}

MetricResult with_counts(double score, const ToolCallLists& lists) {
  MetricResult result = MetricResult::ok(score);
  result.evidence = {{"called", lists.called.size()}, {"expected", lists.expected.size()}};
  return result;
}

MetricResult ragas_accuracy(const Sample& s, bool strict_order) {
  ToolCallLists lists;
  if (auto skipped = tool_call_lists(s, &lists)) return *skipped;
  return with_counts(ragmeter::ragas_tool_call_accuracy(lists.called, lists.expected, strict_order),
                     lists);
}

MetricResult deepeval(const Sample& s, const ScoringOptions& o,
                      DeepEvalToolOptions::Matching matching) {
  ToolCallLists lists;
  if (auto skipped = tool_call_lists(s, &lists)) return *skipped;
  DeepEvalToolOptions options = o.deepeval_tools;
  options.matching = matching;
  return with_counts(ragmeter::deepeval_tool_correctness(lists.called, lists.expected, options),
                     lists);
}

}  // namespace

MetricResult single_turn_row_skip() {
  return MetricResult::skipped(
      "a conversation metric: the row is single-turn (it needs `user_input` as a list of "
      "messages, `messages` or `turns`, docs/agents.md)");
}

MetricResult ragas_tool_call_accuracy(const Sample& s, const MetricRequest&, const ScoringOptions&) {
  return ragas_accuracy(s, true);
}

MetricResult ragas_tool_call_accuracy_flexible(const Sample& s, const MetricRequest&,
                                               const ScoringOptions&) {
  return ragas_accuracy(s, false);
}

MetricResult ragas_tool_call_f1(const Sample& s, const MetricRequest&, const ScoringOptions&) {
  ToolCallLists lists;
  if (auto skipped = tool_call_lists(s, &lists)) return *skipped;
  return with_counts(ragmeter::ragas_tool_call_f1(lists.called, lists.expected), lists);
}

MetricResult deepeval_tool_correctness(const Sample& s, const MetricRequest&,
                                       const ScoringOptions& o) {
  return deepeval(s, o, DeepEvalToolOptions::Matching::kDefault);
}

MetricResult deepeval_tool_correctness_ordered(const Sample& s, const MetricRequest&,
                                               const ScoringOptions& o) {
  return deepeval(s, o, DeepEvalToolOptions::Matching::kOrdered);
}

MetricResult deepeval_tool_correctness_exact(const Sample& s, const MetricRequest&,
                                             const ScoringOptions& o) {
  return deepeval(s, o, DeepEvalToolOptions::Matching::kExact);
}

}  // namespace ragmeter::adapters
