// ROUGE: values hand-checked and confirmed with rouge-score 0.1.2, e.g.
//   rouge_scorer.RougeScorer(["rouge1", "rouge2", "rougeL", "rougeLsum"]).score(ref, cand)
// (note rouge-score's argument order: target first, prediction second).
#include "ragmeter/rouge.h"

#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace ragmeter {
namespace {

using Tokens = std::vector<std::string>;

void expect_score(const RougeScore& score, double precision, double recall, double fmeasure) {
  EXPECT_DOUBLE_EQ(score.precision, precision);
  EXPECT_DOUBLE_EQ(score.recall, recall);
  EXPECT_DOUBLE_EQ(score.fmeasure, fmeasure);
}

RougeOptions stemmed() {
  RougeOptions options;
  options.use_stemmer = true;
  return options;
}

RougeOptions unicode(bool use_stemmer = false) {
  RougeOptions options;
  options.tokenizer = RougeTokenizer::kUnicode;
  options.use_stemmer = use_stemmer;
  return options;
}

TEST(RougeTokenize, LowercasesAndSplitsOnEverythingOutsideAsciiAlphanumerics) {
  EXPECT_EQ(rouge_tokenize("Hello, World! It's 3.14"), (Tokens{"hello", "world", "it", "s", "3", "14"}));
}

TEST(RougeTokenize, DropsNonAsciiLettersAsRougeScoreDoes) {
  EXPECT_EQ(rouge_tokenize("café 東京 😀"), (Tokens{"caf"}));
  EXPECT_TRUE(rouge_tokenize("").empty());
  EXPECT_TRUE(rouge_tokenize(" ... \n").empty());
}

TEST(RougeTokenize, FollowsPythonLowerForDottedCapitalIAndKelvinSign) {
  // "İ".lower() == "i\u0307" (the dot separates) and "\u212a".lower() == "k".
  EXPECT_EQ(rouge_tokenize("İstanbul"), (Tokens{"i", "stanbul"}));
  EXPECT_EQ(rouge_tokenize("\u212Aelvin"), (Tokens{"kelvin"}));
}

TEST(RougeTokenize, StemsOnlyTokensLongerThanThreeCharacters) {
  // "was" would stem to "wa"; rouge-score leaves tokens of 3 or fewer characters alone.
  EXPECT_EQ(rouge_tokenize("Runs running was flies", stemmed()), (Tokens{"run", "run", "was", "fli"}));
}

TEST(RougeTokenize, UnicodeTokenizerCaseFoldsAndKeepsEveryScript) {
  EXPECT_EQ(rouge_tokenize("Straße ΣΊΣΥΦΟΣ σίσυφος", unicode()),
            (Tokens{"strasse", "σίσυφοσ", "σίσυφοσ"}));
}

TEST(RougeTokenize, UnicodeTokenizerSplitsIdeographsIntoSingleTokens) {
  EXPECT_EQ(rouge_tokenize("東京タワーに行きます", unicode()),
            (Tokens{"東", "京", "タワー", "に", "行", "き", "ます"}));
}

TEST(RougeTokenize, UnicodeTokenizerDropsPunctuationAndSymbolsAndStemsOnlyAsciiWords) {
  EXPECT_EQ(rouge_tokenize("Don't stop 😀 !!! 3.14 apples, éléphants Running", unicode(true)),
            (Tokens{"don't", "stop", "3.14", "appl", "éléphants", "run"}));
}

TEST(RougeN, CountsClippedNgramOverlap) {
  const char* cand = "the cat sat on the mat";
  const char* ref = "the cat is on the mat";
  expect_score(rouge_n(cand, ref, 1), 5.0 / 6, 5.0 / 6, 5.0 / 6);
  expect_score(rouge_n(cand, ref, 2), 0.6, 0.6, 0.6);
  expect_score(rouge_n(cand, ref, 3), 0.25, 0.25, 0.25);
}

TEST(RougeN, RepeatedCandidateTokensMatchAtMostAsOftenAsInTheReference) {
  expect_score(rouge_n("the the the the", "the cat", 1), 0.25, 0.5, 1.0 / 3);
}

TEST(RougeN, ScoresZeroWhenATextHasFewerThanNTokens) {
  expect_score(rouge_n("a b", "a b", 3), 0, 0, 0);
  expect_score(rouge_n("", "the cat", 1), 0, 0, 0);
  expect_score(rouge_n("", "", 1), 0, 0, 0);
}

TEST(RougeN, RejectsNBelowOne) { EXPECT_THROW(rouge_n("a", "a", 0), std::invalid_argument); }

TEST(RougeN, UnicodeTokenizerScoresCjkText) {
  // Default tokenizer: every token is dropped, so the score is 0.
  expect_score(rouge_n("東京に行く", "東京へ行く", 1), 0, 0, 0);
  RougeScore score = rouge_n("東京に行く", "東京へ行く", 1, unicode());
  EXPECT_DOUBLE_EQ(score.precision, 0.8);
  EXPECT_DOUBLE_EQ(score.recall, 0.8);
}

TEST(RougeL, UsesTheLongestCommonSubsequence) {
  // Lin's example: LCS "police the gunman".
  expect_score(rouge_l("police killed the gunman", "police kill the gunman"), 0.75, 0.75, 0.75);
  expect_score(rouge_l("police killed the gunman", "police kill the gunman", stemmed()), 1, 1, 1);
}

TEST(RougeL, ScoresZeroWhenEitherTextHasNoTokens) {
  expect_score(rouge_l("", "the cat"), 0, 0, 0);
  expect_score(rouge_l("the cat", "!!!"), 0, 0, 0);
}

TEST(RougeL, HandlesTextsLongerThanOneMachineWord) {
  // 100 candidate tokens "a b a b ...", 70 reference tokens "a": the LCS is the 50 a's.
  std::string cand;
  for (int i = 0; i < 50; ++i) cand += "a b ";
  std::string ref;
  for (int i = 0; i < 70; ++i) ref += "a ";
  expect_score(rouge_l(cand, ref), 0.5, 50.0 / 70, 2 * 0.5 * (50.0 / 70) / (0.5 + 50.0 / 70));
}

TEST(RougeLsum, UnitesTheLcsOfEachReferenceSentenceWithEveryCandidateSentence) {
  // rougeL is 0.5 (LCS "c d" of the flattened texts); per sentence both halves match.
  expect_score(rouge_lsum("c d\na b", "a b c d"), 1, 1, 1);
  expect_score(rouge_l("c d\na b", "a b c d"), 0.5, 0.5, 0.5);
}

TEST(RougeLsum, CountsEachTokenOccurrenceOnlyOnce) {
  expect_score(rouge_lsum("a b", "a b\na b"), 1, 0.5, 2.0 / 3);
  expect_score(rouge_lsum("the cat ran", "the cat sat\nthe dog ran"), 1, 0.5, 2.0 / 3);
}

TEST(RougeLsum, ReadsOutTheSameLcsAsRougeScoreWhenThereAreTies) {
  // LCS("a b", "b a") could be "a" or "b"; rouge-score's backtracking takes "a", which the
  // second candidate sentence also matches, so only one hit: P = 1/3, R = 1/2.
  expect_score(rouge_lsum("b a\na", "a b"), 1.0 / 3, 0.5, 0.4);
}

TEST(RougeLsum, IgnoresEmptyLinesAndCarriageReturns) {
  expect_score(rouge_lsum("y z", "x\n\n\r\ny z"), 1, 2.0 / 3, 0.8);
}

TEST(RougeLsum, EqualsRougeLForSingleLineTexts) {
  const char* cand = "the quick brown fox jumps over the lazy dog";
  const char* ref = "the quick brown dog jumps on the log";
  RougeScore lsum = rouge_lsum(cand, ref);
  RougeScore l = rouge_l(cand, ref);
  EXPECT_DOUBLE_EQ(lsum.fmeasure, l.fmeasure);
  expect_score(rouge_lsum("", "a"), 0, 0, 0);
}

TEST(RougeDroppedLettersNote, SaysWhenTheDefaultTokenizerKeepsNothingOfAChineseText) {
  // rouge-score: both texts tokenize to [], so the score is 0 whatever they say.
  EXPECT_EQ(rouge_l("首都是北京", "北京").fmeasure, 0.0);
  const std::string note = rouge_dropped_letters_note("首都是北京", "北京");
  EXPECT_NE(note.find("dropped every letter of the response and the reference (Han)"),
            std::string::npos)
      << note;
  EXPECT_NE(note.find("--rouge-tokenizer unicode"), std::string::npos) << note;
  EXPECT_NE(rouge_dropped_letters_note("Seoul", "서울").find("of the reference (Hangul)"),
            std::string::npos);
}

TEST(RougeDroppedLettersNote, SaysWhenSomeLettersAreDropped) {
  EXPECT_EQ(rouge_tokenize("café au lait"), (Tokens{"caf", "au", "lait"}));
  const std::string note = rouge_dropped_letters_note("café au lait", "cafe au lait");
  EXPECT_NE(note.find("it dropped the Latin letters of the response;"), std::string::npos) << note;
}

TEST(RougeDroppedLettersNote, IsEmptyWhenNothingIsDroppedOrTheUnicodeTokenizerIsUsed) {
  EXPECT_EQ(rouge_dropped_letters_note("the cat, 42!", "a dog -- 7"), "");
  // U+0130 lowercases to an ASCII i (plus a combining dot) and is kept.
  EXPECT_EQ(rouge_dropped_letters_note("\u0130stanbul", "istanbul"), "");
  RougeOptions unicode;
  unicode.tokenizer = RougeTokenizer::kUnicode;
  EXPECT_EQ(rouge_dropped_letters_note("首都是北京", "北京", unicode), "");
}

}  // namespace
}  // namespace ragmeter
