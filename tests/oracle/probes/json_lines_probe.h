// The loop shared by the oracle probes: one JSON request per stdin line, one JSON answer
// per stdout line ({"error": ...} when the request cannot be answered).
#pragma once

#include <exception>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

namespace ragmeter::probes {

template <typename Answer>
int serve_json_lines(Answer answer) {
  using json = nlohmann::json;
  std::ios::sync_with_stdio(false);
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    json out;
    try {
      out = answer(json::parse(line));
    } catch (const std::exception& e) {
      out = {{"error", e.what()}};
    }
    std::cout << out.dump(-1, ' ', false, json::error_handler_t::replace) << '\n';
  }
  return 0;
}

}  // namespace ragmeter::probes
