// Every score lies in its metric's declared range (MetricInfo::min_score, max_score): the
// summary and the result writers refuse a score outside it (check_score_range), so a run,
// and every test that produces results, stops at such a score instead of writing it.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "ragmeter/evaluate_rows.h"
#include "ragmeter/results.h"
#include "ragmeter/summary_builder.h"

namespace ragmeter {
namespace {

MetricRequest request(const char* name) { return parse_metric_list(name).value().at(0); }

// A judge whose embedder is broken: every similarity is 1.5, no cosine at all.
class BrokenSimilarityJudge : public Judge {
 public:
  std::string description() const override { return "broken"; }
  StatusOr<ClaimLedger> claim_ledger(const Sample&, CallLog*) override { return unavailable("-"); }
  StatusOr<double> similarity(std::string_view, std::string_view, CallLog*) override { return 1.5; }
  StatusOr<TaskReply> ask(const JudgeTask&, const Sample&, CallLog*) override {
    return unavailable("-");
  }
  StatusOr<KeyFactCoverage> key_fact_coverage(std::string_view, std::string_view,
                                              CallLog*) override {
    return unavailable("-");
  }
};

TEST(ScoreRangeTest, EveryMetricDeclaresARange) {
  for (const MetricInfo& info : builtin_metrics()) {
    EXPECT_LT(info.min_score, info.max_score) << info.name;
    EXPECT_TRUE(std::isfinite(info.min_score) && std::isfinite(info.max_score)) << info.name;
  }
}

TEST(ScoreRangeTest, AScoreOutsideTheRangeIsAnInternalErrorNamingMetricValueAndRange) {
  const MetricRequest correctness = request("answer_correctness");
  EXPECT_TRUE(check_score_range(correctness, MetricResult::ok(0.0)).ok());
  EXPECT_TRUE(check_score_range(correctness, MetricResult::ok(1.0)).ok());
  EXPECT_TRUE(check_score_range(correctness, MetricResult::skipped("no reference")).ok());
  const Status below = check_score_range(correctness, MetricResult::ok(-0.024));
  EXPECT_EQ(below.code(), StatusCode::kInternal);
  EXPECT_NE(
      below.message().find("answer_correctness = -0.024 is outside its declared range [0, 1]"),
      std::string::npos)
      << below.message();
  EXPECT_FALSE(check_score_range(correctness, MetricResult::ok(std::nan(""))).ok());
  // semantic_similarity is a cosine: [-1, 1]; rubric_score is 1..5.
  EXPECT_TRUE(check_score_range(request("semantic_similarity"), MetricResult::ok(-0.5)).ok());
  EXPECT_FALSE(check_score_range(request("rubric_score"), MetricResult::ok(0.0)).ok());
}

TEST(ScoreRangeTest, TheSummaryRefusesAnOutOfRangeScoreAndAddsNothing) {
  EvalOptions options;
  options.metrics = parse_metric_list("token_f1,answer_correctness").value();
  SummaryBuilder builder(options);
  const Status status = builder.add_row({MetricResult::ok(0.5), MetricResult::ok(-0.024)});
  EXPECT_EQ(status.code(), StatusCode::kInternal);
  EXPECT_EQ(std::move(builder).finish().metrics[0].stats.n, 0);
}

TEST(ScoreRangeTest, TheJsonlAndCsvWritersRefuseAnOutOfRangeScoreNamingTheLine) {
  const std::vector<MetricRequest> metrics = {request("token_f1")};
  Row row;
  row.fields = {{"response", "a"}, {"reference", "a"}};
  row.line = 7;
  for (bool csv : {false, true}) {
    std::ostringstream out;
    auto writer =
        csv ? make_csv_result_writer(out, metrics) : make_jsonl_result_writer(out, metrics);
    EXPECT_TRUE(writer->on_row(row, {MetricResult::ok(1.0)}).ok());
    const std::string written = out.str();
    const Status status = writer->on_row(row, {MetricResult::ok(1.25)});
    EXPECT_EQ(status.code(), StatusCode::kInternal) << csv;
    EXPECT_NE(status.message().find("line 7: token_f1 = 1.25 is outside"), std::string::npos)
        << status.message();
    EXPECT_EQ(out.str(), written) << "nothing of the refused row is written";
  }
}

// The whole path: a run whose judge yields a "cosine" of 1.5 stops at the first row with
// the error, and nothing out of range reaches the results.
TEST(ScoreRangeTest, ARunStopsAtTheFirstOutOfRangeScore) {
  EvalOptions options;
  options.metrics = parse_metric_list("semantic_similarity").value();
  options.judge = std::make_shared<BrokenSimilarityJudge>();
  auto run = evaluate_rows({{{"response", "a"}, {"reference", "b"}}}, options);
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().code(), StatusCode::kInternal);
  EXPECT_NE(run.status().message().find(":1: semantic_similarity = 1.5 is outside its declared "
                                        "range [-1, 1]"),
            std::string::npos)
      << run.status().message();
}

}  // namespace
}  // namespace ragmeter
