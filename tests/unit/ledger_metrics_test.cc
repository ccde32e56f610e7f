// Metrics read off the claim ledger: RAGChecker's two worked examples reproduced
// exactly, and every formula on small hand-checked ledgers, edges included.
#include "ragmeter/ledger_metrics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include "tests/unit/test_paths.h"

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

constexpr Verdict E = Verdict::kEntailment;
constexpr Verdict N = Verdict::kNeutral;
constexpr Verdict C = Verdict::kContradiction;
constexpr Verdict M = Verdict::kMissing;

// ---- Building ledgers by hand -------------------------------------------------------

// claims: "a0", "a1", ... and "r0", ...; chunks "c0", ...; every cell missing.
ClaimLedger blank(std::size_t response, std::size_t reference, std::size_t chunks) {
  auto names = [](char prefix, std::size_t n) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < n; ++i) out.push_back(prefix + std::to_string(i));
    return out;
  };
  return make_claim_ledger(names('a', response), names('r', reference), names('c', chunks));
}

void fill(VerdictTable* table, const std::vector<std::vector<Verdict>>& rows) {
  ASSERT_EQ(rows.size(), table->rows());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    ASSERT_EQ(rows[r].size(), table->cols());
    for (std::size_t k = 0; k < rows[r].size(); ++k) table->at(r, k).verdict = rows[r][k];
  }
}

void fill(std::vector<VerdictCell>* cells, const std::vector<Verdict>& verdicts) {
  ASSERT_EQ(verdicts.size(), cells->size());
  for (std::size_t i = 0; i < verdicts.size(); ++i) (*cells)[i].verdict = verdicts[i];
}

void expect_score(const MetricResult& result, double score) {
  ASSERT_EQ(result.outcome, Outcome::kOk) << result.reason;
  EXPECT_DOUBLE_EQ(result.score, score);
}

void expect_outcome(const MetricResult& result, Outcome outcome, const std::string& reason_part) {
  EXPECT_EQ(result.outcome, outcome) << result.reason;
  EXPECT_NE(result.reason.find(reason_part), std::string::npos) << result.reason;
}

// ---- RAGChecker's worked examples -----------------------------------------------------

Json ragchecker_outputs() {
  std::ifstream in(std::string(RAGMETER_SOURCE_DIR) +
                   "/tests/data/ragchecker_checking_outputs.json");
  return Json::parse(in);
}

// The figure RAGChecker reports for `name` (its groups: overall, retriever, generator).
double ragchecker_overall(const Json& outputs, const std::string& name) {
  for (const auto& [group, values] : outputs["metrics"].items()) {
    if (values.contains(name)) return values[name].get<double>();
  }
  ADD_FAILURE() << "no overall value for " << name;
  return NAN;
}

TEST(RagcheckerExamplesTest, EveryPerSampleMetricMatchesExactly) {
  const Json outputs = ragchecker_outputs();
  ASSERT_EQ(outputs["results"].size(), 2u);
  for (const Json& sample : outputs["results"]) {
    StatusOr<ClaimLedger> ledger = claim_ledger_from_ragchecker(sample);
    ASSERT_TRUE(ledger.ok()) << ledger.status().to_string();
    for (RagcheckerMetric metric : ragchecker_metrics()) {
      const char* name = ragchecker_metric_name(metric);
      SCOPED_TRACE(sample["query_id"].get<std::string>() + " " + name);
      MetricResult result = ragchecker_metric(*ledger, metric);
      ASSERT_EQ(result.outcome, Outcome::kOk) << result.reason;
      EXPECT_NEAR(result.score, sample["metrics"][name].get<double>(), 1e-12);
    }
  }
}

TEST(RagcheckerExamplesTest, MeansOfPerSampleValuesRoundToTheOverallFigures) {
  const Json outputs = ragchecker_outputs();
  for (RagcheckerMetric metric : ragchecker_metrics()) {
    double sum = 0.0;
    for (const Json& sample : outputs["results"]) {
      sum += ragchecker_metric(*claim_ledger_from_ragchecker(sample), metric).score;
    }
    const double percent = 100.0 * sum / static_cast<double>(outputs["results"].size());
    const char* name = ragchecker_metric_name(metric);
    EXPECT_NEAR(percent, ragchecker_overall(outputs, name), 0.05 + 1e-9) << name;
  }
}

TEST(RagcheckerExamplesTest, RagasMetricsSharingAFormulaAgreeWithRagchecker) {
  const Json outputs = ragchecker_outputs();
  for (const Json& sample : outputs["results"]) {
    const ClaimLedger ledger = *claim_ledger_from_ragchecker(sample);
    const Json& expected = sample["metrics"];
    EXPECT_NEAR(ledger_faithfulness(ledger).score, expected["faithfulness"].get<double>(), 1e-12);
    EXPECT_NEAR(ledger_context_recall(ledger).score, expected["claim_recall"].get<double>(), 1e-12);
    EXPECT_NEAR(ledger_noise_sensitivity(ledger, NoiseMode::kRelevant).score,
                expected["noise_sensitivity_in_relevant"].get<double>(), 1e-12);
    EXPECT_NEAR(ledger_factual_correctness(ledger, FactualMode::kPrecision).score,
                expected["precision"].get<double>(), 1e-12);
  }
}

TEST(RagcheckerExamplesTest, NamesFollowRagcheckerKeysInOrder) {
  ASSERT_EQ(ragchecker_metrics().size(), 11u);
  EXPECT_STREQ(ragchecker_metric_name(ragchecker_metrics()[0]), "precision");
  EXPECT_STREQ(ragchecker_metric_name(RagcheckerMetric::kNoiseSensitivityInIrrelevant),
               "noise_sensitivity_in_irrelevant");
  EXPECT_STREQ(ragchecker_metric_name(ragchecker_metrics()[10]), "faithfulness");
}

// ---- faithfulness -------------------------------------------------------------------

TEST(FaithfulnessTest, AllClaimsSupportedScoresOne) {
  ClaimLedger l = blank(2, 0, 2);
  fill(&l.response_vs_chunks, {{E, N}, {N, E}});
  expect_score(ledger_faithfulness(l), 1.0);
}

TEST(FaithfulnessTest, ShareOfClaimsSupportedByAnyChunk) {
  ClaimLedger l = blank(4, 0, 2);
  fill(&l.response_vs_chunks, {{E, E}, {N, E}, {N, N}, {C, N}});
  MetricResult result = ledger_faithfulness(l);
  expect_score(result, 0.5);
  EXPECT_EQ(result.evidence["supported"], 2);
  EXPECT_EQ(result.evidence["claims"][0]["chunks"], Json({0, 1}));
}

TEST(FaithfulnessTest, EveryVerdictNeutralScoresZero) {
  ClaimLedger l = blank(3, 0, 2);
  fill(&l.response_vs_chunks, {{N, N}, {N, N}, {N, N}});
  expect_score(ledger_faithfulness(l), 0.0);
}

TEST(FaithfulnessTest, NoResponseClaimsIsSkippedWithReason) {
  expect_outcome(ledger_faithfulness(blank(0, 2, 2)), Outcome::kSkipped, "response has no claims");
}

TEST(FaithfulnessTest, NoChunksIsSkippedWithReason) {
  expect_outcome(ledger_faithfulness(blank(2, 0, 0)), Outcome::kSkipped, "no retrieved chunks");
}

TEST(FaithfulnessTest, MissingCellCountsOnlyWhenAnotherChunkSupports) {
  ClaimLedger l = blank(2, 0, 2);
  fill(&l.response_vs_chunks, {{M, E}, {M, N}});
  MetricResult result = ledger_faithfulness(l);
  expect_score(result, 0.5);
  EXPECT_EQ(result.evidence["claims"][1]["missing_chunks"], Json({0}));
  EXPECT_EQ(result.evidence["claims"][1]["verdict"], "Neutral");
}

TEST(FaithfulnessTest, ClaimWithNoJudgedCellFailsNamingIt) {
  ClaimLedger l = blank(3, 0, 2);
  fill(&l.response_vs_chunks, {{E, N}, {M, M}, {N, E}});
  expect_outcome(ledger_faithfulness(l), Outcome::kFailed, "response claims [1] have no verdict");
}

TEST(FaithfulnessTest, ContradictionAndNeutralBothUnsupportedButEvidenceTellsThemApart) {
  ClaimLedger l = blank(2, 0, 2);
  fill(&l.response_vs_chunks, {{N, C}, {N, N}});
  l.response_vs_chunks.at(0, 1).reason = "the chunk says 7,000 km";
  MetricResult result = ledger_faithfulness(l);
  expect_score(result, 0.0);
  const Json& claims = result.evidence["claims"];
  EXPECT_EQ(claims[0]["verdict"], "Contradiction");
  EXPECT_EQ(claims[0]["reasons"][0]["reason"], "the chunk says 7,000 km");
  EXPECT_EQ(claims[0]["reasons"][0]["chunk"], 1);
  EXPECT_EQ(claims[1]["verdict"], "Neutral");
  EXPECT_FALSE(claims[1].contains("reasons"));
}

TEST(FaithfulnessTest, SupportedClaimCarriesNoReasonsFromOtherChunks) {
  ClaimLedger l = blank(1, 0, 2);
  fill(&l.response_vs_chunks, {{E, C}});
  l.response_vs_chunks.at(0, 1).reason = "contradicts";
  MetricResult result = ledger_faithfulness(l);
  expect_score(result, 1.0);
  EXPECT_EQ(result.evidence["claims"][0]["verdict"], "Entailment");
  EXPECT_FALSE(result.evidence["claims"][0].contains("reasons"));
}

TEST(FaithfulnessTest, InvalidLedgerFails) {
  ClaimLedger l = blank(2, 0, 2);
  l.response_vs_chunks = VerdictTable(1, 2);
  expect_outcome(ledger_faithfulness(l), Outcome::kFailed, "invalid claim ledger");
}

// ---- context_recall ---------------------------------------------------------------------

TEST(ContextRecallTest, ShareOfReferenceClaimsSupportedByAnyChunk) {
  ClaimLedger l = blank(0, 3, 2);
  fill(&l.reference_vs_chunks, {{N, E}, {N, N}, {E, C}});
  expect_score(ledger_context_recall(l), 2.0 / 3.0);
}

TEST(ContextRecallTest, EmptyReferenceIsSkipped) {
  expect_outcome(ledger_context_recall(blank(2, 0, 2)), Outcome::kSkipped,
                 "reference has no claims");
}

// ---- context_precision / context_utilization (ragas, rank-weighted) ----------------------

TEST(ContextPrecisionTest, UsefulChunksLowerInTheRankingScoreLess) {
  ClaimLedger l = blank(0, 2, 3);
  fill(&l.reference_vs_chunks, {{N, E, N}, {N, N, E}});  // v = 0 1 1
  expect_score(ledger_context_precision(l), (1.0 / 2.0 + 2.0 / 3.0) / 2.0);
  fill(&l.reference_vs_chunks, {{E, N, N}, {N, N, E}});  // v = 1 0 1
  expect_score(ledger_context_precision(l), (1.0 + 2.0 / 3.0) / 2.0);
}

TEST(ContextPrecisionTest, AllChunksUsefulScoresExactlyOne) {
  ClaimLedger l = blank(0, 1, 3);
  fill(&l.reference_vs_chunks, {{E, E, E}});
  expect_score(ledger_context_precision(l), 1.0);
}

TEST(ContextPrecisionTest, NoUsefulChunkScoresZero) {
  ClaimLedger l = blank(0, 2, 2);
  fill(&l.reference_vs_chunks, {{N, C}, {N, N}});
  MetricResult result = ledger_context_precision(l);
  expect_score(result, 0.0);
  EXPECT_EQ(result.evidence["useful"], 0);
}

TEST(ContextPrecisionTest, DuplicateChunksCountAtEachRank) {
  ClaimLedger l = make_claim_ledger({}, {"r0"}, {"same", "other", "same"});
  EXPECT_EQ(l.chunks[0].id, l.chunks[2].id);
  fill(&l.reference_vs_chunks, {{E, N, E}});
  MetricResult result = ledger_context_precision(l);
  expect_score(result, (1.0 + 2.0 / 3.0) / 2.0);
  EXPECT_EQ(result.evidence["chunks"][2]["supports"], Json({0}));
}

TEST(ContextPrecisionTest, ChunkWithNoJudgedCellFails) {
  ClaimLedger l = blank(0, 2, 3);
  fill(&l.reference_vs_chunks, {{E, M, N}, {N, M, N}});
  expect_outcome(ledger_context_precision(l), Outcome::kFailed, "chunks [1] have no verdict");
}

TEST(ContextPrecisionTest, PartlyMissingChunkCountsAsNotUseful) {
  ClaimLedger l = blank(0, 2, 2);
  fill(&l.reference_vs_chunks, {{N, E}, {M, N}});
  expect_score(ledger_context_precision(l), 0.5);
}

TEST(ContextPrecisionTest, EmptyReferenceOrNoChunksIsSkipped) {
  expect_outcome(ledger_context_precision(blank(2, 0, 2)), Outcome::kSkipped,
                 "reference has no claims");
  expect_outcome(ledger_context_precision(blank(2, 2, 0)), Outcome::kSkipped,
                 "no retrieved chunks");
}

TEST(ContextUtilizationTest, UsesResponseClaimsInPlaceOfReferenceClaims) {
  ClaimLedger l = blank(2, 1, 2);
  fill(&l.response_vs_chunks, {{N, E}, {N, N}});
  fill(&l.reference_vs_chunks, {{E, N}});
  expect_score(ledger_context_utilization(l), 0.5);
  expect_outcome(ledger_context_utilization(blank(0, 1, 2)), Outcome::kSkipped,
                 "response has no claims");
}

// ---- noise_sensitivity ----------------------------------------------------------------

// Chunk 0 relevant (supports r0), chunk 1 irrelevant. a0 correct and grounded; a1
// incorrect, in the relevant chunk; a2 incorrect, only in the irrelevant chunk; a3
// incorrect, in both; a4 incorrect, in neither.
ClaimLedger noise_ledger() {
  ClaimLedger l = blank(5, 1, 2);
  fill(&l.reference_vs_chunks, {{E, N}});
  fill(&l.response_vs_chunks, {{E, N}, {E, N}, {N, E}, {E, E}, {N, N}});
  fill(&l.response_vs_reference, {E, N, C, N, N});
  return l;
}

TEST(NoiseSensitivityTest, RelevantModeCountsIncorrectClaimsFromRelevantChunks) {
  MetricResult result = ledger_noise_sensitivity(noise_ledger(), NoiseMode::kRelevant);
  expect_score(result, 2.0 / 5.0);
  EXPECT_EQ(result.evidence["relevant_chunks"], Json({0}));
  EXPECT_EQ(result.evidence["claims"][3]["counted"], true);
  EXPECT_EQ(result.evidence["claims"][2]["reference_verdict"], "Contradiction");
}

TEST(NoiseSensitivityTest, IrrelevantModeExcludesClaimsAlsoInRelevantChunks) {
  MetricResult result = ledger_noise_sensitivity(noise_ledger(), NoiseMode::kIrrelevant);
  expect_score(result, 1.0 / 5.0);
  EXPECT_EQ(result.evidence["claims"][2]["counted"], true);
  EXPECT_EQ(result.evidence["claims"][3]["counted"], false);
}

TEST(NoiseSensitivityTest, CorrectClaimsNeverCount) {
  ClaimLedger l = noise_ledger();
  fill(&l.response_vs_reference, {E, E, E, E, E});
  expect_score(ledger_noise_sensitivity(l, NoiseMode::kRelevant), 0.0);
  expect_score(ledger_noise_sensitivity(l, NoiseMode::kIrrelevant), 0.0);
}

TEST(NoiseSensitivityTest, EmptyReferenceIsSkipped) {
  expect_outcome(ledger_noise_sensitivity(blank(2, 0, 2), NoiseMode::kRelevant), Outcome::kSkipped,
                 "reference has no claims");
}

TEST(NoiseSensitivityTest, MissingReferenceVerdictFails) {
  ClaimLedger l = noise_ledger();
  l.response_vs_reference[4].verdict = M;
  expect_outcome(ledger_noise_sensitivity(l, NoiseMode::kRelevant), Outcome::kFailed,
                 "response claims [4] have no verdict against the reference");
}

// ---- factual_correctness ----------------------------------------------------------------

// TP = 2 (a0, a1), FP = 2, FN = 3 (r1, r2, r3): P = 1/2, R = 2/5.
ClaimLedger factual_ledger() {
  ClaimLedger l = blank(4, 4, 0);
  fill(&l.response_vs_reference, {E, E, N, C});
  fill(&l.reference_vs_response, {E, N, N, C});
  return l;
}

TEST(FactualCorrectnessTest, PrecisionRecallAndF1FromTheCounts) {
  const ClaimLedger l = factual_ledger();
  expect_score(ledger_factual_correctness(l, FactualMode::kPrecision), 0.5);
  expect_score(ledger_factual_correctness(l, FactualMode::kRecall), 0.4);
  MetricResult f1 = ledger_factual_correctness(l, FactualMode::kF1);
  expect_score(f1, 2 * 0.5 * 0.4 / 0.9);
  EXPECT_EQ(f1.evidence["tp"], 2);
  EXPECT_EQ(f1.evidence["fp"], 2);
  EXPECT_EQ(f1.evidence["fn"], 3);
}

TEST(FactualCorrectnessTest, BetaWeighsRecall) {
  LedgerMetricOptions options;
  options.beta = 2.0;
  expect_score(ledger_factual_correctness(factual_ledger(), FactualMode::kF1, options),
               5.0 * 0.5 * 0.4 / (4.0 * 0.5 + 0.4));
  options.beta = 0.0;
  expect_outcome(ledger_factual_correctness(factual_ledger(), FactualMode::kF1, options),
                 Outcome::kFailed, "beta");
}

TEST(FactualCorrectnessTest, NoResponseClaimsSkipsPrecisionAndF1ButScoresRecallZero) {
  ClaimLedger l = blank(0, 2, 0);
  fill(&l.reference_vs_response, {N, N});
  expect_outcome(ledger_factual_correctness(l, FactualMode::kPrecision), Outcome::kSkipped,
                 "response has no claims");
  expect_outcome(ledger_factual_correctness(l, FactualMode::kF1), Outcome::kSkipped,
                 "response has no claims");
  expect_score(ledger_factual_correctness(l, FactualMode::kRecall), 0.0);
}

TEST(FactualCorrectnessTest, EmptyReferenceSkipsRecallAndF1ButScoresPrecision) {
  ClaimLedger l = blank(2, 0, 0);
  fill(&l.response_vs_reference, {E, N});
  expect_score(ledger_factual_correctness(l, FactualMode::kPrecision), 0.5);
  expect_outcome(ledger_factual_correctness(l, FactualMode::kRecall), Outcome::kSkipped,
                 "reference has no claims");
  expect_outcome(ledger_factual_correctness(l, FactualMode::kF1), Outcome::kSkipped,
                 "reference has no claims");
}

TEST(FactualCorrectnessTest, ZeroOverZeroRecallScoresZero) {
  ClaimLedger l = blank(1, 1, 0);
  fill(&l.response_vs_reference, {N});  // TP = 0
  fill(&l.reference_vs_response, {E});  // FN = 0
  expect_score(ledger_factual_correctness(l, FactualMode::kRecall), 0.0);
  expect_score(ledger_factual_correctness(l, FactualMode::kF1), 0.0);
}

TEST(FactualCorrectnessTest, MissingVerdictFails) {
  ClaimLedger l = factual_ledger();
  l.reference_vs_response[2].verdict = M;
  expect_outcome(ledger_factual_correctness(l, FactualMode::kRecall), Outcome::kFailed,
                 "reference claims [2] have no verdict against the response");
  // precision does not read the reference's claims
  expect_score(ledger_factual_correctness(l, FactualMode::kPrecision), 0.5);
}

// ---- RAGChecker diagnostics on hand-checked ledgers ----------------------------------------

MetricResult ragchecker(const ClaimLedger& l, RagcheckerMetric metric, bool empty_as_zero = false) {
  LedgerMetricOptions options;
  options.ragchecker_empty_as_zero = empty_as_zero;
  return ragchecker_metric(l, metric, options);
}

TEST(RagcheckerMetricTest, RecallCountsReferenceClaimsNotResponseClaims) {
  const ClaimLedger l = factual_ledger();
  expect_score(ragchecker(l, RagcheckerMetric::kPrecision), 0.5);
  expect_score(ragchecker(l, RagcheckerMetric::kRecall), 0.25);  // r0 only
  expect_score(ragchecker(l, RagcheckerMetric::kF1), 2 * 0.5 * 0.25 / 0.75);
}

TEST(RagcheckerMetricTest, F1IsZeroWhenEitherSideIsZero) {
  ClaimLedger l = factual_ledger();
  fill(&l.reference_vs_response, {N, N, N, C});
  expect_score(ragchecker(l, RagcheckerMetric::kF1), 0.0);
}

TEST(RagcheckerMetricTest, ContextPrecisionIsTheShareOfUsefulChunks) {
  ClaimLedger l = blank(0, 2, 4);
  fill(&l.reference_vs_chunks, {{N, E, N, N}, {N, N, N, E}});
  expect_score(ragchecker(l, RagcheckerMetric::kContextPrecision), 0.5);
}

TEST(RagcheckerMetricTest, ContextUtilizationIsZeroWhenNothingWasRecalled) {
  ClaimLedger l = blank(0, 2, 1);
  fill(&l.reference_vs_chunks, {{N}, {C}});
  fill(&l.reference_vs_response, {E, E});
  expect_score(ragchecker(l, RagcheckerMetric::kContextUtilization), 0.0);
  fill(&l.reference_vs_chunks, {{E}, {E}});
  fill(&l.reference_vs_response, {E, N});
  expect_score(ragchecker(l, RagcheckerMetric::kContextUtilization), 0.5);
}

TEST(RagcheckerMetricTest, HallucinationAndSelfKnowledgeSplitUngroundedClaims) {
  ClaimLedger l = blank(4, 0, 2);
  fill(&l.response_vs_chunks, {{E, N}, {N, N}, {N, C}, {N, N}});
  fill(&l.response_vs_reference, {N, E, N, C});
  expect_score(ragchecker(l, RagcheckerMetric::kHallucination), 0.5);   // a2, a3
  expect_score(ragchecker(l, RagcheckerMetric::kSelfKnowledge), 0.25);  // a1
  expect_score(ragchecker(l, RagcheckerMetric::kFaithfulness), 0.25);   // a0
}

TEST(RagcheckerMetricTest, EmptyInputsAreSkippedByDefaultAndZeroOnRequest) {
  const ClaimLedger no_chunks = blank(2, 2, 0);
  const ClaimLedger no_claims = blank(0, 0, 2);
  for (RagcheckerMetric metric : ragchecker_metrics()) {
    SCOPED_TRACE(ragchecker_metric_name(metric));
    EXPECT_EQ(ragchecker(no_claims, metric).outcome, Outcome::kSkipped);
    expect_score(ragchecker(no_claims, metric, true), 0.0);
  }
  EXPECT_EQ(ragchecker(no_chunks, RagcheckerMetric::kHallucination).outcome, Outcome::kSkipped);
  MetricResult zero = ragchecker(no_chunks, RagcheckerMetric::kHallucination, true);
  expect_score(zero, 0.0);
  EXPECT_EQ(zero.evidence["empty_input"], "no retrieved chunks");
}

TEST(RagcheckerMetricTest, EmptyAsZeroStillFailsOnMissingVerdicts) {
  ClaimLedger l = blank(1, 0, 1);
  expect_outcome(ragchecker(l, RagcheckerMetric::kFaithfulness, true), Outcome::kFailed,
                 "no verdict");
}

}  // namespace
}  // namespace ragmeter
