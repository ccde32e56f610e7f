#include <gtest/gtest.h>

#include <vector>

#include "ragmeter/compare.h"
#include "ragmeter/report.h"

namespace ragmeter {
namespace {

TEST(SignFlipTest, ExactPValueOfThreeDifferencesEnumeratedByHand) {
  // Sums of +-1 +-2 +-3: 6 4 2 0 0 -2 -4 -6; |sum| >= 6 in 2 of 8 assignments.
  std::vector<double> d = {1, 2, 3};
  bool exact = false;
  EXPECT_DOUBLE_EQ(sign_flip_p_value(d, {}, &exact), 0.25);
  EXPECT_TRUE(exact);
  // Observed |1 - 2 + 3| = 2: |sum| >= 2 in 6 of 8.
  std::vector<double> mixed = {1, -2, 3};
  EXPECT_DOUBLE_EQ(sign_flip_p_value(mixed, {}, &exact), 0.75);
}

TEST(SignFlipTest, ZerosAreLeftOutAndAllTiesGiveOne) {
  std::vector<double> d = {0, 1, 0, 2, 3, 0};
  bool exact = false;
  EXPECT_DOUBLE_EQ(sign_flip_p_value(d, {}, &exact), 0.25);
  std::vector<double> ties = {0, 0, 0};
  EXPECT_DOUBLE_EQ(sign_flip_p_value(ties, {}, &exact), 1.0);
}

TEST(SignFlipTest, MonteCarloAboveTheExactLimitIsSeededAndNeverZero) {
  std::vector<double> d(22, 1.0);  // every difference positive: exact p = 2 / 2^22
  PairedTestOptions options;
  options.permutations = 2000;
  bool exact = true;
  double p = sign_flip_p_value(d, options, &exact);
  EXPECT_FALSE(exact);
  // A draw reaches |22| with probability 2^-21: (1 + 0) / (1 + 2000) for this seed.
  EXPECT_DOUBLE_EQ(p, 1.0 / 2001.0);
  EXPECT_EQ(sign_flip_p_value(d, options, &exact), p);  // the same seed, the same p
  options.exact_max_nonzero = 22;
  EXPECT_DOUBLE_EQ(sign_flip_p_value(d, options, &exact), 2.0 / 4194304.0);
  EXPECT_TRUE(exact);
}

TEST(HolmTest, HandCheckedAdjustment) {
  // Sorted 0.01, 0.03, 0.04 with m = 3: 0.03, max(0.03, 0.06) = 0.06, max(0.06, 0.04) = 0.06.
  std::vector<double> p = {0.01, 0.04, 0.03};
  std::vector<double> adjusted = holm_adjust(p);
  ASSERT_EQ(adjusted.size(), 3u);
  EXPECT_DOUBLE_EQ(adjusted[0], 0.03);
  EXPECT_DOUBLE_EQ(adjusted[1], 0.06);
  EXPECT_DOUBLE_EQ(adjusted[2], 0.06);
  std::vector<double> big = {0.5, 0.9};
  EXPECT_EQ(holm_adjust(big), (std::vector<double>{1.0, 1.0}));
}

TEST(PairedStatsTest, WinsFollowTheMetricsDirection) {
  std::vector<double> base = {0.5, 0.5, 0.5, 0.2};
  std::vector<double> next = {0.7, 0.5, 0.1, 0.3};
  auto higher = paired_stats(base, next, true);
  ASSERT_TRUE(higher.ok());
  EXPECT_EQ(higher->wins, 2);
  EXPECT_EQ(higher->ties, 1);
  EXPECT_EQ(higher->losses, 1);
  EXPECT_DOUBLE_EQ(higher->mean_base, 0.425);
  EXPECT_DOUBLE_EQ(higher->mean_new, 0.4);
  EXPECT_NEAR(higher->mean_diff, -0.025, 1e-15);
  auto lower = paired_stats(base, next, false);
  EXPECT_EQ(lower->wins, 1);
  EXPECT_EQ(lower->losses, 2);
  EXPECT_EQ(lower->p_value, higher->p_value);  // the test is two-sided
}

TEST(PairedStatsTest, DifferentLengthsAreAnError) {
  std::vector<double> a = {1, 2}, b = {1};
  EXPECT_FALSE(paired_stats(a, b, true).ok());
}

TEST(RegressionRuleTest, NeedsTheIntervalBeyondDeltaAndHolmBelowAlpha) {
  MetricComparison m;
  m.stats.n = 10;
  m.higher_is_better = true;
  m.stats.ci_low = -0.30;
  m.stats.ci_high = -0.10;
  m.p_holm = 0.01;
  EXPECT_TRUE(is_regression(m, 0.05, 0.05));
  EXPECT_FALSE(is_regression(m, 0.10, 0.05));  // upper end -0.10 is not below -0.10
  m.p_holm = 0.2;
  EXPECT_FALSE(is_regression(m, 0.05, 0.05));
  // Lower is better: new - base in [0.10, 0.30] is worse by at least 0.10.
  m.higher_is_better = false;
  m.p_holm = 0.01;
  m.stats.ci_low = 0.10;
  m.stats.ci_high = 0.30;
  EXPECT_TRUE(is_regression(m, 0.05, 0.05));
  EXPECT_DOUBLE_EQ(m.oriented_ci_high(), -0.10);
}

TEST(ChangeVerdictTest, BetterAndWorseNeedHolmBelowAlphaAndAnIntervalClearOfZero) {
  MetricComparison m;
  EXPECT_EQ(change_verdict(m, 0.05), ChangeVerdict::kNoPairs);
  m.stats.n = 30;
  m.stats.ci_low = 0.1;
  m.stats.ci_high = 0.3;
  m.p_holm = 0.01;
  EXPECT_EQ(change_verdict(m, 0.05), ChangeVerdict::kBetter);
  m.higher_is_better = false;  // the same rise of a lower-is-better metric
  EXPECT_EQ(change_verdict(m, 0.05), ChangeVerdict::kWorse);
  m.p_holm = 0.06;
  EXPECT_EQ(change_verdict(m, 0.05), ChangeVerdict::kNoSignificantChange);
  m.p_holm = 0.01;
  m.stats.ci_low = -0.1;  // the interval holds 0
  EXPECT_EQ(change_verdict(m, 0.05), ChangeVerdict::kNoSignificantChange);
  EXPECT_STREQ(change_verdict_name(ChangeVerdict::kNoSignificantChange), "no significant change");
}

TEST(DiffHistogramTest, BinsAreTenthsOfTheRangeOnEachSideWithTiesApart) {
  DiffHistogram h;  // width 1
  for (double d : {0.0, 1e-13, 0.05, 0.1, 0.1000001, 0.3, -0.3, -1.0, 1.5}) {
    add_difference(d, 1e-12, &h);
  }
  EXPECT_EQ(h.ties, 2);
  // better: 0.05 and 0.1 in (0, 0.1]; 0.1000001 in (0.1, 0.2]; 0.3 in (0.2, 0.3] (not
  // (0.3, 0.4], whatever 0.3 * 10 rounds to); 1.5, beyond the range, in the last bin.
  EXPECT_EQ(h.better, (std::vector<std::int64_t>{2, 1, 1, 0, 0, 0, 0, 0, 0, 1}));
  EXPECT_EQ(h.worse, (std::vector<std::int64_t>{0, 0, 1, 0, 0, 0, 0, 0, 0, 1}));
  DiffHistogram rubric;
  rubric.width = 4;  // rubric_score, 1..5: a change of 1 is a quarter of the range
  add_difference(-1.0, 1e-12, &rubric);
  EXPECT_EQ(rubric.worse[2], 1);  // (0.8, 1.2]
}

TEST(ReportTest, JsonForScriptEscapesWhatCouldEndTheScriptBlock) {
  nlohmann::ordered_json v = {{"a", "</script><img src=x onerror=alert(1)>&\u2028\u2029"}};
  std::string text = json_for_script(v);
  EXPECT_EQ(text.find('<'), std::string::npos);
  EXPECT_EQ(text.find('>'), std::string::npos);
  EXPECT_EQ(text.find('&'), std::string::npos);
  EXPECT_EQ(text.find("\xE2\x80\xA8"), std::string::npos);
  EXPECT_EQ(text, "{\"a\":\"\\u003c/script\\u003e\\u003cimg src=x onerror=alert(1)\\u003e\\u0026"
                  "\\u2028\\u2029\"}");
  // The escapes mean the same characters to a JSON parser.
  EXPECT_EQ(nlohmann::ordered_json::parse(text), v);
}

}  // namespace
}  // namespace ragmeter
