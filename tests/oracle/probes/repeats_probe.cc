// Oracle probe for tests/oracle/test_repeats.py: reads JSON lines {"groups": [[y_11, ...],
// [y_21, ...], ...]} (a sample's repeats per group) from stdin and prints
// variance_components (repeats.h) per line: {"defined", "groups", "values", "grand_mean",
// "ms_between", "ms_within", "k0", "within", "between", "judge_share"}.
#include <vector>

#include "json_lines_probe.h"
#include "ragmeter/repeats.h"

int main() {
  using json = nlohmann::json;
  return ragmeter::probes::serve_json_lines([](const json& in) {
    const auto groups = in.at("groups").get<std::vector<std::vector<double>>>();
    const ragmeter::VarianceComponents v = ragmeter::variance_components(groups);
    return json{{"defined", v.defined},
                {"groups", v.groups},
                {"values", v.values},
                {"grand_mean", v.grand_mean},
                {"ms_between", v.ms_between},
                {"ms_within", v.ms_within},
                {"k0", v.k0},
                {"within", v.within},
                {"between", v.between},
                {"judge_share", v.judge_share ? json(*v.judge_share) : json(nullptr)}};
  });
}
