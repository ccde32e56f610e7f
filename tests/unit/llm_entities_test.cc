// context_entity_recall under the LLM judge: one call, the reference's entities only; the
// contexts are matched as whole words in code. The judge talks to a FAKE in-process client
// (not a model) that records the requests and lists fixed entities.
#include <gtest/gtest.h>

#include <future>
#include <mutex>

#include "ragmeter/evaluate.h"
#include "ragmeter/llm_judge.h"
#include "ragmeter/metric.h"
#include "tests/unit/fake_chat_client.h"

namespace ragmeter {
namespace {

using Json = nlohmann::json;

class FakeEntitiesClient : public FakeChatOnlyClient {
 public:
  std::future<StatusOr<llm::ChatResponse>> chat(llm::ChatRequest request) override {
    {
      std::lock_guard lock(mutex);
      requests.push_back(request);
    }
    llm::ChatResponse response;
    llm::ChatChoice choice;
    choice.json = Json{{"entities", {"Gustave Eiffel", "1889", "PARIS", "Lyon"}}};
    choice.content = choice.json->dump();
    response.choices.push_back(std::move(choice));
    std::promise<StatusOr<llm::ChatResponse>> done;
    done.set_value(std::move(response));
    return done.get_future();
  }

  std::mutex mutex;
  std::vector<llm::ChatRequest> requests;
};

TEST(LlmEntitiesTest, OnlyTheReferenceIsReadAndTheContextsAreMatchedAsWholeWords) {
  auto client = std::make_shared<FakeEntitiesClient>();
  LlmJudgeOptions options;
  options.chat = client;
  options.model = "fake";
  options.endpoint_options.model = "fake";
  auto judge = make_llm_judge(std::move(options));
  ASSERT_TRUE(judge.ok()) << judge.status().message();

  Sample sample;
  sample.user_input = "Who built the tower?";
  sample.response = "Gustave Eiffel.";
  sample.set_reference("The tower in Paris was built by Gustave Eiffel's company in 1889.");
  // "paris" is there in another case; "1889" only inside "18890" (not a whole word);
  // "Lyon" nowhere.
  sample.retrieved_contexts =
      std::vector<std::string>{"It stands in paris.", "Gustave  Eiffel built it; 18890 visitors came."};
  EvalOptions eval;
  auto list = parse_metric_list("context_entity_recall");
  ASSERT_TRUE(list.ok());
  eval.metrics = *list;
  eval.judge = *judge;
  const std::vector<MetricResult> results = score_sample(sample, eval);
  ASSERT_EQ(results.size(), 1u);
  ASSERT_EQ(results[0].outcome, Outcome::kOk) << results[0].reason;
  EXPECT_DOUBLE_EQ(results[0].score, 2.0 / 4.0);  // gustave eiffel, paris
  EXPECT_EQ(results[0].evidence["missing"], nlohmann::ordered_json({"1889", "lyon"}));

  ASSERT_EQ(client->requests.size(), 1u);  // one call, however many contexts
  const std::string& user = client->requests[0].messages.back().content;
  EXPECT_EQ(user.find("Task:"), 0u) << user;  // the fixed text first (design.md)
  EXPECT_NE(user.find("\n\nTEXT:\nThe tower in Paris was built"), std::string::npos) << user;
  EXPECT_EQ(user.find("It stands in"), std::string::npos);  // no context is sent
  EXPECT_EQ(user.find("18890"), std::string::npos);
  EXPECT_EQ(client->requests[0].schema["required"], Json::parse(R"(["entities"])"));
}

}  // namespace
}  // namespace ragmeter
