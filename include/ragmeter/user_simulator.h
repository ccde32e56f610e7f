// The simulated user of `ragmeter run` for conversations: an LLM plays a user from a
// scenario, as DeepEval's ConversationSimulator does with a ConversationalGolden.
//
// A row with a `scenario` (what the user wants and why), an optional `expected_outcome`
// (what ends the conversation well) and an optional `user_description` (who the user is,
// how they speak) and no conversation of its own is driven by a UserSimulator: it writes
// the opening message, the target answers, and after each answer one call both decides
// whether the expected outcome is reached (DeepEval's "conversation completion check")
// and writes the next message when it is not. DeepEval asks those two things in two
// calls; ragmeter asks them in one reply, {"complete", "reason", "message"}.
//
// The user writes in the scenario's language (detected; named in the prompt).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "ragmeter/llm.h"
#include "ragmeter/status.h"

namespace ragmeter {

// What the simulated user is given: DeepEval's golden fields, read from a row.
struct UserScenario {
  std::string scenario;
  std::string expected_outcome;  // empty: the conversation runs to the turn limit
  std::string user_description;  // empty: none given
};

// The row's scenario when it has a non-empty `scenario` string; nullopt otherwise.
// InvalidArgument "field 'NAME': ..." when scenario, expected_outcome or user_description
// is present and not a string.
StatusOr<std::optional<UserScenario>> user_scenario_from_row(const nlohmann::ordered_json& row);

// One step of the simulated user.
struct SimulatedUserTurn {
  bool complete = false;  // the expected outcome is reached: the conversation ends here
  std::string reason;     // the model's reason (empty for the opening message)
  std::string message;    // the next user message; empty when complete
  std::int64_t prompt_tokens = 0, completion_tokens = 0;  // this call's, as the server counted
};

struct UserSimulatorOptions {
  std::shared_ptr<llm::Client> chat;  // the model playing the user (llm::make_client)
  std::string model;                  // its name and address, for identity()
  std::string endpoint;
  int max_tokens = 300;               // per reply
};

class UserSimulator {
 public:
  // InvalidArgument when no chat client is given.
  static StatusOr<std::shared_ptr<UserSimulator>> make(UserSimulatorOptions options);

  // The next step after `messages` (OpenAI chat messages: user and assistant, with the
  // assistant's tool calls and retrieved contexts; system messages are not shown). With
  // no user message yet, the opening message (complete is then false). Blocks until the
  // model replies; an error when the call fails, or when the reply has no message while
  // not complete (the JSON is checked against the reply's schema). Thread-safe.
  StatusOr<SimulatedUserTurn> next(const UserScenario& scenario,
                                   const nlohmann::ordered_json& messages) const;

  // The model and endpoint playing the user, and the prompt's version: part of the
  // answer record's key of every simulated row (a change asks again).
  std::string identity() const;

  // The prompt of next(), for tests and the docs.
  static std::string prompt(const UserScenario& scenario, const nlohmann::ordered_json& messages);

 private:
  explicit UserSimulator(UserSimulatorOptions options) : options_(std::move(options)) {}
  UserSimulatorOptions options_;
};

}  // namespace ragmeter
