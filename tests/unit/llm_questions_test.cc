// answer_relevancy under an LLM judge over the FAKE server (fixed replies; the end-to-end
// test against the real local server is tests/llm/test_eval_llm_judge.py): the model's
// noncommittal flag is read by its own key, and a response that declines in so many words
// is noncommittal whatever the model said (src/judge/llm/questions_task.cc, ask_questions).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "../fakes/fake_llm_server_process.h"
#include "tests/unit/fake_llm_judge.h"
#include "judge/llm/llm_requests.h"
#include "ragmeter/evaluate.h"
#include "ragmeter/llm.h"
#include "ragmeter/llm_judge.h"
#include "tests/unit/test_paths.h"

namespace ragmeter {
namespace {

// answer_relevancy of `response` when every reply of the fake server is `reply`.
MetricResult answer_relevancy_with_reply(const std::string& response, const nlohmann::json& reply,
                                         fakes::FakeLlmServerProcess& fake) {
  if (!fake.start(test_judges::fake_llm_server_path(), {"--content", reply.dump()})) {
    ADD_FAILURE() << "the fake LLM server at " << test_judges::fake_llm_server_path()
                  << " did not start";
    return MetricResult{};
  }
  auto judge = test_judges::llm_judge_over(fake.base_url());
  EXPECT_TRUE(judge.ok()) << judge.status().to_string();
  if (!judge.ok()) return MetricResult{};
  Sample sample;
  sample.user_input = "When was the bridge built?";
  sample.response = response;
  EvalOptions options;
  options.metrics = {{find_metric("answer_relevancy"), 0, "answer_relevancy"}};
  options.judge = *judge;
  std::vector<MetricResult> results = score_sample(sample, options);
  EXPECT_EQ(results.size(), 1u);
  return results.empty() ? MetricResult{} : results[0];
}

class LlmQuestionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(test_judges::fake_llm_server_built());
  }
  fakes::FakeLlmServerProcess fake_;
};

TEST_F(LlmQuestionsTest, TheJudgesFlagMakesTheScoreZero) {
  const nlohmann::json reply = {{"questions", {"When was the bridge built?"}},
                                {std::string(kNoncommittalKey), true}};
  MetricResult r = answer_relevancy_with_reply("Maybe in some year.", reply, fake_);
  EXPECT_EQ(r.outcome, Outcome::kOk) << r.reason;
  EXPECT_EQ(r.score, 0.0);
  EXPECT_EQ(r.evidence["noncommittal"], true);
}

TEST_F(LlmQuestionsTest, ADeclineInSoManyWordsIsNoncommittalWhateverTheJudgeSaid) {
  // The question itself three times: similarity 1 with the offline vectors, were the flag
  // not set.
  const std::string q = "When was the bridge built?";
  const nlohmann::json reply = {{"questions", {q, q, q}}, {std::string(kNoncommittalKey), false}};
  MetricResult r =
      answer_relevancy_with_reply("The context does not say when it was built.", reply, fake_);
  EXPECT_EQ(r.outcome, Outcome::kOk) << r.reason;
  EXPECT_EQ(r.score, 0.0);
  EXPECT_EQ(r.evidence["noncommittal"], true);
  EXPECT_NE(r.evidence["method"].get<std::string>().find("decline phrases"), std::string::npos);
}

TEST_F(LlmQuestionsTest, ACommittedAnswerTheJudgeCallsCommittedIsScored) {
  const std::string q = "When was the bridge built?";
  const nlohmann::json reply = {{"questions", {q, q, q}}, {std::string(kNoncommittalKey), false}};
  MetricResult r = answer_relevancy_with_reply("1932", reply, fake_);
  EXPECT_EQ(r.outcome, Outcome::kOk) << r.reason;
  EXPECT_NEAR(r.score, 1.0, 1e-12);
  EXPECT_EQ(r.evidence["noncommittal"], false);
}

}  // namespace
}  // namespace ragmeter
