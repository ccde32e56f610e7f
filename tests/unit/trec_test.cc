// TREC readers and trec_eval-compatible evaluation, on the fixtures in tests/data/trec/.
#include "ragmeter/trec.h"
#include "ragmeter/trec_eval.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>
#include "tests/unit/test_paths.h"

namespace ragmeter {
namespace {

constexpr double kTolerance = 1e-12;

// Inside a test body plain `Run` names testing::Test::Run.
using TrecRun = ragmeter::Run;

std::string fixture(const std::string& name) {
  return std::string(RAGMETER_SOURCE_DIR) + "/tests/data/trec/" + name;
}

// The value of a read that must succeed; empty, with a test failure, when it does not.
template <typename T>
T must_read(StatusOr<T> read) {
  EXPECT_TRUE(read.ok()) << read.status().to_string();
  return read.ok() ? std::move(read).value() : T{};
}

// The value of `measure` for `query`, or NaN when there is no such line.
double value_of(const std::vector<TrecMeasureValue>& lines, const std::string& measure,
                const std::string& query) {
  for (const TrecMeasureValue& line : lines) {
    if (line.measure == measure && line.query == query) return line.value;
  }
  return std::nan("");
}

// The measure families ragmeter ir printed by default before it took trec_eval's
// default set ("official"); these tests check their values and order.
const std::vector<std::string> kFamilies = {"map",  "Rprec",    "recip_rank", "P",
                                            "recall", "ndcg", "ndcg_cut",   "success"};

// trec_evaluate's lines, which must come (the options are valid).
std::vector<TrecMeasureValue> evaluate(const Qrels& qrels, const Run& run,
                                       TrecEvalOptions options) {
  if (options.measures.empty()) options.measures = kFamilies;
  return must_read(trec_evaluate(qrels, run, options));
}

// The status of reading fixture `name`: OK when it reads.
Status qrels_status(const std::string& name) { return read_qrels(fixture(name)).status(); }
Status run_status(const std::string& name) { return read_run(fixture(name)).status(); }

TEST(TrecReadQrels, SkipsCommentsAndBlankLinesAndKeepsNegativeLevels) {
  const Qrels qrels = must_read(read_qrels(fixture("qrels_graded.txt")));
  ASSERT_EQ(qrels.size(), 3u);
  EXPECT_EQ(qrels.at("q1").size(), 4u);
  EXPECT_EQ(qrels.at("q1").at("d3"), 2);
  EXPECT_EQ(qrels.at("q1").at("d4"), -1);
  EXPECT_EQ(qrels.at("q2").at("d1"), 0);
}

TEST(TrecReadQrels, MissingFileIsNotFound) {
  const Status status = qrels_status("no_such_qrels.txt");
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_NE(status.message().find("no_such_qrels.txt"), std::string::npos);
}

TEST(TrecReadRun, OrdersByScoreThenDocumentIdDescendingIgnoringRankColumn) {
  const TrecRun run = must_read(read_run(fixture("run_ties_duplicates.txt")));
  ASSERT_EQ(run.size(), 3u);
  // d2 (rank 1) and d3 (rank 2) tie at 9.5: the larger id, d3, comes first.
  // The duplicate d3 stays in the ranking; the metrics count its first place only.
  EXPECT_EQ(run.at("q1"), (Ranking{"d3", "d2", "d1", "d3"}));
}

TEST(TrecReadRun, ScoresEqualInSinglePrecisionTieAsInTrecEval9) {
  // a's and b's scores differ as doubles but not as floats: the larger id, b, goes first.
  // c (1e300) and d (1e400, beyond double) are both infinite floats.
  const TrecRun run =
      must_read(read_run(fixture("run_float_ties.txt"), nullptr, TrecEvalVersion::k9));
  EXPECT_EQ(run.at("q"), (Ranking{"d", "c", "e", "b", "a"}));
}

TEST(TrecReadRun, ScoresCompareAsDoublesInTrecEval10) {
  // d (1e400) is infinite, c is 1e300; a's 0.30000000000000004 now beats b's 0.3.
  const TrecRun run =
      must_read(read_run(fixture("run_float_ties.txt"), nullptr, TrecEvalVersion::k10));
  EXPECT_EQ(run.at("q"), (Ranking{"d", "c", "e", "a", "b"}));
}

// A malformed fixture and the error it must give: InvalidArgument, "<path>:<line>: ".
struct MalformedFile {
  std::string name;  // test name
  Status (*read)(const std::string& name);
  std::string file;
  int line;
  std::string words;
};

class TrecMalformedFileTest : public testing::TestWithParam<MalformedFile> {};

TEST_P(TrecMalformedFileTest, IsInvalidArgumentNamingFileAndLine) {
  const MalformedFile& c = GetParam();
  const Status status = c.read(c.file);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << status.to_string();
  const std::string where = fmt::format("{}:{}: ", fixture(c.file), c.line);
  EXPECT_EQ(status.message().rfind(where, 0), 0u) << status.message();
  EXPECT_NE(status.message().find(c.words), std::string::npos) << status.message();
}

INSTANTIATE_TEST_SUITE_P(
    TrecReaders, TrecMalformedFileTest,
    testing::Values(MalformedFile{"QrelsLineWithThreeColumns", qrels_status,
                                  "qrels_missing_column.txt", 3, "expected 4 columns"},
                    MalformedFile{"QrelsRelevanceNotAnInteger", qrels_status,
                                  "qrels_bad_relevance.txt", 2, "'high' is not an integer"},
                    MalformedFile{"QrelsDocumentJudgedTwice", qrels_status, "qrels_duplicate.txt",
                                  3, "judged twice"},
                    MalformedFile{"RunLineWithFiveColumns", run_status, "run_missing_column.txt", 2,
                                  "expected 6 columns"},
                    // Line 3: blank lines count.
                    MalformedFile{"RunScoreNotANumber", run_status, "run_bad_score.txt", 3,
                                  "score 'abc' is not a number"}),
    [](const testing::TestParamInfo<MalformedFile>& info) { return info.param.name; });

class TrecEvaluateTest : public testing::Test {
 protected:
  Qrels qrels_ = must_read(read_qrels(fixture("qrels_graded.txt")));
  TrecRun run_ = must_read(read_run(fixture("run_ties_duplicates.txt")));
};

TEST_F(TrecEvaluateTest, EvaluatesOnlyQueriesInBothRunAndQrels) {
  const auto lines = evaluate(qrels_, run_, {.per_query = true});
  // q3 is judged but not run, q4 is run but not judged: neither is evaluated.
  for (const TrecMeasureValue& line : lines) {
    EXPECT_TRUE(line.query == "q1" || line.query == "q2" || line.query == "all") << line.query;
  }
}

TEST_F(TrecEvaluateTest, PerQueryValuesFollowTrecEvalOrderingAndGains) {
  const auto lines = evaluate(qrels_, run_, {.per_query = true});
  // q1 ranks d3 (2), d2 (0), d1 (1); R = 2.
  EXPECT_NEAR(value_of(lines, "map", "q1"), (1.0 + 2.0 / 3) / 2, kTolerance);
  EXPECT_NEAR(value_of(lines, "Rprec", "q1"), 0.5, kTolerance);
  EXPECT_NEAR(value_of(lines, "recip_rank", "q1"), 1.0, kTolerance);
  EXPECT_NEAR(value_of(lines, "P_5", "q1"), 2.0 / 5, kTolerance);
  EXPECT_NEAR(value_of(lines, "recall_5", "q1"), 1.0, kTolerance);
  const double ndcg = (2.0 + 1.0 / std::log2(4.0)) / (2.0 + 1.0 / std::log2(3.0));
  EXPECT_NEAR(value_of(lines, "ndcg", "q1"), ndcg, kTolerance);
  EXPECT_NEAR(value_of(lines, "ndcg_cut_5", "q1"), 0.9502344167898356, 1e-12);
  EXPECT_NEAR(value_of(lines, "success_1", "q1"), 1.0, kTolerance);
  // q2 judges nothing relevant: every measure is 0.
  EXPECT_EQ(value_of(lines, "map", "q2"), 0.0);
  EXPECT_EQ(value_of(lines, "ndcg", "q2"), 0.0);
}

TEST_F(TrecEvaluateTest, AllIsTheMeanOverEvaluatedQueries) {
  const auto lines = evaluate(qrels_, run_, {});
  EXPECT_NEAR(value_of(lines, "map", "all"), (1.0 + 2.0 / 3) / 2 / 2, kTolerance);
  EXPECT_NEAR(value_of(lines, "P_10", "all"), 0.2 / 2, kTolerance);
  EXPECT_TRUE(std::isnan(value_of(lines, "map", "q1")));  // no per-query lines without -q
}

TEST_F(TrecEvaluateTest, LinesComeInTrecEvalMeasureOrder) {
  const auto lines = evaluate(qrels_, run_, {});
  std::vector<std::string> names;
  for (const TrecMeasureValue& line : lines) names.push_back(line.measure);
  ASSERT_EQ(names.size(), 34u);
  EXPECT_EQ(names[0], "map");
  EXPECT_EQ(names[1], "Rprec");
  EXPECT_EQ(names[2], "recip_rank");
  EXPECT_EQ(names[3], "P_5");
  EXPECT_EQ(names[11], "P_1000");
  EXPECT_EQ(names[12], "recall_5");
  EXPECT_EQ(names[21], "ndcg");
  EXPECT_EQ(names[22], "ndcg_cut_5");
  EXPECT_EQ(names[30], "ndcg_cut_1000");
  EXPECT_EQ(names[31], "success_1");
  EXPECT_EQ(names[33], "success_10");
}

TEST_F(TrecEvaluateTest, PerQueryLinesComeBeforeAllGroupedByQuery) {
  const auto lines = evaluate(qrels_, run_, {.per_query = true});
  ASSERT_EQ(lines.size(), 3u * 34u);
  EXPECT_EQ(lines[0].query, "q1");
  EXPECT_EQ(lines[33].query, "q1");
  EXPECT_EQ(lines[34].query, "q2");
  EXPECT_EQ(lines[68].query, "all");
}

TEST_F(TrecEvaluateTest, MeasureFamiliesSelectLinesKeepingTrecEvalOrder) {
  const auto lines = evaluate(qrels_, run_, {.measures = {"success", "map"}});
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0].measure, "map");
  EXPECT_EQ(lines[1].measure, "success_1");
}

TEST_F(TrecEvaluateTest, NoQueryInCommonGivesNoLines) {
  const Qrels other = {{"q9", {{"d1", 1}}}};
  EXPECT_TRUE(evaluate(other, run_, {.per_query = true}).empty());
}

TEST(TrecFormat, PadsMeasureNameAndRoundsToFourDecimals) {
  EXPECT_EQ(format_trec_line({"P_5", "q1", 0.4}), "P_5                   \tq1\t0.4000");
  EXPECT_EQ(format_trec_line({"map", "all", 2.0 / 3}), "map                   \tall\t0.6667");
}

TEST(TrecFormat, CountsAreIntegersAndTextIsPrintedAsIs) {
  EXPECT_EQ(format_trec_line({"num_ret", "all", 1500.0, TrecValueKind::kCount}),
            "num_ret               \tall\t1500");
  EXPECT_EQ(format_trec_line({"runid", "all", 0.0, TrecValueKind::kText, "bm25"}),
            "runid                 \tall\tbm25");
}

}  // namespace
}  // namespace ragmeter
