// A multi-turn sample: a conversation of user, assistant and tool messages, the tool calls the
// assistant made, and what was expected of it.
//
// Three input shapes are read (docs/agents.md has an example of each):
//   - ragas's MultiTurnSample: `user_input` is a list of messages {"type": "human" | "ai" |
//     "tool", "content"}, an ai message's `tool_calls` a list of {"name", "args"};
//     `reference`, `reference_tool_calls`, `reference_topics` beside it.
//   - OpenAI chat completions: `messages` with `role` system | developer | user | assistant |
//     tool; an assistant's `tool_calls` are {"id", "type": "function", "function": {"name",
//     "arguments"}} whose `arguments` is a JSON string holding an object; a tool message's
//     `tool_call_id` names the call it answers.
//   - DeepEval's ConversationalTestCase: `turns` with `role` user | assistant, `content`,
//     `retrieval_context` and `tools_called` ({"name", "input_parameters", "output"}).
// Any assistant message may carry its own retrieved contexts (`retrieved_contexts`, or
// DeepEval's `retrieval_context`). Reference tool calls are `reference_tool_calls` (ragas) or
// `expected_tools` (DeepEval), each call in any of the three tool-call shapes.
// DeepEval's `chatbot_role`, `scenario`, `expected_outcome` and `user_description`, and the
// `task` of its task completion metric, are kept as texts (Conversation::texts).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/status.h"

namespace ragmeter {

// One tool call. `args` is always a JSON object, its keys in input order (ragas compares
// argument values by Python's str(), in which a nested object's key order shows).
struct ToolCall {
  std::string name;
  nlohmann::ordered_json args = nlohmann::ordered_json::object();
  // DeepEval's `output` of the call, when given (null otherwise).
  nlohmann::ordered_json output;
  std::string id;  // OpenAI's call id; empty when not given
};

enum class Role { kSystem, kUser, kAssistant, kTool };

// "system", "user", "assistant", "tool".
const char* role_name(Role role);

struct Message {
  Role role = Role::kUser;
  std::string content;
  std::vector<ToolCall> tool_calls;  // assistant messages only
  // The passages retrieved for this assistant turn; nullopt when the turn gave none.
  std::optional<std::vector<std::string>> retrieved_contexts;
  std::string tool_call_id;  // tool messages (OpenAI): the call they answer
};

enum class ConversationFormat { kRagas, kOpenAi, kDeepEval };

// "ragas", "openai", "deepeval".
const char* conversation_format_name(ConversationFormat format);

struct Conversation {
  ConversationFormat format = ConversationFormat::kRagas;
  std::vector<Message> messages;
  // The row's expected tool calls; nullopt when the row has none (an empty list is given
  // and means "no tool should be called").
  std::optional<std::vector<ToolCall>> reference_tool_calls;
  std::optional<std::vector<std::string>> reference_topics;
  // The conversation's other texts, by field name, when the row has them: DeepEval's
  // `chatbot_role`, `scenario`, `expected_outcome`, `user_description` and `task` (what
  // the conversation tasks of conversation_task.h show the judge).
  std::map<std::string, std::string, std::less<>> texts;

  // Every tool call of the assistant messages, in conversation order (what ragas and
  // DeepEval score as the predicted calls).
  std::vector<ToolCall> tool_calls() const;
};

// Reads a row's conversation. Returns nullopt when the row is single-turn: no `messages`
// or `turns` list and a `user_input` that is not a list. A row is read as OpenAI messages
// when it has `messages`, as DeepEval turns when it has `turns`, as ragas's sample when its
// `user_input` is a JSON array. On bad input returns InvalidArgument "field 'NAME': ..."
// naming the message by its 0-based index: a message that is not an object, an unknown
// role or type, a tool message that follows no tool call (or, in OpenAI messages, whose
// `tool_call_id` names no call of the assistant message it follows), tool-call arguments
// that are not JSON or not a JSON object, a text that is not a string. Thread-safe.
StatusOr<std::optional<Conversation>> conversation_from_json(const nlohmann::ordered_json& fields);

// Reads a list of tool calls in any of the three shapes above (a target's reply carries
// them so). InvalidArgument "field 'FIELD': tool call N ..." as conversation_from_json
// words a call that is not an object, has no name, or has arguments that are not a JSON
// object. Thread-safe.
StatusOr<std::vector<ToolCall>> tool_calls_from_json(const nlohmann::ordered_json& list,
                                                     std::string_view field);

// `call` as OpenAI writes it: {"id", "type": "function", "function": {"name", "arguments":
// "<the args as JSON text>"}}; `fallback_id` when the call has no id. conversation_from_json
// reads it back as the same call.
nlohmann::ordered_json openai_tool_call_json(const ToolCall& call, const std::string& fallback_id);

}  // namespace ragmeter
