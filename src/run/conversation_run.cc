#include "run/conversation_run.h"

#include <algorithm>
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

Json ConversationRun::progress() const {
  Json out = {{"messages", messages_}, {"user_turns", user_turns_}, {"next_scripted", next_scripted_},
              {"latency_ms", latency_ms_}};
  if (prompt_tokens_) out["prompt_tokens"] = *prompt_tokens_;
  if (completion_tokens_) out["completion_tokens"] = *completion_tokens_;
  return out;
}

namespace {

// The reply `message` (as add_reply wrote it) as the target's answer.
TargetAnswer answer_of(const Json& message) {
  TargetAnswer out;
  out.response = message.value("content", "");
  if (auto contexts = message.find("retrieved_contexts"); contexts != message.end() && contexts->is_array()) {
    out.contexts.emplace();
    for (const Json& item : *contexts) {
      if (item.is_object()) out.image_contexts.push_back(out.contexts->size());
      out.contexts->push_back(item.is_string() ? item.get<std::string>() : item.dump());
    }
  }
  if (auto ids = message.find("retrieved_context_ids"); ids != message.end()) {
    out.context_ids = ids->get<std::vector<std::string>>();
  }
  return out;
}

// The user messages of `messages` in order.
std::vector<std::string> user_texts(const Json& messages) {
  std::vector<std::string> out;
  for (const Json& message : messages) {
    if (message.value("role", "") == "user") out.push_back(message.value("content", ""));
  }
  return out;
}

}  // namespace

bool ConversationRun::resume(const Json& progress) {
  try {
    const Json& messages = progress.at("messages");
    const auto next_scripted = progress.at("next_scripted").get<std::size_t>();
    const int user_turns = progress.at("user_turns").get<int>();
    if (!messages.is_array() || messages.empty() || messages.back().value("role", "") != "assistant") return false;
    const std::vector<std::string> users = user_texts(messages);
    if (static_cast<int>(users.size()) != user_turns) return false;
    if (!simulated() && (next_scripted != users.size() || next_scripted > scripted_users_.size() ||
                         !std::equal(users.begin(), users.end(), scripted_users_.begin()))) {
      return false;
    }
    ConversationRun resumed = *this;
    resumed.messages_ = messages;
    resumed.next_scripted_ = next_scripted;
    resumed.user_turns_ = user_turns;
    resumed.replies_ = 0;
    for (const Json& message : messages) resumed.replies_ += message.value("role", "") == "assistant";
    resumed.latency_ms_ = progress.value("latency_ms", 0.0);
    if (progress.contains("prompt_tokens")) resumed.prompt_tokens_ = progress["prompt_tokens"].get<std::int64_t>();
    if (progress.contains("completion_tokens")) {
      resumed.completion_tokens_ = progress["completion_tokens"].get<std::int64_t>();
    }
    resumed.last_ = answer_of(messages.back());
    *this = std::move(resumed);
    return true;
  } catch (const std::exception&) {
    return false;  // a value that does not read: the conversation starts over
  }
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
