// A Sample holds its references once, so every metric reads the same reference
// (issue 13: a Sample built through the API with only `reference` set scored 0.0 and
// `ok` for token_f1, bleu, chrf and squad_exact_match, which read an empty `references`).
#include <gtest/gtest.h>

#include "ragmeter/evaluate.h"
#include "ragmeter/sample.h"

namespace ragmeter {
namespace {

std::vector<MetricResult> score(const Sample& sample, const std::string& metrics) {
  EvalOptions options;
  options.metrics = *parse_metric_list(metrics);
  return score_sample(sample, options);
}

// The bug: the multi-reference metrics scored 0.0 against a reference they never saw.
TEST(SampleReferenceTest, OnlyReferenceSetThroughTheApiIsScoredNotZero) {
  Sample sample;
  sample.response = "Paris is the capital of France";
  sample.set_reference("Paris is the capital of France");
  // Identical texts: each of these is 1 by definition.
  auto results = score(sample, "token_f1,bleu,chrf,chrf_pp,squad_exact_match,rouge_l");
  for (const MetricResult& result : results) {
    EXPECT_EQ(result.outcome, Outcome::kOk) << result.reason;
    EXPECT_DOUBLE_EQ(result.score, 1.0);
  }
  // "x" against "x y": SQuAD token F1 is 2/3 (precision 1, recall 1/2).
  Sample partial;
  partial.response = "x";
  partial.set_reference("x y");
  EXPECT_DOUBLE_EQ(score(partial, "token_f1")[0].score, 2.0 / 3.0);
}

TEST(SampleReferenceTest, ReferenceIsAlwaysTheFirstOfTheReferences) {
  Sample sample;
  EXPECT_FALSE(sample.reference().has_value());
  sample.set_references({"first", "second"});
  EXPECT_EQ(sample.reference(), "first");
  EXPECT_EQ(sample.references(), (std::vector<std::string>{"first", "second"}));
  sample.set_reference("only");
  EXPECT_EQ(sample.references(), std::vector<std::string>{"only"});
  sample.set_references({});
  EXPECT_FALSE(sample.reference().has_value());
  sample.set_reference("again");
  sample.clear_reference();
  EXPECT_TRUE(sample.references().empty());
}

TEST(SampleReferenceTest, AnEmptyListOfReferencesIsMissingForEveryMetric) {
  Sample sample;
  sample.response = "x";
  sample.set_references({});
  for (const MetricResult& result : score(sample, "token_f1,bleu,chrf,squad_exact_match,rouge_l")) {
    EXPECT_EQ(result.outcome, Outcome::kSkipped);
    EXPECT_EQ(result.reason, "field 'reference' is missing");
  }
}

TEST(SampleReferenceTest, BuiltByHandAndReadFromARowScoreTheSame) {
  Sample by_hand;
  by_hand.response = "the cat sat on the mat";
  by_hand.set_references({"a cat sat on a mat", "the cat is on the mat"});
  auto from_row = sample_from_json(
      {{"response", "the cat sat on the mat"},
       {"ground_truths", {"a cat sat on a mat", "the cat is on the mat"}}});
  ASSERT_TRUE(from_row.ok());
  const std::string metrics = "token_f1,bleu,chrf,squad_exact_match,rouge_l,exact_match";
  auto a = score(by_hand, metrics);
  auto b = score(*from_row, metrics);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].outcome, b[i].outcome);
    EXPECT_EQ(a[i].score, b[i].score);
  }
}

}  // namespace
}  // namespace ragmeter
