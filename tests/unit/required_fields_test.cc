// The fields a metric needs (metric.h's sample_fields): one bitmask per table row, printed
// by the help text and checked once before any metric is scored.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "ragmeter/conversation_task.h"
#include "ragmeter/evaluate.h"
#include "ragmeter/metric.h"

namespace ragmeter {
namespace {

namespace f = sample_fields;

std::string skip_reason(const Sample& sample, unsigned needs) {
  const auto skip = missing_required_field(sample, needs);
  if (!skip) return "";
  EXPECT_EQ(skip->outcome, Outcome::kSkipped);
  return skip->reason;
}

TEST(RequiredFieldsTest, TheTextListsTheFieldsInTheTablesOrder) {
  EXPECT_EQ(required_fields_text(f::kResponse | f::kReference), "response, reference");
  EXPECT_EQ(required_fields_text(f::kRetrievedContexts | f::kReference | f::kResponse),
            "response, reference, retrieved_contexts");
  EXPECT_EQ(required_fields_text(f::kUserInput | f::kResponse | f::kRetrievedContexts |
                                 f::kContextImages),
            "user_input, response, retrieved_contexts (text and images)");
  EXPECT_EQ(required_fields_text(f::kContextIdsOrTexts),
            "retrieved and reference context ids (or texts)");
  EXPECT_EQ(required_fields_text(f::kConversation | f::kExpectedTools),
            "conversation, expected_tools");
}

TEST(RequiredFieldsTest, EveryMetricsFieldsNameBitsOfItsMask) {
  for (const MetricInfo& info : builtin_metrics()) {
    const std::string text = required_fields_text(info.needs);
    ASSERT_FALSE(text.empty()) << info.name;
    // Each named field (the images remark aside) is one of the metric's bits.
    std::string_view rest = text;
    while (!rest.empty()) {
      const std::size_t comma = rest.find(", ");
      std::string_view name = rest.substr(0, comma);
      if (const std::size_t paren = name.find(" (text"); paren != std::string_view::npos) {
        name = name.substr(0, paren);
      }
      const unsigned bit = required_field_bit(name);
      EXPECT_NE(bit, f::kNone) << info.name << ": " << name;
      EXPECT_TRUE(info.needs & bit) << info.name << ": " << name;
      rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 2);
    }
  }
}

TEST(RequiredFieldsTest, ConversationTasksNeedTheirField) {
  // The task adapter shows the judge its field without checking it: the table's mask must.
  for (const ConversationTask& task : conversation_tasks()) {
    const MetricInfo* info = find_metric(task.name);
    ASSERT_NE(info, nullptr) << task.name;
    EXPECT_TRUE(info->needs & f::kConversation) << task.name;
    if (task.field.empty()) continue;
    const unsigned bit = required_field_bit(task.field);
    ASSERT_NE(bit, f::kNone) << task.name << ": " << task.field;
    EXPECT_TRUE(info->needs & bit) << task.name << ": " << task.field;
  }
}

TEST(RequiredFieldsTest, TheFirstMissingFieldInOrderIsNamedMissingOrEmpty) {
  Sample sample;
  EXPECT_EQ(skip_reason(sample, f::kResponse | f::kReference), "field 'response' is missing");
  sample.response = "";
  EXPECT_EQ(skip_reason(sample, f::kResponse | f::kReference), "field 'response' is empty");
  sample.response = "Paris.";
  EXPECT_EQ(skip_reason(sample, f::kResponse | f::kReference), "field 'reference' is missing");
  sample.set_reference("");
  EXPECT_EQ(skip_reason(sample, f::kResponse | f::kReference), "field 'reference' is empty");
  sample.set_reference("Paris");
  EXPECT_EQ(skip_reason(sample, f::kResponse | f::kReference), "");
  // user_input comes first whatever order the bits are or'ed in.
  EXPECT_EQ(skip_reason(sample, f::kReference | f::kUserInput), "field 'user_input' is missing");
}

TEST(RequiredFieldsTest, ImageContextsCountOnlyForMetricsThatReadThem) {
  Sample sample;
  sample.response = "A chart.";
  sample.retrieved_contexts = std::vector<std::string>();
  sample.retrieved_images.push_back(RetrievedImage{});
  EXPECT_EQ(skip_reason(sample, f::kResponse | f::kRetrievedContexts | f::kContextImages), "");
  EXPECT_EQ(skip_reason(sample, f::kResponse | f::kRetrievedContexts),
            "the retrieved contexts are all images, which a text metric does not read (the "
            "multimodal_* metrics do)");
  sample.retrieved_images.clear();
  EXPECT_EQ(skip_reason(sample, f::kResponse | f::kRetrievedContexts | f::kContextImages),
            "field 'retrieved_contexts' is empty");
}

TEST(RequiredFieldsTest, RankMetricsReadIdsWhenBothListsAreThereElseTexts) {
  Sample sample;
  EXPECT_EQ(skip_reason(sample, f::kContextIdsOrTexts),
            "needs retrieved_context_ids and reference_context_ids, or retrieved_contexts and "
            "reference_contexts");
  sample.retrieved_contexts = std::vector<std::string>{"a passage"};
  sample.reference_contexts = std::vector<std::string>{"a passage"};
  EXPECT_EQ(skip_reason(sample, f::kContextIdsOrTexts), "");
  // Both id lists present: they are read, and an empty one skips though the texts are there.
  sample.retrieved_context_ids = std::vector<std::string>();
  sample.reference_context_ids = std::vector<std::string>{"d1"};
  EXPECT_EQ(skip_reason(sample, f::kContextIdsOrTexts), "field 'retrieved_context_ids' is empty");
}

TEST(RequiredFieldsTest, ConversationFieldsAreAskedOfAConversationOnly) {
  Sample single;
  single.set_reference("booked");
  EXPECT_EQ(skip_reason(single, f::kConversation | f::kReferenceTopics),
            "a conversation metric: the row is single-turn (it needs `user_input` as a list of "
            "messages, `messages` or `turns`, docs/agents.md)");
  auto conversation = std::make_shared<Conversation>();
  Sample multi;
  multi.conversation = conversation;
  EXPECT_EQ(skip_reason(multi, f::kConversation), "");
  EXPECT_EQ(skip_reason(multi, f::kConversation | f::kReference),
            "field 'reference' is missing (the desired outcome; "
            "ragas_agent_goal_accuracy_without_reference needs none)");
  EXPECT_EQ(skip_reason(multi, f::kConversation | f::kExpectedTools),
            "field 'reference_tool_calls' is missing (DeepEval's name: 'expected_tools')");
  conversation->reference_tool_calls = std::vector<ToolCall>();  // given: expects no call
  EXPECT_EQ(skip_reason(multi, f::kConversation | f::kReferenceToolCalls), "");
  conversation->reference_topics = std::vector<std::string>();
  EXPECT_EQ(skip_reason(multi, f::kConversation | f::kReferenceTopics),
            "field 'reference_topics' is missing or empty");
  EXPECT_EQ(skip_reason(multi, f::kConversation | f::kChatbotRole),
            "field 'chatbot_role' is missing or empty");
  conversation->texts["chatbot_role"] = "a booking assistant";
  EXPECT_EQ(skip_reason(multi, f::kConversation | f::kChatbotRole), "");
}

TEST(RequiredFieldsTest, ScoreSampleSkipsBeforeTheMetricRuns) {
  // Through the public entry point: a text metric on a sample without a reference.
  EvalOptions options;
  auto metrics = parse_metric_list("token_f1,k_precision");
  ASSERT_TRUE(metrics.ok());
  options.metrics = *metrics;
  Sample sample;
  sample.response = "Paris";
  sample.retrieved_contexts = std::vector<std::string>{"Paris is in France."};
  sample.language = "en";
  const std::vector<MetricResult> results = score_sample(sample, options);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].outcome, Outcome::kSkipped);
  EXPECT_EQ(results[0].reason, "field 'reference' is missing");
  EXPECT_EQ(results[1].outcome, Outcome::kOk);
  EXPECT_DOUBLE_EQ(results[1].score, 1.0);  // its one token is in the passage
}

}  // namespace
}  // namespace ragmeter
