// The glue's evaluation and judge dicts as the library's EvalSpec and JudgeOptions
// (evaluate_binding.cc). The Ray path (cluster_binding.cc) makes its judges and its
// summary builder's options from the same spec, so both agree on the judge, the metrics,
// the scoring and the bootstrap settings.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>

#include "ragmeter/eval_spec.h"
#include "ragmeter/judge_factory.h"

namespace ragmeter::python {

// The EvalSpec (eval_spec.h) of the glue's dict of its field names (ragmeter/_evaluate.py
// and ray.py build it from their keywords); raises InvalidArgumentError for a field that
// does not read. Needs the GIL.
EvalSpec eval_spec_from(const nanobind::dict& fields);

// JudgeOptions (judge_factory.h) from the glue's dict of its field names
// (ragmeter/_judges.py: judge_options). An unknown key is a bug of the glue (raises).
// Needs the GIL.
JudgeOptions judge_options_from(const nanobind::dict& fields);

}  // namespace ragmeter::python
