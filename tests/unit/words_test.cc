// ICU word break on hand-checked sentences: each expected segmentation was read word by
// word by a reader of the language (dictionary words, particles apart, no punctuation).
#include "ragmeter/words.h"

#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace ragmeter {
namespace {

std::vector<std::string> words_of(std::string_view text) {
  std::vector<std::string> out;
  for (std::string_view word : split_words(text)) out.emplace_back(word);
  return out;
}

using Words = std::vector<std::string>;

TEST(SplitWordsTest, ChineseIsSegmentedIntoDictionaryWords) {
  // "The capital of France is Paris." : France / 's / capital / is / Paris.
  EXPECT_EQ(words_of("法国的首都是巴黎。"), (Words{"法国", "的", "首都", "是", "巴黎"}));
  // The sentence: one "word" before, three words now.
  EXPECT_EQ(words_of("首都是北京"), (Words{"首都", "是", "北京"}));
  // "We go to visit Peking University tomorrow."
  EXPECT_EQ(words_of("我们明天去北京大学参观。"),
            (Words{"我们", "明天", "去", "北京", "大学", "参观"}));
}

TEST(SplitWordsTest, JapaneseSeparatesParticlesFromWords) {
  // "I study Japanese at the University of Tokyo." (up to the verb's stem)
  EXPECT_EQ(words_of("私は東京大学で日本語を勉強"),
            (Words{"私", "は", "東京", "大学", "で", "日本語", "を", "勉強"}));
  // JNLI valid, row 1's premise, up to the verb: katakana and kanji words, the comma dropped.
  EXPECT_EQ(words_of("キリンが、木の中から首を"),
            (Words{"キリン", "が", "木", "の", "中", "から", "首", "を"}));
}

TEST(SplitWordsTest, ThaiIsSegmentedWithoutSpaces) {
  // "I like to eat fried rice very much."
  EXPECT_EQ(words_of("ผมชอบกินข้าวผัดมาก"), (Words{"ผม", "ชอบ", "กิน", "ข้าว", "ผัด", "มาก"}));
}

TEST(SplitWordsTest, GermanKeepsCompoundsAndDropsQuotesAndPunctuation) {
  EXPECT_EQ(words_of("Die Bundesregierung hat am Mittwoch beschlossen, dass die Steuern sinken."),
            (Words{"Die", "Bundesregierung", "hat", "am", "Mittwoch", "beschlossen", "dass", "die",
                   "Steuern", "sinken"}));
  // German quotation marks are punctuation; "1.000" is one number.
  EXPECT_EQ(words_of("Die Straße heißt „Unter den Linden“, 1.000 Meter lang."),
            (Words{"Die", "Straße", "heißt", "Unter", "den", "Linden", "1.000", "Meter", "lang"}));
}

TEST(SplitWordsTest, EnglishFollowsUax29) {
  EXPECT_EQ(words_of("don't state-of-the-art 3.5 1,000"),
            (Words{"don't", "state", "of", "the", "art", "3.5", "1,000"}));
}

TEST(SplitWordsTest, NoWordsInEmptyOrPunctuationOnlyText) {
  EXPECT_TRUE(split_words("").empty());
  EXPECT_TRUE(split_words(" ,。！？「」 ... ").empty());
}

TEST(SplitWordsTest, WordsAreViewsIntoTheText) {
  const std::string text = "北京 Paris";
  const std::vector<std::string_view> words = split_words(text);
  ASSERT_EQ(words.size(), 2u);
  EXPECT_EQ(words[0].data(), text.data());
  EXPECT_EQ(words[1].data(), text.data() + text.find("Paris"));
}

TEST(SplitWordsTest, ThreadsGetTheSameWords) {
  const std::string text = "法国的首都是巴黎。私は東京大学で日本語を勉強";
  const std::vector<std::string_view> expected = split_words(text);
  std::vector<std::vector<std::string_view>> seen(4);
  std::vector<std::thread> threads;
  for (auto& out : seen) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) out = split_words(text);
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& out : seen) EXPECT_EQ(out, expected);
}

TEST(WordKeyTest, NfkcCaseFoldMakesFullWidthAndCaseVariantsOneWord) {
  auto key = [](std::string_view word) {
    std::string out;
    append_word_key(word, &out);
    return out;
  };
  EXPECT_EQ(key("ＡＢＣ１２３"), "abc123");  // full-width letters and digits
  EXPECT_EQ(key("Straße"), key("STRASSE"));  // case folding spells ß as ss
  EXPECT_EQ(key("Paris"), "paris");
  EXPECT_EQ(key("北京"), "北京");
  EXPECT_EQ(word_keys("首都是ＢＥＩＪＩＮＧ"), (std::vector<std::string>{"首都", "是", "beijing"}));
}

TEST(NfkcTest, FullWidthAndCompatibilityCharacters) {
  EXPECT_EQ(nfkc("ＡＢＣ１２３"), "ABC123");
  EXPECT_EQ(nfkc("①"), "1");
  EXPECT_EQ(nfkc("ﬁ"), "fi");
  EXPECT_EQ(nfkc("plain"), "plain");
}

}  // namespace
}  // namespace ragmeter
