// Repeated judgements (repeats.h): the variance components on hand-computed cases, how a
// sample's repeats become its result, the gates' readings of repeats, and the LLM judge's
// repeats (their seeds, temperature and stores) over an in-process FAKE client (not a
// model) whose verdict depends on the request's seed.
#include <gtest/gtest.h>

#include <cmath>
#include <future>
#include <mutex>
#include <set>
#include <vector>

#include "ragmeter/evaluate.h"
#include "ragmeter/gates.h"
#include "ragmeter/llm_judge.h"
#include "ragmeter/judge_tasks.h"
#include "ragmeter/repeats.h"
#include "ragmeter/summary_builder.h"
#include "tests/unit/fake_chat_client.h"

namespace ragmeter {
namespace {

using Json = nlohmann::json;

// ---- Variance components ----------------------------------------------------------

TEST(VarianceComponentsTest, BalancedGroupsMatchTheHandComputedAnova) {
  // Means 2, 6, 10, grand mean 6. SS_between = 2 (16 + 0 + 16) = 64 over 2 df: 32.
  // SS_within = 6 x 1 = 6 over 3 df: 2. k0 = 2. between = (32 - 2) / 2 = 15.
  const std::vector<std::vector<double>> groups = {{1, 3}, {5, 7}, {9, 11}};
  const VarianceComponents v = variance_components(groups);
  ASSERT_TRUE(v.defined);
  EXPECT_EQ(v.groups, 3);
  EXPECT_EQ(v.values, 6);
  EXPECT_DOUBLE_EQ(v.grand_mean, 6.0);
  EXPECT_DOUBLE_EQ(v.ms_between, 32.0);
  EXPECT_DOUBLE_EQ(v.ms_within, 2.0);
  EXPECT_DOUBLE_EQ(v.k0, 2.0);
  EXPECT_DOUBLE_EQ(v.within, 2.0);
  EXPECT_DOUBLE_EQ(v.between, 15.0);
  ASSERT_TRUE(v.judge_share.has_value());
  EXPECT_DOUBLE_EQ(*v.judge_share, 2.0 / 17.0);
}

TEST(VarianceComponentsTest, UnequalGroupsUseSearlesK0) {
  // {0,1,1}, {1}, {0,0}: N = 6, grand mean 1/2; means 2/3, 1, 0.
  // SS_between = 3 (1/6)^2 + (1/2)^2 + 2 (1/2)^2 = 5/6 over 2 df: 5/12.
  // SS_within = 2/3 over 3 df: 2/9. k0 = (6 - 14/6) / 2 = 11/6.
  // between = (5/12 - 2/9) / (11/6) = 7/66; share = (2/9) / (2/9 + 7/66) = 44/65.
  const std::vector<std::vector<double>> groups = {{0, 1, 1}, {1}, {0, 0}};
  const VarianceComponents v = variance_components(groups);
  ASSERT_TRUE(v.defined);
  EXPECT_DOUBLE_EQ(v.ms_between, 5.0 / 12.0);
  EXPECT_DOUBLE_EQ(v.ms_within, 2.0 / 9.0);
  EXPECT_DOUBLE_EQ(v.k0, 11.0 / 6.0);
  EXPECT_NEAR(v.between, 7.0 / 66.0, 1e-15);
  EXPECT_NEAR(*v.judge_share, 44.0 / 65.0, 1e-15);
}

TEST(VarianceComponentsTest, SamplesThatDifferLessThanTheirRepeatsHaveNoSampleVariance) {
  // Equal means: MS_between = 0 < MS_within = 1/2, so the moment estimate (0 - 1/2) / 2 is
  // negative and truncated at 0: all of the variance is the judge's.
  const std::vector<std::vector<double>> groups = {{0, 1}, {1, 0}};
  const VarianceComponents v = variance_components(groups);
  EXPECT_DOUBLE_EQ(v.ms_between, 0.0);
  EXPECT_DOUBLE_EQ(v.within, 0.5);
  EXPECT_DOUBLE_EQ(v.between, 0.0);
  EXPECT_DOUBLE_EQ(*v.judge_share, 1.0);
}

TEST(VarianceComponentsTest, UndefinedWithOneSampleOrOneJudgementEachAndNoShareWithoutVariance) {
  const std::vector<std::vector<double>> one_sample = {{0.2, 0.4, 0.9}};
  EXPECT_FALSE(variance_components(one_sample).defined);
  const std::vector<std::vector<double>> single_judgements = {{0.2}, {0.4}};
  EXPECT_FALSE(variance_components(single_judgements).defined);
  const std::vector<std::vector<double>> constant = {{1, 1}, {1, 1}};
  const VarianceComponents v = variance_components(constant);
  EXPECT_TRUE(v.defined);
  EXPECT_FALSE(v.judge_share.has_value());
}

// ---- A sample's repeats --------------------------------------------------------------

TEST(CombineRepeatsTest, TheMeanOfEveryRepeatWithTheirScoresAndTheFlakyMark) {
  const std::vector<MetricResult> repeats = {MetricResult::ok(1.0), MetricResult::ok(0.0),
                                             MetricResult::ok(1.0)};
  const MetricResult straddling = combine_repeats(repeats, 0.5, true);
  ASSERT_EQ(straddling.outcome, Outcome::kOk);
  EXPECT_DOUBLE_EQ(straddling.score, 2.0 / 3.0);
  ASSERT_EQ(straddling.repeat_scores.size(), 3u);
  EXPECT_EQ(*straddling.repeat_scores[1], 0.0);
  EXPECT_EQ(straddling.flaky, true);
  EXPECT_EQ(combine_repeats(repeats, 0.0, true).flaky, false);  // every repeat passes 0
  EXPECT_FALSE(combine_repeats(repeats, std::nullopt, true).flaky.has_value());
  // A lower-is-better metric passes at or below its mark: 0 and 1 straddle 0.5 as well, and
  // 1 passes a maximum of 1 in every repeat.
  EXPECT_EQ(combine_repeats(repeats, 1.0, false).flaky, false);
  EXPECT_EQ(combine_repeats(repeats, 0.5, false).flaky, true);
}

TEST(CombineRepeatsTest, AFailedRepeatFailsTheSampleAndNamesItsRepeat) {
  const MetricResult combined = combine_repeats(
      {MetricResult::ok(0.5), MetricResult::failed("the judge timed out"), MetricResult::ok(1.0)},
      std::nullopt, true);
  EXPECT_EQ(combined.outcome, Outcome::kFailed);
  EXPECT_EQ(combined.reason, "repeat 2 of 3: the judge timed out");
  ASSERT_EQ(combined.repeat_scores.size(), 3u);
  EXPECT_EQ(*combined.repeat_scores[0], 0.5);
  EXPECT_FALSE(combined.repeat_scores[1].has_value());
}

TEST(CombineRepeatsTest, ASkipEveryRepeatSharesKeepsItsReason) {
  const MetricResult combined =
      combine_repeats({MetricResult::skipped("needs response"), MetricResult::skipped("needs response")},
                      std::nullopt, true);
  EXPECT_EQ(combined.outcome, Outcome::kSkipped);
  EXPECT_EQ(combined.reason, "needs response");
}

TEST(CombineRepeatsTest, EvidenceIsRepeatOnesWithEveryRepeatsBeside) {
  std::vector<MetricResult> repeats = {MetricResult::ok(1.0), MetricResult::ok(0.0)};
  repeats[0].evidence = {{"repeat", 1}};
  repeats[1].evidence = {{"repeat", 2}};
  const MetricResult combined = combine_repeats(repeats, std::nullopt, true);
  EXPECT_EQ(combined.evidence["repeat"], 1);
  ASSERT_EQ(combined.repeat_evidence.size(), 2u);
  EXPECT_EQ(combined.repeat_evidence[1]["repeat"], 2);
}

// ---- The summary and the gates ----------------------------------------------------------

EvalOptions faithfulness_options() {
  EvalOptions options;
  auto metrics = parse_metric_list("faithfulness");
  EXPECT_TRUE(metrics.ok());
  options.metrics = *metrics;
  options.bootstrap.resamples = 200;
  options.pass_marks["faithfulness"] = 0.5;
  return options;
}

// A row whose one metric was repeated with these scores.
std::vector<MetricResult> repeated_row(const std::vector<double>& scores) {
  std::vector<MetricResult> repeats;
  for (double score : scores) repeats.push_back(MetricResult::ok(score));
  return {combine_repeats(repeats, 0.5, true)};
}

EvalSummary summary_of(const std::vector<std::vector<double>>& rows) {
  SummaryBuilder builder(faithfulness_options());
  for (const auto& row : rows) EXPECT_TRUE(builder.add_row(repeated_row(row)).ok());
  return std::move(builder).finish();
}

TEST(RepeatSummaryTest, TheSummarySaysTheJudgesShareAndTheGatesReadings) {
  // Two flaky samples (1, 0, 1) and two that fail every repeat: means 2/3, 2/3, 0, 0.
  const EvalSummary summary = summary_of({{1, 0, 1}, {1, 0, 1}, {0, 0, 0}, {0, 0, 0}});
  const MetricSummary& metric = summary.metrics[0];
  ASSERT_TRUE(metric.repeats.has_value());
  const RepeatSummary& r = *metric.repeats;
  EXPECT_EQ(r.repeats, 3);
  EXPECT_DOUBLE_EQ(metric.stats.mean, 1.0 / 3.0);
  EXPECT_DOUBLE_EQ(r.pass_all.mean, 0.0);  // each sample's worst repeat
  EXPECT_DOUBLE_EQ(r.pass_any.mean, 0.5);  // each sample's best repeat
  EXPECT_EQ(r.flaky, 2);
  // MS_within = (2 x 2/3) / 8 = 1/6; MS_between = 3 x 4 x (1/3)^2 / 3 = 4/9;
  // between = (4/9 - 1/6) / 3 = 5/54; share = (1/6) / (1/6 + 5/54) = 9/14.
  EXPECT_NEAR(r.variance.within, 1.0 / 6.0, 1e-15);
  EXPECT_NEAR(r.variance.between, 5.0 / 54.0, 1e-15);
  EXPECT_NEAR(*r.variance.judge_share, 9.0 / 14.0, 1e-15);
  // The std of (1, 0, 1) is sqrt(1/3); of (0, 0, 0) 0.
  EXPECT_NEAR(r.mean_sample_std, std::sqrt(1.0 / 3.0) / 2.0, 1e-15);
  EXPECT_NEAR(r.single_run_judge_std, std::sqrt(1.0 / 6.0 / 4.0), 1e-15);
}

TEST(RepeatSummaryTest, PassKAllPassesOnlyWhereTheMeanPassesAndTheMeanOnlyWherePassKAnyDoes) {
  const EvalSummary summary = summary_of({{1, 0, 1}, {1, 0, 1}, {0, 0, 0}, {0, 0, 0}});
  const MetricSummary* metric = &summary.metrics[0];
  auto passes = [&](double value, PassK pass_k) {
    return check_threshold({"faithfulness", value, GateBound::kAtLeast, pass_k}, metric).passed;
  };
  // Readings: pass^k 0, mean 1/3, pass@k 1/2.
  EXPECT_TRUE(passes(0.3, PassK::kMean));
  EXPECT_FALSE(passes(0.3, PassK::kAll));
  EXPECT_TRUE(passes(0.3, PassK::kAny));
  EXPECT_FALSE(passes(0.4, PassK::kMean));
  EXPECT_TRUE(passes(0.4, PassK::kAny));
  EXPECT_FALSE(passes(0.6, PassK::kAny));
  EXPECT_TRUE(passes(0.0, PassK::kAll));
  const GateVerdict verdict =
      check_threshold({"faithfulness", 0.3, GateBound::kAtLeast, PassK::kAll}, metric);
  EXPECT_EQ(verdict.message.substr(0, 59),
            "faithfulness: pass^k mean 0.0000 < 0.3 (the mean of each sa");
  EXPECT_NE(verdict.message.find("worst of 3 repeats"), std::string::npos) << verdict.message;
  EXPECT_NE(verdict.message.find("2 samples flaky at 0.3"), std::string::npos) << verdict.message;
}

TEST(RepeatSummaryTest, AMetricJudgedOnceIsReadAlikeByEveryPassK) {
  SummaryBuilder builder(faithfulness_options());
  for (double score : {0.2, 0.6}) ASSERT_TRUE(builder.add_row({MetricResult::ok(score)}).ok());
  const EvalSummary summary = std::move(builder).finish();
  EXPECT_FALSE(summary.metrics[0].repeats.has_value());
  for (PassK pass_k : {PassK::kMean, PassK::kAll, PassK::kAny}) {
    EXPECT_TRUE(check_threshold({"faithfulness", 0.4, GateBound::kAtLeast, pass_k},
                                &summary.metrics[0]).passed);
  }
}

TEST(PassKTest, NamesParseAndOthersAreRefused) {
  EXPECT_EQ(*parse_pass_k("all"), PassK::kAll);
  EXPECT_EQ(*parse_pass_k("any"), PassK::kAny);
  EXPECT_EQ(*parse_pass_k("mean"), PassK::kMean);
  EXPECT_FALSE(parse_pass_k("some").ok());
}

// ---- The LLM judge's repeats ---------------------------------------------------------------

// A FAKE judge client (not a model): one claim per sentence asked; in the verdict table
// every claim is entailed by P1 with P1's first sentence as evidence, except for requests
// with seed 2, which get Contradiction. Records each request's seed and temperature.
class SeededClient : public FakeChatOnlyClient {
 public:
  struct Seen {
    std::string kind;
    std::optional<std::int64_t> seed;
    double temperature;
  };

  std::future<StatusOr<llm::ChatResponse>> chat(llm::ChatRequest request) override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      seen_.push_back({request.schema_name, request.seed, request.temperature});
    }
    Json reply = Json::object();
    for (const Json& key : request.schema["required"]) {
      const std::string k = key.get<std::string>();
      if (request.schema_name == "claims") {
        reply[k] = Json::array({"The tower is in Paris."});
      } else if (k.rfind("Evidence", 0) == 0) {
        reply[k] = "Paris has a tower.";
      } else if (k.rfind("reason", 0) == 0) {
        reply[k] = "";
      } else if (k == "verdict") {
        reply[k] = request.seed.value_or(0) % 2;  // critics: yes for odd seeds
      } else {
        reply[k] = request.seed == 2 ? "Contradiction" : "Entailment";
      }
    }
    llm::ChatResponse response;
    llm::ChatChoice choice;
    choice.json = reply;
    choice.content = reply.dump();
    response.choices.push_back(std::move(choice));
    std::promise<StatusOr<llm::ChatResponse>> done;
    done.set_value(std::move(response));
    return done.get_future();
  }

  std::vector<Seen> seen() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return seen_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<Seen> seen_;
};

std::shared_ptr<Judge> judge_over(std::shared_ptr<SeededClient> client) {
  LlmJudgeOptions options;
  options.chat = std::move(client);
  options.model = "fake";
  options.endpoint_options.model = "fake";
  auto judge = make_llm_judge(std::move(options));
  EXPECT_TRUE(judge.ok()) << judge.status().message();
  return *judge;
}

Sample tower_row() {
  Sample sample;
  sample.user_input = "Where is the tower?";
  sample.response = "The tower is in Paris.";
  sample.retrieved_contexts = std::vector<std::string>{"Paris has a tower."};
  return sample;
}

TEST(LlmJudgeRepeatsTest, EachRepeatReJudgesTheWholeSampleWithItsSeedAndTemperature) {
  auto client = std::make_shared<SeededClient>();
  EvalOptions options = faithfulness_options();
  options.judge = judge_over(client);
  options.repeat = 3;
  options.repeat_temperature = 0.9;
  EXPECT_EQ(judgements_per_sample(options), 3);
  const std::vector<MetricResult> results = score_sample(tower_row(), options);
  ASSERT_EQ(results[0].outcome, Outcome::kOk) << results[0].reason;
  ASSERT_EQ(results[0].repeat_scores.size(), 3u);
  EXPECT_EQ(*results[0].repeat_scores[0], 1.0);
  EXPECT_EQ(*results[0].repeat_scores[1], 0.0);  // seed 2 contradicts
  EXPECT_EQ(*results[0].repeat_scores[2], 1.0);
  EXPECT_DOUBLE_EQ(results[0].score, 2.0 / 3.0);
  EXPECT_EQ(results[0].flaky, true);  // 1 and 0 straddle the mark 0.5
  // Every repeat asked its own claims and its own verdicts: no store shared between them.
  std::multiset<std::pair<std::string, std::int64_t>> calls;
  for (const SeededClient::Seen& seen : client->seen()) {
    ASSERT_TRUE(seen.seed.has_value());
    EXPECT_EQ(seen.temperature, 0.9);
    calls.insert({seen.kind, *seen.seed});
  }
  const std::multiset<std::pair<std::string, std::int64_t>> expected = {
      {"claims", 1}, {"claims", 2}, {"claims", 3},
      {"verdicts", 1}, {"verdicts", 2}, {"verdicts", 3}};
  EXPECT_EQ(calls, expected);
}

TEST(LlmJudgeRepeatsTest, AnUnrepeatedRunSendsItsRequestsAsBefore) {
  auto client = std::make_shared<SeededClient>();
  EvalOptions options = faithfulness_options();
  options.judge = judge_over(client);
  const std::vector<MetricResult> results = score_sample(tower_row(), options);
  EXPECT_EQ(results[0].score, 1.0);
  EXPECT_TRUE(results[0].repeat_scores.empty());
  EXPECT_FALSE(results[0].flaky.has_value());
  for (const SeededClient::Seen& seen : client->seen()) {
    EXPECT_FALSE(seen.seed.has_value());
    EXPECT_EQ(seen.temperature, 0.0);
  }
}

TEST(LlmJudgeRepeatsTest, ARepeatsJudgeIsOneObjectWithKeysOfItsOwn) {
  auto client = std::make_shared<SeededClient>();
  auto judge = judge_over(client);
  auto first = judge->for_repeat(1, 0.7);
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first, judge->for_repeat(1, 0.7));
  EXPECT_NE(first, judge->for_repeat(2, 0.7));
  EXPECT_NE(first, judge->for_repeat(1, 0.5));
  EXPECT_EQ(judge->for_repeat(0, 0.7), nullptr);
  EXPECT_NE(first->description().find("repeat 1 at temperature 0.7"), std::string::npos)
      << first->description();
  // The same sample's ledger names different calls in repeat 1 and repeat 2.
  CallLog one, two;
  ASSERT_TRUE(first->claim_ledger(tower_row(), &one).ok());
  ASSERT_TRUE(judge->for_repeat(2, 0.7)->claim_ledger(tower_row(), &two).ok());
  ASSERT_FALSE(one.empty());
  for (const std::string& key : one) EXPECT_EQ(std::count(two.begin(), two.end(), key), 0);
  // Their calls count in the judge's usage.
  EXPECT_EQ(judge->usage_by_call()["claims"]["calls"], 2);
}

TEST(LlmJudgeRepeatsTest, ACriticsBallotsTakeSeedsNoOtherRepeatUses) {
  auto client = std::make_shared<SeededClient>();
  auto judge = judge_over(client);
  std::set<std::int64_t> seeds;
  for (int repeat : {1, 2}) {
    auto verdict = ask_critic(*judge->for_repeat(repeat, 0.7), tower_row(), "kind", "Is it kind?", 3,
                              nullptr);
    ASSERT_TRUE(verdict.ok()) << verdict.status().message();
  }
  for (const SeededClient::Seen& seen : client->seen()) seeds.insert(*seen.seed);
  EXPECT_EQ(seeds, (std::set<std::int64_t>{1, 2, 3, 4, 5, 6}));
}

TEST(LlmJudgeRepeatsTest, TheOfflineJudgeIsDeterministicAndJudgedOnce) {
  EvalOptions options = faithfulness_options();
  options.repeat = 5;
  EXPECT_EQ(judgements_per_sample(options), 1);
  const std::vector<MetricResult> results = score_sample(tower_row(), options);
  EXPECT_TRUE(results[0].repeat_scores.empty());
}

}  // namespace
}  // namespace ragmeter
