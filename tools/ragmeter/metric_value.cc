#include "metric_value.h"

#include <stdexcept>

namespace ragmeter::cli {

StatusOr<std::pair<std::string, double>> parse_metric_value(const std::string& spec,
                                                            const std::string& flag) {
  auto eq = spec.find('=');
  if (eq == std::string::npos) return invalid_argument(flag + " expects METRIC=VALUE, got '" + spec + "'");
  std::string number = spec.substr(eq + 1);
  try {
    std::size_t used = 0;
    double value = std::stod(number, &used);
    if (used != number.size()) throw std::invalid_argument("trailing text");
    return std::make_pair(spec.substr(0, eq), value);
  } catch (const std::exception&) {
    return invalid_argument(flag + ": '" + number + "' is not a number");
  }
}

}  // namespace ragmeter::cli
