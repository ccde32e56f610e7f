// The simulated user's prompt and row reading (user_simulator.h); its calls are checked
// end to end by tests/run/test_run_conversations.py against the FAKE server.
#include "ragmeter/user_simulator.h"

#include <gtest/gtest.h>

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

TEST(UserSimulator, ReadsTheScenarioFieldsAndRefusesANonStringNamingTheField) {
  auto scenario = user_scenario_from_row(Json{{"scenario", "Book a table."}, {"expected_outcome", "Booked."}});
  ASSERT_TRUE(scenario.ok());
  ASSERT_TRUE(scenario->has_value());
  EXPECT_EQ((*scenario)->expected_outcome, "Booked.");
  EXPECT_EQ((*scenario)->user_description, "");
  auto none = user_scenario_from_row(Json{{"user_input", "q"}});
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  auto bad = user_scenario_from_row(Json{{"scenario", "x"}, {"user_description", 5}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "field 'user_description': expected a string, got number");
}

TEST(UserSimulator, TheOpeningPromptHidesTheOutcomeAndTheNextShowsTheConversation) {
  UserScenario scenario{"Book a table for two at 8.", "A booking for two at 8 is confirmed.", "Terse."};
  std::string opening = UserSimulator::prompt(scenario, Json::array());
  EXPECT_NE(opening.find("Book a table for two at 8."), std::string::npos);
  EXPECT_NE(opening.find("Terse."), std::string::npos);
  EXPECT_EQ(opening.find("A booking for two at 8 is confirmed."), std::string::npos);
  EXPECT_EQ(opening.find("CONVERSATION"), std::string::npos);
  Json messages = Json::array({{{"role", "system"}, {"content", "secret system prompt"}},
                               {{"role", "user"}, {"content", "Table for two?"}},
                               {{"role", "assistant"}, {"content", "For when?"}}});
  std::string next = UserSimulator::prompt(scenario, messages);
  EXPECT_NE(next.find("A booking for two at 8 is confirmed."), std::string::npos);
  EXPECT_NE(next.find("For when?"), std::string::npos);
  EXPECT_EQ(next.find("secret system prompt"), std::string::npos);  // the user does not see it
  // Without an expected outcome, nothing to check: the open-ended task.
  scenario.expected_outcome.clear();
  EXPECT_EQ(UserSimulator::prompt(scenario, messages).find("EXPECTED OUTCOME"), std::string::npos);
}

TEST(UserSimulator, TheUserWritesInTheScenariosLanguage) {
  UserScenario chinese{"你想预订今晚八点两个人的餐桌，并确认餐厅是否有素食菜单。", "", ""};
  EXPECT_NE(UserSimulator::prompt(chinese, Json::array()).find("LANGUAGE: write in Chinese."), std::string::npos);
  UserScenario english{"You want to book a table for two tonight at eight and ask about vegetarian dishes.", "", ""};
  EXPECT_NE(UserSimulator::prompt(english, Json::array()).find("LANGUAGE: write in English."), std::string::npos);
}

TEST(UserSimulator, MakingOneWithoutAChatModelIsRefused) {
  EXPECT_FALSE(UserSimulator::make({}).ok());
}

}  // namespace
}  // namespace ragmeter
