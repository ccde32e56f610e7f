// Conversation-scenario generation (include/ragmeter/scenarios.h): its request, its
// language, a stop, and bad inputs, against the FAKE server (tests/fakes/fake_llm_server.cc)
// scripted with exact replies. The CLI's checks and counts: tests/cli/test_gen_scenarios_cli.py.
#include "ragmeter/scenarios.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "tests/unit/gen_test_support.h"

namespace ragmeter {
namespace {

using Json = nlohmann::json;
using gen_testing::hashed;
using gen_testing::index_of;

DocumentChunk chunk(std::string id, std::string text) {
  return gen_testing::chunk_of(std::move(id), std::move(text), "handbook.md", "Handbook", 3);
}

Json reply(const std::string& scenario, const std::string& user, const std::string& outcome) {
  const Json item = {{"expected_outcome", outcome},
                     {"passages", {"P1"}},
                     {"scenario", scenario},
                     {"user_description", user}};
  return {{"content", Json({{"scenarios", Json::array({item})}}).dump()}};
}

// One context at a time, the root alone: the requests come in the order of the script.
ScenarioOptions one_at_a_time(std::size_t size) {
  ScenarioOptions options;
  options.size = size;
  options.neighbours = 0;
  options.concurrency = 1;
  return options;
}

class ScenariosTest : public gen_testing::ScriptedServerTest {};

TEST(ScenarioRequestTest, AsksForExactlyNScenariosOverLabelledPassages) {
  llm::ChatRequest request = scenario_generation_request({"First.", "Second."}, 3, 512);
  ASSERT_EQ(request.messages.size(), 2u);
  EXPECT_NE(request.messages[0].content.find("simulated user"), std::string::npos);
  const std::string& user = request.messages[1].content;
  EXPECT_EQ(user.find("PASSAGES:\n[P1]\nFirst.\n\n[P2]\nSecond.\n\n"), 0u);
  EXPECT_NE(user.find("Scenarios to write: 3\n"), std::string::npos);
  EXPECT_EQ(user.find("LANGUAGE"), std::string::npos);  // English: no language line
  const Json& scenarios = request.schema["properties"]["scenarios"];
  EXPECT_EQ(scenarios["minItems"], 3);
  EXPECT_EQ(scenarios["maxItems"], 3);
  EXPECT_EQ(scenarios["items"]["properties"]["passages"]["items"]["enum"],
            Json::parse(R"(["P1","P2"])"));
  EXPECT_EQ(scenarios["items"]["required"].size(), 4u);
  EXPECT_EQ(request.max_tokens, 512);
}

TEST(ScenarioRequestTest, TheRowHasTheConversationalGoldensFieldsAndItsSources) {
  ScenarioRow row;
  row.id = "scenario-1";
  row.scenario = "S";
  row.expected_outcome = "O";
  row.user_description = "U";
  row.reference_contexts = {"text"};
  row.sources = {testset_source_of(chunk("c1", "text"))};
  EXPECT_EQ(scenario_row_json(row).dump(),
            R"({"id":"scenario-1","scenario":"S","expected_outcome":"O","user_description":"U",)"
            R"("reference_contexts":["text"],"sources":[{"chunk_id":"c1","path":"handbook.md",)"
            R"("title":"Handbook","page":3,"headings":[]}]})");
}

TEST_F(ScenariosTest, ScenariosInAnotherScriptThanThePassagesAreAskedAgainThenRejected) {
  const std::string english = "An employee asks how many days of leave they get in a year.";
  const std::string chinese = "一位新员工想知道自己每年有多少天带薪假期。";
  ASSERT_NO_FATAL_FAILURE(start(Json::array({
      reply(english, "A new hire.", "They get 25 days."),  // English for Chinese
      reply(english, "A new hire.", "They get 25 days."),  // still, when told
      reply(chinese, "一位刚入职的程序员。", "用户得知每年有二十五天带薪假期。"),  // accepted
  })));
  const std::vector<DocumentChunk> chunks = {
      chunk("z1", "员工每年享有二十五天带薪假期，未用完的假期可以保留到次年三月三十一日。")};
  const VectorIndex index = index_of(chunks);
  ScenarioOptions options = one_at_a_time(1);
  auto report = generate_scenarios(chunks, index, *client_, hashed, options);
  ASSERT_TRUE(report.ok()) << report.status().to_string();
  ASSERT_EQ(report->rows.size(), 1u);
  EXPECT_EQ(report->rows[0].scenario, chinese);
  EXPECT_EQ(report->rows[0].reference_contexts, std::vector<std::string>{chunks[0].text});
  EXPECT_EQ(report->rows[0].sources[0].chunk_id, "z1");
  ASSERT_EQ(report->rejected.size(), 1u);
  const std::string& reason = report->rejected.begin()->first;
  EXPECT_EQ(reason.rfind("generation failed: ", 0), 0u) << reason;
  EXPECT_NE(reason.find("Latin"), std::string::npos) << reason;
  EXPECT_NE(reason.find("Chinese"), std::string::npos) << reason;
  EXPECT_EQ(report->contexts_tried, 2u);
  EXPECT_EQ(client_->totals().requests, 3);  // the first context asked twice, the second once
}

TEST_F(ScenariosTest, AStopKeepsTheAcceptedRowsAndCancelsTheCallInFlight) {
  ASSERT_NO_FATAL_FAILURE(start(Json::array({
      reply("An employee asks how many days of leave they get in a year.", "A new hire.",
            "They get 25 days."),
      Json{{"kind", "hang"}},  // the second context's call hangs
  })));
  const std::vector<DocumentChunk> chunks = {
      chunk("a", "Employees get 25 days of paid leave a year."),
      chunk("b", "Travel expenses are refunded within 30 days.")};
  const VectorIndex index = index_of(chunks);
  ScenarioOptions options = one_at_a_time(3);
  std::atomic<bool> stop{false};
  options.cancel = &stop;
  double seconds = 0;
  auto report = gen_testing::run_stopped_after_half_a_second(&stop, &seconds, [&] {
    return generate_scenarios(chunks, index, *client_, hashed, options);
  });
  ASSERT_TRUE(report.ok()) << report.status().to_string();
  EXPECT_TRUE(report->cancelled);
  ASSERT_EQ(report->rows.size(), 1u);
  EXPECT_TRUE(report->rejected.empty());     // the call cut short is no rejection
  EXPECT_EQ(client_->totals().requests, 2);  // nothing asked after the stop
  EXPECT_LT(seconds, 4.0);  // the hanging call was cancelled, not waited for (5 s timeout)
}

TEST(ScenarioInputTest, BadInputsAreErrors) {
  const std::vector<DocumentChunk> chunks = {chunk("a", "One."), chunk("b", "Two.")};
  const VectorIndex index = index_of(chunks);
  std::unique_ptr<llm::Client> client = gen_testing::unreachable_client();
  ASSERT_NE(client, nullptr);
  ScenarioOptions options;
  EXPECT_FALSE(generate_scenarios({}, index, *client, hashed, options).ok());
  EXPECT_FALSE(generate_scenarios({chunks[0]}, index, *client, hashed, options).ok());
  options.size = 0;
  EXPECT_FALSE(generate_scenarios(chunks, index, *client, hashed, options).ok());
  options.size = 1;
  options.scenarios_per_context = 0;
  EXPECT_FALSE(generate_scenarios(chunks, index, *client, hashed, options).ok());
}

}  // namespace
}  // namespace ragmeter
