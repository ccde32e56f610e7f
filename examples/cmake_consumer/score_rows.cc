// Scores rows held in memory with ragmeter's library (evaluate_rows.h), with two metrics of
// its own (one deterministic, one judged with a question of its own) beside three built-in
// ones, and prints each row's outcomes and the summary's means, as a program outside
// ragmeter's tree would.
#include <algorithm>
#include <cctype>
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

// The distinct words of a text, lowercased, with the punctuation around them removed.
std::vector<std::string> distinct_words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string word; in >> word;) {
    while (!word.empty() && std::ispunct(static_cast<unsigned char>(word.back()))) word.pop_back();
    while (!word.empty() && std::ispunct(static_cast<unsigned char>(word.front()))) word.erase(0, 1);
    for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (!word.empty() && std::find(out.begin(), out.end(), word) == out.end()) out.push_back(word);
  }
  return out;
}

// A judged metric of this program's own, with a question of its own: which words of the
// reference does the response leave out? It is a judge task (judge.h, JudgeTask): a judge
// with a model is asked it; the offline judge (the default) answers with the rule in
// `offline`, written as the reply a model gives, so one reading serves both.
ragmeter::MetricResult reference_words_kept(ragmeter::SampleJudgement& judgement,
                                            const ragmeter::MetricRequest&,
                                            const ragmeter::ScoringOptions&) {
  const std::string response(*judgement.sample().response);
  const std::string reference(*judgement.sample().reference());
  ragmeter::JudgeTask task;
  task.kind = "left_out_words";
  task.prompt = "List the words of the REFERENCE that the RESPONSE does not contain.";
  task.schema = {{"type", "object"},
                 {"properties", {{"left_out", {{"type", "array"}, {"items", {{"type", "string"}}}}}}},
                 {"required", {"left_out"}}};
  task.schema_name = "left_out";
  task.sections = "RESPONSE:\n" + response + "\n\nREFERENCE:\n" + reference + "\n\n";
  task.subject = "the left-out words";
  task.offline = [](const ragmeter::Sample& sample) -> ragmeter::StatusOr<nlohmann::json> {
    const std::vector<std::string> said = distinct_words(*sample.response);
    nlohmann::json left_out = nlohmann::json::array();
    for (const std::string& word : distinct_words(std::string(*sample.reference()))) {
      if (std::find(said.begin(), said.end(), word) == said.end()) left_out.push_back(word);
    }
    return nlohmann::json{{"left_out", left_out}};
  };
  ragmeter::CallLog calls;
  auto reply = judgement.judge().ask(task, judgement.sample(), &calls);
  if (!reply.ok()) return ragmeter::MetricResult::failed(reply.status().to_string());
  const double total = static_cast<double>(distinct_words(reference).size());
  const double left_out = static_cast<double>(reply->reply["left_out"].size());
  if (total == 0) return ragmeter::MetricResult::skipped("the reference has no word");
  return ragmeter::MetricResult::ok(std::max(0.0, 1.0 - left_out / total));
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
  // The judged one reads the same fields and has the same range.
  ragmeter::MetricInfo kept = ratio;
  kept.name = "reference_words_kept";
  kept.family = ragmeter::MetricFamily::kJudged;
  kept.definition = "The share of the reference's words the judge finds in the response.";
  kept.score = nullptr;
  kept.judged = reference_words_kept;
  for (const ragmeter::MetricInfo& info : {ratio, kept}) {
    if (ragmeter::Status added = ragmeter::register_metric(info); !added.ok()) {
      std::fprintf(stderr, "%s\n", added.to_string().c_str());
      return 1;
    }
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
  auto metrics = ragmeter::parse_metric_list("token_f1,bleu,rouge_l,word_count_ratio,reference_words_kept");
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
