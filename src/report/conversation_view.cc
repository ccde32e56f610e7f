// A results row's conversation for the report (conversation_view.h).
#include "report/conversation_view.h"

#include <vector>

#include "ragmeter/conversation.h"

namespace ragmeter::report_internal {
namespace {

using Json = nlohmann::ordered_json;

Json calls_json(const std::vector<ToolCall>& calls) {
  Json out = Json::array();
  for (const ToolCall& call : calls) {
    Json entry = {{"name", call.name}, {"args", call.args}};
    if (!call.output.is_null()) entry["output"] = call.output;
    out.push_back(std::move(entry));
  }
  return out;
}

Json message_json(const Message& m) {
  Json out = {{"role", role_name(m.role)}, {"content", m.content}};
  if (!m.tool_calls.empty()) out["tool_calls"] = calls_json(m.tool_calls);
  if (m.retrieved_contexts) out["contexts"] = *m.retrieved_contexts;
  if (!m.tool_call_id.empty()) out["tool_call_id"] = m.tool_call_id;
  return out;
}

}  // namespace

Json conversation_view(const Json& row) {
  if (!row.is_object() || row.contains("row_error")) return nullptr;
  auto read = conversation_from_json(row);
  if (!read.ok() || !read->has_value()) return nullptr;
  const Conversation& conversation = **read;
  Json messages = Json::array();
  for (const Message& m : conversation.messages) messages.push_back(message_json(m));
  Json view = {{"format", conversation_format_name(conversation.format)},
               {"messages", std::move(messages)}};
  if (conversation.reference_tool_calls) {
    view["reference_tool_calls"] = calls_json(*conversation.reference_tool_calls);
  }
  if (conversation.reference_topics) view["reference_topics"] = *conversation.reference_topics;
  return view;
}

std::string conversation_opening(const Json& view) {
  if (!view.is_object() || !view.contains("messages")) return {};
  for (const Json& m : view["messages"]) {
    if (m.value("role", "") == "user") return m.value("content", "");
  }
  return {};
}

}  // namespace ragmeter::report_internal
