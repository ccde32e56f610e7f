// The offline judge's vectors and entities, on hand-computed cases.
#include <gtest/gtest.h>

#include <cmath>

#include "judge/offline/text_vectors.h"

namespace ragmeter {
namespace {

TEST(TextVectorsTest, CosineOfStemmedContentWords) {
  // cat, chase, mice vs cat, eat: one shared stem of weight 1 in each.
  EXPECT_NEAR(offline_similarity("The cats chase mice.", "A cat eats."),
              1.0 / (std::sqrt(3.0) * std::sqrt(2.0)), 1e-12);
  EXPECT_NEAR(offline_similarity("Paris is in France", "paris IS in france!"), 1.0, 1e-12);
  EXPECT_EQ(offline_similarity("Paris", "Berlin"), 0.0);
  EXPECT_EQ(offline_similarity("", "Berlin"), 0.0);
  EXPECT_EQ(offline_similarity("the of and", "the of and"), 0.0);  // no content word
}

TEST(TextVectorsTest, RepeatedWordsWeighSublinearly) {
  // "rain rain rain snow": rain 1 + ln 3, snow 1; against "rain": cos = w_rain / |v|.
  double w = 1.0 + std::log(3.0);
  EXPECT_NEAR(offline_similarity("rain rain rain snow", "rain"), w / std::sqrt(w * w + 1.0), 1e-12);
  TextVector v = offline_text_vector("rain rain rain snow");
  ASSERT_EQ(v.terms.size(), 2u);
  EXPECT_EQ(v.terms[0].first, "rain");  // sorted by term
  EXPECT_NEAR(v.terms[0].second * v.terms[0].second + v.terms[1].second * v.terms[1].second, 1.0,
              1e-12);
}

TEST(TextVectorsTest, ChineseTextIsABagOfItsWords) {
  // 法国 的 首都 是 巴黎 / 巴黎 是 法国 的 首都: the same five words in another order.
  EXPECT_NEAR(offline_similarity("法国的首都是巴黎。", "巴黎是法国的首都"), 1.0, 1e-12);
  // 德国 的 首都 是 柏林: three of five words shared, each of weight 1: cos = 3/5.
  EXPECT_NEAR(offline_similarity("法国的首都是巴黎。", "德国的首都是柏林。"), 3.0 / 5.0, 1e-12);
  EXPECT_EQ(content_terms("首都是北京"), (std::vector<std::string>{"首都", "是", "北京"}));
  // English words around Chinese ones keep their stems and stopwords rule.
  EXPECT_EQ(content_terms("The cats live in 北京"), (std::vector<std::string>{"cat", "live", "北京"}));
}

TEST(TextVectorsTest, EntitiesAreCapitalisedRunsAndNumbers) {
  EXPECT_EQ(offline_entities("Arthur's Magazine was started in 1844 by Timothy Shay Arthur in "
                             "Philadelphia."),
            (std::vector<std::string>{"arthur magazine", "1844", "timothy shay arthur",
                                      "philadelphia"}));
  EXPECT_EQ(offline_entities("He worked at Bank of America in New York, then NASA."),
            (std::vector<std::string>{"bank of america", "new york", "nasa"}));
  // A capitalised first word alone is not a name; "1,000" is normalised; repeats dropped.
  EXPECT_EQ(offline_entities("Many people came. About 1,000 of them saw Paris and Paris."),
            (std::vector<std::string>{"1000", "paris"}));
  EXPECT_TRUE(offline_entities("").empty());
}

}  // namespace
}  // namespace ragmeter
