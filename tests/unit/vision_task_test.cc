// ragas 0.4's one-call multimodal metrics as a judge task (judge_tasks.h:
// multimodal_verdict_task, ask_multimodal_verdict): where each image goes among the
// contexts, what a judge without a vision model says, and how the reply is read.
#include <gtest/gtest.h>

#include "ragmeter/judge.h"
#include "ragmeter/judge_tasks.h"
#include "ragmeter/offline_judge.h"

namespace ragmeter {
namespace {

// A judge with a vision model, scripted: every task gets `reply` (and `wrong_script`).
class ScriptedVisionJudge : public Judge {
 public:
  ScriptedVisionJudge(nlohmann::json reply, std::string wrong_script = {})
      : reply_(std::move(reply)), wrong_script_(std::move(wrong_script)) {}
  std::string description() const override { return "scripted vision model"; }
  StatusOr<ClaimLedger> claim_ledger(const Sample&, CallLog*) override { return not_found("-"); }
  StatusOr<double> similarity(std::string_view, std::string_view, CallLog*) override { return 0.0; }
  StatusOr<KeyFactCoverage> key_fact_coverage(std::string_view, std::string_view, CallLog*) override {
    return not_found("-");
  }
  StatusOr<TaskReply> ask(const JudgeTask& task, const Sample&, CallLog* calls) override {
    asked.push_back(task.kind);
    if (calls) calls->push_back(task.kind);
    return TaskReply{reply_, wrong_script_};
  }
  std::vector<std::string> asked;

 private:
  nlohmann::json reply_;
  std::string wrong_script_;
};

Sample two_texts() {
  Sample s;
  s.user_input = "How tall is it?";
  s.response = "It is 330 metres tall.";
  s.retrieved_contexts = std::vector<std::string>{"Paris has a tower.", "It opened in 1889."};
  return s;
}

SampleImage image_at(std::size_t rank) {
  SampleImage image;
  image.rank = rank;
  image.image.bytes = "png bytes " + std::to_string(rank);
  return image;
}

// The parts as one string, an image shown as <image RANK>.
std::string shown(const JudgeTask& task) {
  std::string out;
  for (const TaskPart& part : task.parts) {
    out += part.image ? "<image " + std::to_string(part.image->rank) + ">" : part.text;
  }
  return out;
}

TEST(VisionTaskTest, ImagesGoAtTheirRanksAndOnePastTheTextsAfterThem) {
  // Ranks are 0-based: the first image is context [1]; the second, ranked 5 of a row of four
  // contexts, follows the texts.
  const std::vector<SampleImage> images = {image_at(0), image_at(5)};
  const JudgeTask task = multimodal_verdict_task(two_texts(), images, MultimodalQuestion::kFaithfulness);
  EXPECT_EQ(task.kind, "vision");
  EXPECT_TRUE(task.needs_vision());
  EXPECT_EQ(shown(task),
            "RESPONSE:\nIt is 330 metres tall.\n\nCONTEXTS (in rank order):\n"
            "[1] an image:<image 0>[2] Paris has a tower.\n[3] It opened in 1889.\n"
            "[4] an image:<image 5>");
  // Relevance shows the question first.
  const JudgeTask relevance = multimodal_verdict_task(two_texts(), images, MultimodalQuestion::kRelevance);
  EXPECT_EQ(shown(relevance).rfind("QUESTION:\nHow tall is it?\n\nRESPONSE:", 0), 0u);
  EXPECT_NE(relevance.prompt, task.prompt);
}

TEST(VisionTaskTest, ARowWithoutImagesIsStillAVisionTask) {
  const JudgeTask task = multimodal_verdict_task(two_texts(), {}, MultimodalQuestion::kFaithfulness);
  EXPECT_TRUE(task.needs_vision());
  EXPECT_EQ(shown(task),
            "RESPONSE:\nIt is 330 metres tall.\n\nCONTEXTS (in rank order):\n"
            "[1] Paris has a tower.\n[2] It opened in 1889.\n");
}

TEST(VisionTaskTest, TheOfflineJudgeSaysItNeedsAVisionModel) {
  auto judge = make_offline_judge();
  const std::vector<SampleImage> images = {image_at(0)};
  CallLog calls;
  auto verdict = ask_multimodal_verdict(*judge, two_texts(), images, MultimodalQuestion::kFaithfulness, &calls);
  ASSERT_FALSE(verdict.ok());
  EXPECT_EQ(verdict.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(verdict.status().message().rfind(
                "needs a vision model (one call over the response, the contexts and the images, "
                "as ragas 0.4); the offline",
                0),
            0u)
      << verdict.status().message();
  EXPECT_NE(verdict.status().message().find("The claim-level multimodal metrics read images by OCR"),
            std::string::npos);
  EXPECT_TRUE(calls.empty());
}

TEST(VisionTaskTest, TheReplyIsReadAndAReasonInAnotherScriptWarns) {
  const std::vector<SampleImage> images = {image_at(0)};
  ScriptedVisionJudge yes(nlohmann::json{{"reason", "The image states it."}, {"verdict", 1}},
                          "the judge wrote the reason in Latin script, not in Chinese");
  CallLog calls;
  auto verdict = ask_multimodal_verdict(yes, two_texts(), images, MultimodalQuestion::kFaithfulness, &calls);
  ASSERT_TRUE(verdict.ok()) << verdict.status().to_string();
  EXPECT_TRUE(verdict->verdict);
  EXPECT_EQ(verdict->reason, "The image states it.");
  EXPECT_EQ(verdict->warning, "the judge wrote the reason in Latin script, not in Chinese; the verdict is kept");
  EXPECT_EQ(calls, (std::vector<std::string>{"vision"}));

  ScriptedVisionJudge no(nlohmann::json{{"reason", "No."}, {"verdict", 0}});
  verdict = ask_multimodal_verdict(no, two_texts(), images, MultimodalQuestion::kRelevance, nullptr);
  ASSERT_TRUE(verdict.ok());
  EXPECT_FALSE(verdict->verdict);
  EXPECT_TRUE(verdict->warning.empty());

  for (const nlohmann::json& bad : {nlohmann::json{{"verdict", 2}}, nlohmann::json{{"verdict", "1"}},
                                    nlohmann::json{{"reason", "r"}}, nlohmann::json::array()}) {
    ScriptedVisionJudge judge(bad);
    verdict = ask_multimodal_verdict(judge, two_texts(), images, MultimodalQuestion::kFaithfulness, nullptr);
    ASSERT_FALSE(verdict.ok()) << bad.dump();
    EXPECT_EQ(verdict.status().message(), "the vision reply has no verdict 0 or 1");
  }
}

}  // namespace
}  // namespace ragmeter
