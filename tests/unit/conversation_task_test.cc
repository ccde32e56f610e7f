// Conversation tasks (conversation_task.h): the items each kind asks about, DeepEval's reading
// of a verdict and the fraction of passing verdicts (hand-checked cases; DeepEval's own code
// as the oracle: tests/oracle/test_deepeval_conversation.py).
#include "ragmeter/conversation_task.h"

#include <gtest/gtest.h>

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

Conversation read(const char* row) {
  auto conversation = conversation_from_json(Json::parse(row));
  EXPECT_TRUE(conversation.ok() && conversation->has_value());
  return **conversation;
}

// 1 system, 2 assistant (before any user), 3 user, 4 assistant (a call), 5 tool,
// 6 assistant, 7 user, 8 user, 9 assistant, 10 user (no answer).
constexpr const char* kRow = R"({"messages": [
    {"role": "system", "content": "be brief"},
    {"role": "assistant", "content": "Hello!"},
    {"role": "user", "content": "Weather in Paris?"},
    {"role": "assistant", "content": null, "tool_calls": [
      {"id": "1", "type": "function", "function": {"name": "weather", "arguments": "{\"city\": \"Paris\"}"}}]},
    {"role": "tool", "tool_call_id": "1", "content": "sunny"},
    {"role": "assistant", "content": "Sunny."},
    {"role": "user", "content": "And Lyon?"},
    {"role": "user", "content": "Tomorrow."},
    {"role": "assistant", "content": "Rain."},
    {"role": "user", "content": "Thanks."}]})";

TEST(ConversationTaskTest, ItemsFollowDeepEvalsUnitsAndNumberEveryMessage) {
  const Conversation c = read(kRow);
  // DeepEval's units: [2 3 4 6] (an assistant before the first user stays in it), [7 8 9];
  // the trailing user message makes no unit.
  EXPECT_EQ(conversation_task_items(c, TaskItems::kTurnEnds), (std::vector<std::string>{"6", "9"}));
  // Assistant messages with text; the call-only message 4 has none.
  EXPECT_EQ(conversation_task_items(c, TaskItems::kAssistantMessages),
            (std::vector<std::string>{"2", "6", "9"}));
  EXPECT_EQ(conversation_task_items(c, TaskItems::kToolCalls), (std::vector<std::string>{"1"}));
  EXPECT_TRUE(conversation_task_items(c, TaskItems::kFound).empty());
  EXPECT_EQ(conversation_task_item_section(c, TaskItems::kTurnEnds), "MESSAGES TO JUDGE: 6, 9\n\n");
  EXPECT_EQ(conversation_task_item_section(c, TaskItems::kToolCalls),
            "TOOL CALLS TO JUDGE:\ncall 1: weather({\"city\":\"Paris\"})\n\n");
}

TEST(ConversationTaskTest, VerdictsAreReadAsDeepEvalReadsThem) {
  EXPECT_EQ(normalise_verdict("yes"), "yes");
  EXPECT_EQ(normalise_verdict("  No, it is off-topic"), "no");
  EXPECT_EQ(normalise_verdict("YES."), "yes");
  EXPECT_EQ(normalise_verdict("idk"), "");
  EXPECT_EQ(normalise_verdict("yesterday"), "");  // the leading word is "yesterday"
  EXPECT_EQ(normalise_verdict(""), "");
}

TEST(ConversationTaskTest, TheScoreCountsEachAskedItemsFirstVerdict) {
  ConversationTask task{"t", "", TaskItems::kAssistantMessages, MissingItem::kNotJudged, true, "", ""};
  const std::vector<std::string> asked = {"2", "6", "9"};
  // 2: yes then a repeat (dropped); 6: "#6." read as 6, no; 9: none; 4: not asked.
  ItemVerdicts v{{{"2", "yes", ""}, {"#6.", "No", ""}, {"2", "no", ""}, {"4", "no", ""}}, "", ""};
  ItemScore s = score_item_verdicts(task, asked, v);
  ASSERT_TRUE(s.score.has_value());
  EXPECT_DOUBLE_EQ(*s.score, 0.5);
  EXPECT_EQ(s.not_judged, (std::vector<std::string>{"9"}));
  EXPECT_EQ(s.dropped, 2);
  task.missing = MissingItem::kPasses;  // role adherence: only the breaks are named
  EXPECT_DOUBLE_EQ(*score_item_verdicts(task, asked, v).score, 2.0 / 3.0);
  task.yes_passes = false;  // knowledge retention: "yes" is a forgotten fact
  task.missing = MissingItem::kLeftOut;
  s = score_item_verdicts(task, asked, v);
  EXPECT_DOUBLE_EQ(*s.score, 0.5);
  EXPECT_TRUE(s.not_judged.empty());
  // Nothing counted: no score (DeepEval's 1 is not given).
  EXPECT_FALSE(score_item_verdicts(task, asked, ItemVerdicts{}).score.has_value());
}

TEST(ConversationTaskTest, FoundItemsCountEveryReadableVerdict) {
  const ConversationTask* task = find_conversation_task("deepeval_conversation_completeness");
  ASSERT_NE(task, nullptr);
  ItemVerdicts v{{{"book", "yes", ""}, {"book", "no", ""}, {"pay", "maybe", ""}}, "", ""};
  ItemScore s = score_item_verdicts(*task, {}, v);
  EXPECT_DOUBLE_EQ(*s.score, 0.5);
  EXPECT_EQ(s.dropped, 1);
  EXPECT_EQ(find_conversation_task("faithfulness"), nullptr);
}

TEST(ConversationTaskTest, AnItemMayBeWrittenWithItsKindsWord) {
  ConversationTask calls{"t", "", TaskItems::kToolCalls, MissingItem::kNotJudged, true, "", ""};
  // "call 2" is call 2; "message 1" names a message, not a call, and is dropped.
  ItemVerdicts v{{{"Call 2", "no", ""}, {"message 1", "yes", ""}}, "", ""};
  ItemScore s = score_item_verdicts(calls, {"1", "2"}, v);
  EXPECT_EQ(s.failed, (std::vector<std::string>{"2"}));
  EXPECT_EQ(s.not_judged, (std::vector<std::string>{"1"}));
  EXPECT_EQ(s.dropped, 1);
  ConversationTask messages = calls;
  messages.items = TaskItems::kAssistantMessages;
  s = score_item_verdicts(messages, {"1", "2"}, v);
  EXPECT_EQ(s.passed, (std::vector<std::string>{"1"}));
}

}  // namespace
}  // namespace ragmeter
