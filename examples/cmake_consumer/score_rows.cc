// Scores rows held in memory with ragmeter's library (evaluate_rows.h) and prints each
// row's outcomes and the summary's means, as a program outside ragmeter's tree would.
#include <cstdio>
#include <vector>

// The umbrella header: every public header, so this also checks that the installed
// headers stand alone (none includes one of the library's internal headers).
#include "ragmeter/ragmeter.h"

int main() {
  using Json = nlohmann::ordered_json;
  std::vector<Json> rows = {
      {{"user_input", "Where is the Eiffel Tower?"},
       {"response", "The Eiffel Tower is in Paris."},
       {"reference", "The Eiffel Tower is located in Paris, France."}},
      // Legacy field names, as ragas's older datasets have them.
      {{"question", "Who wrote Hamlet?"},
       {"answer", "Hamlet was written by William Shakespeare."},
       {"ground_truth", "William Shakespeare wrote Hamlet."}},
      // A bad row: it keeps its place, every metric failed with the reason.
      {{"response", {{"text", "an object, not a string"}}}, {"reference", "Paris"}},
  };
  ragmeter::EvalOptions options;
  auto metrics = ragmeter::parse_metric_list("token_f1,bleu,rouge_l");
  if (!metrics.ok()) {
    std::fprintf(stderr, "%s\n", metrics.status().to_string().c_str());
    return 1;
  }
  options.metrics = *metrics;
  auto run = ragmeter::evaluate_rows(std::move(rows), options, {}, "rows");
  if (!run.ok()) {
    std::fprintf(stderr, "%s\n", run.status().to_string().c_str());
    return 1;
  }
  const ragmeter::ResultTable& table = run->table;
  for (const ragmeter::RowResult& row : table.rows) {
    for (std::size_t m = 0; m < table.metrics.size(); ++m) {
      const ragmeter::MetricResult& result = row.results[m];
      std::printf("row %lld %s %s %.17g %s\n", static_cast<long long>(row.index),
                  table.metrics[m].c_str(), ragmeter::outcome_name(result.outcome), result.score,
                  result.reason.c_str());
    }
  }
  for (const ragmeter::MetricSummary& metric : run->summary.metrics) {
    std::printf("mean %s %.17g n=%lld\n", metric.name.c_str(), metric.stats.mean,
                static_cast<long long>(metric.stats.n));
  }
  std::printf("rows read=%lld rejected=%lld\n", static_cast<long long>(run->summary.rows_read),
              static_cast<long long>(run->summary.rows_rejected));
  return 0;
}
