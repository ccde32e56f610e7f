// The CMRC 2018 scorer, worked by hand from its official evaluate script (v5): tokens,
// the longest common run (not a bag of tokens), the punctuation list, exact match.
#include "ragmeter/cmrc.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ragmeter {
namespace {

using Segments = std::vector<std::string>;

TEST(CmrcTest, ChineseCharactersAreTokensAndOtherRunsAreWords) {
  EXPECT_EQ(cmrc_segments("北京大学"), (Segments{"北", "京", "大", "学"}));
  EXPECT_EQ(cmrc_segments("iPhone 6s发布于2015年"),
            (Segments{"iphone", "6s", "发", "布", "于", "2015", "年"}));
  // NLTK's word tokenizer on the non-Chinese run: a clitic and a final period split off.
  EXPECT_EQ(cmrc_segments("他说 it's fine."), (Segments{"他", "说", "it", "'s", "fine", "."}));
}

TEST(CmrcTest, ThePunctuationListIsDroppedButNotTheEllipsis) {
  EXPECT_EQ(cmrc_segments("《红楼梦》，曹雪芹"), (Segments{"红", "楼", "梦", "曹", "雪", "芹"}));
  // "……" in the script's list is two characters, so it never matches one: NLTK keeps it.
  EXPECT_EQ(cmrc_segments("等等…"), (Segments{"等", "等", "…"}));
}

TEST(CmrcTest, F1CountsTheLongestCommonRunOfTokens) {
  // Answer 北京 (2 tokens) inside the prediction 北京大学 (4): L = 2, P = 1/2, R = 1.
  EXPECT_NEAR(cmrc_f1("北京大学", {"北京"}), 2 * 0.5 * 1.0 / 1.5, 1e-15);
  // 北京的大学 vs 北京大学: the common runs are 北京 and 大学, L = 2 (a bag of tokens
  // would count 4): P = 2/5, R = 2/4, F1 = 2 * 0.2 / 0.9.
  EXPECT_NEAR(cmrc_f1("北京的大学", {"北京大学"}), 2 * 0.4 * 0.5 / 0.9, 1e-15);
}

TEST(CmrcTest, F1IsTheBestOverReferencesAndZeroWithoutCommonToken) {
  EXPECT_EQ(cmrc_f1("上海", {"北京", "上海"}), 1.0);
  EXPECT_EQ(cmrc_f1("上海", {"北京"}), 0.0);
  EXPECT_EQ(cmrc_f1("", {"北京"}), 0.0);
  EXPECT_EQ(cmrc_f1("北京", {}), 0.0);
}

TEST(CmrcTest, ExactMatchIgnoresCaseSpaceAtTheEndsAndThePunctuationList) {
  EXPECT_EQ(cmrc_exact_match("  北京。", {"北京"}), 1.0);
  EXPECT_EQ(cmrc_exact_match("Beijing", {"上海", "beijing"}), 1.0);
  EXPECT_EQ(cmrc_exact_match("北 京", {"北京"}), 0.0);  // an inner space stays
}

}  // namespace
}  // namespace ragmeter
