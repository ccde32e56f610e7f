// The result of a single-turn metric on a conversation from its turns' results
// (docs/agents.md, "Single-turn metrics, turn by turn"): the mean over the turns scored,
// every turn's score and reason in the evidence. The turns: src/core/conversation_turns.h.
#pragma once

#include <optional>
#include <vector>

#include "core/conversation_turns.h"
#include "ragmeter/metric.h"

namespace ragmeter {
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
