// The tool-call metrics on hand-checked cases, each worked out from its source's code
// (ragas 0.4.3 collections tool_call_accuracy / tool_call_f1, DeepEval 4.3.1
// tool_correctness.py), and Python's str() / == of argument values.
#include "ragmeter/tool_metrics.h"

#include <gtest/gtest.h>

#include "metrics/python_values.h"

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;
using Matching = DeepEvalToolOptions::Matching;

ToolCall call(std::string name, Json args = Json::object(), Json output = nullptr) {
  ToolCall c;
  c.name = std::move(name);
  c.args = std::move(args);
  c.output = std::move(output);
  return c;
}

TEST(PythonStrTest, WritesValuesAsPythonsStrAfterJsonLoads) {
  EXPECT_EQ(python_str(Json("Paris")), "Paris");
  EXPECT_EQ(python_str(Json(1)), "1");
  EXPECT_EQ(python_str(Json(1.0)), "1.0");
  EXPECT_EQ(python_str(Json(1e16)), "1e+16");
  EXPECT_EQ(python_str(Json(1e15)), "1000000000000000.0");
  EXPECT_EQ(python_str(Json(0.0001)), "0.0001");
  EXPECT_EQ(python_str(Json(0.00001)), "1e-05");
  EXPECT_EQ(python_str(Json(-0.0)), "-0.0");
  EXPECT_EQ(python_str(Json(2.5e-7)), "2.5e-07");
  EXPECT_EQ(python_str(Json(true)), "True");
  EXPECT_EQ(python_str(Json(nullptr)), "None");
  EXPECT_EQ(python_str(Json::parse(R"({"b": [1, "x"], "a": {"k": null}})")),
            "{'b': [1, 'x'], 'a': {'k': None}}");
  // repr() quoting: double quotes when the text has a ' and no ", escapes otherwise.
  EXPECT_EQ(python_str(Json::parse(R"(["it's", "say \"hi\"", "both ' \"", "a\nb\\"])")),
            R"(["it's", 'say "hi"', 'both \' "', 'a\nb\\'])");
  EXPECT_EQ(python_str(Json::parse(R"(["\u00e9\u00a0\u0007"])")), "['\u00e9\\xa0\\x07']");
}

TEST(PythonEqualTest, ComparesAsPythonEqualityWithObjectsUnordered) {
  EXPECT_TRUE(python_equal(Json(1), Json(1.0)));
  EXPECT_TRUE(python_equal(Json(true), Json(1)));
  EXPECT_TRUE(python_equal(Json(false), Json(0.0)));
  EXPECT_FALSE(python_equal(Json("1"), Json(1)));
  EXPECT_FALSE(python_equal(Json(nullptr), Json(0)));
  EXPECT_TRUE(python_equal(Json::parse(R"({"a": 1, "b": 2})"), Json::parse(R"({"b": 2, "a": 1})")));
  EXPECT_FALSE(python_equal(Json::parse("[1, 2]"), Json::parse("[2, 1]")));
  // 2**53 + 1 is not equal to the float 2**53 in Python (exact comparison).
  EXPECT_FALSE(python_equal(Json(9007199254740993LL), Json(9007199254740992.0)));
  EXPECT_TRUE(python_equal(Json(9007199254740992LL), Json(9007199254740992.0)));
}

TEST(RagasToolCallAccuracyTest, BothListsEmptyScoreOneOneEmptyScoresZero) {
  EXPECT_EQ(ragas_tool_call_accuracy({}, {}, true), 1.0);
  EXPECT_EQ(ragas_tool_call_accuracy({call("a")}, {}, true), 0.0);
  EXPECT_EQ(ragas_tool_call_accuracy({}, {call("a")}, true), 0.0);
}

TEST(RagasToolCallAccuracyTest, ArgumentsComparedByTheirPythonStr) {
  // ref {city: Paris, n: 1}; pred {city: Paris, n: "1"}: str(1) == str("1"): 2/2.
  EXPECT_EQ(ragas_tool_call_accuracy({call("w", {{"city", "Paris"}, {"n", "1"}})},
                                     {call("w", {{"city", "Paris"}, {"n", 1}})}, true),
            1.0);
  // n = 1.0 against 1: "1.0" != "1": 1/2.
  EXPECT_EQ(ragas_tool_call_accuracy({call("w", {{"city", "Paris"}, {"n", 1.0}})},
                                     {call("w", {{"city", "Paris"}, {"n", 1}})}, true),
            0.5);
  // A nested object's key order shows in str(): {'a': 1, 'b': 2} != {'b': 2, 'a': 1}.
  EXPECT_EQ(ragas_tool_call_accuracy({call("w", {{"o", Json::parse(R"({"b": 2, "a": 1})")}})},
                                     {call("w", {{"o", Json::parse(R"({"a": 1, "b": 2})")}})}, true),
            0.0);
  // Extra predicted arguments cost nothing; a reference without arguments scores 0
  // against a call with some.
  EXPECT_EQ(ragas_tool_call_accuracy({call("w", {{"x", 1}, {"y", 2}})}, {call("w", {{"x", 1}})}, true),
            1.0);
  EXPECT_EQ(ragas_tool_call_accuracy({call("w", {{"x", 1}})}, {call("w")}, true), 0.0);
}

TEST(RagasToolCallAccuracyTest, OrderMattersOnlyInStrictMode) {
  const std::vector<ToolCall> predicted = {call("b", {{"q", 2}}), call("a", {{"q", 1}})};
  const std::vector<ToolCall> reference = {call("a", {{"q", 1}}), call("b", {{"q", 2}})};
  EXPECT_EQ(ragas_tool_call_accuracy(predicted, reference, true), 0.0);
  EXPECT_EQ(ragas_tool_call_accuracy(predicted, reference, false), 1.0);
}

TEST(RagasToolCallAccuracyTest, LengthMismatchScoresZeroThroughTheNameSequence) {
  // Names [a, a] vs [a]: not aligned, whatever the arguments.
  EXPECT_EQ(ragas_tool_call_accuracy({call("a"), call("a")}, {call("a")}, true), 0.0);
  EXPECT_EQ(ragas_tool_call_accuracy({call("a"), call("a")}, {call("a")}, false), 0.0);
}

TEST(RagasToolCallAccuracyTest, FlexibleOrderPairsCallsAfterSortingByArguments) {
  // Sorted keys: ("a", "q", "1") < ("a", "q", "2"): pred a(q=2), a(q=1) pairs with ref
  // a(q=1), a(q=2) after sorting: 1 + 1 over 2.
  EXPECT_EQ(ragas_tool_call_accuracy({call("a", {{"q", 2}}), call("a", {{"q", 1}})},
                                     {call("a", {{"q", 1}}), call("a", {{"q", 2}})}, false),
            1.0);
  // Sorted by str(): "10" < "9", so pred a(q=9), a(q=10) against ref a(q=10), a(q="x")
  // pairs (10, 10) and (9, "x"): (1 + 0) / 2.
  EXPECT_EQ(ragas_tool_call_accuracy({call("a", {{"q", 9}}), call("a", {{"q", 10}})},
                                     {call("a", {{"q", 10}}), call("a", {{"q", "x"}})}, false),
            0.5);
}

TEST(RagasToolCallF1Test, SetsOfCallsWithDuplicatesOnce) {
  // ragas's docstring example: 1 TP, 1 FP, 0 FN -> 2/3, rounded to 0.6667.
  EXPECT_EQ(ragas_tool_call_f1({call("get_weather", {{"location", "Paris"}}),
                                call("get_uv_index", {{"location", "Paris"}})},
                               {call("get_weather", {{"location", "Paris"}})}),
            0.6667);
  // Duplicated calls count once: {a} vs {a}: 1.
  EXPECT_EQ(ragas_tool_call_f1({call("a"), call("a")}, {call("a")}), 1.0);
  // Both empty: precision and recall 0, F1 0 (where accuracy says 1).
  EXPECT_EQ(ragas_tool_call_f1({}, {}), 0.0);
  // Python ==: 1 == 1.0 == True, objects unordered; "1" is another value.
  EXPECT_EQ(ragas_tool_call_f1({call("a", {{"n", true}, {"o", Json::parse(R"({"y": 1, "x": 2})")}})},
                               {call("a", {{"n", 1.0}, {"o", Json::parse(R"({"x": 2, "y": 1})")}})}),
            1.0);
  EXPECT_EQ(ragas_tool_call_f1({call("a", {{"n", "1"}})}, {call("a", {{"n", 1}})}), 0.0);
}

TEST(DeepEvalToolCorrectnessTest, DefaultMatchingComparesNamesAndCountsExpectedTools) {
  DeepEvalToolOptions names;
  EXPECT_EQ(deepeval_tool_correctness({}, {}, names), 1.0);
  EXPECT_EQ(deepeval_tool_correctness({call("a")}, {}, names), 0.0);
  EXPECT_EQ(deepeval_tool_correctness({}, {call("a")}, names), 0.0);
  // DeepEval's docs example: called [WebSearch], expected [WebSearch, ToolQuery]: 1/2.
  EXPECT_EQ(deepeval_tool_correctness({call("WebSearch")}, {call("WebSearch"), call("ToolQuery")},
                                      names),
            0.5);
  // Extra called tools cost nothing; order is ignored.
  EXPECT_EQ(deepeval_tool_correctness({call("b"), call("x"), call("a")}, {call("a"), call("b")}, names),
            1.0);
}

TEST(DeepEvalToolCorrectnessTest, ATakenCallMakesEveryEqualCallTaken) {
  // DeepEval keeps matched called tools in a set: the second identical "a" is "in" it, so
  // [a, a] against [a, a] scores 1/2 (checked with DeepEval 4.3.1: 0.5).
  DeepEvalToolOptions names;
  EXPECT_EQ(deepeval_tool_correctness({call("a"), call("a")}, {call("a"), call("a")}, names), 0.5);
  // Calls that differ in their arguments are different set members: 2/2.
  EXPECT_EQ(deepeval_tool_correctness({call("a", {{"x", 1}}), call("a", {{"x", 2}})},
                                      {call("a"), call("a")}, names),
            1.0);
}

TEST(DeepEvalToolCorrectnessTest, InputParametersScoreSharedEqualKeysOverAllKeys) {
  DeepEvalToolOptions params;
  params.input_parameters = true;
  // {x: 1} vs {x: 1, y: 2}: keys {x, y}, x equal: 1/2. Then b vs b (no arguments): 1.
  // (0.5 + 1) / 2 = 0.75 (DeepEval 4.3.1 with should_consider_ordering gives 0.75 too).
  const std::vector<ToolCall> called = {call("a", {{"x", 1}, {"y", 2}}), call("b")};
  const std::vector<ToolCall> expected = {call("a", {{"x", 1}}), call("b")};
  EXPECT_EQ(deepeval_tool_correctness(called, expected, params), 0.75);
  params.matching = Matching::kOrdered;
  EXPECT_EQ(deepeval_tool_correctness(called, expected, params), 0.75);
  // Nested objects recurse: {o: {p: 1, q: 2}} vs {o: {p: 1, q: 3}}: 1 key, inner 1/2.
  params.matching = Matching::kDefault;
  EXPECT_EQ(deepeval_tool_correctness({call("a", {{"o", {{"p", 1}, {"q", 3}}}})},
                                      {call("a", {{"o", {{"p", 1}, {"q", 2}}}})}, params),
            0.5);
}

TEST(DeepEvalToolCorrectnessTest, OrderedMatchingIsAWeightedCommonSubsequence) {
  DeepEvalToolOptions ordered;
  ordered.matching = Matching::kOrdered;
  // Expected [a, b, c], called [b, a, c]: the longest common subsequence has 2 tools.
  EXPECT_DOUBLE_EQ(deepeval_tool_correctness({call("b"), call("a"), call("c")},
                                             {call("a"), call("b"), call("c")}, ordered),
                   2.0 / 3.0);
  EXPECT_EQ(deepeval_tool_correctness({}, {}, ordered), 1.0);
  EXPECT_EQ(deepeval_tool_correctness({call("a")}, {}, ordered), 0.0);
}

TEST(DeepEvalToolCorrectnessTest, ExactMatchingIsAllOrNothing) {
  DeepEvalToolOptions exact;
  exact.matching = Matching::kExact;
  EXPECT_EQ(deepeval_tool_correctness({call("a"), call("b")}, {call("a"), call("b")}, exact), 1.0);
  EXPECT_EQ(deepeval_tool_correctness({call("b"), call("a")}, {call("a"), call("b")}, exact), 0.0);
  EXPECT_EQ(deepeval_tool_correctness({call("a")}, {call("a"), call("b")}, exact), 0.0);
  EXPECT_EQ(deepeval_tool_correctness({}, {}, exact), 1.0);
  exact.output = true;
  EXPECT_EQ(deepeval_tool_correctness({call("a", {}, "sunny")}, {call("a", {}, "rain")}, exact), 0.0);
  EXPECT_EQ(deepeval_tool_correctness({call("a", {}, 1)}, {call("a", {}, 1.0)}, exact), 1.0);
}

}  // namespace
}  // namespace ragmeter
