// The LLM judge's requests and reply reading, without a server (the end-to-end test
// against the real local server is tests/llm/test_eval_llm_judge.py).
#include <gtest/gtest.h>

#include "ragmeter/llm_judge.h"

namespace ragmeter {
namespace {

using Json = nlohmann::json;

TEST(LlmJudgeTest, RequestsShareTheStaticPrefixAndPutTheTaskLast) {
  llm::ChatRequest claims = llm_claims_request("Q?", "The answer.", "The reference.");
  llm::ChatRequest verdicts = llm_verdicts_request({"c one", "c two"}, "The premise.");
  ASSERT_EQ(claims.messages.size(), 2u);
  ASSERT_EQ(verdicts.messages.size(), 2u);
  // The system message is byte-identical across tasks (servers reuse the prefix).
  EXPECT_EQ(claims.messages[0].role, "system");
  EXPECT_EQ(claims.messages[0].content, verdicts.messages[0].content);
  // The sample comes before the task.
  const std::string& user = verdicts.messages[1].content;
  EXPECT_LT(user.find("PREMISE:\nThe premise."), user.find("Task:"));
  EXPECT_NE(user.find("1. c one\n2. c two\n"), std::string::npos);
  EXPECT_EQ(verdicts.format, llm::ReplyFormat::kJsonSchema);
  EXPECT_EQ(verdicts.temperature, 0.0);
  EXPECT_EQ(claims.messages[1].content.find("QUESTION:\nQ?"), 0u);
  // Absent texts are said to be absent, never silently dropped.
  EXPECT_NE(llm_claims_request("Q?", "", "R").messages[1].content.find("RESPONSE:\n(none)"),
            std::string::npos);
}

TEST(LlmJudgeTest, ReadsVerdictsByClaimNumberAndLeavesGapsMissing) {
  Json reply = Json::parse(R"({"verdicts": [
      {"claim": 2, "verdict": "Contradiction", "reason": "says 1845"},
      {"claim": 1, "verdict": "Entailment", "reason": "ignored for entailment"},
      {"claim": 9, "verdict": "Neutral"},
      {"claim": 1, "verdict": "Neutral"},
      {"claim": 3, "verdict": "Maybe"}]})");
  std::vector<VerdictCell> cells = read_llm_verdicts(reply, 4);
  ASSERT_EQ(cells.size(), 4u);
  EXPECT_EQ(cells[0].verdict, Verdict::kEntailment);  // the first verdict for claim 1 counts
  EXPECT_EQ(cells[0].reason, "");
  EXPECT_EQ(cells[1].verdict, Verdict::kContradiction);
  EXPECT_EQ(cells[1].reason, "says 1845");
  EXPECT_EQ(cells[2].verdict, Verdict::kMissing);  // "Maybe" is not a verdict
  EXPECT_EQ(cells[3].verdict, Verdict::kMissing);  // the reply said nothing
}

TEST(LlmJudgeTest, VerdictsWithoutNumbersAreReadByPosition) {
  Json reply = Json::parse(R"({"verdicts": [{"verdict": "Neutral", "reason": "r"},
                                             {"verdict": "Entailment"}]})");
  std::vector<VerdictCell> cells = read_llm_verdicts(reply, 3);
  EXPECT_EQ(cells[0].verdict, Verdict::kNeutral);
  EXPECT_EQ(cells[1].verdict, Verdict::kEntailment);
  EXPECT_EQ(cells[2].verdict, Verdict::kMissing);
  EXPECT_EQ(read_llm_verdicts(Json::parse(R"({"verdicts": "none"})"), 2)[0].verdict,
            Verdict::kMissing);
  EXPECT_EQ(read_llm_verdicts(Json::array(), 1).size(), 1u);
}

TEST(LlmJudgeTest, NeedsAChatClient) {
  EXPECT_FALSE(make_llm_judge(LlmJudgeOptions{}).ok());
}

}  // namespace
}  // namespace ragmeter
