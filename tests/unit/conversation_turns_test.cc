// Single-turn metrics on conversations, turn by turn: how a conversation is cut into turns,
// and how the turns' results make the conversation's (hand-checked cases).
#include "eval/turn_results.h"

#include <gtest/gtest.h>

#include "ragmeter/evaluate.h"

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

Sample conversation_sample(const char* row) {
  auto sample = sample_from_json(Json::parse(row), {});
  EXPECT_TRUE(sample.ok()) << sample.status().message();
  EXPECT_TRUE(sample->conversation != nullptr);
  return *sample;
}

// score_sample with `metrics` (parse_metric_list) in English, no judge.
std::vector<MetricResult> score_in_english(const Sample& sample, std::string_view metrics) {
  EvalOptions options;
  auto parsed = parse_metric_list(metrics);
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  if (parsed.ok()) options.metrics = *parsed;
  options.language = "en";
  return score_sample(sample, options);
}

TEST(ConversationTurnsTest, ATurnRunsFromAUserMessageToTheNextAndNeedsAnAssistantText) {
  Sample s = conversation_sample(R"({"messages": [
      {"role": "system", "content": "be brief"},
      {"role": "user", "content": "Weather in Paris?"},
      {"role": "assistant", "content": null, "retrieved_contexts": ["Paris: sun"], "tool_calls": [
        {"id": "1", "type": "function", "function": {"name": "w", "arguments": "{}"}}]},
      {"role": "tool", "tool_call_id": "1", "content": "sunny"},
      {"role": "assistant", "content": "Sunny.", "retrieved_contexts": ["Paris: 20 C"]},
      {"role": "assistant", "content": "Anything else?"},
      {"role": "user", "content": "No."},
      {"role": "user", "content": "Bye."},
      {"role": "assistant", "content": "Bye!"}]})");
  s.language = "en";
  const std::vector<ConversationTurn> turns = conversation_turns(s);
  ASSERT_EQ(turns.size(), 2u);  // the system message and "No." open no turn with a text
  EXPECT_EQ(turns[0].number, 1);
  EXPECT_EQ(turns[0].message, 5u);  // its last assistant text
  EXPECT_EQ(turns[0].sample.user_input, "Weather in Paris?");
  EXPECT_EQ(turns[0].sample.response, "Sunny.\n\nAnything else?");
  // The contexts of every assistant message of the turn, in order.
  EXPECT_EQ(turns[0].sample.retrieved_contexts,
            (std::vector<std::string>{"Paris: sun", "Paris: 20 C"}));
  EXPECT_FALSE(turns[0].sample.reference().has_value());
  EXPECT_EQ(turns[0].sample.language, "en");
  EXPECT_EQ(turns[1].number, 2);
  EXPECT_EQ(turns[1].message, 8u);
  EXPECT_EQ(turns[1].sample.user_input, "Bye.");
  EXPECT_EQ(turns[1].sample.response, "Bye!");
  EXPECT_FALSE(turns[1].sample.retrieved_contexts.has_value());
}

TEST(ConversationTurnsTest, AnAssistantSpeakingFirstHasNoUserInputAndASingleTurnRowNoTurns) {
  Sample s = conversation_sample(R"({"user_input": [
      {"type": "ai", "content": "Hello, how can I help?"},
      {"type": "human", "content": "Hi"}]})");
  const std::vector<ConversationTurn> turns = conversation_turns(s);
  ASSERT_EQ(turns.size(), 1u);
  EXPECT_FALSE(turns[0].sample.user_input.has_value());
  EXPECT_EQ(turns[0].sample.response, "Hello, how can I help?");
  Sample single;
  single.response = "x";
  EXPECT_TRUE(conversation_turns(single).empty());
}

std::vector<ConversationTurn> three_turns() {
  std::vector<ConversationTurn> turns(3);
  for (int i = 0; i < 3; ++i) {
    turns[i].number = i + 1;
    turns[i].message = static_cast<std::size_t>(2 * i + 1);
  }
  return turns;
}

TEST(ConversationTurnsTest, TheMeanOfTheScoredTurnsWithEveryTurnInTheEvidence) {
  MetricResult a = MetricResult::ok(1.0);
  a.evidence = {{"supported", 1}};
  a.corpus_stats = {1, 2};
  MetricResult b = MetricResult::ok(0.25);
  b.corpus_stats = {3, 4};
  MetricResult c = MetricResult::skipped("field 'retrieved_contexts' is missing");
  const MetricResult r = combine_turns({a, b, c}, three_turns(), std::nullopt, true);
  ASSERT_EQ(r.outcome, Outcome::kOk);
  EXPECT_DOUBLE_EQ(r.score, 0.625);  // (1 + 0.25) / 2: the skipped turn is not a zero
  EXPECT_EQ(r.note, kSomeTurnsSkippedNote);
  EXPECT_EQ(r.corpus_stats, (std::vector<double>{4, 6}));
  EXPECT_EQ(r.evidence["scored_turns"], 2);
  EXPECT_EQ(r.evidence["turns_total"], 3);
  const Json& entries = r.evidence["turns"];
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0]["turn"], 1);
  EXPECT_EQ(entries[0]["message"], 1);
  EXPECT_EQ(entries[0]["score"], 1.0);
  EXPECT_EQ(entries[0]["evidence"]["supported"], 1);
  EXPECT_EQ(entries[2]["status"], "skipped");
  EXPECT_EQ(entries[2]["reason"], "field 'retrieved_contexts' is missing");
}

TEST(ConversationTurnsTest, AFailedTurnFailsTheConversationAndNoScoredTurnSkipsIt) {
  const MetricResult failed = combine_turns(
      {MetricResult::ok(1.0), MetricResult::failed("judge: timed out"), MetricResult::skipped("x")},
      three_turns(), std::nullopt, true);
  EXPECT_EQ(failed.outcome, Outcome::kFailed);
  EXPECT_EQ(failed.reason, "turn 2: judge: timed out");
  const MetricResult same = combine_turns(
      {MetricResult::skipped("no reference"), MetricResult::skipped("no reference"),
       MetricResult::skipped("no reference")},
      three_turns(), std::nullopt, true);
  EXPECT_EQ(same.outcome, Outcome::kSkipped);
  EXPECT_EQ(same.reason, "no turn was scored: every turn: no reference");
  const MetricResult mixed = combine_turns(
      {MetricResult::skipped("a"), MetricResult::skipped("b"), MetricResult::skipped("a")},
      three_turns(), std::nullopt, true);
  EXPECT_EQ(mixed.reason, "no turn was scored: turn 1: a");
}

TEST(ConversationTurnsTest, RepeatScoresAreThePerRepeatMeanAndFlakyAtTheMark) {
  MetricResult a = MetricResult::ok(0.5);
  a.repeat_scores = {0.4, 0.6};
  MetricResult b = MetricResult::ok(0.9);
  b.repeat_scores = {0.8, 1.0};
  std::vector<ConversationTurn> turns = three_turns();
  turns.pop_back();
  const MetricResult r = combine_turns({a, b}, turns, 0.65, true);
  ASSERT_EQ(r.repeat_scores.size(), 2u);
  EXPECT_DOUBLE_EQ(*r.repeat_scores[0], 0.6);  // (0.4 + 0.8) / 2
  EXPECT_DOUBLE_EQ(*r.repeat_scores[1], 0.8);  // (0.6 + 1.0) / 2
  ASSERT_TRUE(r.flaky.has_value());
  EXPECT_TRUE(*r.flaky);  // 0.6 fails 0.65, 0.8 passes it
  // A turn judged once among repeated ones: no per-repeat means are made up.
  MetricResult once = MetricResult::ok(0.7);
  EXPECT_TRUE(combine_turns({a, once}, turns, 0.65, true).repeat_scores.empty());
}

TEST(ConversationTurnsTest, EvaluateScoresSingleTurnMetricsOfAConversationTurnByTurn) {
  // k_precision is deterministic: the share of the response's tokens found in the contexts.
  // Turn 1: "Paris is sunny" against "Paris is sunny today": 3/3. Turn 2: "Rome is rainy"
  // against "Rome is dry": 2/3. Turn 3 has no contexts: skipped. Mean (1 + 2/3) / 2 = 5/6.
  Sample s = conversation_sample(R"({"messages": [
      {"role": "user", "content": "Paris?"},
      {"role": "assistant", "content": "Paris is sunny", "retrieved_contexts": ["Paris is sunny today"]},
      {"role": "user", "content": "Rome?"},
      {"role": "assistant", "content": "Rome is rainy", "retrieved_contexts": ["Rome is dry"]},
      {"role": "user", "content": "Thanks"},
      {"role": "assistant", "content": "Welcome"}],
    "reference_tool_calls": []})");
  const std::vector<MetricResult> results = score_in_english(s, "k_precision,ragas_tool_call_f1");
  ASSERT_EQ(results.size(), 2u);
  ASSERT_EQ(results[0].outcome, Outcome::kOk) << results[0].reason;
  EXPECT_NEAR(results[0].score, 5.0 / 6.0, 1e-12);
  EXPECT_EQ(results[0].evidence["scored_turns"], 2);
  // The conversation metric reads the whole conversation: no call expected and none made,
  // which ragas's tool_call_f1 scores 0 (docs/agents.md).
  ASSERT_EQ(results[1].outcome, Outcome::kOk) << results[1].reason;
  EXPECT_EQ(results[1].score, 0.0);
  EXPECT_FALSE(results[1].evidence.contains("turns"));
}

TEST(ConversationTurnsTest, AMetricSkippedForWantOfATurnReferenceSaysWhatAConversationsReferenceIs) {
  // token_f1 reads a reference: a turn has none, and the conversation's `reference` is its
  // desired outcome. k_precision lacks the contexts instead: its reason is only that.
  Sample s = conversation_sample(R"({"messages": [
      {"role": "user", "content": "Paris?"},
      {"role": "assistant", "content": "Paris is sunny"}],
    "reference": "The user learns the weather in Paris."})");
  const std::vector<MetricResult> results = score_in_english(s, "token_f1,k_precision");
  ASSERT_EQ(results.size(), 2u);
  ASSERT_EQ(results[0].outcome, Outcome::kSkipped);
  EXPECT_NE(results[0].reason.find("field 'reference' is missing"), std::string::npos) << results[0].reason;
  EXPECT_NE(results[0].reason.find("expected outcome, not a reference answer of a turn"), std::string::npos)
      << results[0].reason;
  ASSERT_EQ(results[1].outcome, Outcome::kSkipped);
  EXPECT_EQ(results[1].reason.find("expected outcome"), std::string::npos) << results[1].reason;
}

}  // namespace
}  // namespace ragmeter
