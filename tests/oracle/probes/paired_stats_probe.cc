// Oracle probe for tests/oracle/test_paired_stats.py: reads JSON lines
// {"base": [...], "new": [...], "higher_is_better": bool, "resamples": n,
//  "permutations": n, "exact_max_nonzero": n, "seed": n} from stdin and prints
// {"n", "mean_diff", "ci95", "p_value", "p_exact", "wins", "ties", "losses"} per line,
// or {"holm": [...]} for a line {"holm": [p values]}.
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "ragmeter/compare.h"

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    auto in = nlohmann::json::parse(line);
    if (in.contains("holm")) {
      auto p = in["holm"].get<std::vector<double>>();
      std::cout << nlohmann::json{{"holm", ragmeter::holm_adjust(p)}}.dump() << "\n";
      continue;
    }
    auto base = in["base"].get<std::vector<double>>();
    auto next = in["new"].get<std::vector<double>>();
    ragmeter::PairedTestOptions options;
    options.bootstrap.resamples = in.value("resamples", 10000);
    options.bootstrap.seed = in.value("seed", 42);
    options.permutation_seed = in.value("seed", 42);
    options.permutations = in.value("permutations", 20000);
    options.exact_max_nonzero = in.value("exact_max_nonzero", 20);
    auto s = ragmeter::paired_stats(base, next, in.value("higher_is_better", true), options);
    if (!s.ok()) {
      std::cout << nlohmann::json{{"error", s.status().message()}}.dump() << "\n";
      continue;
    }
    std::cout << nlohmann::json{{"n", s->n},           {"mean_diff", s->mean_diff},
                                {"ci95", {s->ci_low, s->ci_high}},
                                {"p_value", s->p_value}, {"p_exact", s->p_exact},
                                {"wins", s->wins},       {"ties", s->ties},
                                {"losses", s->losses}}
                     .dump()
              << "\n";
  }
  return 0;
}
