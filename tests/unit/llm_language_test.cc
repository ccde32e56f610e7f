// The LLM judge in the sample's language (docs/judges.md, "Languages"): a FAKE in-process
// client (recording_chat_client.h, not a model) records every request and answers by
// script.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "../fakes/fake_llm_server_process.h"
#include "judge/llm/judge_language.h"
#include "judge/llm/llm_requests.h"
#include "ragmeter/evaluate.h"
#include "ragmeter/evaluate_rows.h"
#include "ragmeter/hashed_embedding.h"
#include "ragmeter/language.h"
#include "ragmeter/llm.h"
#include "ragmeter/llm_judge.h"
#include "ragmeter/results.h"
#include "ragmeter/testset.h"
#include "tests/unit/fake_llm_judge.h"
#include "tests/unit/recording_chat_client.h"
#include "tests/unit/test_paths.h"

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

// ---- A Chinese sample -------------------------------------------------------------

// Two sentences of Chinese (no `language` column: the judge detects it).
Sample chinese_sample() {
  Sample sample;
  sample.user_input = "大桥是哪一年建成的？";
  sample.response = "大桥建于1932年。它横跨长江，全长一千多米。";  // two sentences: a claims call
  sample.retrieved_contexts = std::vector<std::string>{"大桥于1932年完工。", "这条河春天会发洪水。"};
  return sample;
}

constexpr const char* kChinese = "大桥建于1932年。";

// The LANGUAGE line a Chinese sample's request ends with, for `what`, as
// prompts/language.txt and language_insist.txt word it.
std::string chinese_line(const std::string& what) {
  return "LANGUAGE: the texts are in Chinese (中文). Write " + what +
         " in Chinese (中文), as the texts are written. Keep the keys and the fixed values of the "
         "reply exactly as the task shows them.\n";
}
std::string chinese_insist_line(const std::string& what) {
  return "LANGUAGE: the texts are in Chinese (中文). Write " + what +
         " in Chinese (中文) only: not in English, not in Latin script. A reply written in Latin "
         "script is rejected. Keep the keys and the fixed values of the reply exactly as the task "
         "shows them.\n";
}

bool ends_with(const std::string& text, const std::string& end) {
  return text.size() >= end.size() && text.compare(text.size() - end.size(), end.size(), end) == 0;
}

const std::string& user_message(const llm::ChatRequest& request) { return request.messages.back().content; }

TEST(LlmLanguageTest, AChineseSamplesRequestsSayChineseAfterTheEnglishOnes) {
  auto client = std::make_shared<RecordingChatClient>(kChinese);
  auto results = score(chinese_sample(), judge_over(client),
                       {"faithfulness", "answer_relevancy", "coherence", "rubric_score"});
  for (const MetricResult& result : results) EXPECT_EQ(result.outcome, Outcome::kOk) << result.reason;
  const std::vector<std::pair<std::string, std::string>> kinds = {
      {"claims", "every claim"}, {"verdicts", "every reason"}, {"questions", "the questions"},
      {"verdict", "the reason"}, {"score", "the reason"}};
  for (const auto& [name, what] : kinds) {
    const auto requests = client->requests_named(name);
    ASSERT_EQ(requests.size(), 1u) << name;  // replies in Han: nothing asked again
    EXPECT_TRUE(ends_with(user_message(requests[0]), "\n\n" + chinese_line(what)))
        << name << ": " << user_message(requests[0]);
  }
  // The LANGUAGE line is the only difference from the English request for the same texts.
  const llm::ChatRequest english = llm_questions_request(*chinese_sample().response, 2048);
  const llm::ChatRequest chinese = client->requests_named("questions")[0];
  EXPECT_EQ(chinese.messages.front().content, english.messages.front().content);
  EXPECT_EQ(user_message(chinese),
            with_instruction(user_message(english), chinese_line("the questions")));
  EXPECT_EQ(results[1].evidence["questions"][0]["question"], kChinese);
}

TEST(LlmLanguageTest, UnderTheRagasPlanTheVerdictCallsAskForChineseReasons) {
  auto client = std::make_shared<RecordingChatClient>(kChinese);
  auto judge = judge_over(client, /*ragas_plan=*/true);
  const MetricResult result = score(chinese_sample(), judge, {"faithfulness"})[0];
  EXPECT_EQ(result.outcome, Outcome::kOk) << result.reason;
  const auto verdicts = client->requests_named("verdicts");
  ASSERT_FALSE(verdicts.empty());
  for (const llm::ChatRequest& request : verdicts) {
    EXPECT_TRUE(ends_with(user_message(request), "\n\n" + chinese_line("every reason")));
  }
  // The ledgers name the prompts they were asked with: the language line's version and code.
  EXPECT_EQ(judge->scoped_claim_ledger(chinese_sample(), "faithfulness", nullptr)->provenance.prompt_version,
            "llm-v14+lang-v1:zh+ragas-plan");
  EXPECT_EQ(judge->claim_ledger(chinese_sample(), nullptr)->provenance.prompt_version,
            "llm-v14+lang-v1:zh");
  EXPECT_EQ(judge->claim_ledger(english_sample(), nullptr)->provenance.prompt_version, "llm-v14");
}

TEST(LlmLanguageTest, ALanguageColumnDecidesOverDetection) {
  // English words, but the row says Chinese: the prompts ask for Chinese.
  Sample sample = english_sample();
  sample.language = "zh";
  auto client = std::make_shared<RecordingChatClient>(kChinese);
  score(sample, judge_over(client), {"answer_relevancy"});
  ASSERT_EQ(client->requests_named("questions").size(), 1u);
  EXPECT_TRUE(ends_with(user_message(client->requests_named("questions")[0]),
                        chinese_line("the questions")));
}

// Questions in Latin script for a Chinese sample, `latin_replies` times, then in Chinese.
std::shared_ptr<RecordingChatClient> latin_questions(int latin_replies) {
  auto client = std::make_shared<RecordingChatClient>(kChinese);
  client->reply_for = [latin_replies](const llm::ChatRequest& request, int earlier) -> std::optional<Json> {
    if (request.schema_name != "questions") return std::nullopt;
    const std::string question = earlier < latin_replies ? "When was the bridge built?" : "大桥是哪一年建成的？";
    return Json{{"questions", {question}}, {std::string(kNoncommittalKey), false}};
  };
  return client;
}

TEST(LlmLanguageTest, LatinQuestionsForAChineseSampleAreAskedAgainOnceThenFail) {
  auto client = latin_questions(2);
  auto judge = judge_over(client);
  const MetricResult result = score(chinese_sample(), judge, {"answer_relevancy"})[0];
  EXPECT_EQ(result.outcome, Outcome::kFailed);
  EXPECT_EQ(result.reason,
            "judge: the judge wrote the questions in Latin script, not in Chinese, also when asked "
            "again in so many words");
  const auto requests = client->requests_named("questions");
  ASSERT_EQ(requests.size(), 2u);  // once, and once more: never a third time
  EXPECT_TRUE(ends_with(user_message(requests[0]), chinese_line("the questions")));
  EXPECT_TRUE(ends_with(user_message(requests[1]), "\n\n" + chinese_insist_line("the questions")));
  const auto usage = judge->usage_by_call();
  EXPECT_EQ(usage["questions"]["calls"], 2);
  EXPECT_EQ(usage["questions"]["asked_again_for_language"], 1);
  EXPECT_EQ(usage["questions"]["wrong_language"], 1);
}

TEST(LlmLanguageTest, QuestionsInChineseWhenAskedAgainAreScored) {
  auto client = latin_questions(1);
  auto judge = judge_over(client);
  const MetricResult result = score(chinese_sample(), judge, {"answer_relevancy"})[0];
  ASSERT_EQ(result.outcome, Outcome::kOk) << result.reason;
  EXPECT_EQ(result.evidence["questions"][0]["question"], "大桥是哪一年建成的？");
  // The question itself: similarity 1 with the offline vectors.
  EXPECT_NEAR(result.score, 1.0, 1e-12);
  EXPECT_EQ(client->requests_named("questions").size(), 2u);
  EXPECT_EQ(judge->usage_by_call()["questions"]["wrong_language"], 0);
}

TEST(LlmLanguageTest, LatinClaimsForAChineseSampleFailTheLedgerMetrics) {
  auto client = std::make_shared<RecordingChatClient>(kChinese);
  client->reply_for = [](const llm::ChatRequest& request, int) -> std::optional<Json> {
    if (request.schema_name != "claims") return std::nullopt;
    Json reply = Json::object();
    for (const Json& key : request.schema["required"]) reply[key.get<std::string>()] = {"The bridge was built in 1932."};
    return reply;
  };
  const MetricResult result = score(chinese_sample(), judge_over(client), {"faithfulness"})[0];
  EXPECT_EQ(result.outcome, Outcome::kFailed);
  EXPECT_EQ(result.reason,
            "judge: the judge wrote the claims in Latin script, not in Chinese, also when asked "
            "again in so many words");
  const auto requests = client->requests_named("claims");
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_TRUE(ends_with(user_message(requests[1]), chinese_insist_line("every claim")));
  EXPECT_TRUE(client->requests_named("verdicts").empty());  // no claims, nothing to judge
}

TEST(LlmLanguageTest, LatinReasonsKeepTheVerdictsWithAWarning) {
  auto client = std::make_shared<RecordingChatClient>(kChinese);
  client->reply_for = [](const llm::ChatRequest& request, int) -> std::optional<Json> {
    if (request.schema_name != "verdicts") return std::nullopt;
    Json reply = Json::object();
    for (const Json& key : request.schema["required"]) {
      const std::string k = key.get<std::string>();
      reply[k] = k.rfind("Evidence", 0) == 0 ? "none"
                 : k.rfind("reason", 0) == 0 ? "No passage says when the bridge was built."
                                             : "Neutral";
    }
    return reply;
  };
  const MetricResult result = score(chinese_sample(), judge_over(client), {"faithfulness"})[0];
  ASSERT_EQ(result.outcome, Outcome::kOk) << result.reason;
  EXPECT_EQ(result.score, 0.0);  // the verdicts stand: no passage supports the claim
  ASSERT_TRUE(result.evidence.contains("warnings")) << result.evidence.dump();
  EXPECT_EQ(result.evidence["warnings"],
            nlohmann::ordered_json::array(
                {"the judge wrote the verdicts' reasons in Latin script, not in Chinese, also "
                 "when asked again in so many words; the verdicts are kept"}));
  EXPECT_EQ(client->requests_named("verdicts").size(), 2u);
}

TEST(LlmLanguageTest, ACriticsLatinReasonKeepsItsVerdictWithAWarning) {
  auto client = std::make_shared<RecordingChatClient>(kChinese);
  client->reply_for = [](const llm::ChatRequest& request, int) -> std::optional<Json> {
    if (request.schema_name != "verdict") return std::nullopt;
    return Json{{"reason", "The response is clear."}, {"verdict", 1}};
  };
  const MetricResult result = score(chinese_sample(), judge_over(client), {"coherence"})[0];
  ASSERT_EQ(result.outcome, Outcome::kOk) << result.reason;
  EXPECT_EQ(result.score, 1.0);
  EXPECT_EQ(result.evidence["warnings"][0],
            "the judge wrote the reason in Latin script, not in Chinese, also when asked again in "
            "so many words; the verdict is kept");
  EXPECT_EQ(client->requests_named("verdict").size(), 2u);
}

// The same retry through the FAKE HTTP server (tests/fakes/fake_llm_server.cc): its
// script answers Latin questions twice.
TEST(LlmLanguageTest, OverTheFakeServerLatinQuestionsAreAskedTwiceThenFail) {
  const std::string path = test_judges::fake_llm_server_path();
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "fake server not built at " << path;
  const std::string latin = Json{{"questions", {"When was the bridge built?"}},
                                 {std::string(kNoncommittalKey), false}}.dump();
  const auto script = std::filesystem::temp_directory_path() /
                      ("ragmeter-language-script-" + std::to_string(::getpid()) + ".json");
  std::ofstream(script) << Json{{"default", {{"content", latin}}}}.dump();
  fakes::FakeLlmServerProcess server;
  ASSERT_TRUE(server.start(path, {"--script", script.string()}));
  auto judge = test_judges::llm_judge_over(server.base_url());
  ASSERT_TRUE(judge.ok()) << judge.status().to_string();
  const MetricResult result = score(chinese_sample(), *judge, {"answer_relevancy"})[0];
  std::filesystem::remove(script);
  EXPECT_EQ(result.outcome, Outcome::kFailed);
  EXPECT_NE(result.reason.find("the questions in Latin script, not in Chinese"), std::string::npos)
      << result.reason;
  EXPECT_EQ((*judge)->usage_by_call()["questions"]["calls"], 2);
  ASSERT_EQ(result.evidence["judge_calls"].size(), 2u);  // both requests named
  EXPECT_NE(result.evidence["judge_calls"][0], result.evidence["judge_calls"][1]);
}

// ---- The summary --------------------------------------------------------------------

TEST(LlmLanguageTest, TheSummaryCountsTheSamplesJudgedPerLanguage) {
  auto client = std::make_shared<RecordingChatClient>(kChinese);
  auto judge = judge_over(client);
  EvalOptions options;
  options.metrics = {{find_metric("answer_relevancy"), 0, "answer_relevancy"}};
  options.judge = judge;
  std::vector<nlohmann::ordered_json> rows = {
      {{"user_input", "大桥是哪一年建成的？"}, {"response", kChinese}},
      {{"user_input", "When was the bridge built?"}, {"response", "The bridge was built in 1932 by the city."}},
      {{"user_input", "大桥是哪一年建成的？"}, {"response", "1932年。"}},
      {{"user_input", "?"}, {"response", "1932"}}};  // no letter: "und", judged in English
  auto run = evaluate_rows(std::move(rows), options);
  ASSERT_TRUE(run.ok()) << run.status().to_string();
  const nlohmann::ordered_json expected = {{"en", 2}, {"zh", 2}};
  EXPECT_EQ(judge->judged_languages(), expected);
  RunInfo info;
  info.judged_languages = judge->judged_languages();
  EXPECT_EQ(summary_to_json(run->summary, info)["judge"]["languages"], expected);
  // The offline judge writes nothing: no languages.
  EXPECT_TRUE(summary_to_json(run->summary, RunInfo{})["judge"].contains("name"));
  EXPECT_FALSE(summary_to_json(run->summary, RunInfo{})["judge"].contains("languages"));
}

// ---- gen ------------------------------------------------------------------------------

struct GenRun {
  std::shared_ptr<RecordingChatClient> client;
  TestsetReport report;
};

// One Chinese chunk, one simple question; the pairs are written by `pair` (Latin or Han).
GenRun generate_from_chinese(const std::string& question, const std::string& reference) {
  auto client = std::make_shared<RecordingChatClient>(kChinese);
  client->reply_for = [question, reference](const llm::ChatRequest& request, int) -> std::optional<Json> {
    if (request.schema_name == "pairs") {
      return Json{{"pairs", {{{"passages", {"P1"}}, {"question", question}, {"reference", reference}}}}};
    }
    if (request.schema_name == "check") {
      return Json{{"answerable", true}, {"grounded", true}, {"standalone", true}, {"why_not", ""}};
    }
    if (request.schema_name == "answer") return Json{{"answer", "unknown"}};
    return std::nullopt;
  };
  DocumentChunk chunk;
  chunk.id = "a";
  chunk.text = "金门大桥于1937年通车，全长约2737米。";
  chunk.source_path = "doc.md";
  auto index = VectorIndex::create(kHashedEmbeddingDimensions).value();
  EXPECT_TRUE(index.add(hashed_embedding(chunk.text)).ok());
  TestsetOptions options;
  options.size = 1;
  options.mix = {{QuestionType::kSimple, 1.0}};
  options.neighbours = 0;
  options.concurrency = 1;
  options.max_contexts = 1;
  EmbedTexts embed = [](const std::vector<std::string>& texts) -> StatusOr<std::vector<std::vector<float>>> {
    std::vector<std::vector<float>> out;
    for (const std::string& text : texts) out.push_back(hashed_embedding(text));
    return out;
  };
  auto report = generate_testset({chunk}, index, *client, embed, options);
  EXPECT_TRUE(report.ok()) << report.status().to_string();
  return {client, report.ok() ? std::move(report).value() : TestsetReport{}};
}

TEST(LlmLanguageTest, GenWritesChinesePairsFromChinesePassages) {
  GenRun run = generate_from_chinese("金门大桥于哪一年通车？", "金门大桥于1937年通车。");
  ASSERT_EQ(run.report.rows.size(), 1u) << Json(run.report.rejected).dump();
  EXPECT_EQ(run.report.rows[0].user_input, "金门大桥于哪一年通车？");
  ASSERT_EQ(run.client->requests_named("pairs").size(), 1u);
  EXPECT_TRUE(ends_with(user_message(run.client->requests_named("pairs")[0]),
                        "\n\n" + chinese_line("every question and reference")));
  ASSERT_EQ(run.client->requests_named("answer").size(), 1u);  // "unknown": not checked
  EXPECT_TRUE(ends_with(user_message(run.client->requests_named("answer")[0]),
                        "\n\n" + chinese_line("the answer")));
  // The critic writes no text that is kept: its request is the English one.
  ASSERT_EQ(run.client->requests_named("check").size(), 1u);
  EXPECT_EQ(user_message(run.client->requests_named("check")[0]).find("LANGUAGE:"), std::string::npos);
}

TEST(LlmLanguageTest, GenRejectsPairsStillInLatinScriptForChinesePassages) {
  GenRun run = generate_from_chinese("When did the Golden Gate Bridge open?", "In 1937.");
  EXPECT_TRUE(run.report.rows.empty());
  const std::map<std::string, std::size_t> expected = {
      {"generation failed: the judge wrote the pairs in Latin script, not in Chinese, also when "
       "asked again in so many words",
       1}};
  EXPECT_EQ(run.report.rejected, expected);
  ASSERT_EQ(run.client->requests_named("pairs").size(), 2u);
  EXPECT_TRUE(ends_with(user_message(run.client->requests_named("pairs")[1]),
                        chinese_insist_line("every question and reference")));
  EXPECT_EQ(run.report.usage_by_call["generate"]["wrong_language"], 1);
}

// ---- Scripts of a language ------------------------------------------------------------

TEST(LanguageScriptsTest, ICUGivesEachLanguageItsScripts) {
  EXPECT_EQ(language_scripts("zh"), std::vector<Script>{Script::kHan});
  EXPECT_EQ(language_scripts("ja"), (std::vector<Script>{Script::kKatakana, Script::kHiragana, Script::kHan}));
  EXPECT_EQ(language_scripts("ko"), (std::vector<Script>{Script::kHangul, Script::kHan}));
  EXPECT_EQ(language_scripts("de"), std::vector<Script>{Script::kLatin});
  EXPECT_EQ(language_scripts("ru"), std::vector<Script>{Script::kCyrillic});
  EXPECT_EQ(language_scripts("ta"), std::vector<Script>{Script::kOther});
  EXPECT_TRUE(language_scripts("und").empty());
  EXPECT_TRUE(language_scripts("xx").empty());
}

TEST(LanguageScriptsTest, TheShareWeighsLettersByTheirBytes) {
  // 3 Han characters (9 bytes) and 23 Latin letters.
  EXPECT_NEAR(script_share("PharmaCann由Theodore Scott创立。", {Script::kHan}), 9.0 / 32.0, 1e-12);
  EXPECT_EQ(script_share("1932, 2737.", {Script::kHan}), 1.0);  // no letter
  EXPECT_EQ(script_share("When was it built?", {Script::kHan}), 0.0);
  EXPECT_EQ(script_share("東京に行きました", {Script::kKatakana, Script::kHiragana, Script::kHan}), 1.0);
}

TEST(LanguageScriptsTest, AReplyIsInAnotherScriptBelowAQuarterOfItsLetters) {
  const JudgeLanguage chinese = judge_language("zh");
  EXPECT_FALSE(wrong_script(chinese, {"PharmaCann由Theodore Scott创立。"}));  // 28% Han
  EXPECT_EQ(wrong_script(chinese, {"When was the bridge built?", "大桥"}), Script::kLatin);  // 6 of 27 bytes
  EXPECT_FALSE(wrong_script(chinese, {"1932"}));
  EXPECT_TRUE(judge_language("en").english());
  EXPECT_TRUE(judge_language("und").english());
  EXPECT_FALSE(wrong_script(judge_language("en"), {"大桥"}));  // English is never checked
  EXPECT_EQ(language_display_name("zh"), "Chinese (中文)");
  EXPECT_EQ(language_display_name("de"), "German (Deutsch)");
}

}  // namespace
}  // namespace ragmeter
