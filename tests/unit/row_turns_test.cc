// Rows take turns in input order where they share stored work (src/core/row_turns.h): the
// turns themselves, and an evaluation on two threads against the FAKE LLM server (scripted
// replies, not a model) that gives the scores of the same evaluation on one thread, however
// the replies' timing orders the rows.
#include <gtest/gtest.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "../fakes/fake_llm_server_process.h"
#include "core/row_turns.h"
#include "judge/llm/row_sharing.h"
#include "ragmeter/evaluate.h"
#include "ragmeter/evaluate_rows.h"
#include "ragmeter/llm_judge.h"
#include "tests/unit/fake_llm_judge.h"

namespace ragmeter {
namespace {

using Json = nlohmann::json;
using namespace std::chrono_literals;

// Runs `row`'s turn at `place` on its own thread; `went` is set once it got the turn.
std::thread take_turn(RowTurns& turns, const void* place, std::size_t row,
                      std::atomic<bool>& went) {
  return std::thread([&turns, place, row, &went] {
    turns.wait(place, row);
    went = true;
    turns.pass(place, row);
  });
}

TEST(RowTurnsTest, ARowWaitsForEveryEarlierRowToPassOrEnd) {
  RowTurns turns(3);
  int place = 0;
  std::atomic<bool> went{false};
  std::thread third = take_turn(turns, &place, 2, went);
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(went);  // rows 0 and 1 have done nothing yet
  turns.pass(&place, 0);
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(went);  // row 1 still open
  turns.end(1);
  third.join();
  EXPECT_TRUE(went);
}

TEST(RowTurnsTest, PlacesAreSeparateAndAnEndedRowPassesPlacesNotYetReached) {
  RowTurns turns(2);
  int claims = 0, verdicts = 0;
  turns.pass(&claims, 0);
  std::atomic<bool> went{false};
  std::thread second = take_turn(turns, &verdicts, 1, went);
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(went);  // row 0 passed the claims, not the verdicts
  turns.end(0);
  second.join();
  EXPECT_TRUE(went);
  // A place first reached after row 0 ended: row 1 does not wait.
  int later = 0;
  turns.wait(&later, 1);
  // The first row never waits; outside an evaluation a RowTurn does nothing.
  turns.wait(&later, 0);
  RowTurn outside(&later);
}

bool never(const Sample&, const Sample&) { return false; }

TEST(RowTurnsTest, ARowDoesNotWaitBehindRowsThatShareNothingOnceTheyBegan) {
  RowTurns turns(3);
  Sample a, b, c;
  int place = 0;
  std::atomic<bool> went{false};
  turns.begin(2, &c);
  std::thread third([&] {
    turns.wait(&place, 2, &never);
    went = true;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(went);  // rows 0 and 1 have not begun: what they share is not known
  turns.begin(0, &a);
  std::this_thread::sleep_for(50ms);
  EXPECT_FALSE(went);
  turns.begin(1, &b);
  third.join();  // neither has passed, yet neither shares anything with row 2
  EXPECT_TRUE(went);
}

Sample sample(std::string question, std::string response, std::vector<std::string> passages) {
  Sample s;
  s.user_input = std::move(question);
  s.response = std::move(response);
  s.retrieved_contexts = std::move(passages);
  return s;
}

TEST(RowTurnsTest, CompactRowsShareWorkOnlyThroughACommonText) {
  const Sample first = sample("Where is the tower?", "It is in Paris.", {"Passage one."});
  EXPECT_FALSE(compact_rows_may_share(
      sample("What is it made of?", "It is made of iron.", {"Passage two."}), first));
  // The same passage: a verdict cell can be shared.
  EXPECT_TRUE(compact_rows_may_share(
      sample("What is it made of?", "It is made of iron.", {"Passage two.", "Passage one."}),
      first));
  // The same question: a sentence's claims can be shared.
  EXPECT_TRUE(compact_rows_may_share(
      sample("Where is the tower?", "In France.", {"Passage two."}), first));
  // One row's answer is another's passage: a premise in common.
  EXPECT_TRUE(compact_rows_may_share(
      sample("What is it made of?", "Passage one.", {"Passage two."}), first));
}

// Two rows whose answers share a claim, with different questions (so no sentence's claims
// are shared) and one passage. The fake answers a verdict table by the claims it holds: the
// table of the first row (the shared claim and "The tower opened in 1889.") finds both
// supported; a table holding the shared claim with the second row's other claim calls the
// shared claim contradicted, as a small model's reply can change with the table around a
// cell. The first row's claims come back late, so on two threads the second row reaches its
// table first.
const std::string kShared = "The tower is in Paris.";
const std::string kFirstOnly = "The tower opened in 1889.";
const std::string kSecondOnly = "The tower is made of iron.";
// No claim is in the passage word for word (those are entailed without asking).
const std::string kPassage = "Paris is home to the tower. It opened in 1889. It is built of iron.";

Json claims_reply(const std::string& second_claim) {
  return {{"S1", {kShared}}, {"S2", {second_claim}}};
}

Json cell(int claim, const std::string& verdict, const std::string& evidence) {
  const std::string n = std::to_string(claim);
  return {{"Evidence " + n, evidence},
          {"P1: claim " + n, verdict},
          {"reason " + n, verdict == "Entailment" ? "" : "the passage says otherwise"}};
}

Json merged(Json a, const Json& b) {
  a.update(b);
  return a;
}

Json script() {
  const Json both_supported =
      merged(cell(1, "Entailment", "Paris is home to the tower."),
             cell(2, "Entailment", "It opened in 1889."));
  const Json shared_contradicted =
      merged(cell(1, "Contradiction", "none"), cell(2, "Entailment", "It is built of iron."));
  const Json second_alone = cell(1, "Entailment", "It is built of iron.");
  Json by_prompt = Json::array();
  // Claims calls, by question; the first row's after 800 ms.
  by_prompt.push_back({{"contains", "Where is the tower, and when did it open?"},
                       {"content", claims_reply(kFirstOnly).dump()},
                       {"delay_ms", 800}});
  by_prompt.push_back({{"contains", "Where is the tower, and what is it made of?"},
                       {"content", claims_reply(kSecondOnly).dump()}});
  // Verdict tables, by the claims they hold (the first entry that matches answers).
  by_prompt.push_back({{"contains", "1. " + kFirstOnly}, {"content", both_supported.dump()}});
  by_prompt.push_back({{"contains", "2. " + kFirstOnly}, {"content", both_supported.dump()}});
  by_prompt.push_back({{"contains", kShared + "\n"}, {"content", shared_contradicted.dump()}});
  return {{"steps", Json::array()},
          {"default", {{"content", second_alone.dump()}, {"by_prompt", by_prompt}}}};
}

std::vector<nlohmann::ordered_json> two_rows() {
  std::vector<nlohmann::ordered_json> rows(2);
  rows[0]["user_input"] = "Where is the tower, and when did it open?";
  rows[0]["response"] = kShared + " " + kFirstOnly;
  rows[1]["user_input"] = "Where is the tower, and what is it made of?";
  rows[1]["response"] = kShared + " " + kSecondOnly;
  for (auto& row : rows) row["retrieved_contexts"] = {kPassage};
  return rows;
}

class RowOrderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = test_judges::fake_llm_server_path();
    if (!std::filesystem::exists(path_)) GTEST_SKIP() << "fake server not built at " << path_;
    script_ = std::filesystem::temp_directory_path() /
              ("ragmeter-row-turns-" + std::to_string(::getpid()) + ".json");
    std::ofstream(script_) << script().dump();
  }
  void TearDown() override { std::filesystem::remove(script_); }

  // Faithfulness of the two rows, on `threads` threads, with a fresh judge and server.
  std::vector<double> faithfulness(int threads) {
    fakes::FakeLlmServerProcess fake;
    EXPECT_TRUE(fake.start(path_, {"--script", script_.string()}));
    auto judge = test_judges::llm_judge_over(fake.base_url());
    EXPECT_TRUE(judge.ok()) << judge.status().to_string();
    if (!judge.ok()) return {};
    EvalOptions options;
    options.metrics = {{find_metric("faithfulness"), 0, "faithfulness"}};
    options.judge = *judge;
    options.threads = threads;
    auto run = evaluate_rows(two_rows(), options);
    EXPECT_TRUE(run.ok()) << run.status().to_string();
    if (!run.ok()) return {};
    std::vector<double> scores;
    for (std::size_t row = 0; row < 2; ++row) {
      const MetricResult& r = run->table.rows.at(row).results.at(0);
      EXPECT_EQ(r.outcome, Outcome::kOk) << r.reason;
      scores.push_back(r.score);
    }
    return scores;
  }

  std::string path_;
  std::filesystem::path script_;
};

TEST_F(RowOrderTest, TwoThreadsGiveTheScoresOfOne) {
  // One thread: the first row asks the shared claim in its table (supported); the second
  // row's table holds its own claim alone. Both rows 1.
  const std::vector<double> one = faithfulness(1);
  ASSERT_EQ(one, (std::vector<double>{1.0, 1.0}));
  // Two threads: the second row's claims come back first, yet it waits for the first row
  // to choose its cells, so the tables, and the scores, are the same. (Before rows took
  // turns, the second row asked the shared claim with its own, and both rows scored 0.5.)
  EXPECT_EQ(faithfulness(2), one);
}

}  // namespace
}  // namespace ragmeter
