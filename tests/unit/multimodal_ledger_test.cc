// The multimodal ledger's shape (judge/multimodal_ledger.h) and the vision protocol's
// token estimate (llm.h).
#include <gtest/gtest.h>

#include "judge/multimodal_ledger.h"
#include "ragmeter/ledger_metrics.h"
#include "ragmeter/llm.h"

namespace ragmeter {
namespace {

TEST(MultimodalLedgerTest, ImageColumnsGoAtTheImagesRanks) {
  ClaimLedger text = make_claim_ledger({"A is 1.", "B is 2."}, {"A is 1."}, {"text zero", "text two"});
  for (std::size_t k = 0; k < 2; ++k) {
    text.response_vs_chunks.at(0, k).verdict = Verdict::kNeutral;
    text.response_vs_chunks.at(1, k).verdict = Verdict::kNeutral;
    text.reference_vs_chunks.at(0, k).verdict = Verdict::kNeutral;
  }
  text.response_vs_chunks.at(0, 1).verdict = Verdict::kEntailment;  // "A is 1." from "text two"
  SampleImage image;
  image.rank = 1;
  image.image.sha256 = std::string(64, 'a');
  VerdictCell yes{Verdict::kEntailment, std::nullopt, "the chart shows it"};
  VerdictCell no{Verdict::kNeutral, std::nullopt, ""};
  ClaimLedger ledger = ledger_with_images(text, {image}, {{no, yes}}, {{no}});
  ASSERT_TRUE(validate_claim_ledger(ledger).ok());
  ASSERT_EQ(ledger.chunks.size(), 3u);
  EXPECT_EQ(ledger.chunks[0].text, "text zero");
  EXPECT_EQ(ledger.chunks[1].image, std::string(64, 'a'));
  EXPECT_EQ(ledger.chunks[2].text, "text two");
  EXPECT_EQ(ledger.response_vs_chunks.at(0, 2).verdict, Verdict::kEntailment);
  EXPECT_EQ(ledger.response_vs_chunks.at(1, 1).reason, "the chart shows it");
  // Both response claims supported: one by text, one by the image.
  EXPECT_EQ(ledger_faithfulness(ledger).score, 1.0);
  EXPECT_EQ(ledger_faithfulness(text).score, 0.5);
}

// OpenAI's worked examples of image tokens (GPT-4o vision pricing): a 1024 x 1024 image
// in high detail is 4 tiles, 765 tokens; 2048 x 4096 is scaled to 1024 x 2048, then
// 768 x 1536: 6 tiles, 1105 tokens; low detail is 85 whatever the size.
TEST(ImageTokensTest, OpenAiWorkedExamples) {
  EXPECT_EQ(llm::estimate_image_tokens(1024, 1024, "high"), 765);
  EXPECT_EQ(llm::estimate_image_tokens(2048, 4096, "high"), 1105);
  EXPECT_EQ(llm::estimate_image_tokens(4096, 8192, "low"), 85);
}

}  // namespace
}  // namespace ragmeter
