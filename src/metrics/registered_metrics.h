// The metrics a library user added with register_metric (metric.h), found by name after the
// built-in table. Internal to src/metrics/.
#pragma once

#include <string_view>

#include "ragmeter/metric.h"

namespace ragmeter {

// The registered metric named `name`; nullptr when none is. Thread-safe.
const MetricInfo* find_registered_metric(std::string_view name);

}  // namespace ragmeter
