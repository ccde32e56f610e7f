// Porter stemmer: expected stems are NLTK's, nltk.stem.porter.PorterStemmer().stem(word)
// (NLTK_EXTENSIONS mode, as rouge-score uses); most are the examples of Porter's paper.
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "ragmeter/rouge.h"

namespace ragmeter {
namespace {

using Cases = std::vector<std::pair<std::string, std::string>>;

void expect_stems(const Cases& cases) {
  for (const auto& [word, stem] : cases) EXPECT_EQ(porter_stem(word), stem) << word;
}

TEST(PorterStemmer, Step1RemovesPluralsAndEdIng) {
  expect_stems({{"caresses", "caress"}, {"ponies", "poni"}, {"plastered", "plaster"},
                {"bled", "bled"}, {"motoring", "motor"}, {"sing", "sing"},
                {"conflated", "conflat"}, {"troubled", "troubl"}, {"sized", "size"},
                {"hopping", "hop"}, {"tanned", "tan"}, {"falling", "fall"},
                {"hissing", "hiss"}, {"fizzed", "fizz"}, {"failing", "fail"},
                {"filing", "file"}, {"feed", "feed"}, {"agreed", "agre"}});
}

TEST(PorterStemmer, NltkKeepsFourLetterIesAndIedWordsAsIe) {
  expect_stems({{"ties", "tie"}, {"dies", "die"}, {"died", "die"}, {"flies", "fli"}, {"spied", "spi"}});
}

TEST(PorterStemmer, NltkTurnsYIntoIOnlyAfterAConsonantThatIsNotTheWholeStem) {
  expect_stems({{"happy", "happi"}, {"enjoy", "enjoy"}, {"by", "by"}, {"yyyy", "yyyi"}});
}

TEST(PorterStemmer, Steps2To4StripDerivationalSuffixes) {
  expect_stems({{"relational", "relat"}, {"conditional", "condit"}, {"rational", "ration"},
                {"digitizer", "digit"}, {"radically", "radic"}, {"generalizations", "gener"},
                {"sensibility", "sensibl"}, {"triplicate", "triplic"}, {"formative", "form"},
                {"electrical", "electr"}, {"hopeful", "hope"}, {"goodness", "good"},
                {"revival", "reviv"}, {"allowance", "allow"}, {"adjustable", "adjust"},
                {"adoption", "adopt"}, {"communism", "commun"}, {"effective", "effect"},
                {"analogously", "analog"}, {"geology", "geolog"}});
}

TEST(PorterStemmer, Step5TidiesFinalEAndDoubleL) {
  expect_stems({{"controll", "control"}, {"roll", "roll"}});
}

TEST(PorterStemmer, UsesNltkIrregularForms) {
  expect_stems({{"dying", "die"}, {"skies", "sky"}, {"news", "news"}, {"proceed", "proceed"},
                {"innings", "inning"}});
}

TEST(PorterStemmer, LeavesWordsOfOneOrTwoLettersAlone) {
  expect_stems({{"", ""}, {"a", "a"}, {"is", "is"}, {"was", "wa"}});
}

TEST(PorterStemmer, LowercasesAsciiCapitals) {
  expect_stems({{"Running", "run"}, {"CARESSES", "caress"}});
}

}  // namespace
}  // namespace ragmeter
