// Using the library directly: score one sample with a few metrics.
// Built and run by the test suite (ctest -R example_score_pairs).
#include <cstdio>

#include "ragmeter/evaluate.h"

int main() {
  ragmeter::Sample sample;
  sample.response = "The Eiffel Tower is in Paris.";
  sample.set_reference("The Eiffel Tower is located in Paris, France.");

  ragmeter::EvalOptions options;
  auto metrics = ragmeter::parse_metric_list("token_f1,rouge_l,bleu,precision@3");
  if (!metrics.ok()) {
    std::fprintf(stderr, "%s\n", metrics.status().to_string().c_str());
    return 1;
  }
  options.metrics = *metrics;
  auto results = ragmeter::score_sample(sample, options);
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    std::printf("%-12s %-8s %.4f %s\n", options.metrics[i].name.c_str(),
                ragmeter::outcome_name(r.outcome), r.score, r.reason.c_str());
  }
  // precision@3 has no retrieval fields here: it must be skipped, with a reason.
  return results[3].outcome == ragmeter::Outcome::kSkipped ? 0 : 1;
}
