// A conversation's assistant turns as single-turn samples (conversation_turns.h).
#include "core/conversation_turns.h"

#include <optional>
#include <string>
#include <utility>

namespace ragmeter {
namespace {

// The turn that starts at messages[first] (a user message, or the conversation's start)
// and ends before `end`; nullopt when no assistant message in it has text.
std::optional<ConversationTurn> turn_of(const Sample& sample, std::size_t first,
                                        std::size_t end) {
  const std::vector<Message>& messages = sample.conversation->messages;
  ConversationTurn turn;
  std::string response;
  std::vector<std::string> contexts;
  bool any_contexts = false;
  bool any_text = false;
  for (std::size_t i = first; i < end; ++i) {
    const Message& m = messages[i];
    if (m.role == Role::kUser && i == first) turn.sample.user_input = m.content;
    if (m.role != Role::kAssistant) continue;
    if (m.retrieved_contexts) {
      any_contexts = true;
      contexts.insert(contexts.end(), m.retrieved_contexts->begin(), m.retrieved_contexts->end());
    }
    if (m.content.empty()) continue;
    if (any_text) response += "\n\n";
    response += m.content;
    any_text = true;
    turn.message = i;
  }
  if (!any_text) return std::nullopt;
  turn.sample.response = std::move(response);
  if (any_contexts) turn.sample.retrieved_contexts = std::move(contexts);
  turn.sample.language = sample.language;
  return turn;
}

}  // namespace

std::vector<ConversationTurn> conversation_turns(const Sample& sample) {
  std::vector<ConversationTurn> turns;
  if (!sample.conversation) return turns;
  const std::vector<Message>& messages = sample.conversation->messages;
  std::size_t first = 0;
  for (std::size_t i = 0; i <= messages.size(); ++i) {
    const bool boundary = i == messages.size() || (messages[i].role == Role::kUser && i > first);
    if (!boundary) continue;
    if (auto turn = turn_of(sample, first, i)) {
      turn->number = static_cast<int>(turns.size()) + 1;
      turns.push_back(std::move(*turn));
    }
    first = i;
  }
  return turns;
}

}  // namespace ragmeter
