// deepeval_task_completion: the reading of the judge's reply (the verdict as DeepEval 4.3.1's
// pydantic float reads it, values checked with pydantic 2.14 in DeepEval's venv:
// "0.8" -> 0.8, " .5 " -> 0.5, "1e-1" -> 0.1, "0.2_5" -> 0.25, "0x1" and "0,8" refused),
// the row's task and the skips. The scores against DeepEval's own code:
// tests/oracle/test_deepeval_task_completion.py.
#include <cmath>

#include <gtest/gtest.h>

#include "judge/llm/llm_requests.h"
#include "ragmeter/conversation_task.h"

namespace ragmeter {
namespace {

using Json = nlohmann::json;

StatusOr<TaskCompletion> read_verdict(const Json& verdict) {
  return read_task_completion_reply(
      {{"task", "book a train"}, {"outcome", "booked"}, {"verdict", verdict}, {"reason", "done"}});
}

TEST(TaskCompletionReplyTest, ANumberInTheRangeIsTheVerdictWithTheTexts) {
  const StatusOr<TaskCompletion> read = read_verdict(0.75);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->verdict, 0.75);
  EXPECT_EQ(read->task, "book a train");
  EXPECT_EQ(read->outcome, "booked");
  EXPECT_EQ(read->reason, "done");
  EXPECT_EQ(read->verdict_text, "");
  EXPECT_FALSE(read->task_given);
  EXPECT_EQ(read_verdict(1)->verdict, 1.0);  // an integer
  EXPECT_EQ(read_verdict(0)->verdict, 0.0);
  EXPECT_FALSE(std::signbit(read_verdict(-0.0)->verdict));  // -0 is 0
}

TEST(TaskCompletionReplyTest, AStringIsReadAsPythonsFloatReadsIt) {
  const std::pair<const char*, double> cases[] = {
      {"0.8", 0.8}, {" 0.8 ", 0.8}, {"0.8\n", 0.8}, {".5", 0.5},    {"+0.5", 0.5},
      {"1e-1", 0.1}, {"0.2_5", 0.25}, {"1", 1.0},    {"1.", 1.0},    {"-0", 0.0},
  };
  for (const auto& [text, value] : cases) {
    const StatusOr<TaskCompletion> read = read_verdict(text);
    ASSERT_TRUE(read.ok()) << text << ": " << read.status().message();
    EXPECT_EQ(read->verdict, value) << text;
    EXPECT_EQ(read->verdict_text, text);
  }
}

TEST(TaskCompletionReplyTest, AnythingElseFailsNamingWhatTheJudgeSent) {
  const std::pair<Json, const char*> cases[] = {
      {"high", "the judge's verdict \"high\" is not a number"},
      {"0x1", "the judge's verdict \"0x1\" is not a number"},
      {"0,8", "the judge's verdict \"0,8\" is not a number"},
      {"80%", "the judge's verdict \"80%\" is not a number"},
      {"", "the judge's verdict \"\" is not a number"},
      {"_1", "the judge's verdict \"_1\" is not a number"},
      {"1__0", "the judge's verdict \"1__0\" is not a number"},
      {"0._5", "the judge's verdict \"0._5\" is not a number"},
      {"+-0.5", "the judge's verdict \"+-0.5\" is not a number"},
      {true, "the judge's verdict true is not a number"},  // pydantic reads true as 1.0
      {nullptr, "the judge's verdict null is not a number"},
      {Json::array({0.5}), "the judge's verdict [0.5] is not a number"},
      {1.3, "the judge's verdict 1.3 is outside [0, 1]"},
      {-0.1, "the judge's verdict -0.1 is outside [0, 1]"},
      {"-0.5", "the judge's verdict \"-0.5\" is outside [0, 1]"},
      {"1.3", "the judge's verdict \"1.3\" is outside [0, 1]"},
      {"1_0", "the judge's verdict \"1_0\" is outside [0, 1]"},  // Python: 10.0
      {"nan", "the judge's verdict \"nan\" is outside [0, 1]"},
      {"inf", "the judge's verdict \"inf\" is outside [0, 1]"},
  };
  for (const auto& [verdict, message] : cases) {
    const StatusOr<TaskCompletion> read = read_verdict(verdict);
    ASSERT_FALSE(read.ok()) << verdict.dump();
    EXPECT_EQ(read.status().message(), message);
  }
  const StatusOr<TaskCompletion> missing =
      read_task_completion_reply({{"task", "t"}, {"outcome", "o"}, {"reason", "r"}});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "the judge's reply has no verdict");
  EXPECT_FALSE(read_task_completion_reply(Json::array({0.5})).ok());
}

Conversation read(const char* row) {
  auto conversation = conversation_from_json(nlohmann::ordered_json::parse(row));
  EXPECT_TRUE(conversation.ok() && conversation->has_value());
  return **conversation;
}

TEST(TaskCompletionRowTest, TheRowsTaskIsReadAndTheSkipsSayWhy) {
  const Conversation plain = read(R"({"messages": [{"role": "user", "content": "Book it."},
      {"role": "assistant", "content": "Booked."}]})");
  EXPECT_EQ(given_task(plain), std::nullopt);
  EXPECT_EQ(task_completion_skip(plain), "");
  const Conversation with_task = read(R"({"messages": [{"role": "user", "content": "Book it."},
      {"role": "assistant", "content": "Booked."}], "task": "Book one seat"})");
  EXPECT_EQ(given_task(with_task), "Book one seat");
  EXPECT_EQ(task_completion_skip(with_task), "");
  // A call-only assistant message is an outcome; a task given stands in for the user's.
  const Conversation calls_only = read(R"({"messages": [{"role": "system", "content": "s"},
      {"role": "assistant", "content": null, "tool_calls": [{"id": "1", "type": "function",
       "function": {"name": "book", "arguments": "{}"}}]}], "task": "Book"})");
  EXPECT_EQ(task_completion_skip(calls_only), "");
  const Conversation no_assistant = read(R"({"messages": [{"role": "user", "content": "Hi"}]})");
  EXPECT_EQ(task_completion_skip(no_assistant),
            "the conversation has no assistant message: no outcome to judge (DeepEval needs an "
            "actual output)");
  const Conversation no_user = read(R"({"messages": [{"role": "assistant", "content": "Hi"}]})");
  EXPECT_EQ(task_completion_skip(no_user),
            "the conversation has no user message with text and the row no `task`: no task to "
            "judge");
  const Conversation empty_task = read(R"({"messages": [{"role": "user", "content": "Book it."},
      {"role": "assistant", "content": "Booked."}], "task": ""})");
  EXPECT_EQ(task_completion_skip(empty_task),
            "field 'task' is empty (give the task or leave the field out)");
  auto bad = conversation_from_json(nlohmann::ordered_json::parse(
      R"({"messages": [{"role": "user", "content": "x"}], "task": 3})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("task"), std::string::npos) << bad.status().message();
}

}  // namespace
}  // namespace ragmeter
