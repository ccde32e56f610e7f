// A conversation's assistant turns as single-turn samples (docs/agents.md, "Single-turn
// metrics, turn by turn"): what evaluate scores turn by turn (src/eval/turn_results.h) and
// what the dry run plans for each turn.
#pragma once

#include <cstddef>
#include <vector>

#include "ragmeter/sample.h"

namespace ragmeter {

// One assistant turn of a conversation as a single-turn sample.
struct ConversationTurn {
  int number = 0;               // 1-based, counting the turns that have an assistant text
  std::size_t message = 0;      // 0-based index of the turn's last assistant text message
  Sample sample;
};

// The turns of a multi-turn sample (sample.conversation set; empty otherwise). A turn runs
// from a user message to the next one; it is a turn when an assistant message in it has
// text. Its sample: `user_input` the opening user message (absent when the assistant spoke
// first), `response` the turn's assistant texts joined by a blank line, `retrieved_contexts`
// the contexts of the turn's assistant messages in order (absent when none gave any), no
// reference (the conversation's `reference` is its expected outcome, not a turn's answer),
// and the conversation's language. Thread-safe.
std::vector<ConversationTurn> conversation_turns(const Sample& sample);

}  // namespace ragmeter
