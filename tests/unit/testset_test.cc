// Test-set generation's requests, filters and determinism, against the FAKE server
// (tests/fakes/fake_llm_server.cc) scripted with exact replies; the end-to-end test with
// the real local model is tests/llm/test_gen_llm.py.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <thread>

#include "../fakes/fake_llm_server_process.h"
#include "ragmeter/hashed_embedding.h"
#include "ragmeter/testset.h"
#include "tests/unit/gen_test_support.h"
#include "tests/unit/test_paths.h"
#include "tests/unit/fake_llm_judge.h"

namespace ragmeter {
namespace {

using Json = nlohmann::json;
using gen_testing::hashed;
using gen_testing::index_of;

DocumentChunk chunk(std::string id, std::string text) {
  return gen_testing::chunk_of(std::move(id), std::move(text), "doc.md", "Doc");
}

// Three chunks on unrelated subjects.
std::vector<DocumentChunk> three_chunks() {
  return {chunk("a", "The json module encodes Python objects as JSON text with json.dumps."),
          chunk("b", "Tulips flower in spring and grow from bulbs planted in autumn."),
          chunk("c", "The Danube flows through ten countries before reaching the Black Sea.")};
}

Json generated(const std::string& question, const std::string& answer,
               const std::vector<std::string>& passages = {"P1"}) {
  Json pair = {{"passages", passages}, {"question", question}, {"reference", answer}};
  Json reply = {{"pairs", Json::array({pair})}};
  return {{"content", reply.dump()}};
}

Json critic(bool standalone, bool answerable = true, bool grounded = true) {
  Json reply = {{"answerable", answerable}, {"grounded", grounded}, {"standalone", standalone},
                {"why_not", ""}};
  return {{"content", reply.dump()}};
}

// The judge's answer to a question asked with no passage.
Json closed_book(const std::string& answer) {
  return {{"content", Json({{"answer", answer}}).dump()}};
}

// One simple question per context and one context at a time, so the requests come in the
// order of the script.
TestsetOptions simple_one_at_a_time(std::size_t size) {
  TestsetOptions options;
  options.size = size;
  options.mix = {{QuestionType::kSimple, 1.0}};
  options.neighbours = 0;
  options.concurrency = 1;
  return options;
}

class TestsetTest : public gen_testing::ScriptedServerTest {};

TEST(TestsetRequestTest, MixesParseAndBadPartsAreNamed) {
  auto mix = parse_question_mix("simple=2,multi_context=1");
  ASSERT_TRUE(mix.ok());
  EXPECT_EQ(mix->at(QuestionType::kSimple), 2.0);
  EXPECT_EQ(mix->at(QuestionType::kMultiContext), 1.0);
  EXPECT_FALSE(mix->contains(QuestionType::kReasoning));
  EXPECT_NE(parse_question_mix("simple=1,hard=2").status().message().find("'hard'"), std::string::npos);
  EXPECT_NE(parse_question_mix("simple=x").status().message().find("'x'"), std::string::npos);
  EXPECT_FALSE(parse_question_mix("simple=-1").ok());
  EXPECT_FALSE(parse_question_mix("simple=0").ok());
  EXPECT_FALSE(parse_question_mix("simple").ok());
}

TEST(TestsetRequestTest, GenerationAsksForExactlyNPairsOverLabelledPassages) {
  llm::ChatRequest request =
      testset_generation_request(QuestionType::kMultiContext, {"First.", "Second."}, 3, 512);
  const std::string& user = request.messages[1].content;
  EXPECT_EQ(user.find("PASSAGES:\n[P1]\nFirst.\n\n[P2]\nSecond.\n\n"), 0u);
  EXPECT_NE(user.find("two different passages"), std::string::npos);  // the type's instruction
  EXPECT_NE(user.find("Pairs to write: 3"), std::string::npos);
  const Json& pairs = request.schema["properties"]["pairs"];
  EXPECT_EQ(pairs["minItems"], 3);
  EXPECT_EQ(pairs["maxItems"], 3);
  EXPECT_EQ(pairs["items"]["properties"]["passages"]["items"]["enum"], Json::parse(R"(["P1","P2"])"));
  llm::ChatRequest check = testset_critic_request({"First."}, "Q?", "A.", 512);
  EXPECT_NE(check.messages[1].content.find("QUESTION:\nQ?\n\nANSWER:\nA.\n\n"), std::string::npos);
  EXPECT_EQ(check.schema["required"].size(), 4u);
}

TEST_F(TestsetTest, EveryFilterCountsItsRejectionAndTheSetStopsAtItsSize) {
  // One context at a time (concurrency 1), so the requests come in this order.
  ASSERT_NO_FATAL_FAILURE(start(Json::array({
      generated("What does json.dumps return for a Python dict?", "A JSON string."),  // 1
      critic(true),                                                                    // passes
      closed_book("unknown"),                                                          // accepted
      generated("What does the passage say about tulips?", "They flower in spring."),  // 2: points
      generated("When do tulips flower?", "In spring."),                               // 3
      critic(false),                                                                   // not standalone
      generated("What does json.dumps return for a Python dict?", "JSON text."),       // 4: duplicate
      generated("Which sea does the Danube reach?", "The Black Sea."),                 // 5
      critic(true),                                                                    // passes
      closed_book("I am not sure of it."),                                             // accepted
  })));
  const auto chunks = three_chunks();
  const VectorIndex index = index_of(chunks);
  TestsetOptions options = simple_one_at_a_time(2);
  std::vector<std::size_t> progress;
  auto report = generate_testset(chunks, index, *client_, hashed, options,
                                 [&](std::size_t rows) { progress.push_back(rows); });
  ASSERT_TRUE(report.ok()) << report.status().to_string();
  ASSERT_EQ(report->rows.size(), 2u);
  EXPECT_EQ(report->rows[0].user_input, "What does json.dumps return for a Python dict?");
  EXPECT_EQ(report->rows[1].reference, "The Black Sea.");
  EXPECT_EQ(report->contexts_tried, 5u);
  EXPECT_EQ(report->pairs_proposed, 5u);
  const std::map<std::string, std::size_t> expected = {{"question points at its source", 1},
                                                       {"critic: not standalone", 1},
                                                       {"near-duplicate question", 1}};
  EXPECT_EQ(report->rejected, expected);
  EXPECT_EQ(client_->totals().requests, 10);  // 5 generation calls, 3 critic calls, 2 closed-book
  EXPECT_EQ(report->usage_by_call["generate"]["calls"], 5);
  EXPECT_EQ(report->usage_by_call["critic"]["calls"], 3);
  EXPECT_EQ(report->usage_by_call["closed_book"]["calls"], 2);
  EXPECT_EQ(progress.back(), 2u);
  // Each row's reference context is the passage it named, with its source.
  for (const TestsetRow& row : report->rows) {
    ASSERT_EQ(row.reference_contexts.size(), 1u);
    ASSERT_EQ(row.sources.size(), 1u);
    const auto it = std::find_if(chunks.begin(), chunks.end(),
                                 [&](const DocumentChunk& c) { return c.id == row.sources[0].chunk_id; });
    ASSERT_NE(it, chunks.end());
    EXPECT_EQ(row.reference_contexts[0], it->text);
  }
  const auto line = testset_row_json(report->rows[0]);
  EXPECT_EQ(line["question_type"], "simple");
  EXPECT_EQ(line["sources"][0]["path"], "doc.md");
  EXPECT_FALSE(line["sources"][0].contains("page"));
}

TEST_F(TestsetTest, PairsNamingMissingPassagesOrTooFewForMultiContextAreRejected) {
  ASSERT_NO_FATAL_FAILURE(start(Json::array({
      generated("Which sea does the Danube reach in the end?", "The Black Sea.", {"P1"}),
      generated("How do tulips and the Danube differ in season?", "They do not.", {"P1", "P2"}),
      critic(true, true, false),  // not grounded
  })));
  const auto chunks = three_chunks();
  const VectorIndex index = index_of(chunks);
  TestsetOptions options;
  options.size = 1;
  options.mix = {{QuestionType::kMultiContext, 1.0}};
  options.neighbours = 1;
  options.min_neighbour_similarity = -1.0;  // unrelated chunks still join as neighbours
  options.concurrency = 1;
  options.max_contexts = 2;
  auto report = generate_testset(chunks, index, *client_, hashed, options);
  ASSERT_TRUE(report.ok()) << report.status().to_string();
  EXPECT_TRUE(report->rows.empty());  // fewer rows than asked is a report, not an error
  const std::map<std::string, std::size_t> expected = {
      {"multi_context: uses fewer than two passages", 1},
      {"critic: answer not grounded in its passages", 1}};
  EXPECT_EQ(report->rejected, expected);
}

TEST_F(TestsetTest, TautologiesAndQuestionsTheJudgeAnswersWithoutPassagesAreRejected) {
  // Issue 17's held-out run kept "What is the name of PharmaCann?" / "PharmaCann".
  ASSERT_NO_FATAL_FAILURE(start(Json::array({
      generated("What is the name of PharmaCann?", "PharmaCann"),           // rule: no call
      generated("Which sea does the Danube reach?", "The Black Sea."),      //
      critic(true),                                                        //
      closed_book("the Black Sea"),                                        // known without passages
      generated("When do tulips flower?", "Tulips flower in spring."),      //
      critic(true),                                                        //
      closed_book("unknown"),                                              // accepted
  })));
  const auto chunks = three_chunks();
  const VectorIndex index = index_of(chunks);
  TestsetOptions options = simple_one_at_a_time(1);
  auto report = generate_testset(chunks, index, *client_, hashed, options);
  ASSERT_TRUE(report.ok()) << report.status().to_string();
  ASSERT_EQ(report->rows.size(), 1u);
  EXPECT_EQ(report->rows[0].user_input, "When do tulips flower?");
  const std::map<std::string, std::size_t> expected = {{"answer contained in the question", 1},
                                                       {"answerable without its passages", 1}};
  EXPECT_EQ(report->rejected, expected);
  EXPECT_EQ(client_->totals().requests, 7);
}

TEST_F(TestsetTest, AStopKeepsTheAcceptedRowsAndCancelsTheCallInFlight) {
  ASSERT_NO_FATAL_FAILURE(start(Json::array({
      generated("Which sea does the Danube reach?", "The Black Sea."),  // row 1
      critic(true),                                                    //
      closed_book("unknown"),                                          // accepted
      generated("When do tulips flower?", "In spring."),               // row 2
      critic(true),                                                    //
      Json{{"kind", "hang"}},                                          // its closed-book call hangs
  })));
  const auto chunks = three_chunks();
  const VectorIndex index = index_of(chunks);
  TestsetOptions options = simple_one_at_a_time(3);
  std::atomic<bool> stop{false};
  options.cancel = &stop;
  double seconds = 0;
  auto report = gen_testing::run_stopped_after_half_a_second(&stop, &seconds, [&] {
    return generate_testset(chunks, index, *client_, hashed, options);
  });
  ASSERT_TRUE(report.ok()) << report.status().to_string();
  EXPECT_TRUE(report->cancelled);
  ASSERT_EQ(report->rows.size(), 1u);
  EXPECT_EQ(report->rows[0].user_input, "Which sea does the Danube reach?");
  EXPECT_TRUE(report->rejected.empty());  // the call cut short is no rejection
  EXPECT_EQ(client_->totals().requests, 6);  // nothing asked after the stop
  EXPECT_LT(seconds, 4.0);  // the hanging call was cancelled, not waited for (5 s timeout)
}

TEST_F(TestsetTest, WithoutTheClosedBookCheckTheCriticsVerdictIsFinal) {
  ASSERT_NO_FATAL_FAILURE(start(Json::array(
      {generated("Which sea does the Danube reach?", "The Black Sea."), critic(true)})));
  const auto chunks = three_chunks();
  const VectorIndex index = index_of(chunks);
  TestsetOptions options = simple_one_at_a_time(1);
  options.closed_book_check = false;
  auto report = generate_testset(chunks, index, *client_, hashed, options);
  ASSERT_TRUE(report.ok()) << report.status().to_string();
  EXPECT_EQ(report->rows.size(), 1u);
  EXPECT_EQ(client_->totals().requests, 2);
}

TEST(TestsetFilterTest, AnAnswerIsInItsQuestionWhenItAddsNoContentWord) {
  struct Case {
    const char* question;
    const char* answer;
    bool contained;
  };
  const Case cases[] = {
      {"What is the name of PharmaCann?", "PharmaCann", true},
      {"What is the name of the Zubaydah Trail?", "The Zubaydah Trail.", true},
      {"Who founded PharmaCann?", "Theodore Scott", false},
      {"Who founded PharmaCann?", "PharmaCann was founded by Theodore Scott.", false},
      {"In which year did the Danube freeze?", "1929", false},
      {"What is it?", "...", false},  // no content word: left to the other filters
  };
  for (const Case& c : cases) {
    EXPECT_EQ(answer_in_question(c.question, c.answer), c.contained) << c.question << " / " << c.answer;
  }
}

TEST(TestsetFilterTest, AClosedBookAnswerMatchesWhenTheWordsItAddsAreTheReferences) {
  struct Case {
    const char* closed_book;
    const char* reference;
    bool match;
  };
  const char* question = "Which sea does the Danube reach?";
  const Case cases[] = {
      {"The Black Sea", "The Danube reaches the Black Sea.", true},
      {"unknown", "The Black Sea.", false},
      {"The Danube reaches a sea", "The Black Sea.", false},  // adds nothing of its own
      {"The North Sea", "The Black Sea.", false},              // "north" is not the reference's
      {"", "The Black Sea.", false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(closed_book_match(c.closed_book, question, c.reference), c.match) << c.closed_book;
  }
}

TEST(TestsetFilterTest, CoverageCountsTypesMultiContextRowsAndDistinctOpenings) {
  auto row = [](QuestionType type, const char* question, std::size_t contexts) {
    TestsetRow r;
    r.type = type;
    r.user_input = question;
    r.reference_contexts.assign(contexts, "c");
    return r;
  };
  const TestsetCoverage coverage = testset_coverage({
      row(QuestionType::kSimple, "What is the Danube?", 1),
      row(QuestionType::kSimple, "what IS the Rhine?", 1),  // same opening "what is"
      row(QuestionType::kMultiContext, "How do tulips and roses differ?", 2),
      row(QuestionType::kReasoning, "Why, then, does it flow east?", 3),
  });
  EXPECT_EQ(coverage.rows, 4u);
  EXPECT_EQ(coverage.type_share.at("simple"), 0.5);
  EXPECT_EQ(coverage.type_share.at("multi_context"), 0.25);
  EXPECT_EQ(coverage.type_share.at("conditional"), 0.0);
  EXPECT_EQ(coverage.multi_context_share, 0.5);
  EXPECT_EQ(coverage.distinct_openings, 3u);  // "what is", "how do", "why then"
  EXPECT_EQ(coverage.distinct_opening_share, 0.75);
  EXPECT_EQ(testset_coverage({}).distinct_opening_share, 0.0);
}

TEST(TestsetFilterTest, ChineseAnswersAndOpeningsAreReadAsWords) {
  // "What is the capital of France?" / "Paris": the answer's word 巴黎 is not in the
  // question; the whole clause "法国的首都是哪里" was one "word" before ICU's words.
  EXPECT_FALSE(answer_in_question("法国的首都是哪里？", "巴黎"));
  // "Which city is Paris?" / "Paris": the answer adds nothing.
  EXPECT_TRUE(answer_in_question("巴黎是哪个城市？", "巴黎"));
  // The closed-book answer "巴黎" (Paris) is the reference's word.
  EXPECT_TRUE(closed_book_match("巴黎", "法国的首都是哪里？", "法国的首都是巴黎。"));
  EXPECT_FALSE(closed_book_match("里昂", "法国的首都是哪里？", "法国的首都是巴黎。"));
  auto row = [](const char* question) {
    TestsetRow r;
    r.user_input = question;
    return r;
  };
  // Openings: 法国 的 / 法国 的 / 德国 的: two distinct ones of three.
  const TestsetCoverage coverage =
      testset_coverage({row("法国的首都是哪里？"), row("法国的人口是多少？"), row("德国的首都是哪里？")});
  EXPECT_EQ(coverage.distinct_openings, 2u);
}

TEST(TestsetInputTest, BadInputsAreErrors) {
  const auto chunks = three_chunks();
  const VectorIndex index = index_of(chunks);
  std::unique_ptr<llm::Client> client = gen_testing::unreachable_client();
  ASSERT_NE(client, nullptr);
  TestsetOptions testset;
  EXPECT_FALSE(generate_testset({}, index, *client, hashed, testset).ok());
  EXPECT_FALSE(generate_testset({chunks[0]}, index, *client, hashed, testset).ok());  // 1 chunk, 3 vectors
  testset.size = 0;
  EXPECT_FALSE(generate_testset(chunks, index, *client, hashed, testset).ok());
  testset.size = 1;
  testset.mix = {{QuestionType::kSimple, 0.0}};
  EXPECT_FALSE(generate_testset(chunks, index, *client, hashed, testset).ok());
}

}  // namespace
}  // namespace ragmeter
