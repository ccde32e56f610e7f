// Oracle probe for the CMRC 2018 scorer: reads one JSON request a line on stdin and writes
// one JSON answer a line on stdout, for tests/oracle/test_cmrc.py.
//
// Requests:
//   {"metric": "segments", "text": "..."}                  -> {"segments": ["...", ...]}
//   {"metric": "f1" | "em", "prediction": "...", "answers": ["...", ...]} -> {"value": x}
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "json_lines_probe.h"
#include "ragmeter/cmrc.h"

namespace {

using nlohmann::json;

json answer(const json& request) {
  const std::string metric = request.at("metric").get<std::string>();
  if (metric == "segments") {
    return {{"segments", ragmeter::cmrc_segments(request.at("text").get<std::string>())}};
  }
  const auto prediction = request.at("prediction").get<std::string>();
  const auto answers = request.at("answers").get<std::vector<std::string>>();
  if (metric == "f1") return {{"value", ragmeter::cmrc_f1(prediction, answers)}};
  if (metric == "em") return {{"value", ragmeter::cmrc_exact_match(prediction, answers)}};
  throw std::invalid_argument("unknown metric: " + metric);
}

}  // namespace

int main() { return ragmeter::probes::serve_json_lines(answer); }
