// One finished (or cancelled) evaluation as the Python result object sees it: the
// library's EvalRun (summary and per-row table) and the run's facts for the summary.
#pragma once

#include "ragmeter/evaluate_rows.h"
#include "ragmeter/results.h"

namespace ragmeter::python {

struct RunResult {
  EvalRun run;
  RunInfo info;
};

}  // namespace ragmeter::python
