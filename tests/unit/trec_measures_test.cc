// trec_eval's measures on hand-worked cases, and trec_evaluate's options (-m with
// parameters, -c, -M, -J, -l). tests/oracle/test_trec_eval.py compares everything
// with pytrec_eval on thousands of generated queries; these say why the values are what
// they are.
#include "eval/trec_measures.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "ragmeter/trec_eval.h"

namespace ragmeter {
namespace {

constexpr double kTolerance = 1e-12;

// Judged: a 2, b 1, e 1 (R = 3), c 0, d in the pool unjudged (-1). Ranked: b, z (not
// judged), c, d, a; e not retrieved. Relevance values: 1, -1, 0, -2, 2.
class TrecWorkedExample : public testing::Test {
 protected:
  Judgements judgements_ = {{"a", 2}, {"b", 1}, {"c", 0}, {"d", -1}, {"e", 1}};
  Ranking ranking_ = {"b", "z", "c", "d", "a"};
  TrecJudgedRanking r_ = trec_judged_ranking(ranking_, judgements_);
};

TEST_F(TrecWorkedExample, JudgedRankingMarksUnpooledAndUnjudgedDocuments) {
  EXPECT_EQ(r_.rels, (std::vector<long>{1, TrecJudgedRanking::kNotInPool, 0,
                                        TrecJudgedRanking::kUnjudged, 2}));
  EXPECT_EQ(r_.level_counts, (std::map<long, long>{{0, 1}, {1, 2}, {2, 1}}));
  EXPECT_EQ(r_.num_rel, 3);
  EXPECT_EQ(r_.num_rel_ret, 2);
  EXPECT_EQ(trec_num_nonrel_judged_ret(r_), 1);
  EXPECT_EQ(trec_relstring(r_), "1-0.2");
}

TEST_F(TrecWorkedExample, BprefCountsOnlyJudgedNonRelevantAbove) {
  // b: no judged non-relevant above: 1. a: c above, 1 - min(1, 3) / min(1, 3) = 0.
  EXPECT_NEAR(trec_bpref(r_), (1.0 + 0.0) / 3, kTolerance);
}

TEST_F(TrecWorkedExample, InferredApSkipsUnpooledAndSpreadsOverUnjudged) {
  // b at rank 1: 1. a at rank 5 (j = 4; above: 1 relevant, 1 non-relevant, 1 unjudged):
  // 1/5 + 4/5 * (1 + 1 + 1)/4 * (1 + e)/(1 + 1 + 2e) = 0.2 + 0.6 * 0.5.
  EXPECT_NEAR(trec_inferred_ap(r_), (1.0 + 0.5) / 3, kTolerance);
}

TEST_F(TrecWorkedExample, BinaryGDiscountsByNonRelevantAbove) {
  EXPECT_NEAR(trec_binary_g(r_), (1.0 + 1.0 / std::log2(5.0)) / 3, kTolerance);
}

TEST_F(TrecWorkedExample, RecallCutoffsRoundUpFromNineTenthsAsTrecEval9) {
  // Recall 0.4 of R = 3 is (long)(1.2 + 0.9) = 2 relevant documents: reached at rank 5,
  // precision 2/5 (rounding to nearest, as later trec_eval does, would give 1 and 1.0).
  const std::vector<double> levels = {0.0, 0.3, 0.4, 0.8};
  EXPECT_EQ(trec_interpolated_precision(r_, levels), (std::vector<double>{1.0, 1.0, 0.4, 0.0}));
  EXPECT_NEAR(trec_11pt_average(r_, levels), (1.0 + 1.0 + 0.4 + 0.0) / 4, kTolerance);
}

TEST_F(TrecWorkedExample, RPrecisionMultiplesPastTheRankingDivideByTheCutoff) {
  // 0.2 R -> rank 1: 1/1. 1.2 R -> rank 4: 1/4. 2 R -> rank 6 > 5 retrieved: 2/6.
  const std::vector<double> multiples = {0.2, 1.2, 2.0};
  const std::vector<double> values = trec_r_precision_multiples(r_, multiples);
  ASSERT_EQ(values.size(), 3u);
  EXPECT_NEAR(values[0], 1.0, kTolerance);
  EXPECT_NEAR(values[1], 0.25, kTolerance);
  EXPECT_NEAR(values[2], 2.0 / 6, kTolerance);
}

TEST_F(TrecWorkedExample, SetMeasuresAndUtilityReadOnlyTheCounts) {
  EXPECT_NEAR(trec_set_precision(r_), 2.0 / 5, kTolerance);
  EXPECT_NEAR(trec_set_recall(r_), 2.0 / 3, kTolerance);
  EXPECT_NEAR(trec_set_relative_precision(r_), 2.0 / 3, kTolerance);
  EXPECT_NEAR(trec_set_map(r_), 4.0 / 15, kTolerance);
  EXPECT_NEAR(trec_set_f(r_), 2 * 0.4 * (2.0 / 3) / (0.4 + 2.0 / 3), kTolerance);
  const std::vector<double> coefficients = {1.0, -1.0, 0.0, 0.0};
  EXPECT_NEAR(trec_utility(r_, coefficients), 2.0 - 3.0, kTolerance);
}

TEST_F(TrecWorkedExample, NdcgUsesLevelsAsGainsAndOverridesReplaceThem) {
  const double ideal = 2.0 + 1.0 / std::log2(3.0) + 1.0 / std::log2(4.0);
  EXPECT_NEAR(trec_ndcg(r_, trec_gains(r_)), (1.0 + 2.0 / std::log2(6.0)) / ideal, kTolerance);
  const std::vector<std::pair<long, double>> overrides = {{2, 10.0}};
  const double ideal_10 = 10.0 + 1.0 / std::log2(3.0) + 1.0 / std::log2(4.0);
  EXPECT_NEAR(trec_ndcg(r_, trec_gains(r_, overrides)), (1.0 + 10.0 / std::log2(6.0)) / ideal_10,
              kTolerance);
  // At 1: b (gain 1) against a (gain 2).
  EXPECT_NEAR(trec_ndcg_at(r_, 1), 0.5, kTolerance);
}

// The judged-level counts were an array indexed by level, so a qrels level of
// 2,000,000,000 asked for 16 GB and the program died (found while writing the fuzz
// target for the TREC readers; its 10-minute run did not reach such a level).
TEST(TrecJudgedRanking, HugeRelevanceLevelCostsOneEntry) {
  const Judgements judgements = {{"a", 2000000000}, {"b", 1}};
  const TrecJudgedRanking r = trec_judged_ranking({"b", "a"}, judgements);
  EXPECT_EQ(r.level_counts.size(), 2u);
  EXPECT_EQ(r.num_rel, 2);
  // Graded gains: b (1) at rank 1, a (2e9) at rank 2, against the ideal a, b.
  const double dcg = 1.0 + 2e9 / std::log2(3.0);
  const double ideal = 2e9 + 1.0 / std::log2(3.0);
  EXPECT_NEAR(trec_ndcg(r, trec_gains(r)), dcg / ideal, 1e-12);
}

TEST(TrecJudgedRanking, DuplicatesCountOnceAndDepthAndJudgedOnlyCut) {
  const Judgements judgements = {{"a", 1}, {"b", 0}};
  const Ranking ranking = {"x", "a", "a", "b"};
  EXPECT_EQ(trec_judged_ranking(ranking, judgements).rels,
            (std::vector<long>{TrecJudgedRanking::kNotInPool, 1, 0}));
  EXPECT_EQ(trec_judged_ranking(ranking, judgements, {.max_docs = 1}).num_ret(), 1);
  EXPECT_EQ(trec_judged_ranking(ranking, judgements, {.judged_only = true}).rels,
            (std::vector<long>{1, 0}));
  const TrecJudgedRanking level2 = trec_judged_ranking(ranking, judgements, {.relevance_level = 2});
  EXPECT_EQ(level2.num_rel, 0);
  EXPECT_EQ(trec_average_precision(level2), 0.0);
}

// Two judged queries, only q1 in the run (a at rank 1: map 1).
class TrecEvaluateOptions : public testing::Test {
 protected:
  std::vector<TrecMeasureValue> evaluate(TrecEvalOptions options) {
    StatusOr<std::vector<TrecMeasureValue>> lines = trec_evaluate(qrels_, run_, options);
    EXPECT_TRUE(lines.ok()) << lines.status().to_string();
    return lines.ok() ? *lines : std::vector<TrecMeasureValue>{};
  }
  static double value(const std::vector<TrecMeasureValue>& lines, const std::string& measure,
                      const std::string& query = "all") {
    for (const TrecMeasureValue& line : lines) {
      if (line.measure == measure && line.query == query) return line.value;
    }
    ADD_FAILURE() << "no line " << measure << " " << query;
    return std::nan("");
  }
  Qrels qrels_ = {{"q1", {{"a", 1}}}, {"q2", {{"b", 1}}}};
  ragmeter::Run run_ = {{"q1", {"a", "x"}}};
};

TEST_F(TrecEvaluateOptions, CompleteAveragesOverEveryQrelsQuery) {
  const auto plain = evaluate({.measures = {"map", "gm_map", "num_q"}});
  EXPECT_NEAR(value(plain, "map"), 1.0, kTolerance);
  EXPECT_NEAR(value(plain, "gm_map"), 1.0, kTolerance);
  EXPECT_EQ(value(plain, "num_q"), 1.0);
  const auto complete = evaluate({.measures = {"map", "gm_map", "num_q"}, .average_complete = true});
  EXPECT_NEAR(value(complete, "map"), 0.5, kTolerance);
  // The missing query counts as 0.00001 in the geometric mean.
  EXPECT_NEAR(value(complete, "gm_map"), std::sqrt(0.00001), kTolerance);
  EXPECT_EQ(value(complete, "num_q"), 2.0);
}

TEST_F(TrecEvaluateOptions, CutoffParametersAreSortedAndNamed) {
  const auto lines = evaluate({.measures = {"P.7,1", "iprec_at_recall.0.25"}});
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].measure, "iprec_at_recall_0.25");
  EXPECT_EQ(lines[1].measure, "P_1");
  EXPECT_NEAR(lines[1].value, 1.0, kTolerance);
  EXPECT_EQ(lines[2].measure, "P_7");
  EXPECT_NEAR(lines[2].value, 1.0 / 7, kTolerance);
}

TEST_F(TrecEvaluateOptions, FirstParametersGivenForAMeasureWin) {
  const auto lines = evaluate({.measures = {"success.2", "success.5", "success"}});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].measure, "success_2");
}

TEST_F(TrecEvaluateOptions, DepthCutsTheRanking) {
  const auto lines = evaluate({.measures = {"num_ret"}, .max_docs = 1});
  EXPECT_EQ(value(lines, "num_ret"), 1.0);
}

TEST_F(TrecEvaluateOptions, OfficialIsTheDefaultWithRunIdFirst) {
  const auto lines = evaluate({.run_tag = "bm25"});
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0].measure, "runid");
  EXPECT_EQ(lines[0].text, "bm25");
  EXPECT_EQ(lines.back().measure, "P_1000");
}

TEST_F(TrecEvaluateOptions, PerQueryLinesLeaveOutSummaryOnlyMeasures) {
  const auto lines = evaluate({.per_query = true, .measures = {"all_trec"}});
  for (const TrecMeasureValue& line : lines) {
    if (line.query == "q1") {
      EXPECT_NE(line.measure, "gm_map");
      EXPECT_NE(line.measure, "num_q");
      EXPECT_NE(line.measure, "runid");
    } else {
      EXPECT_NE(line.measure, "relstring");
    }
  }
}

TEST_F(TrecEvaluateOptions, BadSelectionsAreInvalidArgumentNamingThem) {
  for (const char* bad : {"P.0", "P.5,5", "P.x", "nosuch", "utility.1,2", "official.5",
                          "ndcg.1:2", "map.5"}) {
    const auto lines = trec_evaluate(qrels_, run_, {.measures = {bad}});
    EXPECT_EQ(lines.status().code(), StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_FALSE(trec_evaluate(qrels_, run_, {.relevance_level = -1}).ok());
}

}  // namespace
}  // namespace ragmeter
