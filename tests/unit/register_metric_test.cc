// A library user's own metric (metric.h's register_metric): found, parsed, scored and
// summarised as a built-in one, its fields checked first; bad rows are refused with the
// reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>

#include "ragmeter/evaluate.h"
#include "ragmeter/evaluate_rows.h"
#include "ragmeter/metric.h"

namespace ragmeter {
namespace {

std::size_t words(const std::string& text) {
  std::istringstream in(text);
  std::size_t n = 0;
  for (std::string word; in >> word;) ++n;
  return n;
}

// The shorter text's word count over the longer's: 1 for equal lengths.
MetricResult word_count_ratio(const Sample& sample, const MetricRequest&, const ScoringOptions&) {
  const double a = static_cast<double>(words(*sample.response));
  const double b = static_cast<double>(words(std::string(*sample.reference())));
  return MetricResult::ok(std::min(a, b) / std::max(a, b));
}

// A bug: a score outside the declared range.
MetricResult out_of_range(const Sample&, const MetricRequest&, const ScoringOptions&) {
  return MetricResult::ok(2.0);
}

MetricInfo row(std::string_view name, ScoreFunction score) {
  MetricInfo info{};
  info.name = name;
  info.family = MetricFamily::kText;
  info.needs = sample_fields::kResponse | sample_fields::kReference;
  info.definition = "The shorter text's word count over the longer's.";
  info.higher_is_better = true;
  info.min_score = 0.0;
  info.max_score = 1.0;
  info.score = score;
  return info;
}

TEST(RegisterMetricTest, ARegisteredMetricIsParsedScoredAndSummarised) {
  // Its texts are copied: the caller's may go.
  std::string name = "word_count_ratio";
  ASSERT_TRUE(register_metric(row(name, word_count_ratio)).ok());
  name = "overwritten";
  const MetricInfo* info = find_metric("word_count_ratio");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->name, "word_count_ratio");
  const std::vector<const MetricInfo*> registered = registered_metrics();
  EXPECT_NE(std::find(registered.begin(), registered.end(), info), registered.end());
  EXPECT_EQ(required_fields_text(info->needs), "response, reference");

  auto metrics = parse_metric_list("word_count_ratio,token_f1");
  ASSERT_TRUE(metrics.ok()) << metrics.status().message();
  EvalOptions options;
  options.metrics = *metrics;
  using Json = nlohmann::ordered_json;
  std::vector<Json> rows = {
      {{"response", "The tower is in Paris."}, {"reference", "It is in Paris, France, by the river."}},
      {{"response", "Paris."}},  // no reference: skipped before the metric runs
  };
  auto run = evaluate_rows(std::move(rows), options, {}, "rows");
  ASSERT_TRUE(run.ok()) << run.status().message();
  const ResultTable& table = run->table;
  ASSERT_EQ(table.metrics[0], "word_count_ratio");
  EXPECT_EQ(table.rows[0].results[0].outcome, Outcome::kOk);
  EXPECT_DOUBLE_EQ(table.rows[0].results[0].score, 5.0 / 8.0);  // 5 words and 8, counted by hand
  EXPECT_EQ(table.rows[1].results[0].outcome, Outcome::kSkipped);
  EXPECT_EQ(table.rows[1].results[0].reason, "field 'reference' is missing");
  ASSERT_FALSE(run->summary.metrics.empty());
  EXPECT_EQ(run->summary.metrics[0].name, "word_count_ratio");
  EXPECT_EQ(run->summary.metrics[0].stats.n, 1);
  EXPECT_DOUBLE_EQ(run->summary.metrics[0].stats.mean, 5.0 / 8.0);
}

TEST(RegisterMetricTest, BadRowsAreRefusedWithTheReason) {
  auto refused = [](const MetricInfo& info) {
    const Status status = register_metric(info);
    EXPECT_FALSE(status.ok()) << info.name;
    return std::string(status.message());
  };
  EXPECT_NE(refused(row("faithfulness", word_count_ratio)).find("built-in"), std::string::npos);
  EXPECT_NE(refused(row("bad name", word_count_ratio)).find("letters, digits"), std::string::npos);
  EXPECT_NE(refused(row("", word_count_ratio)).find("letters, digits"), std::string::npos);
  EXPECT_NE(refused(row("no_function", nullptr)).find("exactly one scoring function"),
            std::string::npos);
  MetricInfo no_fields = row("no_fields", word_count_ratio);
  no_fields.needs = sample_fields::kNone;
  EXPECT_NE(refused(no_fields).find("names no field"), std::string::npos);
  MetricInfo empty_range = row("empty_range", word_count_ratio);
  empty_range.max_score = 0.0;
  EXPECT_NE(refused(empty_range).find("range"), std::string::npos);
  ASSERT_TRUE(register_metric(row("registered_twice", word_count_ratio)).ok());
  EXPECT_NE(refused(row("registered_twice", word_count_ratio)).find("registered already"),
            std::string::npos);
}

TEST(RegisterMetricTest, AScoreOutsideTheDeclaredRangeIsCaught) {
  ASSERT_TRUE(register_metric(row("out_of_range_metric", out_of_range)).ok());
  auto metrics = parse_metric_list("out_of_range_metric");
  ASSERT_TRUE(metrics.ok());
  const Sample sample;
  const Status status =
      check_score_range((*metrics)[0], out_of_range(sample, (*metrics)[0], ScoringOptions{}));
  EXPECT_EQ(status.code(), StatusCode::kInternal);
}

}  // namespace
}  // namespace ragmeter
