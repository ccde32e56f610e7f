// Retrieval metrics on small rankings whose values were worked out by hand.
#include "ragmeter/retrieval.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ragmeter {
namespace {

constexpr double kTolerance = 1e-12;

// Five retrieved documents: b (level 1) at rank 2 and d (level 2) at rank 4 are the
// relevant ones; x (level 1) is relevant but never retrieved, so R = 3.
const Ranking kRanking = {"a", "b", "c", "d", "e"};
const Judgements kQrels = {{"a", 0}, {"b", 1}, {"c", 0}, {"d", 2}, {"x", 1}};

double inverse_log2(double rank) { return 1.0 / std::log2(rank + 1.0); }

TEST(RetrievalPrecision, DividesByKEvenWhenFewerDocumentsWereRetrieved) {
  EXPECT_NEAR(precision_at_k(kRanking, kQrels, 2), 1.0 / 2, kTolerance);
  EXPECT_NEAR(precision_at_k(kRanking, kQrels, 10), 2.0 / 10, kTolerance);
}

TEST(RetrievalPrecision, WithoutCutoffDividesByRetrieved) {
  EXPECT_NEAR(precision_at_k(kRanking, kQrels, 0), 2.0 / 5, kTolerance);
  EXPECT_NEAR(precision_at_k(kRanking, kQrels, -3), 2.0 / 5, kTolerance);
}

TEST(RetrievalRecall, CountsRelevantDocumentsThatWereNeverRetrieved) {
  EXPECT_NEAR(recall_at_k(kRanking, kQrels, 2), 1.0 / 3, kTolerance);
  EXPECT_NEAR(recall_at_k(kRanking, kQrels, 5), 2.0 / 3, kTolerance);
}

TEST(RetrievalF1, IsHarmonicMeanOfPrecisionAndRecall) {
  // P@2 = 1/2, R@2 = 1/3: 2 * (1/6) / (5/6) = 0.4.
  EXPECT_NEAR(f1_at_k(kRanking, kQrels, 2), 0.4, kTolerance);
  EXPECT_EQ(f1_at_k(kRanking, kQrels, 1), 0.0);
}

TEST(RetrievalHitRate, IsOneOnlyWhenTheTopKHoldsARelevantDocument) {
  EXPECT_EQ(hit_rate_at_k(kRanking, kQrels, 1), 0.0);
  EXPECT_EQ(hit_rate_at_k(kRanking, kQrels, 2), 1.0);
  EXPECT_EQ(hit_rate_at_k(kRanking, kQrels, 0), 1.0);
}

TEST(RetrievalReciprocalRank, IsInverseRankOfFirstRelevantWithinCutoff) {
  EXPECT_NEAR(reciprocal_rank(kRanking, kQrels), 0.5, kTolerance);
  EXPECT_EQ(reciprocal_rank(kRanking, kQrels, 1), 0.0);
}

TEST(RetrievalAveragePrecision, DividesByAllRelevantIncludingUnretrieved) {
  // Precision 1/2 at rank 2 and 2/4 at rank 4, over R = 3.
  EXPECT_NEAR(average_precision(kRanking, kQrels), (0.5 + 0.5) / 3, kTolerance);
  // With a cutoff of 3 only b counts, still over R = 3.
  EXPECT_NEAR(average_precision(kRanking, kQrels, 3), 0.5 / 3, kTolerance);
}

TEST(RetrievalRPrecision, IsPrecisionAtTheNumberOfRelevantDocuments) {
  // Top 3 = a, b, c: one relevant.
  EXPECT_NEAR(r_precision(kRanking, kQrels), 1.0 / 3, kTolerance);
  // R = 3 but only 2 retrieved: still divided by R.
  EXPECT_NEAR(r_precision({"b", "d"}, kQrels), 2.0 / 3, kTolerance);
}

TEST(RetrievalNdcg, UsesRelevanceLevelsAsGainsAndAllJudgedDocumentsForTheIdeal) {
  const double dcg = 1 * inverse_log2(2) + 2 * inverse_log2(4);
  const double ideal = 2 * inverse_log2(1) + 1 * inverse_log2(2) + 1 * inverse_log2(3);
  EXPECT_NEAR(ndcg_at_k(kRanking, kQrels, 0), dcg / ideal, kTolerance);
  EXPECT_NEAR(ndcg_at_k(kRanking, kQrels, 0), 0.47662611018851303, 1e-12);
}

TEST(RetrievalNdcg, BinaryGivesEveryRelevantDocumentGainOne) {
  const double dcg = inverse_log2(2) + inverse_log2(4);
  const double ideal = inverse_log2(1) + inverse_log2(2) + inverse_log2(3);
  EXPECT_NEAR(ndcg_at_k(kRanking, kQrels, 0, /*graded=*/false), dcg / ideal, kTolerance);
}

TEST(RetrievalNdcg, CutoffAppliesToTheIdealRankingToo) {
  // Top 2 holds b (gain 1 at rank 2); the ideal top 2 is d (2) then b or x (1).
  const double expected = inverse_log2(2) / (2 * inverse_log2(1) + inverse_log2(2));
  EXPECT_NEAR(ndcg_at_k(kRanking, kQrels, 2), expected, kTolerance);
  EXPECT_EQ(ndcg_at_k(kRanking, kQrels, 1), 0.0);
}

TEST(RetrievalNdcg, CutoffLargerThanTheRankingEqualsNoCutoff) {
  EXPECT_NEAR(ndcg_at_k(kRanking, kQrels, 1000), ndcg_at_k(kRanking, kQrels, 0), kTolerance);
}

TEST(RetrievalDuplicates, CountOnceAtTheirFirstPosition) {
  const Ranking ranking = {"b", "b", "a", "d"};
  const Judgements qrels = {{"b", 1}, {"d", 1}};
  // The second b is dropped: the top 2 are b, a and d moves up to rank 3.
  EXPECT_NEAR(precision_at_k(ranking, qrels, 2), 0.5, kTolerance);
  EXPECT_NEAR(precision_at_k(ranking, qrels, 0), 2.0 / 3, kTolerance);
  EXPECT_NEAR(average_precision(ranking, qrels), (1.0 + 2.0 / 3) / 2, kTolerance);
  EXPECT_NEAR(recall_at_k(ranking, qrels, 0), 1.0, kTolerance);
}

TEST(RetrievalJudgements, NegativeLevelsAreNotRelevantAndHaveNoGain) {
  const Judgements qrels = {{"a", -1}, {"b", -2}, {"c", 1}};
  const Ranking ranking = {"a", "b", "c"};
  EXPECT_NEAR(precision_at_k(ranking, qrels, 3), 1.0 / 3, kTolerance);
  EXPECT_NEAR(reciprocal_rank(ranking, qrels), 1.0 / 3, kTolerance);
  EXPECT_NEAR(ndcg_at_k(ranking, qrels, 0), inverse_log2(3), kTolerance);
}

TEST(RetrievalJudgements, QueryWithoutRelevantDocumentsScoresZero) {
  const Judgements qrels = {{"a", 0}, {"b", -1}};
  const Ranking ranking = {"a", "b"};
  EXPECT_EQ(recall_at_k(ranking, qrels, 5), 0.0);
  EXPECT_EQ(average_precision(ranking, qrels), 0.0);
  EXPECT_EQ(r_precision(ranking, qrels), 0.0);
  EXPECT_EQ(ndcg_at_k(ranking, qrels, 5), 0.0);
  EXPECT_EQ(reciprocal_rank(ranking, qrels), 0.0);
}

TEST(RetrievalEmptyRanking, ScoresZeroEverywhere) {
  const Ranking empty;
  EXPECT_EQ(precision_at_k(empty, kQrels, 5), 0.0);
  EXPECT_EQ(precision_at_k(empty, kQrels, 0), 0.0);
  EXPECT_EQ(recall_at_k(empty, kQrels, 5), 0.0);
  EXPECT_EQ(f1_at_k(empty, kQrels, 5), 0.0);
  EXPECT_EQ(hit_rate_at_k(empty, kQrels, 5), 0.0);
  EXPECT_EQ(reciprocal_rank(empty, kQrels), 0.0);
  EXPECT_EQ(average_precision(empty, kQrels), 0.0);
  EXPECT_EQ(r_precision(empty, kQrels), 0.0);
  EXPECT_EQ(ndcg_at_k(empty, kQrels, 10), 0.0);
}

TEST(RetrievalIdContext, PrecisionIsShareOfDistinctRetrievedIdsInReference) {
  EXPECT_NEAR(id_context_precision({"a", "a", "b", "c"}, {"a", "d"}), 1.0 / 3, kTolerance);
  EXPECT_EQ(id_context_precision({}, {"a"}), 0.0);
}

TEST(RetrievalIdContext, RecallIsShareOfDistinctReferenceIdsRetrieved) {
  EXPECT_NEAR(id_context_recall({"a", "a", "b", "c"}, {"a", "d", "d"}), 1.0 / 2, kTolerance);
  EXPECT_EQ(id_context_recall({"a"}, {}), 0.0);
}

}  // namespace
}  // namespace ragmeter
