// Verdict tables over long passages, with the FAKE LLM server (tests/fakes) scripted with
// exact replies, not a model (the measurements with the local model are in docs/judges.md,
// "Long passages"): a table of several long passages whose reply shows that the model did not
// read them has its flagged claims asked again passage by passage; a table without signs, or
// a small one, is taken as it comes; a Contradiction whose own quote states the claim is a
// sign too, and a call of one passage that gives it is settled by the quote
// (src/judge/llm/verdict_signs.h, llm_verdict_fill.cc).
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../fakes/fake_llm_server_process.h"
#include "ragmeter/evaluate.h"
#include "ragmeter/llm.h"
#include "ragmeter/llm_judge.h"
#include "ragmeter/offline_judge.h"
#include "tests/unit/fake_llm_judge.h"

namespace ragmeter {
namespace {

using Json = nlohmann::json;

// A passage of about `bytes` bytes: `lead` then sentences about nothing the claim names.
std::string passage(const std::string& lead, std::size_t bytes) {
  std::string text = lead;
  for (int n = 1; text.size() < bytes; ++n) {
    text += " Section " + std::to_string(n) + " describes the gardens and the river walks.";
  }
  return text;
}

const std::string kClaim = "The tower is in Paris.";
const std::string kGold = "The tower is in Paris and opened in 1889.";

Sample row(std::size_t passage_bytes) {
  Sample sample;
  sample.user_input = "Where is the tower?";
  sample.response = kClaim;
  sample.retrieved_contexts =
      std::vector<std::string>{passage("The museum has a large garden.", passage_bytes),
                               passage(kGold, passage_bytes)};
  return sample;
}

Json step(const Json& reply) { return {{"content", reply.dump()}}; }

// The claims call's reply: the response's one sentence is its claim.
Json claims_reply() { return {{"S1", {kClaim}}}; }

// The table's reply as the 1.5B model gave it on long passages: Contradiction against both
// passages with the evidence quoted from the second, and "None" as the reason.
Json unread_table_reply() {
  return {{"Evidence 1", kGold}, {"P1: claim 1", "Contradiction"},
          {"P2: claim 1", "Contradiction"}, {"reason 1", "None"}};
}

// The reply to a table of one passage (every re-ask and every cut table here): Entailment,
// quoting the gold passage. Checked in code, it stands for the passage that holds the quote
// and falls for the other ("its evidence is in no passage").
Json one_passage_reply() {
  return {{"Evidence 1", kGold}, {"P1: claim 1", "Entailment"}, {"reason 1", ""}};
}

class LlmLongPassagesTest : public ::testing::Test {
 protected:
  void start(const Json& steps, const Json& fallback) {
    const std::string path = test_judges::fake_llm_server_path();
    if (!std::filesystem::exists(path)) GTEST_SKIP() << "fake server not built at " << path;
    script_ = std::filesystem::temp_directory_path() /
              ("ragmeter-long-passages-" + std::to_string(::getpid()) + ".json");
    std::ofstream(script_) << Json({{"steps", steps}, {"default", fallback}}).dump();
    ASSERT_TRUE(steps.is_array());
    ASSERT_TRUE(fake_.start(path, {"--script", script_.string()}));
    auto judge = test_judges::llm_judge_over(fake_.base_url());
    ASSERT_TRUE(judge.ok()) << judge.status().to_string();
    judge_ = *judge;
  }
  void TearDown() override { std::filesystem::remove(script_); }

  MetricResult faithfulness(const Sample& sample) {
    EvalOptions options;
    options.metrics = {{find_metric("faithfulness"), 0, "faithfulness"}};
    options.judge = judge_;
    std::vector<MetricResult> results = score_sample(sample, options);
    EXPECT_EQ(results.size(), 1u);
    return results.empty() ? MetricResult{} : results[0];
  }
  // Verdict calls sent to the server (not those the verdict store answered).
  std::int64_t verdict_calls() const {
    const auto usage = judge_->usage_by_call();
    if (!usage.contains("verdicts")) return 0;
    const auto& v = usage["verdicts"];
    return v["calls"].get<std::int64_t>() - v.value("store_hits", std::int64_t{0});
  }

  fakes::FakeLlmServerProcess fake_;
  std::filesystem::path script_;
  std::shared_ptr<Judge> judge_;
};

TEST_F(LlmLongPassagesTest, AnUnreadTableIsAskedAgainPassageByPassageEveryTime) {
  // Two passages of 2,700 bytes: 1 claim x 1,802 estimated tokens, above the small tables'
  // 1,536.
  // The script: the claims, the first row's table, its two re-asks, the second row's table;
  // every request after that, a one-passage reply.
  start(Json::array({step(claims_reply()), step(unread_table_reply()), step(one_passage_reply()),
                     step(one_passage_reply()), step(unread_table_reply())}),
        step(one_passage_reply()));
  if (HasFatalFailure() || IsSkipped()) return;
  MetricResult first = faithfulness(row(2700));
  ASSERT_EQ(first.outcome, Outcome::kOk) << first.reason;
  // Without the re-ask the claim was contradicted by both passages: 0.
  EXPECT_EQ(first.score, 1.0);
  EXPECT_EQ(verdict_calls(), 3);  // the table, then one call per passage
  // The cells say why they were asked again (the ledger's cells are stored: no request).
  auto ledger = judge_->claim_ledger(row(2700), nullptr);
  ASSERT_TRUE(ledger.ok()) << ledger.status().to_string();
  const std::string note =
      "asked again with this passage alone (the table's reply: one reason for contradictions "
      "in several passages)";
  const VerdictCell& other = ledger->response_vs_chunks.at(0, 0);
  EXPECT_EQ(other.verdict, Verdict::kNeutral);
  EXPECT_EQ(other.reason.rfind(note + ": the judge said Entailment, but its evidence is in no "
                               "passage", 0),
            0u)
      << other.reason;
  EXPECT_EQ(ledger->response_vs_chunks.at(0, 1).verdict, Verdict::kEntailment);
  EXPECT_EQ(ledger->response_vs_chunks.at(0, 1).reason, note);
  EXPECT_EQ(verdict_calls(), 3);
  // A second row as large is asked as one table too, and asked again as the first was:
  // nothing one row's reply shows changes how another row is asked (the rows of a run are
  // scored at once, so a limit learned from one would apply to another or not by which
  // finished first). The claim is stored, so no claims call.
  Sample second = row(2800);
  MetricResult again = faithfulness(second);
  ASSERT_EQ(again.outcome, Outcome::kOk) << again.reason;
  EXPECT_EQ(again.score, 1.0);
  EXPECT_EQ(verdict_calls(), 6);
}

TEST_F(LlmLongPassagesTest, ATableWithoutSignsIsTakenAsItComes) {
  const Json read = {{"Evidence 1", kGold}, {"P1: claim 1", "Neutral"},
                     {"P2: claim 1", "Entailment"}, {"reason 1", ""}};
  start(Json::array({step(claims_reply())}), step(read));
  if (HasFatalFailure() || IsSkipped()) return;
  MetricResult r = faithfulness(row(2700));
  ASSERT_EQ(r.outcome, Outcome::kOk) << r.reason;
  EXPECT_EQ(r.score, 1.0);
  EXPECT_EQ(verdict_calls(), 1);
  // Nothing learned: the next large row is one table too.
  MetricResult next = faithfulness(row(2800));
  EXPECT_EQ(next.score, 1.0);
  EXPECT_EQ(verdict_calls(), 2);
}

TEST_F(LlmLongPassagesTest, ASmallTableIsNeverAskedAgain) {
  // Passages of 600 bytes: a span of 402, as HaluEval's rows. The same unread reply stands
  // (the claim contradicted everywhere), as before this check existed.
  start(Json::array({step(claims_reply()), step(unread_table_reply())}), step(one_passage_reply()));
  if (HasFatalFailure() || IsSkipped()) return;
  MetricResult r = faithfulness(row(600));
  ASSERT_EQ(r.outcome, Outcome::kOk) << r.reason;
  EXPECT_EQ(r.score, 0.0);
  EXPECT_EQ(verdict_calls(), 1);
}

// A response of two claims: one the gold passage states, one with its year changed.
const std::string kWrongClaim = "The tower opened in 1899.";

Sample two_claim_row(std::size_t passage_bytes) {
  Sample sample = row(passage_bytes);
  sample.response = kClaim + " " + kWrongClaim;
  return sample;
}

Json two_claims_reply() { return {{"S1", {kClaim}}, {"S2", {kWrongClaim}}}; }

// The reply to the flagged claim against one passage, by the passage asked about: Neutral for the
// museum's passage, and for the gold one Contradiction with the supporting sentence quoted
// (the 1.5B model's last long-passage trace). The fake answers by the request's text, so
// the concurrent re-asks get their replies whatever their order.
Json narrow_replies() {
  const Json other = {{"Evidence 1", ""}, {"P1: claim 1", "Neutral"}, {"reason 1", "not mentioned"}};
  const Json gold = {{"Evidence 1", kGold},
                     {"P1: claim 1", "Contradiction"},
                     {"reason 1", "contradicts the claim that the tower is in Paris"}};
  return {{"by_prompt", Json::array({{{"contains", "The museum has a large garden."},
                                      {"content", other.dump()}},
                                     {{"contains", kGold}, {"content", gold.dump()}}})}};
}

TEST_F(LlmLongPassagesTest, AContradictionWhoseQuoteStatesTheClaimIsAskedAgainThenSettled) {
  // The table: the right claim Contradiction against the gold passage, its quote the gold
  // sentence (the fifth sign); the wrong claim Contradiction too, rightly (1899 is in no
  // quote), and no sign.
  const Json table = {{"Evidence 1", kGold},
                      {"Evidence 2", kGold},
                      {"P1: claim 1", "Neutral"},
                      {"P1: claim 2", "Neutral"},
                      {"P2: claim 1", "Contradiction"},
                      {"P2: claim 2", "Contradiction"},
                      {"reason 1", "the passage does not say where"},
                      {"reason 2", "it opened in 1889"}};
  start(Json::array({step(two_claims_reply()), step(table)}), narrow_replies());
  if (HasFatalFailure() || IsSkipped()) return;
  const Sample sample = two_claim_row(2700);
  MetricResult r = faithfulness(sample);
  ASSERT_EQ(r.outcome, Outcome::kOk) << r.reason;
  EXPECT_EQ(r.score, 0.5);  // the right claim supported, the wrong one not
  EXPECT_EQ(verdict_calls(), 3);  // the table, then the flagged claim against each passage
  auto ledger = judge_->claim_ledger(sample, nullptr);
  ASSERT_TRUE(ledger.ok()) << ledger.status().to_string();
  const std::string note =
      "asked again with this passage alone (the table's reply: its quote from a passage states "
      "it, yet that passage did not entail it)";
  EXPECT_EQ(ledger->response_vs_chunks.at(0, 0).verdict, Verdict::kNeutral);
  EXPECT_EQ(ledger->response_vs_chunks.at(0, 0).reason, note + ": not mentioned");
  EXPECT_EQ(ledger->response_vs_chunks.at(0, 1).verdict, Verdict::kEntailment);
  EXPECT_EQ(ledger->response_vs_chunks.at(0, 1).reason,
            note + ": the judge said Contradiction, but the sentence it quoted from this passage "
                   "states the claim: \"" + kGold + "\"");
  // The wrong claim keeps the table's verdicts.
  EXPECT_EQ(ledger->response_vs_chunks.at(1, 1).verdict, Verdict::kContradiction);
  EXPECT_EQ(ledger->response_vs_chunks.at(1, 1).reason, "it opened in 1889");
}

TEST_F(LlmLongPassagesTest, ATableOfOneLongPassageIsSettledWithoutAskingAgain) {
  // One passage of 7,000 bytes: a span of 1,752, above the small tables'; asking again
  // passage by passage would ask the same table, so its quote settles it.
  Sample sample = row(7000);
  sample.retrieved_contexts = std::vector<std::string>{passage(kGold, 7000)};
  const Json table = {{"Evidence 1", kGold},
                      {"P1: claim 1", "Contradiction"},
                      {"reason 1", "contradicts the claim"}};
  start(Json::array({step(claims_reply()), step(table)}), step(one_passage_reply()));
  if (HasFatalFailure() || IsSkipped()) return;
  MetricResult r = faithfulness(sample);
  ASSERT_EQ(r.outcome, Outcome::kOk) << r.reason;
  EXPECT_EQ(r.score, 1.0);
  EXPECT_EQ(verdict_calls(), 1);
}

// The replies after a table with the first sign: against each whole passage, the claim
// "not mentioned" (kiwi-0 of the long-passage dev rows: the 1.5B model said so of a
// 2,600-character passage that states it nearly word for word); against the gold passage's
// sentences that hold the claim's words (a request with the gold sentence and no filler
// past the window), `window` (first match wins).
Json window_replies(const Json& window) {
  const Json rejected = {{"Evidence 1", "none"},
                         {"P1: claim 1", "Contradiction"},
                         {"reason 1", "The passage does not mention the tower."}};
  return {{"by_prompt", Json::array({{{"contains", "Section 20 describes"}, {"content", rejected.dump()}},
                                     {{"contains", kGold}, {"content", window.dump()}}})}};
}

TEST_F(LlmLongPassagesTest, AClaimStillRejectedIsAskedAgainstItsSentences) {
  start(Json::array({step(claims_reply()), step(unread_table_reply())}),
        window_replies(one_passage_reply()));
  if (HasFatalFailure() || IsSkipped()) return;
  const Sample sample = row(2700);
  MetricResult r = faithfulness(sample);
  ASSERT_EQ(r.outcome, Outcome::kOk) << r.reason;
  EXPECT_EQ(r.score, 1.0);  // after the re-asks alone: 0
  // The table, one call per passage, then the claim against the gold passage's window.
  EXPECT_EQ(verdict_calls(), 4);
  auto ledger = judge_->claim_ledger(sample, nullptr);
  ASSERT_TRUE(ledger.ok()) << ledger.status().to_string();
  EXPECT_EQ(ledger->response_vs_chunks.at(0, 0).verdict, Verdict::kContradiction);
  EXPECT_EQ(ledger->response_vs_chunks.at(0, 1).verdict, Verdict::kEntailment);
  EXPECT_EQ(ledger->response_vs_chunks.at(0, 1).reason,
            "asked again with the sentences of this passage that hold the claim's words (the "
            "passage's verdict: Contradiction)");
}

TEST_F(LlmLongPassagesTest, OnlyAnEntailmentFromTheClaimsSentencesReplacesThePassagesVerdict) {
  const Json neutral = {{"Evidence 1", "none"}, {"P1: claim 1", "Neutral"}, {"reason 1", "unclear"}};
  start(Json::array({step(claims_reply()), step(unread_table_reply())}), window_replies(neutral));
  if (HasFatalFailure() || IsSkipped()) return;
  const Sample sample = row(2700);
  MetricResult r = faithfulness(sample);
  ASSERT_EQ(r.outcome, Outcome::kOk) << r.reason;
  EXPECT_EQ(r.score, 0.0);
  EXPECT_EQ(verdict_calls(), 4);
  auto ledger = judge_->claim_ledger(sample, nullptr);
  ASSERT_TRUE(ledger.ok()) << ledger.status().to_string();
  EXPECT_EQ(ledger->response_vs_chunks.at(0, 1).verdict, Verdict::kContradiction);
  EXPECT_EQ(ledger->response_vs_chunks.at(0, 1).reason.find("sentences of this passage"),
            std::string::npos);
}

TEST_F(LlmLongPassagesTest, AClaimWhoseWordsNoPassageHoldsIsNotAskedAgainstSentences) {
  // The claim names a city no passage has: the offline rules find it nowhere, so after the
  // re-asks nothing more is asked.
  start(Json::array({step(Json{{"S1", {"The tower is in Lyon."}}}), step(unread_table_reply())}),
        window_replies(one_passage_reply()));
  if (HasFatalFailure() || IsSkipped()) return;
  Sample sample = row(2700);
  sample.response = "The tower is in Lyon.";
  MetricResult r = faithfulness(sample);
  ASSERT_EQ(r.outcome, Outcome::kOk) << r.reason;
  EXPECT_EQ(r.score, 0.0);
  EXPECT_EQ(verdict_calls(), 3);
}

// A claim that sums up two places of the gold passage, too far apart for one window of
// sentences: asked clause by clause, each clause with its own sentences.
const std::string kPlace = "The tower is in the centre of Paris.";
const std::string kYear = "The tower was opened to visitors in 1889.";
const std::string kSumUp = "The tower is in the centre of Paris, and the tower was opened to visitors in 1889.";

Sample sum_up_row() {
  Sample sample;
  sample.user_input = "Tell me about the tower.";
  sample.response = kSumUp;
  std::string gold = kPlace;
  for (int n = 1; n <= 6; ++n) gold += " Section " + std::to_string(n) + " describes the gardens and the river walks.";
  gold += " " + kYear;
  sample.retrieved_contexts =
      std::vector<std::string>{passage("The museum has a large garden.", 2700), passage(gold, 2700)};
  return sample;
}

// The table and the re-asks reject the claim (the long passages hold "Section 20"); a call
// whose text is one clause's sentences gets `place` or `year`.
Json clause_replies(const Json& place, const Json& year) {
  const Json rejected = {{"Evidence 1", "none"},
                         {"P1: claim 1", "Contradiction"},
                         {"reason 1", "The passage does not mention the tower."}};
  return {{"by_prompt", Json::array({{{"contains", "Section 20 describes"}, {"content", rejected.dump()}},
                                     {{"contains", kYear}, {"content", year.dump()}},
                                     {{"contains", kPlace}, {"content", place.dump()}}})}};
}

Json entailed_by(const std::string& quote) {
  return {{"Evidence 1", quote}, {"P1: claim 1", "Entailment"}, {"reason 1", ""}};
}

TEST_F(LlmLongPassagesTest, AClaimThatSumsUpTwoPlacesIsAskedClauseByClause) {
  start(Json::array({step(Json{{"S1", {kSumUp}}}), step(unread_table_reply())}),
        clause_replies(entailed_by(kPlace), entailed_by(kYear)));
  if (HasFatalFailure() || IsSkipped()) return;
  const Sample sample = sum_up_row();
  // The offline rules find the whole claim in no window of three sentences, each clause in one.
  ASSERT_NE(judge_claim(kSumUp, sample.retrieved_contexts->at(1)).verdict, Verdict::kEntailment);
  MetricResult r = faithfulness(sample);
  ASSERT_EQ(r.outcome, Outcome::kOk) << r.reason;
  EXPECT_EQ(r.score, 1.0);  // after the re-asks alone: 0
  // The table, one call per passage, then one call per clause.
  EXPECT_EQ(verdict_calls(), 5);
  auto ledger = judge_->claim_ledger(sample, nullptr);
  ASSERT_TRUE(ledger.ok()) << ledger.status().to_string();
  EXPECT_EQ(ledger->response_vs_chunks.at(0, 0).verdict, Verdict::kContradiction);
  EXPECT_EQ(ledger->response_vs_chunks.at(0, 1).verdict, Verdict::kEntailment);
  EXPECT_EQ(ledger->response_vs_chunks.at(0, 1).reason,
            "asked again clause by clause, each with the sentences of this passage that hold its "
            "words (the passage's verdict: Contradiction)");
}

TEST_F(LlmLongPassagesTest, AClaimAskedClauseByClauseNeedsEveryClauseEntailed) {
  const Json neutral = {{"Evidence 1", "none"}, {"P1: claim 1", "Neutral"}, {"reason 1", "no year given"}};
  start(Json::array({step(Json{{"S1", {kSumUp}}}), step(unread_table_reply())}),
        clause_replies(entailed_by(kPlace), neutral));
  if (HasFatalFailure() || IsSkipped()) return;
  const Sample sample = sum_up_row();
  MetricResult r = faithfulness(sample);
  ASSERT_EQ(r.outcome, Outcome::kOk) << r.reason;
  EXPECT_EQ(r.score, 0.0);
  EXPECT_EQ(verdict_calls(), 5);
  auto ledger = judge_->claim_ledger(sample, nullptr);
  ASSERT_TRUE(ledger.ok()) << ledger.status().to_string();
  EXPECT_EQ(ledger->response_vs_chunks.at(0, 1).verdict, Verdict::kContradiction);
}

TEST_F(LlmLongPassagesTest, AClaimItsSentencesDidNotEntailIsAskedClauseByClause) {
  // The two sentences side by side: one window holds the whole claim, and the model does
  // not entail it there (robustqa-106 of the dev rows); each clause asked alone, it does.
  Sample sample = sum_up_row();
  sample.retrieved_contexts->at(1) = passage(kPlace + " " + kYear, 2700);
  ASSERT_EQ(judge_claim(kSumUp, sample.retrieved_contexts->at(1)).verdict, Verdict::kEntailment);
  const Json rejected = {{"Evidence 1", "none"},
                         {"P1: claim 1", "Contradiction"},
                         {"reason 1", "The passage does not mention the tower."}};
  const Json neutral = {{"Evidence 1", "none"}, {"P1: claim 1", "Neutral"}, {"reason 1", "unclear"}};
  // By the claim the call asks (the prompt lists it as "1. ..."): the whole one, then each clause.
  const Json replies = {{"by_prompt", Json::array({
      {{"contains", "Section 20 describes"}, {"content", rejected.dump()}},
      {{"contains", "1. " + kSumUp}, {"content", neutral.dump()}},
      {{"contains", "1. the tower was opened to visitors in 1889."}, {"content", entailed_by(kYear).dump()}},
      {{"contains", "1. The tower is in the centre of Paris"}, {"content", entailed_by(kPlace).dump()}}})}};
  start(Json::array({step(Json{{"S1", {kSumUp}}}), step(unread_table_reply())}), replies);
  if (HasFatalFailure() || IsSkipped()) return;
  MetricResult r = faithfulness(sample);
  ASSERT_EQ(r.outcome, Outcome::kOk) << r.reason;
  EXPECT_EQ(r.score, 1.0);
  // The table, one call per passage, the claim against its sentences, then one per clause.
  EXPECT_EQ(verdict_calls(), 6);
  auto ledger = judge_->claim_ledger(sample, nullptr);
  ASSERT_TRUE(ledger.ok()) << ledger.status().to_string();
  EXPECT_EQ(ledger->response_vs_chunks.at(0, 1).reason.rfind("asked again clause by clause", 0), 0u)
      << ledger->response_vs_chunks.at(0, 1).reason;
}

TEST_F(LlmLongPassagesTest, AContradictionWhoseReasonSaysNotMentionedIsAskedAgain) {
  // One Contradiction (the gold passage), Neutral for the other, the reason one of absence:
  // no other sign fires (one Contradiction, a reason with a negation).
  const Json lazy = {{"Evidence 1", "none"}, {"P1: claim 1", "Neutral"},
                     {"P2: claim 1", "Contradiction"},
                     {"reason 1", "The passage does not mention where the tower is."}};
  start(Json::array({step(claims_reply()), step(lazy)}), step(one_passage_reply()));
  if (HasFatalFailure() || IsSkipped()) return;
  const Sample sample = row(2700);
  MetricResult r = faithfulness(sample);
  ASSERT_EQ(r.outcome, Outcome::kOk) << r.reason;
  EXPECT_EQ(r.score, 1.0);  // taken as it came: 0
  EXPECT_EQ(verdict_calls(), 3);  // the table, then one call per passage
  auto ledger = judge_->claim_ledger(sample, nullptr);
  ASSERT_TRUE(ledger.ok()) << ledger.status().to_string();
  EXPECT_EQ(ledger->response_vs_chunks.at(0, 1).reason,
            "asked again with this passage alone (the table's reply: a Contradiction whose "
            "reason says the passages do not mention it)");
}

}  // namespace
}  // namespace ragmeter
