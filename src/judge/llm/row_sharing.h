// Which rows of a run may share the LLM judge's stored work (core/row_turns.h): a row
// waits for its turn only behind the earlier rows that may. Internal to src/judge/.
#pragma once

#include "ragmeter/sample.h"

namespace ragmeter {

// The compact plan: a stored sentence's claims are keyed by the question, and a stored
// verdict by its premise (a passage, the reference or the response, or their short-answer
// statements), so two rows with no such text in common share nothing. Rows with a
// conversation or images may share anything (their texts are read in other ways): true.
bool compact_rows_may_share(const Sample& row, const Sample& earlier);

}  // namespace ragmeter
