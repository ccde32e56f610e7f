// Row -> Conversation: ragas's multi-turn sample, OpenAI chat messages, DeepEval's turns.
#include "ragmeter/conversation.h"

#include <algorithm>
#include <functional>

#include <fmt/format.h>

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

// Where in the row a fault is: the column, and the message's index within it.
struct Place {
  std::string_view column;
  std::size_t message = 0;
  Status error(std::string_view what) const {
    return invalid_argument(fmt::format("field '{}': message {}: {}", column, message, what));
  }
};

Status column_error(std::string_view column, std::string_view what) {
  return invalid_argument(fmt::format("field '{}': {}", column, what));
}

const Json* member(const Json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

std::string a_type_name(const Json& value) {
  const std::string name = value.type_name();
  return (name == "object" || name == "array" ? "an " : "a ") + name;
}

// A message's text: a string, absent/null (empty), or, in OpenAI messages, a list of
// content parts whose `text` parts are joined by newlines.
StatusOr<std::string> message_text(const Json& message, const Place& at, bool parts_allowed) {
  const Json* content = member(message, "content");
  if (content == nullptr) return std::string();
  if (content->is_string()) return content->get<std::string>();
  if (parts_allowed && content->is_array()) {
    std::string text;
    for (const Json& part : *content) {
      const Json* part_text = member(part, "text");
      if (part_text == nullptr) continue;  // an image or audio part: no text to score
      if (!part_text->is_string()) return at.error("a content part's 'text' is not a string");
      if (!text.empty()) text += '\n';
      text += part_text->get<std::string>();
    }
    return text;
  }
  return at.error("'content' is " + a_type_name(*content) + ", expected a string");
}

StatusOr<std::vector<std::string>> string_list(const Json& value, const Place& at,
                                               std::string_view key) {
  if (!value.is_array()) {
    return at.error(fmt::format("'{}' is {}, expected a list of strings", key, a_type_name(value)));
  }
  std::vector<std::string> out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (!value[i].is_string()) {
      return at.error(fmt::format("'{}' item {} is {}, expected a string", key, i,
                                  a_type_name(value[i])));
    }
    out.push_back(value[i].get<std::string>());
  }
  return out;
}

// An assistant turn's own retrieved passages: `retrieved_contexts`, or DeepEval's
// `retrieval_context`.
Status read_turn_contexts(const Json& message, const Place& at, Message* out) {
  for (std::string_view key : {"retrieved_contexts", "retrieval_context", "retrievalContext"}) {
    if (const Json* contexts = member(message, key)) {
      RAGMETER_ASSIGN_OR_RETURN(out->retrieved_contexts, string_list(*contexts, at, key));
      return ok_status();
    }
  }
  return ok_status();
}

// A tool call in any of the three shapes: {"name", "args"} (ragas), {"name",
// "input_parameters", "output"} (DeepEval), {"id", "function": {"name", "arguments": "<JSON>"}}
// (OpenAI). Arguments must be a JSON object, as ragas's ToolCall.args (a dict) and DeepEval's
// input_parameters are.
StatusOr<ToolCall> read_tool_call(const Json& value, const std::string& where,
                                  const std::function<Status(std::string_view)>& error) {
  if (!value.is_object()) return error(where + " is " + a_type_name(value) + ", expected an object");
  ToolCall call;
  const Json* source = &value;
  Json parsed_arguments;
  const Json* args = nullptr;
  std::string args_key;
  if (const Json* function = member(value, "function")) {
    if (!function->is_object()) return error(where + ": 'function' is not an object");
    source = function;
    if (const Json* arguments = member(*function, "arguments")) {
      if (!arguments->is_string()) {
        return error(where + ": 'function.arguments' is " + a_type_name(*arguments) +
                     ", expected a string holding a JSON object");
      }
      try {
        parsed_arguments = Json::parse(arguments->get_ref<const std::string&>());
      } catch (const Json::parse_error& e) {
        return error(where + ": 'function.arguments' is not JSON (" + e.what() + ")");
      }
      args = &parsed_arguments;
      args_key = "function.arguments";
    }
  } else {
    for (std::string_view key : {"args", "input_parameters", "inputParameters"}) {
      if ((args = member(value, key)) != nullptr) {
        args_key = key;
        break;
      }
    }
  }
  const Json* name = member(*source, "name");
  if (name == nullptr || !name->is_string()) return error(where + " has no 'name' string");
  call.name = name->get<std::string>();
  if (args != nullptr) {
    if (!args->is_object()) {
      return error(where + ": '" + args_key + "' is " + a_type_name(*args) + ", expected a JSON object");
    }
    call.args = *args;
  }
  if (const Json* output = member(value, "output")) call.output = *output;
  if (const Json* id = member(value, "id"); id != nullptr && id->is_string()) {
    call.id = id->get<std::string>();
  }
  return call;
}

Status read_message_tool_calls(const Json& message, std::string_view key, const Place& at,
                               Message* out) {
  const Json* calls = member(message, key);
  if (calls == nullptr) return ok_status();
  if (!calls->is_array()) return at.error(fmt::format("'{}' is not a list", key));
  for (std::size_t i = 0; i < calls->size(); ++i) {
    RAGMETER_ASSIGN_OR_RETURN(
        ToolCall call,
        read_tool_call((*calls)[i], fmt::format("tool call {}", i),
                       [&at](std::string_view what) { return at.error(what); }));
    out->tool_calls.push_back(std::move(call));
  }
  return ok_status();
}

StatusOr<std::vector<ToolCall>> read_tool_call_list(const Json& value, std::string_view column) {
  if (!value.is_array()) return column_error(column, "expected a list of tool calls, got " + a_type_name(value));
  std::vector<ToolCall> out;
  for (std::size_t i = 0; i < value.size(); ++i) {
    RAGMETER_ASSIGN_OR_RETURN(
        ToolCall call,
        read_tool_call(value[i], fmt::format("tool call {}", i),
                       [column](std::string_view what) { return column_error(column, what); }));
    out.push_back(std::move(call));
  }
  return out;
}

StatusOr<std::string> role_of(const Json& message, std::string_view key, const Place& at) {
  const Json* role = member(message, key);
  if (role == nullptr) return at.error(fmt::format("no '{}'", key));
  if (!role->is_string()) return at.error(fmt::format("'{}' is not a string", key));
  return role->get<std::string>();
}

// The message tool messages answer: the last assistant message, when only tool messages
// came after it; nullptr when the previous message is neither (ragas's rule: a tool message
// follows an ai message with tool calls, or another tool message).
const Message* answered_call_message(const std::vector<Message>& messages) {
  for (auto it = messages.rbegin(); it != messages.rend(); ++it) {
    if (it->role == Role::kTool) continue;
    if (it->role == Role::kAssistant && !it->tool_calls.empty()) return &*it;
    return nullptr;
  }
  return nullptr;
}

Status check_tool_message(const std::vector<Message>& before, const Message& tool,
                          const Place& at, bool match_ids) {
  const Message* caller = answered_call_message(before);
  if (caller == nullptr) {
    return at.error("a tool message that follows no tool call (it must come right after an "
                    "assistant message with tool calls, or after another tool message)");
  }
  if (!match_ids) return ok_status();
  if (tool.tool_call_id.empty()) return at.error("a tool message without 'tool_call_id'");
  for (const ToolCall& call : caller->tool_calls) {
    if (call.id == tool.tool_call_id) return ok_status();
  }
  return at.error("'tool_call_id' '" + tool.tool_call_id +
                  "' names no tool call of the assistant message it follows");
}

// What sets one input shape's messages apart from another's.
struct MessageRules {
  std::string_view role_key;  // "type" (ragas) or "role"
  std::vector<std::pair<std::string_view, Role>> roles;
  std::string_view roles_hint;  // for the unknown-role error
  std::vector<std::string_view> call_keys;  // where an assistant message's calls are
  bool content_parts;  // OpenAI's list of content parts
  bool match_ids;      // a tool message names its call (OpenAI)
};

const MessageRules kRagasRules = {
    "type", {{"human", Role::kUser}, {"ai", Role::kAssistant}, {"tool", Role::kTool}},
    "ragas's messages are human, ai or tool", {"tool_calls"}, false, false};
const MessageRules kOpenAiRules = {
    "role",
    {{"system", Role::kSystem}, {"developer", Role::kSystem}, {"user", Role::kUser},
     {"assistant", Role::kAssistant}, {"tool", Role::kTool}},
    "system, developer, user, assistant or tool", {"tool_calls"}, true, true};
// DeepEval's pydantic aliases: toolsCalled beside tools_called.
const MessageRules kDeepEvalRules = {
    "role", {{"user", Role::kUser}, {"assistant", Role::kAssistant}},
    "DeepEval's turns are user or assistant", {"tools_called", "toolsCalled"}, false, false};

StatusOr<Message> read_message(const Json& value, const Place& at, const MessageRules& rules) {
  if (!value.is_object()) return at.error("is " + a_type_name(value) + ", expected an object");
  RAGMETER_ASSIGN_OR_RETURN(std::string role, role_of(value, rules.role_key, at));
  auto known = std::find_if(rules.roles.begin(), rules.roles.end(),
                            [&role](const auto& entry) { return entry.first == role; });
  if (known == rules.roles.end()) {
    return at.error(fmt::format("unknown {} '{}' ({})", rules.role_key, role, rules.roles_hint));
  }
  Message message;
  message.role = known->second;
  RAGMETER_ASSIGN_OR_RETURN(message.content, message_text(value, at, rules.content_parts));
  for (std::string_view key : rules.call_keys) {
    if (member(value, key) == nullptr) continue;
    if (message.role != Role::kAssistant) {
      return at.error(fmt::format("only assistant messages carry '{}'", key));
    }
    RAGMETER_RETURN_IF_ERROR(read_message_tool_calls(value, key, at, &message));
  }
  if (message.role == Role::kAssistant) RAGMETER_RETURN_IF_ERROR(read_turn_contexts(value, at, &message));
  if (message.role == Role::kTool && rules.match_ids) {
    const Json* id = member(value, "tool_call_id");
    if (id != nullptr && !id->is_string()) return at.error("'tool_call_id' is not a string");
    if (id != nullptr) message.tool_call_id = id->get<std::string>();
  }
  return message;
}

StatusOr<std::vector<Message>> read_messages(const Json& list, std::string_view column,
                                             const MessageRules& rules) {
  if (!list.is_array()) return column_error(column, "expected a list of messages, got " + a_type_name(list));
  std::vector<Message> messages;
  messages.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Place at{column, i};
    RAGMETER_ASSIGN_OR_RETURN(Message message, read_message(list[i], at, rules));
    if (message.role == Role::kTool) {
      RAGMETER_RETURN_IF_ERROR(check_tool_message(messages, message, at, rules.match_ids));
    }
    messages.push_back(std::move(message));
  }
  return messages;
}

Status read_references(const Json& fields, Conversation* out) {
  for (std::string_view column : {"reference_tool_calls", "expected_tools", "expectedTools"}) {
    if (const Json* calls = member(fields, column)) {
      RAGMETER_ASSIGN_OR_RETURN(out->reference_tool_calls, read_tool_call_list(*calls, column));
      break;
    }
  }
  if (const Json* topics = member(fields, "reference_topics")) {
    auto list = string_list(*topics, Place{"reference_topics", 0}, "reference_topics");
    if (!list.ok()) return column_error("reference_topics", "expected a list of strings");
    out->reference_topics = std::move(list).value();
  }
  for (std::string_view column : {"chatbot_role", "scenario", "expected_outcome", "user_description",
                                  "task"}) {
    const Json* text = member(fields, column);
    if (text == nullptr) continue;
    if (!text->is_string()) return column_error(column, "expected text, got " + a_type_name(*text));
    out->texts.emplace(column, text->get<std::string>());
  }
  return ok_status();
}

}  // namespace

const char* role_name(Role role) {
  switch (role) {
    case Role::kSystem: return "system";
    case Role::kUser: return "user";
    case Role::kAssistant: return "assistant";
    case Role::kTool: return "tool";
  }
  return "unknown";
}

const char* conversation_format_name(ConversationFormat format) {
  switch (format) {
    case ConversationFormat::kRagas: return "ragas";
    case ConversationFormat::kOpenAi: return "openai";
    case ConversationFormat::kDeepEval: return "deepeval";
  }
  return "unknown";
}

std::vector<ToolCall> Conversation::tool_calls() const {
  std::vector<ToolCall> out;
  for (const Message& message : messages) {
    out.insert(out.end(), message.tool_calls.begin(), message.tool_calls.end());
  }
  return out;
}

StatusOr<std::optional<Conversation>> conversation_from_json(const nlohmann::ordered_json& fields) {
  Conversation conversation;
  if (const Json* messages = member(fields, "messages")) {
    conversation.format = ConversationFormat::kOpenAi;
    RAGMETER_ASSIGN_OR_RETURN(conversation.messages,
                              read_messages(*messages, "messages", kOpenAiRules));
  } else if (const Json* turns = member(fields, "turns")) {
    conversation.format = ConversationFormat::kDeepEval;
    RAGMETER_ASSIGN_OR_RETURN(conversation.messages,
                              read_messages(*turns, "turns", kDeepEvalRules));
  } else if (const Json* input = member(fields, "user_input"); input != nullptr && input->is_array()) {
    conversation.format = ConversationFormat::kRagas;
    RAGMETER_ASSIGN_OR_RETURN(conversation.messages,
                              read_messages(*input, "user_input", kRagasRules));
  } else {
    return std::optional<Conversation>();
  }
  RAGMETER_RETURN_IF_ERROR(read_references(fields, &conversation));
  return std::optional<Conversation>(std::move(conversation));
}

StatusOr<std::vector<ToolCall>> tool_calls_from_json(const nlohmann::ordered_json& list,
                                                     std::string_view field) {
  return read_tool_call_list(list, field);
}

nlohmann::ordered_json openai_tool_call_json(const ToolCall& call, const std::string& fallback_id) {
  return Json{{"id", call.id.empty() ? fallback_id : call.id},
              {"type", "function"},
              {"function", {{"name", call.name}, {"arguments", call.args.dump()}}}};
}

}  // namespace ragmeter
