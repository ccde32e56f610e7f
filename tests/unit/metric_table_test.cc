#include <gtest/gtest.h>

#include <set>

#include "ragmeter/evaluate.h"
#include "ragmeter/metric.h"

namespace ragmeter {
namespace {

TEST(MetricTableTest, NamesAreUniqueAndEveryEntryIsComplete) {
  std::set<std::string_view> names;
  for (const auto& info : builtin_metrics()) {
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_NE(info.needs, sample_fields::kNone) << info.name;
    EXPECT_FALSE(info.definition.empty()) << info.name;
    // Exactly one scoring function: deterministic metrics score a sample, judged ones a
    // judgement. Every judged-family metric is judged; a conversation metric may be either
    // (the tool-call metrics are deterministic, agent goal accuracy is judged).
    EXPECT_NE(info.score != nullptr, info.judged != nullptr) << info.name;
    if (info.family == MetricFamily::kJudged) {
      EXPECT_NE(info.judged, nullptr) << info.name;
    }
    if (info.family != MetricFamily::kJudged && info.family != MetricFamily::kConversation) {
      EXPECT_EQ(info.judged, nullptr) << info.name;
    }
  }
}

TEST(MetricTableTest, ParsesCutoffsAndShorthands) {
  auto list = parse_metric_list("ndcg@10, token_f1,precision@5,token_f1");
  ASSERT_TRUE(list.ok()) << list.status().to_string();
  ASSERT_EQ(list->size(), 3u);  // the repeated token_f1 is scored once
  EXPECT_EQ((*list)[0].name, "ndcg@10");
  EXPECT_EQ((*list)[0].k, 10);
  EXPECT_EQ((*list)[2].k, 5);
  // "all" is every single-turn metric; "conversation" the multi-turn ones.
  auto all = parse_metric_list("all");
  ASSERT_TRUE(all.ok());
  auto conversation = parse_metric_list("conversation");
  ASSERT_TRUE(conversation.ok());
  // Six tool-call metrics, two goal accuracies, three topic adherences, six DeepEval tasks,
  // DeepEval's task completion.
  EXPECT_EQ(conversation->size(), 18u);
  EXPECT_EQ(all->size() + conversation->size(), builtin_metrics().size());
  for (const MetricRequest& r : *all) EXPECT_NE(r.info->family, MetricFamily::kConversation);
  auto ragas = parse_metric_list("ragas");
  ASSERT_TRUE(ragas.ok());
  ASSERT_EQ(ragas->size(), 4u);
  EXPECT_EQ((*ragas)[0].name, "faithfulness");
  EXPECT_EQ((*ragas)[3].name, "context_recall");
  auto ragchecker = parse_metric_list("ragchecker");
  ASSERT_TRUE(ragchecker.ok());
  EXPECT_EQ(ragchecker->size(), 11u);
}

TEST(MetricTableTest, RejectsUnknownNamesAndBadCutoffs) {
  EXPECT_FALSE(parse_metric_list("nope").ok());
  EXPECT_FALSE(parse_metric_list("ndcg@0").ok());
  EXPECT_FALSE(parse_metric_list("ndcg@x").ok());
  EXPECT_FALSE(parse_metric_list("token_f1@3").ok());  // no cutoff for text metrics
  EXPECT_FALSE(parse_metric_list("").ok());
}

TEST(MetricTableTest, UnknownNameSuggestsTheNearest) {
  auto typo = parse_metric_list("token_f1,faithfullness");
  ASSERT_FALSE(typo.ok());
  EXPECT_EQ(typo.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(typo.status().message().find("unknown metric 'faithfullness' (did you mean 'faithfulness'?"),
            std::string::npos)
      << typo.status().message();
  // One edit from "ndcg", with a cutoff: the cutoff is not part of the name compared.
  auto cut = parse_metric_list("ndgc@10");
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("did you mean 'ndcg'?"), std::string::npos)
      << cut.status().message();
  // Underscores are ignored first: "rougel" is one underscore from rouge_l, and as far
  // from rouge1 by plain edit distance, which comes first in the table.
  auto rouge = parse_metric_list("rougel");
  ASSERT_FALSE(rouge.ok());
  EXPECT_NE(rouge.status().message().find("did you mean 'rouge_l'?"), std::string::npos)
      << rouge.status().message();
  // Nothing is near: no suggestion, still the pointer to `ragmeter metrics`.
  auto far = parse_metric_list("perplexity_of_the_moon");
  ASSERT_FALSE(far.ok());
  EXPECT_EQ(far.status().message().find("did you mean"), std::string::npos) << far.status().message();
  EXPECT_NE(far.status().message().find("`ragmeter metrics` lists them all"), std::string::npos);
}

TEST(MetricTableTest, MissingFieldIsSkippedWithItsName) {
  EvalOptions options;
  options.metrics = *parse_metric_list("token_f1,precision@3");
  Sample sample;
  sample.response = "x";
  auto results = score_sample(sample, options);
  EXPECT_EQ(results[0].outcome, Outcome::kSkipped);
  EXPECT_NE(results[0].reason.find("reference"), std::string::npos);
  EXPECT_EQ(results[1].outcome, Outcome::kSkipped);
  sample.set_reference("");
  results = score_sample(sample, options);
  EXPECT_EQ(results[0].reason, "field 'reference' is empty");
}

TEST(MetricTableTest, RetrievalFromIdsHandChecked) {
  EvalOptions options;
  options.metrics = *parse_metric_list("precision@2,recall,mrr,id_based_context_precision");
  Sample sample;
  sample.retrieved_context_ids = {"d3", "d1", "d9", "d2"};
  sample.reference_context_ids = {"d1", "d2"};
  auto r = score_sample(sample, options);
  EXPECT_DOUBLE_EQ(r[0].score, 0.5);   // d1 in the top 2
  EXPECT_DOUBLE_EQ(r[1].score, 1.0);   // both found
  EXPECT_DOUBLE_EQ(r[2].score, 0.5);   // first relevant at rank 2
  EXPECT_DOUBLE_EQ(r[3].score, 0.5);   // 2 of 4 distinct retrieved ids are references
}

TEST(MetricTableTest, NonLlmContextPrecisionMatchesRagasFormula) {
  // Chunks 1 and 3 match a reference exactly, chunk 2 not at all:
  // (1/1 * 1 + 2/3 * 1) / 2 = 5/6.
  EvalOptions options;
  options.metrics = *parse_metric_list("non_llm_context_precision,non_llm_context_recall");
  Sample sample;
  sample.retrieved_contexts = {"alpha beta", "zzzzzzzzzzzzzzz", "gamma delta"};
  sample.reference_contexts = {"alpha beta", "gamma delta", "omega omega omega"};
  auto r = score_sample(sample, options);
  EXPECT_DOUBLE_EQ(r[0].score, 5.0 / 6.0);
  EXPECT_DOUBLE_EQ(r[1].score, 2.0 / 3.0);
}

}  // namespace
}  // namespace ragmeter
