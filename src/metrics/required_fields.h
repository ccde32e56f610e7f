// Required-field checks shared by the metric adapters: a missing or empty field makes
// the (sample, metric) `skipped`, with a reason naming the field.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ragmeter/metric.h"

namespace ragmeter {

template <typename T>
std::optional<MetricResult> require_field(const std::optional<T>& value, const char* name) {
  if (!value.has_value()) return MetricResult::skipped(std::string("field '") + name + "' is missing");
  if (value->empty()) return MetricResult::skipped(std::string("field '") + name + "' is empty");
  return std::nullopt;
}

}  // namespace ragmeter
