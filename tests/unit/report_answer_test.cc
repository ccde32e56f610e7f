#include "report/report_answer.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "ragmeter/metric.h"
#include "ragmeter/report.h"

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;
using Scores = std::vector<std::optional<double>>;

ScoreColumn column(const std::string& metric, Scores scores) {
  ScoreColumn c = score_column_for(metric);
  c.scores = std::move(scores);
  return c;
}

// Twelve rows where retrieval is perfect and generation is not: context_recall 1 on every
// row; faithfulness 0 and 0.5 in turn; hallucination 0.5 (lower is better: 0.5 on its
// range). Generation per row: (0 + 0.5) / 2 = 0.25 or (0.5 + 0.5) / 2 = 0.5; retrieval 1;
// differences -0.75 and -0.5, mean -0.625.
std::vector<ScoreColumn> generation_weaker(std::size_t rows = 12) {
  Scores recall, faithfulness, hallucination, f1;
  for (std::size_t i = 0; i < rows; ++i) {
    recall.push_back(1.0);
    faithfulness.push_back(i % 2 ? 0.5 : 0.0);
    hallucination.push_back(0.5);
    f1.push_back(0.1);
  }
  return {column("context_recall", recall), column("faithfulness", faithfulness),
          column("ragchecker_hallucination", hallucination), column("token_f1", f1)};
}

TEST(RagPartTest, EveryBuiltInMetricIsPlacedAndOnlySafetySelfKnowledgeAndToolCallsAreOther) {
  const std::set<std::string_view> other = {"harmfulness", "maliciousness",
                                            "ragchecker_self_knowledge"};
  for (const MetricInfo& info : builtin_metrics()) {
    RagPart part = rag_part_of(info.name);
    if (info.family == MetricFamily::kConversation) {  // an agent's tool calls: no RAG part
      EXPECT_EQ(part, RagPart::kOther) << info.name;
    } else if (info.family == MetricFamily::kRetrieval) {
      EXPECT_EQ(part, RagPart::kRetrieval) << info.name;
    } else {
      EXPECT_EQ(part == RagPart::kOther, other.count(info.name) == 1) << info.name;
    }
  }
  EXPECT_EQ(rag_part_of("ndcg@10"), RagPart::kRetrieval);
  EXPECT_EQ(rag_part_of("context_entity_recall"), RagPart::kRetrieval);
  EXPECT_EQ(rag_part_of("faithfulness"), RagPart::kGeneration);
  EXPECT_EQ(rag_part_of("answer_relevancy"), RagPart::kGeneration);
  EXPECT_EQ(rag_part_of("answer_correctness"), RagPart::kEndToEnd);
  EXPECT_EQ(rag_part_of("token_f1"), RagPart::kEndToEnd);
  EXPECT_EQ(rag_part_of("polite"), RagPart::kOther);  // a user's critic
  EXPECT_STREQ(rag_part_name(RagPart::kEndToEnd), "end-to-end");
}

TEST(ReportAnswerTest, NormalizedScoresPutEachRangeOnZeroToOneWithOneTheBest) {
  EXPECT_DOUBLE_EQ(normalized_score(score_column_for("rubric_score"), 2.0), 0.25);  // 1..5
  EXPECT_DOUBLE_EQ(normalized_score(score_column_for("ragchecker_hallucination"), 0.25), 0.75);
  EXPECT_DOUBLE_EQ(normalized_score(score_column_for("semantic_similarity"), 0.0), 0.5);  // -1..1
  EXPECT_DOUBLE_EQ(normalized_score(score_column_for("ndcg@5"), 0.4), 0.4);
  EXPECT_DOUBLE_EQ(normalized_score(score_column_for("faithfulness"), 1.5), 1.0);  // clamped
}

TEST(ReportAnswerTest, HeadlineIsRagasFourFirstThenTheRunsOrder) {
  std::vector<std::string> run = {"token_f1", "context_recall", "faithfulness", "bleu", "rouge_l"};
  EXPECT_EQ(headline_metrics(run),
            (std::vector<std::string>{"faithfulness", "context_recall", "token_f1", "bleu"}));
  std::vector<std::string> plain = {"bleu", "chrf"};
  EXPECT_EQ(headline_metrics(plain), plain);
  std::vector<std::string> ragas = {"context_recall", "context_precision", "answer_relevancy",
                                    "faithfulness", "token_f1"};
  EXPECT_EQ(headline_metrics(ragas, 4),
            (std::vector<std::string>{"faithfulness", "answer_relevancy", "context_precision",
                                      "context_recall"}));
}

TEST(WeakerPartTest, GenerationWhoseIntervalLiesBelowRetrievalIsTheWeakerPart) {
  auto columns = generation_weaker();
  WeakerPart w = weaker_part(columns);
  ASSERT_TRUE(w.weaker.has_value());
  EXPECT_EQ(*w.weaker, RagPart::kGeneration);
  EXPECT_EQ(w.difference.n, 12);
  EXPECT_DOUBLE_EQ(w.difference.mean, -0.625);
  EXPECT_LT(w.difference.ci_high, 0.0);
  EXPECT_GE(w.difference.ci_low, -0.75);
  EXPECT_DOUBLE_EQ(w.generation_score, 0.375);
  EXPECT_DOUBLE_EQ(w.retrieval_score, 1.0);
  ASSERT_EQ(w.generation.size(), 2u);
  EXPECT_EQ(w.generation[0].metric, "faithfulness");  // the lowest first: 0.25 on its range
  EXPECT_DOUBLE_EQ(w.generation[0].normalized_mean, 0.25);
  EXPECT_DOUBLE_EQ(w.generation[1].mean, 0.5);  // hallucination, in its own units
  EXPECT_EQ(w.not_counted, std::vector<std::string>{"token_f1"});
  EXPECT_EQ(w.headline, "Generation is the weaker part");
  EXPECT_EQ(w.explanation.rfind("Per sample, generation - retrieval = -0.62 [95% CI", 0), 0u)
      << w.explanation;
  EXPECT_NE(w.explanation.find("faithfulness 0.25"), std::string::npos) << w.explanation;
  EXPECT_NE(w.explanation.find("ragchecker_hallucination 0.50 (lower is better)"),
            std::string::npos);
  EXPECT_NE(w.explanation.find("over 12 samples"), std::string::npos);
}

TEST(WeakerPartTest, RetrievalIsWeakerWhenTheDifferenceIsAboveZero) {
  Scores precision(12, 0.2), faithfulness(12, 0.9);
  std::vector<ScoreColumn> columns = {column("context_precision", precision),
                                      column("faithfulness", faithfulness)};
  WeakerPart w = weaker_part(columns);
  ASSERT_TRUE(w.weaker.has_value());
  EXPECT_EQ(*w.weaker, RagPart::kRetrieval);
  EXPECT_DOUBLE_EQ(w.difference.mean, 0.7);
  EXPECT_NE(w.explanation.find("Its lowest metric is context_precision"), std::string::npos);
}

TEST(WeakerPartTest, AnIntervalHoldingZeroIsUndecided) {
  // Retrieval 0, 1, 0, 1, ... and generation 1, 0, 1, 0, ...: differences +1 and -1.
  Scores recall, faithfulness;
  for (int i = 0; i < 12; ++i) {
    recall.push_back(i % 2);
    faithfulness.push_back(1 - i % 2);
  }
  std::vector<ScoreColumn> columns = {column("context_recall", recall),
                                      column("faithfulness", faithfulness)};
  WeakerPart w = weaker_part(columns);
  EXPECT_FALSE(w.weaker.has_value());
  EXPECT_DOUBLE_EQ(w.difference.mean, 0.0);
  EXPECT_LE(w.difference.ci_low, 0.0);
  EXPECT_GE(w.difference.ci_high, 0.0);
  EXPECT_EQ(w.headline, "Neither part is clearly weaker");
  EXPECT_NE(w.explanation.find("an interval that holds 0"), std::string::npos);
}

TEST(WeakerPartTest, TooFewSamplesOrAMissingPartSayTheDataCannotTell) {
  WeakerPart few = weaker_part(generation_weaker(5));
  EXPECT_FALSE(few.weaker.has_value());
  EXPECT_EQ(few.headline, "Which part is weaker cannot be said");
  EXPECT_EQ(few.explanation,
            "Only 5 samples were scored on both retrieval and generation metrics (at least 10 are "
            "needed).");
  std::vector<ScoreColumn> retrieval_only = {column("context_recall", Scores(20, 0.1)),
                                             column("token_f1", Scores(20, 0.9))};
  WeakerPart missing = weaker_part(retrieval_only);
  EXPECT_FALSE(missing.weaker.has_value());
  EXPECT_EQ(missing.difference.n, 0);
  EXPECT_EQ(missing.headline, "Which part is weaker cannot be said");
  EXPECT_NE(missing.explanation.find("no generation metric was scored"), std::string::npos);
  // A part whose metrics were never scored counts as missing too.
  std::vector<ScoreColumn> unscored = {column("context_recall", Scores(20, 0.1)),
                                       column("faithfulness", Scores(20, std::nullopt))};
  EXPECT_NE(weaker_part(unscored).explanation.find("no generation metric"), std::string::npos);
}

TEST(WeakerPartTest, OnlySamplesScoredOnBothPartsArePaired) {
  auto columns = generation_weaker(15);
  for (std::size_t r = 12; r < 15; ++r) {
    columns[1].scores[r] = std::nullopt;  // faithfulness
    columns[2].scores[r] = std::nullopt;  // hallucination
  }
  WeakerPart w = weaker_part(columns);
  EXPECT_EQ(w.difference.n, 12);
  EXPECT_DOUBLE_EQ(w.difference.mean, -0.625);
  EXPECT_EQ(w.retrieval[0].n, 15);  // the metric's own mean still uses all its rows
}

TEST(WorstSamplesTest, LowestMeanFirstThenMoreMetricsThenRowOrder) {
  // Row: faithfulness, hallucination (lower is better) -> normalized, mean.
  // 0: 1.0, 0.0 -> 1, 1 (nothing low: left out)      3: 0.4, 0.2 -> 0.4, 0.8, mean 0.6
  // 1: 0.0, 1.0 -> 0, 0, mean 0, 2 scored            4: not scored (left out)
  // 2: 0.0, -   -> 0, mean 0, 1 scored               5: 0.0, 1.0 -> 0, 0, mean 0, 2 scored
  std::vector<ScoreColumn> columns = {
      column("faithfulness", {1.0, 0.0, 0.0, 0.4, std::nullopt, 0.0}),
      column("ragchecker_hallucination", {0.0, 1.0, std::nullopt, 0.2, std::nullopt, 1.0})};
  auto worst = worst_samples(columns);
  ASSERT_EQ(worst.size(), 4u);
  EXPECT_EQ(worst[0].row, 1u);
  EXPECT_EQ(worst[1].row, 5u);
  EXPECT_EQ(worst[2].row, 2u);
  EXPECT_EQ(worst[3].row, 3u);
  EXPECT_DOUBLE_EQ(worst[3].mean_normalized, 0.6);
  ASSERT_EQ(worst[3].low_scores.size(), 1u);
  EXPECT_EQ(worst[3].low_scores[0].metric, "faithfulness");
  EXPECT_DOUBLE_EQ(worst[3].low_scores[0].score, 0.4);
  ASSERT_EQ(worst[0].low_scores.size(), 2u);
  EXPECT_EQ(worst[0].low_scores[1].metric, "ragchecker_hallucination");
  EXPECT_DOUBLE_EQ(worst[0].low_scores[1].score, 1.0);
  auto two = worst_samples(columns, 2, 1);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[1].row, 5u);
  EXPECT_EQ(two[0].low_scores.size(), 1u);
}

TEST(ExplainScoreTest, SaysWhatTheEvidenceCounts) {
  Json faithfulness = Json::parse(R"({"supported": 1, "total": 3, "claims": [
      {"claim": "Paris is in France", "verdict": "Entailment"},
      {"claim": "Paris has 90 million people", "verdict": "Neutral"}]})");
  EXPECT_EQ(explain_score(faithfulness),
            "1 of 3 claims supported; not supported: “Paris has 90 million people”");
  EXPECT_EQ(explain_score(Json::parse(R"({"useful": 1, "chunks": [{}, {}, {}, {}]})")),
            "1 of 4 contexts useful");
  EXPECT_EQ(explain_score(
                Json::parse(R"({"reference_entities": ["a", "b", "c"], "missing": ["b", "c"]})")),
            "1 of 3 reference entities found; missing: “b, c”");
  EXPECT_EQ(explain_score(Json::parse(R"({"noncommittal": true, "questions": []})")),
            "the response is noncommittal");
  EXPECT_EQ(explain_score(Json::parse(R"({"counted": 1, "total": 2, "claims": [
      {"claim": "x", "counted": false}, {"claim": "y", "counted": true}]})")),
            "1 of 2 claims counted against it; for instance: “y”");
  EXPECT_EQ(explain_score(Json::parse(R"({"tp": 1, "fp": 2, "fn": 0})")),
            "1 claims shared with the reference, 2 not in it, 0 of it missing");
  EXPECT_EQ(explain_score(Json::parse(R"({"sentences": 6, "relevant": ["s"]})")),
            "1 of 6 context sentences relevant");
  EXPECT_EQ(explain_score(Json::parse(R"({"method": "offline"})")), "");
  EXPECT_EQ(explain_score(Json(nullptr)), "");
}

TEST(ExplainScoreTest, LongClaimsAreCutOnACharacterBoundary) {
  // 119 ASCII bytes then "é" (2 bytes, at 119 and 120): the cut at 120 falls inside it.
  std::string claim = std::string(119, 'a') + "é" + "tail";
  Json evidence = {{"supported", 0},
                   {"total", 1},
                   {"claims", Json::array({{{"claim", claim}, {"verdict", "Contradiction"}}})}};
  EXPECT_EQ(explain_score(evidence),
            "0 of 1 claims supported; not supported: “" + std::string(119, 'a') + "…”");
}

// A results row as `eval --out` writes it.
Json result_row(int i, double recall, double faithfulness) {
  return {{"id", "q" + std::to_string(i)},
          {"user_input", "question " + std::to_string(i)},
          {"scores", {{"context_recall", recall}, {"faithfulness", faithfulness}}},
          {"status", {{"context_recall", "ok"}, {"faithfulness", "ok"}}},
          {"reasons", Json::object()},
          {"evidence",
           {{"faithfulness",
             {{"supported", faithfulness > 0 ? 1 : 0},
              {"total", 1},
              {"claims",
               Json::array({{{"claim", "claim of " + std::to_string(i)},
                             {"verdict", faithfulness > 0 ? "Entailment" : "Neutral"}}})}}}}}};
}

TEST(ReportDataTest, TheAnswerBlockCarriesTheVerdictTheWorstSamplesAndTheHeadline) {
  ReportInput input;
  input.results_path = "results.jsonl";
  for (int i = 0; i < 12; ++i) input.rows.push_back(result_row(i, 1.0, i < 9 ? 0.0 : 1.0));
  input.rows.push_back({{"row_error", "line 14: not JSON"}});
  Json data = report_data(input);
  const Json& answer = data["answer"];
  EXPECT_EQ(answer["weaker_part"]["part"], "generation");
  EXPECT_EQ(answer["weaker_part"]["difference"]["n"], 12);
  EXPECT_DOUBLE_EQ(answer["weaker_part"]["difference"]["mean"].get<double>(), -0.75);
  ASSERT_EQ(answer["headline"].size(), 2u);
  EXPECT_EQ(answer["headline"][0]["metric"], "faithfulness");
  EXPECT_EQ(answer["headline"][0]["part"], "generation");
  EXPECT_DOUBLE_EQ(answer["headline"][0]["mean"].get<double>(), 0.25);
  EXPECT_TRUE(answer["headline"][0]["agreement"].is_null());
  // Rows 0..8 score 0 on faithfulness (mean 0.5 with recall 1): the first five, by row.
  ASSERT_EQ(answer["worst"].size(), 5u);
  EXPECT_EQ(answer["worst"][0]["row"], 0);
  EXPECT_EQ(answer["worst"][0]["id"], "q0");
  EXPECT_EQ(answer["worst"][0]["question"], "question 0");
  EXPECT_EQ(answer["worst"][0]["low_scores"][0]["why"],
            "0 of 1 claims supported; not supported: “claim of 0”");
  EXPECT_TRUE(answer["changes"].is_null());
  // The distribution's bins come with the metric: 9 zeros in the first bin, 3 ones in the last.
  const Json& histogram = data["metrics"][1]["histogram"];
  EXPECT_EQ(data["metrics"][1]["name"], "faithfulness");
  EXPECT_EQ(histogram["counts"][0], 9);
  EXPECT_EQ(histogram["counts"][9], 3);
  EXPECT_EQ(data["metrics"][0]["part"], "retrieval");
}

TEST(ReportDataTest, AHeadlineMetricShowsItsAgreementWithTheUsersLabels) {
  ReportInput input;
  for (int i = 0; i < 3; ++i) input.rows.push_back(result_row(i, 1.0, 0.5));
  input.agreement = Json::parse(R"({"scale": "binary", "labels": "labels.csv", "metrics": [
      {"metric": "faithfulness", "errors": [], "statistics": {
        "cohen_kappa": {"value": null, "ci95": null, "ceiling": null},
        "roc_auc": {"value": 0.9, "ci95": [0.8, 1.0], "ceiling": {"value": 0.95}}}}]})");
  Json data = report_data(input);
  const Json& agreement = data["answer"]["headline"][0]["agreement"];
  EXPECT_EQ(agreement["statistic"], "roc_auc");  // kappa undefined: the next one
  EXPECT_DOUBLE_EQ(agreement["value"].get<double>(), 0.9);
  EXPECT_DOUBLE_EQ(agreement["ceiling"].get<double>(), 0.95);
  EXPECT_EQ(data["agreement"]["labels"], "labels.csv");
}

TEST(ReportDataTest, ChangedMetricsListWorseFirstAndCountTheRest) {
  ReportInput input;
  input.comparison = Json::parse(R"({"base": "b.jsonl", "new": "n.jsonl", "matched": 30,
      "alpha": 0.05, "metrics": [
      {"metric": "recall", "verdict": "better", "mean_diff": 0.5, "n": 30},
      {"metric": "token_f1", "verdict": "no significant change", "mean_diff": 0.0, "n": 30},
      {"metric": "faithfulness", "verdict": "worse", "mean_diff": -0.1, "n": 30},
      {"metric": "bleu", "verdict": "no pairs", "mean_diff": null, "n": 0}]})");
  Json changes = report_data(input)["answer"]["changes"];
  ASSERT_EQ(changes["changed"].size(), 2u);
  EXPECT_EQ(changes["changed"][0]["metric"], "faithfulness");
  EXPECT_EQ(changes["changed"][1]["metric"], "recall");
  EXPECT_EQ(changes["unchanged"], Json::array({"token_f1"}));
  EXPECT_EQ(changes["no_pairs"], Json::array({"bleu"}));
  EXPECT_EQ(
      changes["summary"].get<std::string>().rfind("2 of 3 metrics changed: 1 better, 1 worse", 0),
      0u);
}

}  // namespace
}  // namespace ragmeter
