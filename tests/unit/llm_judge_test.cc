// The LLM judge's requests and reply reading, without a server (the end-to-end test
// against the real local server is tests/llm/test_eval_llm_judge.py).
#include <gtest/gtest.h>

#include "judge/llm/llm_requests.h"
#include "judge/llm/verdict_table.h"
#include "ragmeter/llm_judge.h"

namespace ragmeter {
namespace {

using Json = nlohmann::json;

ClaimsPrompt two_texts() {
  ClaimsPrompt prompt;
  prompt.question = "Q?";
  prompt.texts = {{{1, "The answer."}, {2, "It is long."}}, {{1, "The answer."}, {3, "The reference."}}};
  prompt.asked = {2, 3};
  return prompt;
}

TEST(LlmJudgeTest, RequestsShareTheStaticPrefixAndPutTheTaskFirst) {
  llm::ChatRequest claims = llm_claims_request(two_texts());
  llm::ChatRequest verdicts = llm_verdicts_request({"c one", "c two"}, "The premise.");
  ASSERT_EQ(claims.messages.size(), 2u);
  ASSERT_EQ(verdicts.messages.size(), 2u);
  // The system message is byte-identical across tasks (servers reuse the prefix).
  EXPECT_EQ(claims.messages[0].role, "system");
  EXPECT_EQ(claims.messages[0].content, verdicts.messages[0].content);
  // The task comes first, the sample after it: a server's prefix cache reuses the task text
  // from one request of a kind to the next (design.md, "Fixed text first").
  const std::string& user = verdicts.messages[1].content;
  EXPECT_EQ(user.find("Task:"), 0u);
  EXPECT_LT(user.find("\nReply: {"), user.find("PREMISE:\nThe premise."));
  EXPECT_NE(user.find("1. c one\n2. c two\n"), std::string::npos);
  EXPECT_EQ(verdicts.format, llm::ReplyFormat::kJsonSchema);
  // One entry per claim, no fewer: a grammar-constrained model otherwise stops after one.
  EXPECT_EQ(verdicts.schema["properties"]["verdicts"]["minItems"], 2);
  EXPECT_EQ(verdicts.schema["properties"]["verdicts"]["maxItems"], 2);
  EXPECT_EQ(verdicts.temperature, 0.0);
  // The reason is required, so a grammar writes it before the verdict (llama.cpp writes the
  // required keys first, in the schema's order), and the prompt's example writes it there too.
  const Json& entry = verdicts.schema["properties"]["verdicts"]["items"];
  EXPECT_EQ(entry["required"], Json::parse(R"(["claim", "reason", "verdict"])"));
  std::vector<std::string> order;
  for (const auto& [key, value] : entry["properties"].items()) order.push_back(key);
  EXPECT_EQ(order, (std::vector<std::string>{"claim", "reason", "verdict"}));
  EXPECT_LT(user.find("\"reason\": "), user.find("\"verdict\": "));
  EXPECT_EQ(claims.messages[1].content.find("Task:"), 0u);
  EXPECT_LT(claims.messages[1].content.find("\nReply: {"),
            claims.messages[1].content.find("QUESTION:\nQ?"));
  EXPECT_LT(claims.messages[1].content.find("QUESTION:\nQ?"),
            claims.messages[1].content.find("KEYS:"));
  // Each shows the reply's form itself, so a server that rejects json_schema is not sent
  // the schema in the prompt as well (llm.h, reply_form_in_prompt).
  llm::ChatRequest table = llm_verdict_table_request({"c one"}, {"First."});
  for (const llm::ChatRequest* request : {&claims, &verdicts, &table}) {
    EXPECT_TRUE(request->reply_form_in_prompt);
    EXPECT_NE(request->messages[1].content.find("\nReply: {"), std::string::npos);
  }
  EXPECT_NE(claims.messages[1].content.find("KEYS: \"S2\""), std::string::npos);
  EXPECT_NE(table.messages[1].content.find("KEYS: \"Evidence 1\""), std::string::npos);
}

TEST(LlmJudgeTest, AClaimsRequestLabelsEverySentenceAndAsksOnlyTheGivenKeys) {
  llm::ChatRequest claims = llm_claims_request(two_texts());
  const std::string& user = claims.messages[1].content;
  // Every sentence is shown for its context; a sentence that shares a key shares its label.
  EXPECT_NE(user.find("TEXT 1:\n[S1] The answer. [S2] It is long.\n\n"
                      "TEXT 2:\n[S1] The answer. [S3] The reference.\n\nKEYS: \"S2\", \"S3\"\n"),
            std::string::npos)
      << user;
  // Only the asked keys are in the reply, each required, each a list of strings.
  EXPECT_EQ(claims.schema["required"], Json::parse(R"(["S2", "S3"])"));
  EXPECT_EQ(claims.schema["properties"]["S3"]["items"]["type"], "string");
  EXPECT_FALSE(claims.schema["properties"].contains("S1"));
}

TEST(LlmJudgeTest, ReadsEachSentencesClaimsAndTellsAnAbsentKeyFromAnEmptyList) {
  Json reply = Json::parse(R"({"S1": ["A is B.", "", 3, "C is D."], "S2": [], "S3": "not a list"})");
  const ClaimsPrompt prompt = two_texts();
  EXPECT_EQ(read_llm_sentence_claims(reply, prompt, 1),
            (std::vector<std::string>{"A is B.", "C is D."}));
  EXPECT_EQ(read_llm_sentence_claims(reply, prompt, 2), std::vector<std::string>{});  // no facts
  EXPECT_FALSE(read_llm_sentence_claims(reply, prompt, 3).has_value());
  EXPECT_FALSE(read_llm_sentence_claims(reply, prompt, 4).has_value());
  EXPECT_FALSE(read_llm_sentence_claims(Json::array(), prompt, 1).has_value());
}

// The order of a schema's properties as sent: nlohmann::json serialises them sorted,
// and llama.cpp's grammar makes the model write the keys in that order.
std::vector<std::string> sent_property_order(const Json& schema) {
  std::vector<std::string> keys;
  const Json sent = Json::parse(schema.dump());
  for (const auto& [key, value] : sent["properties"].items()) keys.push_back(key);
  return keys;
}

std::vector<std::string> required_keys(const Json& schema) {
  return schema["required"].get<std::vector<std::string>>();
}

TEST(LlmJudgeTest, TenOrMoreSentencesAreLabelledSoThatTheirKeysSortInOrder) {
  ClaimsPrompt prompt;
  for (std::size_t label = 1; label <= 12; ++label) {
    if (prompt.texts.empty()) prompt.texts.emplace_back();
    prompt.texts[0].emplace_back(label, "Sentence " + std::to_string(label) + ".");
    prompt.asked.push_back(label);
  }
  llm::ChatRequest claims = llm_claims_request(prompt);
  const std::string& user = claims.messages[1].content;
  EXPECT_NE(user.find("[S01] Sentence 1. [S02] Sentence 2."), std::string::npos) << user;
  EXPECT_NE(user.find("[S12] Sentence 12.\n"), std::string::npos);
  EXPECT_NE(user.find("KEYS: \"S01\", \"S02\""), std::string::npos);
  // Unpadded, "S10" would be sent right after "S1".
  EXPECT_EQ(sent_property_order(claims.schema), required_keys(claims.schema));
  EXPECT_EQ(required_keys(claims.schema).front(), "S01");
  const Json reply = Json::parse(R"({"S02": ["Two is two."], "S12": []})");
  EXPECT_EQ(read_llm_sentence_claims(reply, prompt, 2), std::vector<std::string>{"Two is two."});
  EXPECT_EQ(read_llm_sentence_claims(reply, prompt, 12), std::vector<std::string>{});
  EXPECT_FALSE(read_llm_sentence_claims(Json::parse(R"({"S2": ["x"]})"), prompt, 2).has_value());
}

TEST(LlmJudgeTest, ReadsVerdictsByClaimNumberAndLeavesGapsMissing) {
  Json reply = Json::parse(R"({"verdicts": [
      {"claim": 2, "verdict": "Contradiction", "reason": "<says 1845>"},
      {"claim": 1, "verdict": "Entailment", "reason": "ignored for entailment"},
      {"claim": 9, "verdict": "Neutral"},
      {"claim": 1, "verdict": "Neutral"},
      {"claim": 3, "verdict": "Maybe"}]})");
  std::vector<VerdictCell> cells = read_llm_verdicts(reply, 4);
  ASSERT_EQ(cells.size(), 4u);
  EXPECT_EQ(cells[0].verdict, Verdict::kEntailment);  // the first verdict for claim 1 counts
  EXPECT_EQ(cells[0].reason, "");
  EXPECT_EQ(cells[1].verdict, Verdict::kContradiction);
  EXPECT_EQ(cells[1].reason, "says 1845");  // the example's placeholder brackets dropped
  EXPECT_EQ(cells[2].verdict, Verdict::kMissing);  // "Maybe" is not a verdict
  EXPECT_EQ(cells[3].verdict, Verdict::kMissing);  // the reply said nothing
}

TEST(LlmJudgeTest, VerdictsWithoutNumbersAreReadByPosition) {
  Json reply = Json::parse(R"({"verdicts": [{"verdict": "Neutral", "reason": "<a> or <b>"},
                                             {"verdict": "Entailment"}]})");
  std::vector<VerdictCell> cells = read_llm_verdicts(reply, 3);
  EXPECT_EQ(cells[0].verdict, Verdict::kNeutral);
  EXPECT_EQ(cells[0].reason, "<a> or <b>");  // not one bracketed placeholder: kept as written
  EXPECT_EQ(cells[1].verdict, Verdict::kEntailment);
  EXPECT_EQ(cells[2].verdict, Verdict::kMissing);
  EXPECT_EQ(read_llm_verdicts(Json::parse(R"({"verdicts": "none"})"), 2)[0].verdict,
            Verdict::kMissing);
  EXPECT_EQ(read_llm_verdicts(Json::array(), 1).size(), 1u);
}

TEST(LlmJudgeTest, AVerdictTableAsksOneRequiredKeyPerCellPassageByPassage) {
  llm::ChatRequest table = llm_verdict_table_request({"c one", "c two"}, {"First.", "Second."});
  const std::string& user = table.messages[1].content;
  // The task text first (the same in every table: a prefix the server reuses), then the
  // passages, the claims and the keys of this table.
  EXPECT_EQ(user.find("Task:"), 0u);
  EXPECT_NE(
      user.find("\n\nPASSAGES:\n[P1]\nFirst.\n\n[P2]\nSecond.\n\nCLAIMS:\n1. c one\n2. c two\n"),
      std::string::npos);
  // Every claim's evidence first, then the verdicts, then the reasons.
  EXPECT_NE(user.find("KEYS: \"Evidence 1\", \"Evidence 2\", \"P1: claim 1\", \"P1: claim 2\", "
                      "\"P2: claim 1\", \"P2: claim 2\", \"reason 1\", \"reason 2\"\n"),
            std::string::npos);
  EXPECT_LT(user.find("CLAIMS:"), user.find("KEYS:"));
  // The table keeps the system message that states the verdict rules (the one its agreement
  // was measured with); the other calls get the short shared one, without them.
  const std::string verdict_rule = "supports a claim (Entailment) when it states the claim";
  EXPECT_NE(table.messages[0].content.find(verdict_rule), std::string::npos);
  const std::string shared = llm_claims_request(ClaimsPrompt{}).messages[0].content;
  EXPECT_EQ(shared.find(verdict_rule), std::string::npos);
  EXPECT_NE(shared.find("one JSON object"), std::string::npos);
  EXPECT_EQ(table.schema["required"].size(), 8u);
  EXPECT_EQ(table.schema["properties"]["Evidence 2"]["type"], "string");
  // llama.cpp's grammar writes the keys in the order of the schema's properties, which
  // the request serialises sorted: the evidence must come before every verdict there too.
  const std::string sent = table.schema.dump();
  EXPECT_LT(sent.find("\"Evidence 2\""), sent.find("\"P1: claim 1\""));
  EXPECT_EQ(table.schema["properties"]["P2: claim 1"]["enum"],
            Json::parse(R"(["Entailment", "Neutral", "Contradiction"])"));
  // Only the asked cells: claim 1 against P2 and claim 2 against P1.
  llm::ChatRequest some = llm_verdict_table_request({"a", "b"}, {"x", "y"}, {{0, 1}, {1, 0}});
  EXPECT_EQ(some.schema["required"],
            Json::parse(R"(["Evidence 1", "Evidence 2", "P1: claim 2", "P2: claim 1", "reason 1",
                            "reason 2"])"));
}

TEST(LlmJudgeTest, ReadsAVerdictTableCellByCell) {
  Json reply = Json::parse(R"({"P1: claim 1": "Neutral", "P2: claim 1": "Entailment",
      "P1: claim 2": "Contradiction", "P2: claim 2": "Maybe", "P9: claim 1": "Entailment",
      "reason 1": "r1", "reason 2": "r2"})");
  const auto cells = read_llm_verdict_table(reply, 3, 2);
  ASSERT_EQ(cells.size(), 3u);
  ASSERT_EQ(cells[0].size(), 2u);
  EXPECT_EQ(cells[0][0].verdict, Verdict::kNeutral);
  EXPECT_EQ(cells[0][0].reason, "r1");
  EXPECT_EQ(cells[0][1].verdict, Verdict::kEntailment);
  EXPECT_EQ(cells[0][1].reason, "");  // no reason for support
  EXPECT_EQ(cells[1][0].verdict, Verdict::kContradiction);
  EXPECT_EQ(cells[1][0].reason, "r2");
  EXPECT_EQ(cells[1][1].verdict, Verdict::kMissing);  // "Maybe" is not a verdict
  EXPECT_EQ(cells[2][0].verdict, Verdict::kMissing);  // no key for claim 3
  EXPECT_EQ(cells[2][0].reason, "");
  EXPECT_EQ(read_llm_verdict_table(Json::array(), 1, 1)[0][0].verdict, Verdict::kMissing);
}

TEST(LlmJudgeTest, PremisesAreGroupedIntoCallsThatFitTheWindow) {
  // window 100, reply reserve min(2048, 100 / 4) = 25: a call may hold 75 estimated tokens,
  // i.e. bytes / 3 + 1 <= 75 in integer division: at most 224 bytes. Claims take 60; a premise takes its
  // size + 8 for its label.
  const std::vector<std::size_t> premises = {100, 50, 10, 300};
  using Groups = std::vector<std::vector<std::size_t>>;
  // 60 + 108 + 58 = 226 > 224: P2 starts a new call; 60 + 58 + 18 = 136 fits; 300 never
  // fits and is a call of its own (split by the caller).
  EXPECT_EQ(group_premises(60, premises, 0, 100, 2048), (Groups{{0}, {1, 2}, {3}}));
  EXPECT_EQ(group_premises(60, premises, 0, 0, 2048), (Groups{{0, 1, 2, 3}}));  // no window
  EXPECT_TRUE(group_premises(60, {}, 0, 100, 2048).empty());
  EXPECT_TRUE(fits_window(60, 164, 0, 100, 2048));   // 224 bytes: 74 + 1 = 75
  EXPECT_FALSE(fits_window(60, 165, 0, 100, 2048));  // 225 bytes: 75 + 1 = 76
  EXPECT_EQ(premise_label(0, 3), "P1");
  EXPECT_EQ(premise_label(0, 12), "P01");
  EXPECT_EQ(premise_label(11, 12), "P12");
  EXPECT_EQ(padded_number(7, 120), "007");
  EXPECT_EQ(padded_number(12, 9), "12");
}

TEST(LlmJudgeTest, ATableOfTenOrMoreClaimsOrPassagesIsSentInTheOrderOfItsKeys) {
  std::vector<std::string> claims, premises;
  for (int i = 1; i <= 11; ++i) claims.push_back("claim " + std::to_string(i));
  for (int j = 1; j <= 10; ++j) premises.push_back("Passage " + std::to_string(j) + ".");
  llm::ChatRequest table = llm_verdict_table_request(claims, premises);
  const std::string& user = table.messages[1].content;
  EXPECT_NE(user.find("PASSAGES:\n[P01]\nPassage 1.\n\n"), std::string::npos) << user;
  EXPECT_NE(user.find("[P10]\nPassage 10.\n\nCLAIMS:\n01. claim 1\n"), std::string::npos);
  EXPECT_NE(user.find("\n11. claim 11\n"), std::string::npos);
  const std::vector<std::string> required = required_keys(table.schema);
  ASSERT_EQ(required.size(), 11u + 11u * 10u + 11u);
  EXPECT_EQ(required[0], "Evidence 01");
  EXPECT_EQ(required[1], "Evidence 02");
  EXPECT_EQ(required[11], "P01: claim 01");
  EXPECT_EQ(required[12], "P01: claim 02");
  EXPECT_EQ(required[22], "P02: claim 01");
  EXPECT_EQ(required.back(), "reason 11");
  // The grammar's order (the sorted properties) is the order asked: every evidence
  // first, then passage by passage, claim by claim, then the reasons.
  EXPECT_EQ(sent_property_order(table.schema), required);
  // The reply is read with the same numbering.
  Json reply = Json::object();
  reply["P10: claim 11"] = "Contradiction";
  reply["reason 11"] = "not so";
  reply["P01: claim 02"] = "Entailment";
  reply["P1: claim 2"] = "Neutral";  // not a key of this table
  const auto cells = read_llm_verdict_table(reply, 11, 10);
  EXPECT_EQ(cells[10][9].verdict, Verdict::kContradiction);
  EXPECT_EQ(cells[10][9].reason, "not so");
  EXPECT_EQ(cells[1][0].verdict, Verdict::kEntailment);
  EXPECT_EQ(cells[1][1].verdict, Verdict::kMissing);
}

// answer_relevancy's call: the model writes its questions before it says whether the response
// is noncommittal. A grammar-constrained server writes an object's keys in sorted order (the
// schema's properties are a sorted map), so the flag's key must sort after "questions", and
// the prompt's example reply shows that order too.
TEST(LlmJudgeTest, TheQuestionsCallAsksForTheQuestionsBeforeTheNoncommittalFlag) {
  llm::ChatRequest request = llm_questions_request("Vestfold", 512);
  std::vector<std::string> keys;
  for (const auto& [key, value] : request.schema["properties"].items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"questions", std::string(kNoncommittalKey)}));
  EXPECT_EQ(request.schema["required"].size(), 2u);
  const std::string& user = request.messages[1].content;
  EXPECT_EQ(user.find("Task:"), 0u);
  const std::size_t example = user.find("\nReply: {");
  ASSERT_NE(example, std::string::npos);
  EXPECT_LT(user.find("\"questions\"", example), user.find(std::string(kNoncommittalKey), example));
  EXPECT_LT(example, user.find("RESPONSE:\nVestfold"));
  EXPECT_EQ(request.max_tokens, 512);
}

TEST(LlmJudgeTest, ReadsTheQuestionsAndTheNoncommittalFlagByItsOwnKey) {
  const std::string flag(kNoncommittalKey);
  GeneratedQuestions yes = read_llm_questions(Json{{"questions", {"Where?", ""}}, {flag, true}});
  EXPECT_EQ(yes.questions, std::vector<std::string>{"Where?"});
  EXPECT_TRUE(yes.noncommittal);
  // The key of prompts before llm-v9 is not read: its reply came from another prompt.
  EXPECT_FALSE(
      read_llm_questions(Json{{"questions", {"Where?"}}, {"noncommittal", true}}).noncommittal);
  EXPECT_FALSE(read_llm_questions(Json{{"questions", {"Where?"}}, {flag, "true"}}).noncommittal);
  GeneratedQuestions none = read_llm_questions(Json::array({1, 2}));
  EXPECT_TRUE(none.questions.empty());
  EXPECT_FALSE(none.noncommittal);
}

TEST(LlmJudgeTest, NeedsAChatClient) {
  EXPECT_FALSE(make_llm_judge(LlmJudgeOptions{}).ok());
}

}  // namespace
}  // namespace ragmeter
