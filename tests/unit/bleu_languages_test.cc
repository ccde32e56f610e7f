// BLEU's language tokenizers (zh, intl, char; ja-mecab and ko-mecab are compared with
// sacreBLEU's MeCab in tests/oracle/test_bleu_languages.py). Token streams worked by hand
// from sacreBLEU's rules and confirmed with sacrebleu 2.6's tokenizers, e.g.
// TokenizerZh()("价格是3.5元, 对吗?").
#include <gtest/gtest.h>

#include <string>

#include "ragmeter/bleu.h"

namespace ragmeter {
namespace {

TEST(BleuLanguagesTest, ZhMakesEachChineseCharacterAToken) {
  EXPECT_EQ(tokenize_bleu_segment("我爱北京。", BleuTokenizer::kZh), "我 爱 北 京 。");
  EXPECT_EQ(tokenize_bleu_segment("价格是3.5元, 对吗?", BleuTokenizer::kZh),
            "价 格 是 3.5 元 , 对 吗 ?");
  // General punctuation (U+2001..U+2A6D, sacreBLEU's "\u20000" range) is split off too.
  EXPECT_EQ(tokenize_bleu_segment("“你好”…—", BleuTokenizer::kZh), "“ 你 好 ” … —");
  EXPECT_EQ(tokenize_bleu_segment("2023年12月-1日", BleuTokenizer::kZh), "2023 年 12 月 -1 日");
}

TEST(BleuLanguagesTest, ZhStripsTheSegmentAndHasNoPaddingSpaces) {
  // 13a pads the line with spaces, so its leading '.' is split off; zh strips instead.
  EXPECT_EQ(tokenize_bleu_segment(" .5元", BleuTokenizer::kZh), ".5 元");
  EXPECT_EQ(tokenize_13a(".5"), ". 5");
}

TEST(BleuLanguagesTest, ThirteenAKeepsAChineseSentenceAsOneToken) {
  EXPECT_EQ(tokenize_bleu_segment("我爱北京天安门", BleuTokenizer::k13a), "我爱北京天安门");
  // sacreBLEU: BLEU(tokenize='zh').sentence_score('我爱北京天安门', ['我爱北京']) = 41.113...
  // (4 of 7 unigrams, 3 of 6 bigrams, 2 of 5 trigrams, 1 of 4 four-grams, brevity 1)
  EXPECT_NEAR(sentence_bleu("我爱北京天安门", {"我爱北京"}, {.tokenizer = BleuTokenizer::kZh}),
              0.4111336169005198, 1e-12);
  EXPECT_EQ(sentence_bleu("我爱北京天安门", {"我爱北京"}), 0.0);
}

TEST(BleuLanguagesTest, ANoteNamesTheTokenizersFor13aOnChineseOrJapanese) {
  EXPECT_NE(bleu_tokenizer_note("首都是北京", "北京", BleuTokenizer::k13a).find("--bleu-tokenize zh"),
            std::string::npos);
  EXPECT_NE(bleu_tokenizer_note("Tokyo", "東京です", BleuTokenizer::k13a).find("ja-mecab"),
            std::string::npos);
  EXPECT_EQ(bleu_tokenizer_note("首都是北京", "北京", BleuTokenizer::kZh), "");
  EXPECT_EQ(bleu_tokenizer_note("the cat", "café 서울", BleuTokenizer::k13a), "");
}

TEST(BleuLanguagesTest, IntlSplitsUnicodePunctuationAndSymbols) {
  EXPECT_EQ(tokenize_bleu_segment("Hello, world! 3.14 €5", BleuTokenizer::kIntl),
            "Hello , world ! 3.14 € 5");
  EXPECT_EQ(tokenize_bleu_segment("¿Qué? «sí»", BleuTokenizer::kIntl), "¿ Qué ? « sí »");
  // mteval-v14's quirk, kept by sacreBLEU: a number's final period stays attached.
  EXPECT_EQ(tokenize_bleu_segment("x.5 (a-b) 1,000.", BleuTokenizer::kIntl),
            "x . 5 ( a - b ) 1,000.");
}

TEST(BleuLanguagesTest, CharMakesEveryCharacterAToken) {
  EXPECT_EQ(tokenize_bleu_segment("ab 東京\u3000é", BleuTokenizer::kChar), "a b 東 京 é");
}

TEST(BleuLanguagesTest, TokenizerNamesAreSacrebleus) {
  for (const char* name : {"13a", "none", "zh", "intl", "char", "ja-mecab", "ko-mecab"}) {
    const auto tokenizer = parse_bleu_tokenizer(name);
    ASSERT_TRUE(tokenizer.ok()) << name;
    EXPECT_STREQ(bleu_tokenizer_name(*tokenizer), name);
  }
  const auto unknown = parse_bleu_tokenizer("ja");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.status().message().find("ja-mecab"), std::string::npos);
}

TEST(BleuLanguagesTest, RuleTokenizersNeedNothingPrepared) {
  for (BleuTokenizer t : {BleuTokenizer::k13a, BleuTokenizer::kZh, BleuTokenizer::kIntl,
                          BleuTokenizer::kChar, BleuTokenizer::kNone}) {
    EXPECT_TRUE(prepare_bleu_tokenizer(t).ok());
  }
}

}  // namespace
}  // namespace ragmeter
