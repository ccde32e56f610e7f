#include "run/conversation_run.h"

#include <utility>

namespace ragmeter::run {
namespace {

using Json = nlohmann::ordered_json;

void add_tokens(std::optional<std::int64_t>* sum, const std::optional<std::int64_t>& value) {
  if (value) *sum = sum->value_or(0) + *value;
}

}  // namespace

StatusOr<std::optional<ConversationRun>> ConversationRun::from_row(const Json& fields) {
  RAGMETER_ASSIGN_OR_RETURN(std::optional<Conversation> conversation, conversation_from_json(fields));
  ConversationRun run;
  if (conversation) {
    for (const Message& message : conversation->messages) {
      if (message.role == Role::kSystem && run.scripted_users_.empty()) {
        run.messages_.push_back({{"role", "system"}, {"content", message.content}});
      } else if (message.role == Role::kUser) {
        run.scripted_users_.push_back(message.content);
      }
    }
    if (run.scripted_users_.empty()) {
      const char* field = fields.contains("messages") ? "messages" : fields.contains("turns") ? "turns" : "user_input";
      return invalid_argument(std::string("field '") + field +
                              "': the conversation has no user message to send to the target");
    }
    return std::optional<ConversationRun>(std::move(run));
  }
  RAGMETER_ASSIGN_OR_RETURN(run.scenario_, user_scenario_from_row(fields));
  if (!run.scenario_) return std::optional<ConversationRun>();
  return std::optional<ConversationRun>(std::move(run));
}

bool ConversationRun::add_next_scripted_user() {
  if (next_scripted_ >= scripted_users_.size()) return false;
  add_user(scripted_users_[next_scripted_++]);
  return true;
}

void ConversationRun::add_user(std::string text) {
  messages_.push_back({{"role", "user"}, {"content", std::move(text)}});
  ++user_turns_;
}

void ConversationRun::add_reply(const TargetAnswer& answer, double latency_ms) {
  Json message = {{"role", "assistant"}, {"content", answer.response}};
  if (!answer.tool_calls.empty()) {
    Json calls = Json::array();
    for (std::size_t k = 0; k < answer.tool_calls.size(); ++k) {
      calls.push_back(openai_tool_call_json(answer.tool_calls[k], "call_" + std::to_string(user_turns_) +
                                                                      "_" + std::to_string(k + 1)));
    }
    message["tool_calls"] = std::move(calls);
  }
  if (answer.contexts) message["retrieved_contexts"] = retrieved_contexts_json(answer);
  if (answer.context_ids) message["retrieved_context_ids"] = *answer.context_ids;
  messages_.push_back(std::move(message));
  ++replies_;
  add_tokens(&prompt_tokens_, answer.prompt_tokens);
  add_tokens(&completion_tokens_, answer.completion_tokens);
  latency_ms_ += latency_ms;
  last_ = answer;
}

TargetRequest ConversationRun::request(const TargetRequest& base) const {
  TargetRequest out = base;
  out.question = messages_.back().value("content", "");
  out.messages = std::make_shared<const Json>(messages_);
  return out;
}

void ConversationRun::end_simulation(std::string ended, std::string reason) {
  simulation_ = {{"user_turns", user_turns_}, {"ended", std::move(ended)}, {"reason", std::move(reason)}};
}

TargetAnswer ConversationRun::result() const {
  TargetAnswer out;
  out.response = last_.response;
  out.contexts = last_.contexts;
  out.context_ids = last_.context_ids;
  out.image_contexts = last_.image_contexts;
  out.prompt_tokens = prompt_tokens_;
  out.completion_tokens = completion_tokens_;
  out.conversation = messages_;
  out.simulation = simulation_;
  return out;
}

}  // namespace ragmeter::run
