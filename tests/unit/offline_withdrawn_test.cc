// The metrics withdrawn from the offline judge (MetricInfo::offline_withdrawn, decided in
// the metric table, src/metrics/builtin.cc): skipped with the table's reason under the
// offline judge, scored when forced (EvalOptions::offline_score_withdrawn) and always
// scored under an LLM judge. The measurements behind the decision are
// bench/offline_judge_quality.py's (docs/judges.md), not tests.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "../fakes/fake_llm_server_process.h"
#include "tests/unit/fake_llm_judge.h"
#include "ragmeter/evaluate.h"
#include "ragmeter/judge.h"
#include "ragmeter/llm.h"
#include "ragmeter/llm_judge.h"
#include "tests/unit/test_paths.h"

namespace ragmeter {
namespace {

// Every field any judged metric reads, so no metric is skipped for a missing one.
Sample full_sample() {
  Sample s;
  s.user_input = "When was Arthur's Magazine founded?";
  s.response = "Arthur's Magazine was founded in 1844 in Philadelphia.";
  s.set_reference("Arthur's Magazine was founded in 1844.");
  s.retrieved_contexts = std::vector<std::string>{
      "Arthur's Magazine (1844-1846) was an American literary periodical published in "
      "Philadelphia."};
  s.reference_contexts = s.retrieved_contexts;
  return s;
}

std::vector<MetricRequest> withdrawn_metrics() {
  std::vector<MetricRequest> out;
  for (const MetricInfo& info : builtin_metrics()) {
    if (!info.offline_withdrawn.empty()) out.push_back({&info, 0, std::string(info.name)});
  }
  return out;
}

std::vector<MetricResult> score_withdrawn(std::shared_ptr<Judge> judge, bool force) {
  EvalOptions options;
  options.metrics = withdrawn_metrics();
  options.judge = std::move(judge);
  options.offline_score_withdrawn = force;
  return score_sample(full_sample(), options);
}

TEST(OfflineWithdrawnTest, OnlyJudgedMetricsAreWithdrawnAndAnswerRelevancyIsAmongThem) {
  const std::vector<MetricRequest> withdrawn = withdrawn_metrics();
  ASSERT_FALSE(withdrawn.empty());
  for (const MetricRequest& r : withdrawn) {
    EXPECT_EQ(r.info->family, MetricFamily::kJudged) << r.name;
    EXPECT_FALSE(metric_needs_llm(*r.info)) << r.name << ": critics are skipped for another reason";
  }
  EXPECT_FALSE(find_metric("answer_relevancy")->offline_withdrawn.empty());
  EXPECT_TRUE(find_metric("faithfulness")->offline_withdrawn.empty());
}

TEST(OfflineWithdrawnTest, TheOfflineJudgeSkipsThemWithTheTableReason) {
  // Null is the offline judge as `ragmeter eval` runs it without a local embedder.
  for (std::shared_ptr<Judge> judge : {std::shared_ptr<Judge>(), make_offline_judge()}) {
    const std::vector<MetricRequest> withdrawn = withdrawn_metrics();
    const std::vector<MetricResult> results = score_withdrawn(judge, false);
    ASSERT_EQ(results.size(), withdrawn.size());
    for (std::size_t i = 0; i < results.size(); ++i) {
      const MetricInfo& info = *withdrawn[i].info;
      EXPECT_EQ(results[i].outcome, Outcome::kSkipped) << info.name;
      EXPECT_EQ(results[i].reason, offline_withdrawn_reason(info)) << info.name;
      EXPECT_NE(results[i].reason.find(std::string(info.offline_withdrawn)), std::string::npos);
      EXPECT_NE(results[i].reason.find("--offline-score-withdrawn"), std::string::npos);
    }
  }
}

TEST(OfflineWithdrawnTest, ForcedTheOfflineJudgeScoresThem) {
  const std::vector<MetricRequest> withdrawn = withdrawn_metrics();
  const std::vector<MetricResult> results = score_withdrawn(make_offline_judge(), true);
  for (std::size_t i = 0; i < results.size(); ++i) {
    EXPECT_EQ(results[i].outcome, Outcome::kOk) << withdrawn[i].name << ": " << results[i].reason;
  }
}

TEST(OfflineWithdrawnTest, TheDefaultMetricListLeavesThemOutUnlessForced) {
  for (const MetricInfo& info : builtin_metrics()) {
    const bool withdrawn = !info.offline_withdrawn.empty();
    EXPECT_EQ(offline_default_leaves_out(info, false), withdrawn || metric_needs_llm(info)) << info.name;
    EXPECT_EQ(offline_default_leaves_out(info, true), metric_needs_llm(info)) << info.name;
  }
  EXPECT_TRUE(offline_withdrawn_reason(*find_metric("faithfulness")).empty());
}

// An LLM judge over the FAKE server, whose every reply is the questions call's answer:
// three copies of the sample's question. answer_relevancy (withdrawn from the offline
// judge) is then the mean similarity of the question to itself: 1 with the offline
// vectors the judge uses without an embedder.
TEST(OfflineWithdrawnTest, AnLlmJudgeScoresAnswerRelevancy) {
  using test_judges::fake_llm_server_path;
  ASSERT_TRUE(test_judges::fake_llm_server_built());
  const std::string question = *full_sample().user_input;
  nlohmann::json reply = {{"questions", {question, question, question}},
                          {"response_is_noncommittal", false}};
  fakes::FakeLlmServerProcess fake;
  ASSERT_TRUE(fake.start(fake_llm_server_path(), {"--content", reply.dump()}));
  auto judge = test_judges::llm_judge_over(fake.base_url());
  ASSERT_TRUE(judge.ok()) << judge.status().to_string();
  EXPECT_FALSE((*judge)->is_offline());

  EvalOptions options;
  options.metrics = {{find_metric("answer_relevancy"), 0, "answer_relevancy"}};
  options.judge = *judge;
  const std::vector<MetricResult> results = score_sample(full_sample(), options);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].outcome, Outcome::kOk) << results[0].reason;
  EXPECT_NEAR(results[0].score, 1.0, 1e-12);
}

}  // namespace
}  // namespace ragmeter
