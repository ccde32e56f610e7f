// The judge tasks the offline judge also answers (judge_tasks.h: ask_relevant_sentences,
// ask_entities): one reading of a model's reply and of the offline rules' reply.
#include <gtest/gtest.h>

#include "ragmeter/judge.h"
#include "ragmeter/judge_tasks.h"
#include "ragmeter/llm_judge.h"
#include "ragmeter/metric.h"

namespace ragmeter {
namespace {

// A judge with a model, scripted: every task gets `reply`; the tasks it was asked are kept.
class ScriptedModelJudge : public Judge {
 public:
  explicit ScriptedModelJudge(nlohmann::json reply) : reply_(std::move(reply)) {}
  std::string description() const override { return "scripted model"; }
  StatusOr<ClaimLedger> claim_ledger(const Sample&, CallLog*) override { return not_found("-"); }
  StatusOr<double> similarity(std::string_view, std::string_view, CallLog*) override { return 0.0; }
  StatusOr<KeyFactCoverage> key_fact_coverage(std::string_view, std::string_view, CallLog*) override {
    return not_found("-");
  }
  StatusOr<TaskReply> ask(const JudgeTask& task, const Sample&, CallLog* calls) override {
    asked.push_back(task);
    if (calls) calls->push_back(task.kind);
    return TaskReply{reply_, ""};
  }
  std::vector<JudgeTask> asked;

 private:
  nlohmann::json reply_;
};

Sample sample_with(std::vector<std::string> contexts) {
  Sample s;
  s.user_input = "Where is the Eiffel Tower?";
  s.response = "In Paris.";
  s.set_reference("The Eiffel Tower is in Paris, France.");
  s.retrieved_contexts = std::move(contexts);
  return s;
}

TEST(ContextTasksTest, ACopiedSentenceCountsAsTheSentenceItEquals) {
  // "Paris is big." is inside the first sentence too; the second is the one copied. White
  // space is normalised (case and punctuation are not: normalize_content_text).
  ScriptedModelJudge judge(nlohmann::json{{"sentences", {"Paris is big.", "  Paris is big\n and old. "}}});
  CallLog calls;
  auto found = ask_relevant_sentences(judge, sample_with({"Paris is big and old. Paris is big."}), &calls);
  ASSERT_TRUE(found.ok()) << found.status().to_string();
  EXPECT_EQ(found->total, 2u);
  EXPECT_EQ(found->relevant, (std::vector<std::string>{"Paris is big.", "Paris is big and old."}));
  EXPECT_EQ(calls, (std::vector<std::string>{"relevant_sentences"}));
  // The request shows the question and the contexts; the reply writes nothing of its own.
  ASSERT_EQ(judge.asked.size(), 1u);
  EXPECT_NE(judge.asked[0].sections.find("QUESTION:\nWhere is the Eiffel Tower?"), std::string::npos);
  EXPECT_TRUE(judge.asked[0].written.empty());
  EXPECT_TRUE(judge.asked[0].offline != nullptr);
}

TEST(ContextTasksTest, PartOfASentenceCountsItOnceAndUnknownTextNothing) {
  ScriptedModelJudge judge(nlohmann::json{{"sentences", {"is big", "is big", "Berlin is small."}}});
  auto found = ask_relevant_sentences(judge, sample_with({"Paris is big.", "Rome is big."}), nullptr);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->total, 2u);
  EXPECT_EQ(found->relevant, (std::vector<std::string>{"Paris is big.", "Rome is big."}));
}

TEST(ContextTasksTest, NoSentenceNoCall) {
  ScriptedModelJudge judge(nlohmann::json{{"sentences", {"x"}}});
  auto found = ask_relevant_sentences(judge, sample_with({"", "  "}), nullptr);
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(found->total, 0u);
  EXPECT_TRUE(judge.asked.empty());
}

TEST(ContextTasksTest, TheOfflineJudgeAnswersByItsRules) {
  // eiffel, tower: both needed (half of 2, rounded up, is 1; "where" is a stopword).
  auto judge = make_offline_judge();
  auto found = ask_relevant_sentences(
      *judge, sample_with({"The Eiffel Tower is in Paris. Berlin has a tower.", "Nothing here."}),
      nullptr);
  ASSERT_TRUE(found.ok()) << found.status().to_string();
  EXPECT_EQ(found->total, 3u);
  EXPECT_EQ(found->relevant, (std::vector<std::string>{"The Eiffel Tower is in Paris.",
                                                       "Berlin has a tower."}));
  auto entities = ask_entities(*judge, sample_with({"Paris is in France.", "Gustave Eiffel built it in 1889."}),
                               nullptr);
  ASSERT_TRUE(entities.ok());
  EXPECT_EQ(entities->reference, (std::vector<std::string>{"eiffel tower", "paris", "france"}));
  // "Paris" starts its sentence and the next word is lowercase: not taken (offline_entities).
  EXPECT_EQ(entities->contexts, (std::vector<std::string>{"france", "gustave eiffel", "1889"}));
}

TEST(ContextTasksTest, OnlyTheOfflineRulesListTheContextsEntities) {
  // A model's reply is read for the reference's entities alone, normalised; a list of the
  // contexts' it adds of itself is not read.
  ScriptedModelJudge judge(nlohmann::json{{"entities", {"Eiffel  Tower", "...", "paris", "Paris"}},
                                          {"context_entities", {"eiffel tower"}}});
  auto entities = ask_entities(judge, sample_with({"Paris."}), nullptr);
  ASSERT_TRUE(entities.ok());
  EXPECT_EQ(entities->reference, (std::vector<std::string>{"eiffel tower", "paris"}));
  EXPECT_TRUE(entities->contexts.empty());
  ASSERT_EQ(judge.asked.size(), 1u);
  EXPECT_EQ(judge.asked[0].sections, "TEXT:\nThe Eiffel Tower is in Paris, France.\n\n");
}

TEST(ContextTasksTest, ATaskWithoutRulesStillNeedsAModel) {
  auto judge = make_offline_judge();
  JudgeTask task;
  task.subject = "the test task";
  auto reply = judge->ask(task, sample_with({}), nullptr);
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(reply.status().message().find("the test task needs an LLM judge"), std::string::npos);
  task.offline = [](const Sample& s) -> StatusOr<nlohmann::json> {
    return nlohmann::json{{"question", *s.user_input}};
  };
  reply = judge->ask(task, sample_with({}), nullptr);
  ASSERT_TRUE(reply.ok());
  EXPECT_TRUE(reply->offline);
  EXPECT_EQ(reply->reply["question"], "Where is the Eiffel Tower?");
}

// The dry run plans a metric's task from the task itself (MetricInfo::task): one call of
// its kind per sample, its expected reply length as given; nothing when the kind is empty.
JudgeTask own_task(const Sample& sample) {
  JudgeTask task;
  if (!sample.response || sample.response->empty()) return task;
  task.kind = "own_question";
  task.prompt = "Does the response answer?";
  task.sections = "RESPONSE:\n" + *sample.response + "\n\n";
  task.completion_tokens = 7;
  return task;
}

TEST(ContextTasksTest, TheDryRunPlansAMetricsTaskFromTheTask) {
  MetricInfo own = *find_metric("context_relevance");
  own.name = "own";
  own.needs = sample_fields::kResponse;
  own.task = own_task;
  const std::vector<MetricRequest> twice = {{&own, 0, "own", ""}, {&own, 0, "own", ""}};
  Sample sample = sample_with({"Paris is big."});
  sample.response = "abcd";
  PlannedCalls plan = plan_llm_calls(sample, twice, {});
  EXPECT_EQ(plan.calls, (std::map<std::string, std::int64_t>{{"own_question", 1}}));
  EXPECT_EQ(plan.completion_tokens, 7);
  sample.response = "abcd" + std::string(400, 'x');  // 400 bytes more: 100 tokens (4 bytes a token)
  EXPECT_EQ(plan_llm_calls(sample, twice, {}).prompt_tokens, plan.prompt_tokens + 100);
  sample.response = "";
  EXPECT_TRUE(plan_llm_calls(sample, twice, {}).calls.empty());
  // The built-in rows: one call each; context_relevance none without a sentence.
  auto both = parse_metric_list("context_relevance,context_entity_recall");
  ASSERT_TRUE(both.ok());
  sample = sample_with({"Paris is big."});
  EXPECT_EQ(plan_llm_calls(sample, *both, {}).calls,
            (std::map<std::string, std::int64_t>{{"entities", 1}, {"relevant_sentences", 1}}));
  sample.retrieved_contexts = std::vector<std::string>{" "};
  EXPECT_EQ(plan_llm_calls(sample, *both, {}).calls,
            (std::map<std::string, std::int64_t>{{"entities", 1}}));
}

}  // namespace
}  // namespace ragmeter
