#include "ragmeter/sample.h"

#include <gtest/gtest.h>

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

TEST(SampleTest, RagasNamesFillTheFields) {
  Json row = Json::parse(R"({"user_input":"q","response":"a","reference":"r",
      "retrieved_contexts":["c1","c2"],"retrieved_context_ids":[1,"d2"]})");
  auto s = sample_from_json(row);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(*s->user_input, "q");
  EXPECT_EQ(*s->response, "a");
  EXPECT_EQ(*s->reference(), "r");
  EXPECT_EQ(s->references(), std::vector<std::string>{"r"});
  EXPECT_EQ(*s->retrieved_contexts, (std::vector<std::string>{"c1", "c2"}));
  EXPECT_EQ(*s->retrieved_context_ids, (std::vector<std::string>{"1", "d2"}));
  EXPECT_FALSE(s->reference_contexts.has_value());
}

TEST(SampleTest, LegacyNamesAreAccepted) {
  Json row = Json::parse(R"({"question":"q","answer":"a","contexts":["c"],"ground_truth":"r"})");
  auto s = sample_from_json(row);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s->user_input, "q");
  EXPECT_EQ(*s->response, "a");
  EXPECT_EQ(*s->retrieved_contexts, std::vector<std::string>{"c"});
  EXPECT_EQ(*s->reference(), "r");
}

TEST(SampleTest, GroundTruthsListGivesAllReferencesAndTheFirstAsReference) {
  Json row = Json::parse(R"({"answer":"a","ground_truths":["r1","r2"]})");
  auto s = sample_from_json(row);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s->reference(), "r1");
  EXPECT_EQ(s->references(), (std::vector<std::string>{"r1", "r2"}));
}

TEST(SampleTest, CsvListCellsParseAsJsonOrPythonLiterals) {
  Json row = Json::parse(R"({"retrieved_contexts":"['it''s', \"b's\"]",
                             "reference_contexts":"[\"x\", \"y\"]"})");
  row["retrieved_contexts"] = "['a', \"b's\"]";
  auto s = sample_from_json(row);
  ASSERT_TRUE(s.ok()) << s.status().to_string();
  EXPECT_EQ(*s->retrieved_contexts, (std::vector<std::string>{"a", "b's"}));
  EXPECT_EQ(*s->reference_contexts, (std::vector<std::string>{"x", "y"}));
}

TEST(SampleTest, WrongTypeNamesTheField) {
  auto s = sample_from_json(Json::parse(R"({"response": {"x": 1}})"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message().rfind("field 'response':", 0), 0u) << s.status().message();
  auto t = sample_from_json(Json::parse(R"({"contexts": [1.5]})"));
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("field 'contexts'"), std::string::npos);
}

TEST(SampleTest, ColumnMapRenamesUserColumns) {
  ColumnMap map;
  ASSERT_TRUE(parse_column_mapping("query=user_input", &map).ok());
  ASSERT_TRUE(parse_column_mapping("gold=reference", &map).ok());
  EXPECT_FALSE(parse_column_mapping("gold", &map).ok());
  EXPECT_FALSE(parse_column_mapping("gold=nonsense", &map).ok());
  auto s = sample_from_json(Json::parse(R"({"query":"q","gold":"g"})"), map);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(*s->user_input, "q");
  EXPECT_EQ(*s->reference(), "g");
}

// A user column mapped onto a field beats its canonical name, which beats its legacy
// names; a null column counts as absent, so the next name is used.
TEST(SampleTest, NamesArePreferredInOrder) {
  auto both = sample_from_json(Json::parse(R"({"answer":"legacy","response":"canonical"})"));
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(*both->response, "canonical");
  auto null_canonical = sample_from_json(Json::parse(R"({"response":null,"answer":"legacy"})"));
  ASSERT_TRUE(null_canonical.ok());
  EXPECT_EQ(*null_canonical->response, "legacy");
  auto first_legacy = sample_from_json(
      Json::parse(R"({"ground_truths":["b"],"ground_truth":"a","contexts":["c"]})"));
  ASSERT_TRUE(first_legacy.ok());
  EXPECT_EQ(*first_legacy->reference(), "a");
  ColumnMap map;
  ASSERT_TRUE(parse_column_mapping("mine=response", &map).ok());
  ASSERT_TRUE(parse_column_mapping("answer=reference", &map).ok());
  auto mapped = sample_from_json(Json::parse(R"({"response":"canonical","mine":"mapped","answer":"x"})"), map);
  ASSERT_TRUE(mapped.ok());
  EXPECT_EQ(*mapped->response, "mapped");
  EXPECT_EQ(*mapped->reference(), "x");  // a mapped column also keeps its own meaning
  auto mapped_null = sample_from_json(Json::parse(R"({"response":"canonical","mine":null})"), map);
  ASSERT_TRUE(mapped_null.ok());
  EXPECT_EQ(*mapped_null->response, "canonical");
  auto two_maps = ColumnMap{{"a1", "response"}, {"b1", "response"}};
  auto first_mapped = sample_from_json(Json::parse(R"({"b1":"second","a1":"first"})"), two_maps);
  ASSERT_TRUE(first_mapped.ok());
  EXPECT_EQ(*first_mapped->response, "first");  // in the map's order
}

TEST(SampleTest, NullCountsAsMissing) {
  auto s = sample_from_json(Json::parse(R"({"response": null})"));
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->response.has_value());
}

}  // namespace
}  // namespace ragmeter
