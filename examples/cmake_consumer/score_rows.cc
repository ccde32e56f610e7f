// Scores rows held in memory with ragmeter's library (evaluate_rows.h), with a metric of
// its own beside three built-in ones, and prints each row's outcomes and the summary's
// means, as a program outside ragmeter's tree would.
#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

// The umbrella header: every public header, so this also checks that the installed
// headers stand alone (none includes one of the library's internal headers).
#include "ragmeter/ragmeter.h"

namespace {

std::size_t word_count(const std::string& text) {
  std::istringstream in(text);
  std::size_t n = 0;
  for (std::string word; in >> word;) ++n;
  return n;
}

// A metric of this program's own: the shorter of response and reference in words over the
// longer. It runs only on rows that have both (its `needs`), so it may read them.
ragmeter::MetricResult word_count_ratio(const ragmeter::Sample& sample,
                                        const ragmeter::MetricRequest&,
                                        const ragmeter::ScoringOptions&) {
  const double a = static_cast<double>(word_count(*sample.response));
  const double b = static_cast<double>(word_count(std::string(*sample.reference())));
  return ragmeter::MetricResult::ok(std::min(a, b) / std::max(a, b));
}

}  // namespace

int main() {
  using Json = nlohmann::ordered_json;
  ragmeter::MetricInfo ratio{};
  ratio.name = "word_count_ratio";
  ratio.family = ragmeter::MetricFamily::kText;
  ratio.needs = ragmeter::sample_fields::kResponse | ragmeter::sample_fields::kReference;
  ratio.definition = "The shorter of response and reference in words over the longer.";
  ratio.higher_is_better = true;
  ratio.min_score = 0.0;
  ratio.max_score = 1.0;
  ratio.score = word_count_ratio;
  if (ragmeter::Status added = ragmeter::register_metric(ratio); !added.ok()) {
    std::fprintf(stderr, "%s\n", added.to_string().c_str());
    return 1;
  }
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
  auto metrics = ragmeter::parse_metric_list("token_f1,bleu,rouge_l,word_count_ratio");
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
