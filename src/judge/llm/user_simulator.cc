// The simulated user (user_simulator.h): one prompt per user turn, the reply read as
// {"complete", "reason", "message"}.
#include "ragmeter/user_simulator.h"

#include "judge/llm/llm_requests.h"
#include "ragmeter/conversation.h"
#include "ragmeter/language.h"
#include "ragmeter_prompts.inc"

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

// Bumped when the prompts change in a way that should ask the simulated user again.
constexpr const char* kPromptVersion = "simulated-user-2";

StatusOr<std::string> text_field(const Json& row, const char* name) {
  auto it = row.find(name);
  if (it == row.end() || it->is_null()) return std::string();
  if (!it->is_string()) {
    return invalid_argument(std::string("field '") + name + "': expected a string, got " + it->type_name());
  }
  return it->get<std::string>();
}

bool has_user_message(const Json& messages) {
  for (const Json& message : messages) {
    if (message.is_object() && message.value("role", "") == "user") return true;
  }
  return false;
}

// The conversation as the judge's prompts show one: numbered messages with their roles,
// tool calls and arguments (system messages left out: the user does not see them).
std::string conversation_section(const Json& messages) {
  Json shown = Json::array();
  for (const Json& message : messages) {
    if (message.is_object() && message.value("role", "") != "system") shown.push_back(message);
  }
  auto conversation = conversation_from_json(Json{{"messages", shown}});
  if (!conversation.ok() || !conversation->has_value()) {  // run's own messages: never seen
    return judge_section("CONVERSATION", shown.dump(2));
  }
  return judge_conversation_section(**conversation);
}

std::string language_line(const UserScenario& scenario) {
  std::string code = detect_language(scenario.scenario + "\n" + scenario.user_description);
  std::string_view name = language_name(code);
  return name.empty() ? "LANGUAGE: write in the language of the SCENARIO.\n"
                      : "LANGUAGE: write in " + std::string(name) + ".\n";
}

nlohmann::json reply_schema() {
  return {{"type", "object"},
          {"properties",
           {{"complete", {{"type", "boolean"}}},
            {"reason", {{"type", "string"}}},
            {"message", {{"type", "string"}}}}},
          {"required", {"complete", "reason", "message"}}};
}

}  // namespace

StatusOr<std::optional<UserScenario>> user_scenario_from_row(const Json& row) {
  UserScenario out;
  RAGMETER_ASSIGN_OR_RETURN(out.scenario, text_field(row, "scenario"));
  RAGMETER_ASSIGN_OR_RETURN(out.expected_outcome, text_field(row, "expected_outcome"));
  RAGMETER_ASSIGN_OR_RETURN(out.user_description, text_field(row, "user_description"));
  if (out.scenario.empty()) return std::optional<UserScenario>();
  return std::optional<UserScenario>(std::move(out));
}

StatusOr<std::shared_ptr<UserSimulator>> UserSimulator::make(UserSimulatorOptions options) {
  if (options.chat == nullptr) return invalid_argument("the simulated user needs a chat model");
  return std::shared_ptr<UserSimulator>(new UserSimulator(std::move(options)));
}

std::string UserSimulator::prompt(const UserScenario& scenario, const Json& messages) {
  const bool opening = !has_user_message(messages);
  std::string out = std::string(prompts::k_simulated_user) + "\n";
  out += judge_section("SCENARIO", scenario.scenario);
  if (!scenario.user_description.empty()) out += judge_section("USER", scenario.user_description);
  if (!opening && !scenario.expected_outcome.empty()) {
    out += judge_section("EXPECTED OUTCOME", scenario.expected_outcome);
  }
  if (!opening) out += conversation_section(messages);
  out += language_line(scenario);
  if (opening) out += prompts::k_simulated_user_open;
  else if (scenario.expected_outcome.empty()) out += prompts::k_simulated_user_next_open_ended;
  else out += prompts::k_simulated_user_next;
  return out;
}

StatusOr<SimulatedUserTurn> UserSimulator::next(const UserScenario& scenario, const Json& messages) const {
  const bool opening = !has_user_message(messages);
  llm::ChatRequest request;
  request.messages = {{"user", prompt(scenario, messages)}};
  request.max_tokens = options_.max_tokens;
  request.format = llm::ReplyFormat::kJsonSchema;
  request.schema = reply_schema();
  request.schema_name = "simulated_user";
  request.reply_form_in_prompt = true;
  request.purpose = "simulated_user";
  auto reply = options_.chat->chat(std::move(request)).get();
  if (!reply.ok()) return reply.status();
  if (reply->choices.empty() || !reply->choices.front().json || !reply->choices.front().json->is_object()) {
    return unavailable("the simulated user's model sent no JSON object");
  }
  const nlohmann::json& json = *reply->choices.front().json;
  SimulatedUserTurn turn;
  // Only a check that was asked for can end the conversation: the opening message and a
  // scenario without an expected outcome never do.
  turn.complete = !opening && !scenario.expected_outcome.empty() && json.value("complete", false);
  turn.reason = json.value("reason", "");
  turn.prompt_tokens = reply->usage.prompt_tokens;
  turn.completion_tokens = reply->usage.completion_tokens;
  if (!turn.complete) {
    turn.message = json.value("message", "");
    if (turn.message.find_first_not_of(" \t\r\n") == std::string::npos) {
      return unavailable("the simulated user's model wrote no message (reply: " + json.dump().substr(0, 200) + ")");
    }
  }
  return turn;
}

std::string UserSimulator::identity() const {
  return Json{{"simulated_user", kPromptVersion},
              {"model", options_.model},
              {"endpoint", options_.endpoint},
              {"max_tokens", options_.max_tokens}}
      .dump();
}

}  // namespace ragmeter
