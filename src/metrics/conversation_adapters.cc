// Adapters from a multi-turn Sample to the tool-call metrics (tool_metrics.h). A
// single-turn sample, or one without expected tool calls, is `skipped` before they are
// called (MetricInfo::needs).
#include <optional>

#include "metrics/adapters.h"
#include "ragmeter/tool_metrics.h"

namespace ragmeter::adapters {
namespace {

struct ToolCallLists {
  std::vector<ToolCall> called;
  std::vector<ToolCall> expected;
};

// The called and expected tool calls (the fields were checked: MetricInfo::needs; an empty
// list of expected calls is given, it expects no call).
ToolCallLists tool_call_lists(const Sample& sample) {
  const Conversation& conversation = *sample.conversation;
  return ToolCallLists{conversation.tool_calls(), *conversation.reference_tool_calls};
}

MetricResult with_counts(double score, const ToolCallLists& lists) {
  MetricResult result = MetricResult::ok(score);
  result.evidence = {{"called", lists.called.size()}, {"expected", lists.expected.size()}};
  return result;
}

MetricResult ragas_accuracy(const Sample& s, bool strict_order) {
  const ToolCallLists lists = tool_call_lists(s);
  return with_counts(ragmeter::ragas_tool_call_accuracy(lists.called, lists.expected, strict_order),
                     lists);
}

MetricResult deepeval(const Sample& s, const ScoringOptions& o,
                      DeepEvalToolOptions::Matching matching) {
  const ToolCallLists lists = tool_call_lists(s);
  DeepEvalToolOptions options = o.deepeval_tools;
  options.matching = matching;
  return with_counts(ragmeter::deepeval_tool_correctness(lists.called, lists.expected, options),
                     lists);
}

}  // namespace

MetricResult ragas_tool_call_accuracy(const Sample& s, const MetricRequest&, const ScoringOptions&) {
  return ragas_accuracy(s, true);
}

MetricResult ragas_tool_call_accuracy_flexible(const Sample& s, const MetricRequest&,
                                               const ScoringOptions&) {
  return ragas_accuracy(s, false);
}

MetricResult ragas_tool_call_f1(const Sample& s, const MetricRequest&, const ScoringOptions&) {
  const ToolCallLists lists = tool_call_lists(s);
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
