// A conversation row's run (src/run/conversation_run.h): its progress, kept in the answer
// record after every answered turn, and resuming from it. The run loop's use of it is
// checked end to end by tests/run/test_run_conversations.py (a run cut short, a kill).
#include "run/conversation_run.h"

#include <gtest/gtest.h>

namespace ragmeter::run {
namespace {

using Json = nlohmann::ordered_json;

ConversationRun scripted(const Json& row) {
  auto run = ConversationRun::from_row(row);
  EXPECT_TRUE(run.ok());
  return **run;
}

const Json kRow = {{"messages", Json::array({{{"role", "system"}, {"content", "be brief"}},
                                             {{"role", "user"}, {"content", "one"}},
                                             {{"role", "user"}, {"content", "two"}}})}};

TargetAnswer reply(std::string text, std::vector<std::string> contexts) {
  TargetAnswer answer;
  answer.response = std::move(text);
  answer.contexts = std::move(contexts);
  answer.prompt_tokens = 10;
  return answer;
}

TEST(ConversationRun, ResumesFromItsProgressWithTheHistoryTheLastReplyAndTheSums) {
  ConversationRun first = scripted(kRow);
  ASSERT_TRUE(first.add_next_scripted_user());
  first.add_reply(reply("reply one", {"passage A"}), 12.5);
  ConversationRun resumed = scripted(kRow);
  ASSERT_TRUE(resumed.resume(Json::parse(first.progress().dump())));
  EXPECT_EQ(resumed.messages(), first.messages());
  EXPECT_EQ(resumed.replies(), 1);
  EXPECT_EQ(resumed.latency_ms(), 12.5);
  // The next user message is the row's second, and a finished run equals an uncut one.
  ASSERT_TRUE(resumed.add_next_scripted_user());
  EXPECT_EQ(resumed.messages().back()["content"], "two");
  EXPECT_FALSE(resumed.add_next_scripted_user());  // the row has two user messages
  ConversationRun again = scripted(kRow);
  ASSERT_TRUE(again.resume(first.progress()));
  TargetAnswer result = again.result();
  EXPECT_EQ(result.response, "reply one");
  ASSERT_TRUE(result.contexts.has_value());
  EXPECT_EQ(*result.contexts, std::vector<std::string>{"passage A"});
  EXPECT_EQ(result.prompt_tokens, 10);
}

TEST(ConversationRun, RefusesProgressThatDoesNotReadOrDoesNotFitTheRow) {
  ConversationRun first = scripted(kRow);
  first.add_next_scripted_user();
  first.add_reply(reply("reply one", {}), 1);
  Json progress = first.progress();

  Json other_user = progress;
  other_user["messages"][1]["content"] = "not the row's";
  Json no_reply = progress;
  no_reply["messages"].erase(no_reply["messages"].size() - 1);
  Json wrong_count = progress;
  wrong_count["user_turns"] = 2;
  for (const Json& bad : {other_user, no_reply, wrong_count, Json("not an object"), Json::object()}) {
    ConversationRun run = scripted(kRow);
    EXPECT_FALSE(run.resume(bad)) << bad.dump();
    EXPECT_EQ(run.replies(), 0);  // left as it was: the conversation starts over
    EXPECT_EQ(run.messages().size(), 1u);  // the system message
  }
}

}  // namespace
}  // namespace ragmeter::run
