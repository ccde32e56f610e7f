// The Latin fast path against ICU itself, the oracle: every covered character between
// letters, digits and marks, random strings of covered characters, real English passages
// and German sentences must give ICU's words and keys exactly, and anything uncovered must
// be left to ICU.
#include "core/latin_words.h"

#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unicode/utf8.h>

#include "core/words_icu.h"
#include "ragmeter/words.h"
#include "tests/unit/test_paths.h"

namespace ragmeter {
namespace {

using Words = std::vector<std::string>;

std::string utf8(char32_t cp) {  // ICU's encoder
  char bytes[U8_MAX_LENGTH];
  int32_t length = 0;
  U8_APPEND_UNSAFE(bytes, length, static_cast<UChar32>(cp));
  return std::string(bytes, static_cast<std::size_t>(length));
}

// The covered code points (ASCII, Latin-1, U+2000-U+203F, less what ICU's rules treat
// otherwise).
std::vector<char32_t> covered() {
  std::vector<char32_t> out;
  for (char32_t cp = 0; cp < 0x2040; cp = cp == 0xFF ? 0x2000 : cp + 1) {
    if (latin_words::covers(cp)) out.push_back(cp);
  }
  return out;
}

Words icu_words_of(std::string_view text) {
  std::vector<std::string_view> views;
  icu_split_words_into(text, &views);
  return {views.begin(), views.end()};
}

// Fails the test unless the fast path covers `text` and gives ICU's words and keys.
void expect_as_icu(std::string_view text) {
  std::vector<std::string_view> views;
  ASSERT_TRUE(latin_words::split(text, &views)) << text;
  const Words fast(views.begin(), views.end());
  ASSERT_EQ(fast, icu_words_of(text)) << "text: [" << text << "]";
  for (std::string_view word : views) {
    std::string fast_key;
    std::string icu_key;
    ASSERT_TRUE(latin_words::append_key(word, &fast_key)) << word;
    icu_append_word_key(word, &icu_key);
    ASSERT_EQ(fast_key, icu_key) << "word: [" << word << "]";
  }
}

TEST(LatinWordsTest, CoversLatinOneAndCommonPunctuationButNotMarksOrOtherScripts) {
  for (char32_t cp : {U'a', U'Z', U'7', U' ', U'.', U':', U'\'', U'\u00e4', U'\u00df', U'\u00e9',
                      U'\u00ab', U'\u00a0', U'\u201e', U'\u201c', U'\u2019', U'\u2013', U'\u2026'}) {
    EXPECT_TRUE(latin_words::covers(cp)) << std::hex << static_cast<unsigned>(cp);
  }
  // Soft hyphen (Format), combining acute (Extend), underscore and U+202F (ExtendNumLet),
  // ZWJ, a Latin Extended-A letter, a Han character: ICU's own rules.
  for (char32_t cp : {U'\u00ad', U'\u0301', U'_', U'\u202f', U'\u200d', U'\u0105', U'\u4e2d'}) {
    EXPECT_FALSE(latin_words::covers(cp)) << std::hex << static_cast<unsigned>(cp);
  }
}

TEST(LatinWordsTest, TakesIcusTailoringsFromIcu) {
  // UAX #29 makes ':' a MidLetter ("a:b" one word); ICU's root rules do not.
  std::vector<std::string_view> words;
  ASSERT_TRUE(latin_words::split("a:b 1:2 don't 3.5 1,000 x,y", &words));
  EXPECT_EQ(Words(words.begin(), words.end()),
            (Words{"a", "b", "1", "2", "don't", "3.5", "1,000", "x", "y"}));
}

TEST(LatinWordsTest, EveryCoveredCharacterBetweenLettersDigitsAndMarksIsSegmentedAsIcuDoes) {
  const std::vector<std::string> sides = {"",  "a", "\u00e9", "Z", "\u00df", "1", "9", ".", ",",
                                          "'", ":", ";", " ", "\u2019", "-", "a.", "1,", "\u00c4b"};
  std::size_t strings = 0;
  for (char32_t cp : covered()) {
    const std::string c = utf8(cp);
    for (const std::string& left : sides) {
      for (const std::string& right : sides) {
        expect_as_icu(left + c + right);
        expect_as_icu(left + c + c + right);
        strings += 2;
      }
    }
  }
  EXPECT_GT(strings, 100000u);
}

TEST(LatinWordsTest, RandomStringsOfCoveredCharactersAreSegmentedAsIcuDoes) {
  const std::vector<char32_t> all = covered();
  std::vector<char32_t> letters;
  std::vector<char32_t> marks;
  for (char32_t cp : all) {
    // Classed by ICU itself, not by the path under test.
    const Words alone = icu_words_of(utf8(cp));
    if (!alone.empty()) letters.push_back(cp);
    if (alone.empty() && icu_words_of("a" + utf8(cp) + "a").size() != 2) marks.push_back(cp);
    if (alone.empty() && icu_words_of("1" + utf8(cp) + "1").size() != 2) marks.push_back(cp);
  }
  ASSERT_GT(letters.size(), 100u);
  ASSERT_GE(marks.size(), 8u);  // . ' , ; and their typographic kin
  std::mt19937 random(20261201);
  std::uniform_int_distribution<int> kind(0, 9);
  for (int round = 0; round < 20000; ++round) {
    std::string text;
    const int length = 1 + static_cast<int>(random() % 24);
    for (int i = 0; i < length; ++i) {
      const int k = kind(random);
      const std::vector<char32_t>& from = k < 5 ? letters : k < 8 ? marks : all;
      text += utf8(from[random() % from.size()]);
    }
    expect_as_icu(text);
    if (HasFatalFailure()) return;
  }
}

TEST(LatinWordsTest, KeysOfEveryPairOfWordCharactersAreIcus) {
  std::vector<std::string> word_chars;
  for (char32_t cp : covered()) {
    std::string key;
    if (latin_words::append_key(utf8(cp), &key)) word_chars.push_back(utf8(cp));
  }
  ASSERT_GT(word_chars.size(), 100u);
  for (const std::string& a : word_chars) {
    for (const std::string& b : word_chars) {
      std::string fast;
      std::string icu;
      ASSERT_TRUE(latin_words::append_key(a + b, &fast));
      icu_append_word_key(a + b, &icu);
      ASSERT_EQ(fast, icu) << a << b;
    }
  }
  std::string key;
  ASSERT_TRUE(latin_words::append_key("STRA\u00dfE", &key));
  EXPECT_EQ(key, "strasse");  // full case folding, as word_key's documentation says
}

TEST(LatinWordsTest, RealEnglishPassagesAndGermanSentencesAreSegmentedAsIcuDoes) {
  std::vector<std::string> texts = {
      "Die Bundesregierung hat am Mittwoch beschlossen, dass die Steuern sinken.",
      "Die Stra\u00dfe hei\u00dft \u201eUnter den Linden\u201c, 1.000 Meter lang.",
      "\u00c4rzte empfehlen: t\u00e4glich 2,5 Liter Wasser \u2013 mehr bei Hitze\u2026",
      "Der Eiffelturm ist ein 330 Meter hoher Eisenfachwerkturm in Paris; er wurde 1889 "
      "errichtet und geh\u00f6rt heute zu den meistbesuchten Sehensw\u00fcrdigkeiten.",
      "L\u2019\u00e9l\u00e8ve a lu \u00ab Les Mis\u00e9rables \u00bb \u00e0 l\u2019\u00e9cole.",
      "El ni\u00f1o comi\u00f3 ma\u00f1ana a las 10:30, \u00bfverdad?"};
  std::ifstream halueval(std::string(RAGMETER_SOURCE_DIR) + "/tests/data/halueval_qa_one_turn.jsonl");
  for (std::string line; std::getline(halueval, line);) {
    const nlohmann::json row = nlohmann::json::parse(line);
    for (const char* field : {"knowledge", "question", "right_answer", "hallucinated_answer"}) {
      texts.push_back(row.at(field).get<std::string>());
    }
  }
  ASSERT_GT(texts.size(), 100u);
  std::size_t covered_texts = 0;
  for (const std::string& text : texts) {
    std::vector<std::string_view> views;
    if (!latin_words::split(text, &views)) continue;
    ++covered_texts;
    expect_as_icu(text);
    if (HasFatalFailure()) return;
  }
  // Nearly all of them are plain Latin text: the fast path is what these texts take.
  EXPECT_GT(covered_texts, texts.size() * 9 / 10);
}

TEST(LatinWordsTest, LeavesUncoveredTextToIcuAndSplitWordsStillGivesIcusWords) {
  for (const std::string& text :
       {std::string("Ma\u00adschine"), std::string("cafe\u0301 ist gut"), std::string("snake_case"),
        std::string("Gda\u0144sk und Krak\u00f3w"), std::string("Berlin \u5317\u4eac"),
        std::string("1\u202f000 Euro"), std::string("broken \xc3"), std::string("bad \xc3\x28 byte"),
        std::string("cut \xe2\x80"), std::string("overlong \xc1\x81")}) {
    std::vector<std::string_view> views;
    EXPECT_FALSE(latin_words::split(text, &views)) << text;
    const std::vector<std::string_view> words = split_words(text);
    EXPECT_EQ(Words(words.begin(), words.end()), icu_words_of(text)) << text;
  }
  std::string key = "kept";
  EXPECT_FALSE(latin_words::append_key("Gda\u0144sk", &key));
  EXPECT_EQ(key, "kept");
  EXPECT_FALSE(latin_words::append_key("a b", &key));  // a space is no word character
  EXPECT_EQ(key, "kept");
}

}  // namespace
}  // namespace ragmeter
