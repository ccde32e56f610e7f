// trec_eval 10.0's changes and additions, on hand-worked cases: rounded recall cutoffs,
// rbp, rbp_resid, unj, yaap, the judgment-group measures, -c printing the run's missing
// queries, -Z, -n, cutoffs such as 23.4, scores compared as doubles, the last line's
// run tag. No trec_eval 10 oracle exists on PyPI: every expected value is worked out in
// the comment beside it.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ragmeter/trec.h"
#include "ragmeter/trec_eval.h"
#include "eval/trec_measures.h"

namespace ragmeter {
namespace {

constexpr double kTolerance = 1e-12;
using TrecRun = ragmeter::Run;  // inside a test body plain `Run` names testing::Test::Run

// Judged: a 2, b 1, e 1 (R = 3), c 0, d in the pool unjudged (-1). Ranked: b, z (not
// judged), c, d, a; e not retrieved. Relevance values by rank: 1, -1, 0, -2, 2.
class TrecV10WorkedExample : public testing::Test {
 protected:
  Judgements judgements_ = {{"a", 2}, {"b", 1}, {"c", 0}, {"d", -1}, {"e", 1}};
  Ranking ranking_ = {"b", "z", "c", "d", "a"};
  TrecJudgedRanking r_ = trec_judged_ranking(ranking_, judgements_);
};

TEST_F(TrecV10WorkedExample, RecallCutoffsRoundToNearestInTrecEval10) {
  // R = 3. Levels 0, 0.3, 0.4, 0.8 make 0, 0.9, 1.2, 2.4 relevant documents; rounded:
  // 0, 1, 1, 2 (trec_eval 9: 0, 1, 2, 3). Relevant at ranks 1 (P 1/1) and 5 (P 2/5):
  // 0 and 1 -> the best precision from rank 1 on, 1.0; 2 -> 2/5.
  const std::vector<double> levels = {0.0, 0.3, 0.4, 0.8};
  EXPECT_EQ(trec_interpolated_precision(r_, levels, TrecRecallCutoff::kRounded),
            (std::vector<double>{1.0, 1.0, 1.0, 0.4}));
  // (1 + 1 + 1 + 0.4) / 4 = 0.85; trec_eval 9 gives (1 + 1 + 0.4 + 0) / 4 = 0.6.
  EXPECT_NEAR(trec_11pt_average(r_, levels, TrecRecallCutoff::kRounded), 0.85, kTolerance);
  EXPECT_NEAR(trec_11pt_average(r_, levels, TrecRecallCutoff::kPlusNineTenths), 0.6, kTolerance);
}

TEST_F(TrecV10WorkedExample, RbpNormalizesGradedGainsAndDiscountsByPersistence) {
  // Levels 0, 1, 2 gain 0, 1, 2; 2 > 1, so gains become g / 2: b 0.5 (rank 1, weight
  // p^0), a 1.0 (rank 5, weight p^4). p = 0.9: 0.1 * (0.5 + 0.9^4) = 0.1 * 1.1561.
  EXPECT_NEAR(trec_rbp(r_), 0.11561, kTolerance);
  // p = 0.5: 0.5 * (0.5 + 0.0625) = 0.28125.
  EXPECT_NEAR(trec_rbp(r_, 0.5), 0.28125, kTolerance);
  // A gain override of level 1 to 4: gains 0, 4, 2 (min 0, max 4) -> b 1.0, a 0.5:
  // 0.1 * (1.0 + 0.5 * 0.6561) = 0.132805.
  const std::vector<std::pair<long, double>> overrides = {{1, 4.0}};
  EXPECT_NEAR(trec_rbp(r_, 0.9, overrides), 0.132805, kTolerance);
}

TEST(TrecV10Rbp, BinaryGainsAreNotRescaled) {
  // Levels 0 and 1: gains already in [0, 1]. Relevant at ranks 1 and 3:
  // 0.1 * (1 + 0.81) = 0.181.
  const TrecJudgedRanking r =
      trec_judged_ranking({"x", "y", "w"}, {{"x", 1}, {"y", 0}, {"w", 1}});
  EXPECT_NEAR(trec_rbp(r), 0.181, kTolerance);
}

TEST(TrecV10Rbp, HugeRelevanceLevelCostsNoTableOfThatSize) {
  // Fuzzing found it: a gain table of every level up to 2,000,000,000 ran out of memory.
  // Gains 0 .. 2e9 rescale by 2e9: x gains 1, y (level 1) 5e-10 at weight 0.9:
  // 0.1 * (1 + 0.9 * 5e-10).
  const TrecJudgedRanking r =
      trec_judged_ranking({"x", "y"}, {{"x", 2000000000}, {"y", 1}});
  EXPECT_NEAR(trec_rbp(r), 0.1 * (1 + 0.9 * 5e-10), 1e-15);
}

TEST_F(TrecV10WorkedExample, RbpResidualWeighsUnjudgedDocumentsAndTheTail) {
  // Unjudged or unpooled at ranks 2 (z) and 4 (d): p^1 + p^3 = 0.9 + 0.729 = 1.629; the
  // tail past 5 documents weighs p^5 = 0.59049: 0.59049 + 0.1 * 1.629 = 0.75339.
  EXPECT_NEAR(trec_rbp_residual(r_), 0.75339, kTolerance);
}

TEST(TrecV10Rbp, ResidualIsZeroWhenEveryRetrievedDocumentIsJudged) {
  // trec_eval leaves the value at 0 then, although the tail p^n is uncertain too.
  const TrecJudgedRanking r = trec_judged_ranking({"x", "y"}, {{"x", 1}, {"y", 0}});
  EXPECT_EQ(trec_rbp_residual(r), 0.0);
}

TEST_F(TrecV10WorkedExample, UnjudgedAtCutoffsCountsUnpooledAndUnjudged) {
  EXPECT_NEAR(trec_unjudged_at(r_, 2), 1.0 / 2, kTolerance);   // z
  EXPECT_NEAR(trec_unjudged_at(r_, 5), 2.0 / 5, kTolerance);   // z, d
  EXPECT_NEAR(trec_unjudged_at(r_, 10), 2.0 / 10, kTolerance); // past the end: judged
}

TEST_F(TrecV10WorkedExample, YaapSmoothsAveragePrecision) {
  // S = 1/1 + 2/5 = 1.4, R = 3: log((1 + 1.4) / (1 + 3 - 1.4)) = log(2.4 / 2.6).
  EXPECT_NEAR(trec_yaap(r_), std::log(2.4 / 2.6), kTolerance);
}

// Two judgment groups over the ranking b, z, c, d, a: A judges b 1, a 0 (R = 1);
// B judges a 1, c 1 (R = 2).
class TrecV10JudgmentGroups : public testing::Test {
 protected:
  Ranking ranking_ = {"b", "z", "c", "d", "a"};
  std::vector<TrecJudgedRanking> groups_ = {
      trec_judged_ranking(ranking_, {{"b", 1}, {"a", 0}}),
      trec_judged_ranking(ranking_, {{"a", 1}, {"c", 1}})};
};

TEST_F(TrecV10JudgmentGroups, AveragePrecisionIsAveragedOverGroups) {
  // A: b at rank 1, AP 1. B: c at 3 (1/3) and a at 5 (2/5), AP (1/3 + 2/5) / 2 = 11/30.
  EXPECT_NEAR(trec_map_avgjg(groups_), (1.0 + 11.0 / 30) / 2, kTolerance);
}

TEST_F(TrecV10JudgmentGroups, PrecisionAndRprecMultAreAveragedOverGroups) {
  EXPECT_NEAR(trec_precision_avgjg(groups_, 1), (1.0 + 0.0) / 2, kTolerance);
  EXPECT_NEAR(trec_precision_avgjg(groups_, 5), (1.0 / 5 + 2.0 / 5) / 2, kTolerance);
  // Multiple 1.0: A's cutoff (long)(1 + 0.9) = 1, P@1 = 1; B's (long)(2 + 0.9) = 2,
  // P@2 = 0.
  const std::vector<double> multiples = {1.0};
  EXPECT_EQ(trec_r_precision_multiples_avgjg(groups_, multiples), (std::vector<double>{0.5}));
}

TEST(TrecV10Readers, QrelsJgGroupsJudgementsBySecondColumn) {
  const auto qrels = parse_qrels_jg("q1 A b 1\nq1 A a 0\n# c\nq1 B a 1\nq1 B c 1\n", "jg");
  ASSERT_TRUE(qrels.ok()) << qrels.status().to_string();
  ASSERT_EQ(qrels->at("q1").size(), 2u);
  EXPECT_EQ(qrels->at("q1").at("B").at("c"), 1);
  const auto twice = parse_qrels_jg("q1 A b 1\nq1 A b 0\n", "jg.txt");
  EXPECT_EQ(twice.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(twice.status().message().find("jg.txt:2:"), std::string::npos);
}

TEST(TrecV10Readers, RunTagIsTheLastLinesAndScoresCompareAsDoubles) {
  std::string tag;
  const auto run = parse_run(
      "q Q0 a 1 0.30000000000000004 first\nq Q0 b 2 0.3 last\n", "run", &tag,
      TrecEvalVersion::k10);
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(tag, "last");
  // As doubles a's score is the larger: a first. As floats they tie and b (the larger
  // id) comes first, as trec_eval 9 ranks them.
  EXPECT_EQ(run->at("q"), (Ranking{"a", "b"}));
  const auto run9 = parse_run("q Q0 a 1 0.30000000000000004 r\nq Q0 b 2 0.3 r\n", "run",
                              nullptr, TrecEvalVersion::k9);
  EXPECT_EQ(run9->at("q"), (Ranking{"b", "a"}));
}

TEST(TrecV10Readers, ZscoreFileReadsMeanAndStddevPerQueryAndMeasure) {
  const auto z = parse_trec_zscores("q1 map 0.5 0.25\n# comment\nq1 P_5 0.2 0\n", "z");
  ASSERT_TRUE(z.ok()) << z.status().to_string();
  EXPECT_EQ(z->at("q1").at("map").stddev, 0.25);
  EXPECT_FALSE(parse_trec_zscores("q1 map 0.5\n", "z").ok());
  EXPECT_FALSE(parse_trec_zscores("q1 map x 1\n", "z").ok());
}

// trec_evaluate with version 10: qrels q1 (x 1, y 0) and q2 (w 1); the run has q1 only,
// ranking x then v (unjudged).
class TrecV10Evaluate : public testing::Test {
 protected:
  Qrels qrels_ = {{"q1", {{"x", 1}, {"y", 0}}}, {"q2", {{"w", 1}}}};
  TrecRun run_ = {{"q1", {"x", "v"}}};

  std::vector<TrecMeasureValue> evaluate(TrecEvalOptions options) {
    auto lines = trec_evaluate(qrels_, run_, options);
    EXPECT_TRUE(lines.ok()) << lines.status().to_string();
    return lines.ok() ? *lines : std::vector<TrecMeasureValue>{};
  }
};

const TrecMeasureValue* find_line(const std::vector<TrecMeasureValue>& lines,
                                  const std::string& measure, const std::string& query) {
  for (const TrecMeasureValue& line : lines) {
    if (line.measure == measure && line.query == query) return &line;
  }
  return nullptr;
}

TEST_F(TrecV10Evaluate, CompletePrintsTheRunsMissingQueryWithZeroes) {
  const std::vector<std::string> measures = {"num_ret", "utility", "relstring", "unj.1",
                                             "rbp_resid", "P.1", "gm_map", "num_q"};
  const auto lines = evaluate({.per_query = true, .measures = measures,
                               .average_complete = true, .version = TrecEvalVersion::k10});
  // q2 is evaluated as if one unpooled document were retrieved, then num_ret (would be
  // 1), utility (-1), unj_1 (1) and rbp_resid (0.9 + 0.1 = 1) are set back to 0.
  for (const char* name : {"num_ret", "utility", "unj_1", "rbp_resid", "P_1"}) {
    const TrecMeasureValue* line = find_line(lines, name, "q2");
    ASSERT_NE(line, nullptr) << name;
    EXPECT_EQ(line->value, 0.0) << name;
  }
  ASSERT_NE(find_line(lines, "relstring", "q2"), nullptr);
  EXPECT_EQ(find_line(lines, "relstring", "q2")->text, "''");
  // Summary over 2 queries: P_1 (1 + 0) / 2; gm_map exp((log 1 + log 0.00001) / 2).
  EXPECT_NEAR(find_line(lines, "P_1", "all")->value, 0.5, kTolerance);
  EXPECT_NEAR(find_line(lines, "gm_map", "all")->value, std::sqrt(0.00001), kTolerance);
  EXPECT_EQ(find_line(lines, "num_q", "all")->value, 2.0);
  EXPECT_EQ(find_line(lines, "num_ret", "all")->value, 2.0);  // q1's 2 + q2's 0
}

TEST_F(TrecV10Evaluate, CompleteInTrecEval9CountsTheMissingQueryWithoutPrintingIt) {
  const auto lines = evaluate({.per_query = true, .measures = {"P.1"},
                               .average_complete = true, .version = TrecEvalVersion::k9});
  EXPECT_EQ(find_line(lines, "P_1", "q2"), nullptr);
  EXPECT_NEAR(find_line(lines, "P_1", "all")->value, 0.5, kTolerance);
}

TEST_F(TrecV10Evaluate, AllTrecGainsRbpAndUnjudgedAtTheEndInTrecEval10) {
  const auto v10 = evaluate({.measures = {"all_trec"}, .version = TrecEvalVersion::k10});
  ASSERT_GE(v10.size(), 5u);
  const std::vector<std::string> tail = {"rbp", "rbp_resid", "unj_5", "unj_10", "unj_20"};
  for (std::size_t i = 0; i < tail.size(); ++i) {
    EXPECT_EQ(v10[v10.size() - tail.size() + i].measure, tail[i]);
  }
  // q1: x relevant at rank 1, v unpooled at rank 2: rbp 0.1 * 1; rbp_resid
  // 0.9^2 + 0.1 * 0.9 = 0.9; unj_5 1/5.
  EXPECT_NEAR(find_line(v10, "rbp", "all")->value, 0.1, kTolerance);
  EXPECT_NEAR(find_line(v10, "rbp_resid", "all")->value, 0.9, kTolerance);
  EXPECT_NEAR(find_line(v10, "unj_5", "all")->value, 0.2, kTolerance);
  const auto v9 = evaluate({.measures = {"all_trec"}, .version = TrecEvalVersion::k9});
  EXPECT_EQ(v9.back().measure, "num_nonrel_judged_ret");
  EXPECT_EQ(v10.size(), v9.size() + 5);
}

TEST_F(TrecV10Evaluate, RbpPersistenceParameterIsNamedAsGiven) {
  // x relevant at rank 1: (1 - 0.5) * 1 = 0.5.
  const auto lines = evaluate({.measures = {"rbp.p=0.5"}, .version = TrecEvalVersion::k10});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].measure, "rbp_p=0.5");
  EXPECT_NEAR(lines[0].value, 0.5, kTolerance);
}

TEST_F(TrecV10Evaluate, FractionalCutoffsAreTruncatedAsTrecEvalsAtol) {
  const auto lines = evaluate({.measures = {"ndcg_cut.10,20,23.4"}});
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[2].measure, "ndcg_cut_23");
  for (const char* bad : {"P.2.x", "P.2.", "P.0.5"}) {
    EXPECT_FALSE(trec_evaluate(qrels_, run_, {.measures = {bad}}).ok()) << bad;
  }
}

TEST_F(TrecV10Evaluate, TrecEval10MeasuresAreRefusedInVersion9) {
  const auto status =
      trec_evaluate(qrels_, run_, {.measures = {"rbp"}, .version = TrecEvalVersion::k9}).status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("trec_eval 10"), std::string::npos) << status.message();
}

TEST_F(TrecV10Evaluate, NoSummaryLeavesOutTheAllLines) {
  const auto lines = evaluate({.per_query = true, .measures = {"map"}, .summary = false});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].query, "q1");
}

TEST_F(TrecV10Evaluate, ZscoresReplaceEveryValueBeforeTheSummary) {
  // q1: map 1 and num_ret 2. map: (1 - 0.5) / 0.25 = 2. num_ret: stddev 0 and the value
  // equals the mean: 0. P_5 (0.2): absent from the file, -1000000.
  const TrecZscores z = {{"q1", {{"map", {0.5, 0.25}}, {"num_ret", {2.0, 0.0}}}}};
  const auto lines = evaluate({.per_query = true, .measures = {"map", "num_ret", "P.5"},
                               .zscores = &z});
  EXPECT_NEAR(find_line(lines, "map", "q1")->value, 2.0, kTolerance);
  EXPECT_EQ(find_line(lines, "num_ret", "q1")->value, 0.0);
  EXPECT_EQ(find_line(lines, "P_5", "q1")->value, -1000000.0);
  EXPECT_NEAR(find_line(lines, "map", "all")->value, 2.0, kTolerance);  // one query
  EXPECT_EQ(format_trec_line(*find_line(lines, "num_ret", "all")),
            "Znum_ret               \tall\t0.0000");
}

TEST_F(TrecV10Evaluate, QrelsJgMeasuresNeedQrelsJgInput) {
  const auto status = trec_evaluate(qrels_, run_, {.measures = {"map_avgjg"}}).status();
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(status.message().find("qrels_jg"), std::string::npos) << status.message();
  const QrelsJg jg = {{"q1", {{"A", {{"x", 1}}}, {"B", {{"v", 1}}}}}};
  // A: x at rank 1, AP 1; B: v at rank 2, AP 1/2: (1 + 0.5) / 2.
  const auto lines = trec_evaluate_jg(jg, run_, {.measures = {"qrels_jg"}, .run_tag = "r"});
  ASSERT_TRUE(lines.ok()) << lines.status().to_string();
  EXPECT_NEAR(find_line(*lines, "map_avgjg", "all")->value, 0.75, kTolerance);
  EXPECT_FALSE(trec_evaluate_jg(jg, run_, {.measures = {"map"}}).ok());
}

}  // namespace
}  // namespace ragmeter
