// Reading conversations: the three input shapes give the same calls; bad input names the
// field and the message.
#include "ragmeter/conversation.h"

#include <gtest/gtest.h>

#include "ragmeter/sample.h"

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

Conversation read(const char* text) {
  auto conversation = conversation_from_json(Json::parse(text));
  EXPECT_TRUE(conversation.ok()) << conversation.status().message();
  EXPECT_TRUE(conversation.value().has_value());
  return **conversation;
}

std::string error_of(const char* text) {
  auto conversation = conversation_from_json(Json::parse(text));
  EXPECT_FALSE(conversation.ok());
  return conversation.ok() ? std::string() : conversation.status().message();
}

TEST(ConversationTest, TheThreeShapesGiveTheSameCallsInOrder) {
  const Conversation ragas = read(R"({"user_input": [
      {"type": "human", "content": "go"},
      {"type": "ai", "content": "", "tool_calls": [{"name": "a", "args": {"x": 1}},
                                                   {"name": "b", "args": {}}]},
      {"type": "tool", "content": "1"}, {"type": "tool", "content": "2"},
      {"type": "ai", "content": "done", "retrieved_contexts": ["c1"]}],
    "reference_tool_calls": [{"name": "a", "args": {"x": 1}}]})");
  const Conversation openai = read(R"({"messages": [
      {"role": "system", "content": "be brief"}, {"role": "user", "content": "go"},
      {"role": "assistant", "content": null, "tool_calls": [
        {"id": "1", "type": "function", "function": {"name": "a", "arguments": "{\"x\": 1}"}},
        {"id": "2", "type": "function", "function": {"name": "b", "arguments": "{}"}}]},
      {"role": "tool", "tool_call_id": "1", "content": "1"},
      {"role": "tool", "tool_call_id": "2", "content": "2"},
      {"role": "assistant", "content": [{"type": "text", "text": "do"}, {"type": "text", "text": "ne"}]}],
    "reference_tool_calls": [{"type": "function", "function": {"name": "a", "arguments": "{\"x\": 1}"}}]})");
  const Conversation deepeval = read(R"({"turns": [
      {"role": "user", "content": "go"},
      {"role": "assistant", "content": "done", "retrieval_context": ["c1"],
       "tools_called": [{"name": "a", "input_parameters": {"x": 1}, "output": "1"}, {"name": "b"}]}],
    "expected_tools": [{"name": "a", "input_parameters": {"x": 1}}]})");
  for (const Conversation* c : {&ragas, &openai, &deepeval}) {
    const std::vector<ToolCall> calls = c->tool_calls();
    ASSERT_EQ(calls.size(), 2u) << conversation_format_name(c->format);
    EXPECT_EQ(calls[0].name, "a");
    EXPECT_EQ(calls[0].args, Json::parse(R"({"x": 1})"));
    EXPECT_EQ(calls[1].name, "b");
    EXPECT_EQ(calls[1].args, Json::object());
    ASSERT_TRUE(c->reference_tool_calls.has_value());
    ASSERT_EQ(c->reference_tool_calls->size(), 1u);
    EXPECT_EQ((*c->reference_tool_calls)[0].name, "a");
  }
  EXPECT_EQ(openai.messages.back().content, "do\nne");
  EXPECT_EQ(openai.messages.front().role, Role::kSystem);
  ASSERT_TRUE(deepeval.messages.back().retrieved_contexts.has_value());
  EXPECT_EQ(*deepeval.messages.back().retrieved_contexts, std::vector<std::string>{"c1"});
  EXPECT_EQ(*ragas.messages.back().retrieved_contexts, std::vector<std::string>{"c1"});
  EXPECT_EQ(deepeval.tool_calls()[0].output, Json("1"));
}

TEST(ConversationTest, ASingleTurnRowIsNoConversation) {
  auto single = conversation_from_json(Json::parse(R"({"user_input": "hi", "response": "x"})"));
  ASSERT_TRUE(single.ok());
  EXPECT_FALSE(single->has_value());
}

TEST(ConversationTest, BadInputNamesTheFieldAndTheMessage) {
  EXPECT_EQ(error_of(R"({"user_input": [{"type": "human", "content": "x"},
                                         {"type": "tool", "content": "y"}]})"),
            "field 'user_input': message 1: a tool message that follows no tool call (it must "
            "come right after an assistant message with tool calls, or after another tool message)");
  // An ai message without tool calls is no call to answer either.
  EXPECT_NE(error_of(R"({"user_input": [{"type": "ai", "content": ""}, {"type": "tool", "content": "y"}]})")
                .find("field 'user_input': message 1: a tool message that follows no tool call"),
            std::string::npos);
  EXPECT_EQ(error_of(R"({"user_input": [{"type": "robot", "content": "x"}]})"),
            "field 'user_input': message 0: unknown type 'robot' (ragas's messages are human, ai "
            "or tool)");
  EXPECT_NE(error_of(R"({"messages": [{"role": "assistant", "tool_calls": [
                 {"id": "1", "function": {"name": "f", "arguments": "{x: 1}"}}]}]})")
                .find("field 'messages': message 0: tool call 0: 'function.arguments' is not JSON"),
            std::string::npos);
  EXPECT_EQ(error_of(R"({"messages": [{"role": "assistant", "tool_calls": [
                 {"id": "1", "function": {"name": "f", "arguments": "[1]"}}]}]})"),
            "field 'messages': message 0: tool call 0: 'function.arguments' is an array, "
            "expected a JSON object");
  EXPECT_EQ(error_of(R"({"messages": [{"role": "assistant", "tool_calls": [
                 {"id": "1", "function": {"name": "f", "arguments": "{}"}}]},
                 {"role": "tool", "content": "r"}]})"),
            "field 'messages': message 1: a tool message without 'tool_call_id'");
  EXPECT_EQ(error_of(R"({"turns": [{"role": "user", "content": 3}]})"),
            "field 'turns': message 0: 'content' is a number, expected a string");
  EXPECT_EQ(error_of(R"({"user_input": [], "reference_tool_calls": [{"args": {}}]})"),
            "field 'reference_tool_calls': tool call 0 has no 'name' string");
}

TEST(ConversationTest, ASampleFromAConversationRowKeepsItsReference) {
  auto sample = sample_from_json(Json::parse(
      R"({"user_input": [{"type": "human", "content": "hi"}], "reference": "greets back"})"));
  ASSERT_TRUE(sample.ok()) << sample.status().message();
  ASSERT_NE(sample->conversation, nullptr);
  EXPECT_FALSE(sample->user_input.has_value());
  EXPECT_EQ(sample->reference(), "greets back");
}

}  // namespace
}  // namespace ragmeter
