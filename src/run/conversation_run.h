// One conversation row of `ragmeter run` (RunOptions: "Conversations"): the messages so
// far, the user messages still to send (scripted) or the scenario the simulated user plays,
// and the row's result once it has ended. Used by the run loop's thread only.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/run.h"
#include "ragmeter/status.h"
#include "ragmeter/user_simulator.h"

namespace ragmeter::run {

class ConversationRun {
 public:
  // The row's conversation run: scripted when the row holds a conversation (its user
  // messages are sent in order, its system messages lead the history), simulated when it
  // has a `scenario` and no conversation; nullopt for a single-turn row. InvalidArgument
  // "field 'NAME': ..." for a conversation that does not read, or one without a user
  // message.
  static StatusOr<std::optional<ConversationRun>> from_row(const nlohmann::ordered_json& fields);

  bool simulated() const { return scenario_.has_value(); }
  const UserScenario& scenario() const { return *scenario_; }
  const nlohmann::ordered_json& messages() const { return messages_; }
  int user_turns() const { return user_turns_; }
  int replies() const { return replies_; }  // the target's replies so far

  // Scripted: appends the next user message of the row; false when every one was sent.
  bool add_next_scripted_user();
  // Simulated: appends the simulated user's message.
  void add_user(std::string text);
  // Appends the target's reply to the last user message, with its tool calls and
  // retrieved contexts, and adds its latency and token counts to the row's.
  void add_reply(const TargetAnswer& answer, double latency_ms);
  // The request for the last user message: `base` (index, id, row) with the question and
  // the history.
  TargetRequest request(const TargetRequest& base) const;
  // Simulated: ends the conversation ("expected_outcome" or "turn_limit") with the reason.
  void end_simulation(std::string ended, std::string reason);

  // The conversation so far, after a reply: what the answer record keeps so a run killed
  // mid-way resumes from its last answered turn (resume()).
  nlohmann::ordered_json progress() const;
  // Restores progress() taken from this row's run: true when it reads, ends with a reply
  // and fits the row (its user messages are the row's first ones, scripted); false leaves
  // the run as it was.
  bool resume(const nlohmann::ordered_json& progress);

  // The row's answer: the whole conversation, the last reply as response and contexts,
  // the token sums, the simulation's account.
  TargetAnswer result() const;
  double latency_ms() const { return latency_ms_; }

 private:
  nlohmann::ordered_json messages_ = nlohmann::ordered_json::array();
  std::vector<std::string> scripted_users_;  // scripted: every user message of the row
  std::size_t next_scripted_ = 0;
  std::optional<UserScenario> scenario_;
  int user_turns_ = 0;
  int replies_ = 0;
  TargetAnswer last_;
  std::optional<std::int64_t> prompt_tokens_, completion_tokens_;
  double latency_ms_ = 0;
  nlohmann::ordered_json simulation_;
};

}  // namespace ragmeter::run
