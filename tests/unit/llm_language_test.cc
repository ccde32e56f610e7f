// The LLM judge in the sample's language (docs/judges.md, "Languages"): a FAKE in-process
// client (recording_chat_client.h, not a model) records every request and answers by
// script.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "ragmeter/evaluate.h"
#include "ragmeter/llm.h"
#include "ragmeter/llm_judge.h"
#include "ragmeter/testset.h"
#include "tests/unit/recording_chat_client.h"

namespace ragmeter {
namespace {

using Json = nlohmann::json;

llm::EndpointOptions fake_endpoint() {
  llm::EndpointOptions endpoint;
  endpoint.model = "fake-model";
  return endpoint;
}

std::shared_ptr<Judge> judge_over(std::shared_ptr<RecordingChatClient> client, bool ragas_plan = false) {
  LlmJudgeOptions options;
  options.chat = std::move(client);
  options.model = "fake-model";
  options.endpoint_options = fake_endpoint();
  options.ragas_plan = ragas_plan;
  return make_llm_judge(std::move(options)).value();
}

std::vector<MetricResult> score(const Sample& sample, std::shared_ptr<Judge> judge,
                                const std::vector<std::string>& metrics) {
  EvalOptions options;
  for (const std::string& name : metrics) options.metrics.push_back({find_metric(name), 0, name});
  options.judge = std::move(judge);
  return score_sample(sample, options);
}

Sample english_sample() {
  Sample sample;
  sample.user_input = "When was the bridge built?";
  sample.response = "The bridge was built in 1932 by the city.";
  sample.set_reference("The city built the bridge in 1932.");
  sample.retrieved_contexts = std::vector<std::string>{"The bridge was finished in 1932.",
                                                       "The river floods in spring."};
  sample.reference_contexts = std::vector<std::string>{"The bridge was finished in 1932."};
  return sample;
}

// The cache keys (SHA-256 of model and request) of every request an English sample
// sends, sorted.
std::vector<std::string> english_request_keys(bool ragas_plan) {
  auto client = std::make_shared<RecordingChatClient>("The bridge was built in 1932.");
  const std::vector<std::string> metrics = {"faithfulness", "context_recall", "context_precision",
                                            "answer_relevancy", "coherence", "rubric_score",
                                            "summary_score", "context_entity_recall",
                                            "context_relevance"};
  score(english_sample(), judge_over(client, ragas_plan), metrics);
  std::vector<std::string> keys;
  for (const llm::ChatRequest& request : client->requests()) {
    keys.push_back(request.schema_name + " " + llm::chat_cache_key(fake_endpoint(), request));
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

// Every request of an English sample, hashed as the judge cache keys it, against the keys
// the same requests had before the judge learnt languages (prompts llm-v12, commit
// 50c6766): English cache entries and results do not move (docs/design.md, "The judge
// writes in the sample's language").
TEST(LlmLanguageTest, EnglishRequestsAreByteIdenticalToPromptsLlmV12) {
  // The calls both plans make (answer_relevancy, the critic, the rubric, entities,
  // context_relevance, summary_score's key facts and their verdicts) ...
  const std::vector<std::string> both = {
      "claims 2c9d72caaeb468a19aee621038fcb5b95873c2378c7ec9fa0c4d9a744c28d6ac",
      "entities 252117071e57402212b2c3ceef678ad2dc21470151f5adde400fe8bde85b6039",
      "questions 65073e282491745e978bec512c4e3f2f428a3d875f2b02c6ccc42f7f9a744547",
      "score 8e990ee541956af919cde2a5ed87258513cba7df46d9e15d85716d9be816792b",
      "sentences dd016cd04bb0fb95b44a725f3afa62ec7cba38b66d3e40a4cecbca89ddc53311",
      "verdict d45c783c728e20c368b1abaf8ff0bd5f53ed597df44fe9c462d1defb8b8ea967",
      "verdicts 09506121c08a5ce14babd1ebc1c71e37d1a70c79a5e7d574ea0662b2c227d766"};
  // ... and each plan's own claims and verdicts.
  const std::vector<std::string> compact_only = {
      "claims 6c3b590d8b1dbde9496fd70689de7f1843d406cebd689ce5712e65dc4082d198",
      "verdicts 4e1e232e921d13068221b9612e5e0ebcee854131eb85c74a83742fc9102ebf26"};
  const std::vector<std::string> ragas_only = {
      "claims 1d8fcc706a55ddc0b784a8746ef94ab0fdb4989f7d81ca21aa81a1ca6598d383",
      "claims 8e17da09e918142c5cdac97948b8cf113b96d7368ee4745e481c8362d38e1246",
      "verdicts 0b99c72bff4e7613f449e98d839edb23bdc655f6c5b791323b92c09d31104674",
      "verdicts 31956a925195a8518e66b5302e68951c945ba4f2f07d637814fb680c7950e52d",
      "verdicts 31956a925195a8518e66b5302e68951c945ba4f2f07d637814fb680c7950e52d",
      "verdicts db36c58734a506954bdc5e7994bde637bff0bea3e3ab9292c917c9dff7c2bb50"};
  auto sorted_union = [&both](std::vector<std::string> own) {
    own.insert(own.end(), both.begin(), both.end());
    std::sort(own.begin(), own.end());
    return own;
  };
  EXPECT_EQ(english_request_keys(false), sorted_union(compact_only));
  EXPECT_EQ(english_request_keys(true), sorted_union(ragas_only));
  const std::vector<std::string> passages = {"The bridge was finished in 1932."};
  EXPECT_EQ(llm::chat_cache_key(fake_endpoint(),
                                testset_generation_request(QuestionType::kSimple, passages, 2, 512)),
            "e9cf52c4947fd2f63d70d89b32f200fde3cc8d345c7c3fcc6f305383e87266f9");
  EXPECT_EQ(llm::chat_cache_key(fake_endpoint(),
                                testset_critic_request(passages, "When was the bridge finished?",
                                                       "In 1932.", 512)),
            "5cb28f424231767a9e63492fb3f2c9ee9e2665dbe0cd6833b0d48322fd156f4b");
  EXPECT_EQ(llm::chat_cache_key(fake_endpoint(),
                                testset_closed_book_request("When was the bridge finished?", 512)),
            "57b4698e97ceee48b5f949901a4949597fb8ce002774c51a17ab0f3b6f5f2b9c");
}

}  // namespace
}  // namespace ragmeter
