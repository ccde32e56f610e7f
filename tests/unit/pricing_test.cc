// Token prices: lookup by exact name and longest prefix, overrides, cost arithmetic.
#include "llm/pricing.h"

#include <gtest/gtest.h>

#include <regex>

namespace ragmeter::llm {
namespace {

const std::map<std::string, ModelPrice> kNoOverrides;

double prompt_price(const std::string& model,
                    const std::map<std::string, ModelPrice>& overrides = kNoOverrides) {
  std::optional<ModelPrice> price = find_price(model, overrides);
  return price ? price->prompt_per_million : -1.0;
}

TEST(PricingTest, EveryListedModelHasAPrice) {
  for (const char* model :
       {"gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-4.1-mini", "gpt-4.1-nano", "o3-mini",
        "text-embedding-3-small", "text-embedding-3-large", "gpt-3.5-turbo"}) {
    std::optional<ModelPrice> price = find_price(model, kNoOverrides);
    ASSERT_TRUE(price.has_value()) << model;
    EXPECT_GT(price->prompt_per_million, 0.0) << model;
    EXPECT_LE(price->cached_prompt_per_million, price->prompt_per_million) << model;
  }
}

TEST(PricingTest, ExactNameWinsOverPrefix) {
  EXPECT_DOUBLE_EQ(prompt_price("gpt-4o"), 2.50);
  EXPECT_DOUBLE_EQ(prompt_price("gpt-4o-2024-05-13"), 5.00);  // its own entry
}

TEST(PricingTest, LongestPrefixFindsSnapshots) {
  EXPECT_DOUBLE_EQ(prompt_price("gpt-4o-mini-2024-07-18"), 0.15);
  EXPECT_DOUBLE_EQ(prompt_price("gpt-4o-2024-08-06"), 2.50);
  EXPECT_DOUBLE_EQ(prompt_price("gpt-4.1-nano-2025-04-14"), 0.10);
  EXPECT_DOUBLE_EQ(prompt_price("gpt-4.1-2025-04-14"), 2.00);
}

TEST(PricingTest, UnknownAndLocalModelsHaveNoPrice) {
  EXPECT_FALSE(find_price("llama3.1:8b", kNoOverrides).has_value());
  EXPECT_FALSE(find_price("Qwen/Qwen2.5-7B-Instruct", kNoOverrides).has_value());
  EXPECT_FALSE(find_price("", kNoOverrides).has_value());
}

TEST(PricingTest, OverridesReplaceAndAdd) {
  std::map<std::string, ModelPrice> overrides = {{"gpt-4o", {1.0, 2.0, 0.5}},
                                                 {"my-local", {0.01, 0.02, 0.01}}};
  EXPECT_DOUBLE_EQ(prompt_price("gpt-4o", overrides), 1.0);
  EXPECT_DOUBLE_EQ(prompt_price("gpt-4o-2024-08-06", overrides), 1.0);
  EXPECT_DOUBLE_EQ(prompt_price("my-local-v2", overrides), 0.01);
  // An override of "gpt-4o" does not capture "gpt-4o-mini", which has a longer entry.
  EXPECT_DOUBLE_EQ(prompt_price("gpt-4o-mini", overrides), 0.15);
}

TEST(PricingTest, CostChargesCachedPromptTokensAtTheCachedRate) {
  ModelPrice price{2.0, 8.0, 0.5};
  TokenUsage usage{/*prompt_tokens=*/1'000'000, /*completion_tokens=*/500'000,
                   /*cached_tokens=*/400'000};
  // 600k uncached at 2.0 + 400k cached at 0.5 + 500k completion at 8.0.
  EXPECT_DOUBLE_EQ(cost_usd(usage, price), 1.2 + 0.2 + 4.0);
}

TEST(PricingTest, CostClampsCachedTokensToThePrompt) {
  ModelPrice price{2.0, 8.0, 0.5};
  EXPECT_DOUBLE_EQ(cost_usd(TokenUsage{100, 0, 500}, price), 100 * 0.5 / 1e6);
  EXPECT_DOUBLE_EQ(cost_usd(TokenUsage{100, 0, -5}, price), 100 * 2.0 / 1e6);
  EXPECT_DOUBLE_EQ(cost_usd(TokenUsage{}, price), 0.0);
}

TEST(PricingTest, TableDateIsAnIsoDate) {
  EXPECT_TRUE(std::regex_match(price_table_date(), std::regex(R"(\d{4}-\d{2}-\d{2})")));
}

}  // namespace
}  // namespace ragmeter::llm
