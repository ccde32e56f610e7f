// Single-turn metrics on a conversation, turn by turn (docs/agents.md, "Single-turn metrics,
// turn by turn"): each assistant turn becomes a single-turn sample of its own (the user's
// message, the assistant's text, the passages retrieved in that turn), is scored as any row
// is, and the conversation's result is the mean over the turns scored, every turn's score
// and reason in the evidence.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "ragmeter/metric.h"
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

// The conversation's result from its turns' results (per_turn[i] is turns[i]'s; the same
// size, not empty):
//   - a failed turn: failed, "turn N: reason" of the first;
//   - no turn scored: skipped, "no turn was scored: turn N: reason" of the first (or
//     "every turn: reason" when all say the same);
//   - otherwise ok, the mean of the scored turns' scores; with a note when some turns were
//     skipped; corpus statistics summed over the scored turns; repeat scores the per-repeat
//     mean when every scored turn has all of them (flaky, with `mark`, from those).
// The evidence is {"turns": [{"turn", "message", "status", "score" | "reason", "evidence"}],
// "scored_turns", "turns_total"}. Thread-safe.
MetricResult combine_turns(std::vector<MetricResult> per_turn,
                           const std::vector<ConversationTurn>& turns,
                           std::optional<double> mark, bool higher_is_better);

// The note of a conversation result that some turns did not score (one text for the
// situation, as notes are counted in the summary).
inline constexpr const char* kSomeTurnsSkippedNote =
    "some turns were skipped: the score is the mean of the turns scored (evidence.turns)";

}  // namespace ragmeter
