#include "ragmeter/stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace ragmeter {
namespace {

TEST(StatsTest, MeanAndSampleStdOfHandCheckedValues) {
  // mean 5; squared deviations 9+1+1+9 = 20; sample variance 20/3.
  std::vector<double> v = {2, 4, 6, 8};
  SummaryStats s = summarize(v);
  EXPECT_EQ(s.n, 4);
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  EXPECT_DOUBLE_EQ(s.std, std::sqrt(20.0 / 3.0));
}

TEST(StatsTest, EmptyAndSingleValue) {
  std::vector<double> none;
  EXPECT_EQ(summarize(none).n, 0);
  std::vector<double> one = {0.7};
  SummaryStats s = summarize(one);
  EXPECT_EQ(s.std, 0.0);
  EXPECT_EQ(s.ci_low, 0.7);
  EXPECT_EQ(s.ci_high, 0.7);
}

TEST(StatsTest, BootstrapIsReproducibleAndBracketsTheMean) {
  std::vector<double> v;
  for (int i = 0; i < 200; ++i) v.push_back((i * 37 % 101) / 100.0);
  SummaryStats a = summarize(v, {.resamples = 500, .seed = 7});
  SummaryStats b = summarize(v, {.resamples = 500, .seed = 7});
  SummaryStats c = summarize(v, {.resamples = 500, .seed = 8});
  EXPECT_EQ(a.ci_low, b.ci_low);
  EXPECT_EQ(a.ci_high, b.ci_high);
  EXPECT_NE(a.ci_low, c.ci_low);
  EXPECT_LT(a.ci_low, a.mean);
  EXPECT_GT(a.ci_high, a.mean);
  // The interval's half-width is close to 1.96 standard errors for a sample this size.
  double standard_error = a.std / std::sqrt(200.0);
  EXPECT_NEAR(a.ci_high - a.ci_low, 2 * 1.96 * standard_error, 0.25 * 2 * 1.96 * standard_error);
}

TEST(StatsTest, ThreadCountDoesNotChangeTheInterval) {
  std::vector<double> v;
  for (int i = 0; i < 300; ++i) v.push_back((i * 53 % 97) / 96.0);
  SummaryStats one = summarize(v, {.resamples = 400, .seed = 3, .threads = 1});
  SummaryStats three = summarize(v, {.resamples = 400, .seed = 3, .threads = 3});
  EXPECT_EQ(one.ci_low, three.ci_low);
  EXPECT_EQ(one.ci_high, three.ci_high);
}

TEST(StatsTest, ConstantValuesGiveAZeroWidthInterval) {
  std::vector<double> v(50, 1.0);
  SummaryStats s = summarize(v);
  EXPECT_EQ(s.ci_low, 1.0);
  EXPECT_EQ(s.ci_high, 1.0);
}

}  // namespace
}  // namespace ragmeter
