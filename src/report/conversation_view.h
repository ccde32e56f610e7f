// A results row's conversation as the report's sample page shows it: the messages read by
// the one reader of the three input shapes (conversation.h), so that the page needs no
// knowledge of ragas's, OpenAI's or DeepEval's field names, and a message's index is the
// one the turn-by-turn evidence names ("message").
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace ragmeter::report_internal {

// {"format", "messages": [{"role", "content", "tool_calls": [{"name", "args"}],
// "contexts", "tool_call_id"}], "reference_tool_calls"?, "reference_topics"?}, the
// optional members present only when given; null for a single-turn row, a rejected row, or
// one whose conversation cannot be read.
nlohmann::ordered_json conversation_view(const nlohmann::ordered_json& row);

// The first user message's text, the conversation's "question" in the sample table; empty
// when there is none.
std::string conversation_opening(const nlohmann::ordered_json& view);

}  // namespace ragmeter::report_internal
