// "METRIC=VALUE" arguments of the CI gates (eval --fail-under/--fail-over, compare
// --fail-on-regression).
#pragma once

#include <string>
#include <utility>

#include "ragmeter/status.h"

namespace ragmeter::cli {

// Splits "METRIC=VALUE" into the metric name and the number. InvalidArgument, naming
// `flag`, when there is no '=' or VALUE is not a whole number.
StatusOr<std::pair<std::string, double>> parse_metric_value(const std::string& spec,
                                                            const std::string& flag);

}  // namespace ragmeter::cli
