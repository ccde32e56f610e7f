// chrF and chrF++. Values marked "sacreBLEU" were computed with sacrebleu 2.6 in
// /root/.cache/ragmeter/venv, with the Python call quoted next to them; the others are
// worked by hand.
#include "ragmeter/chrf.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ragmeter {
namespace {

constexpr double kTolerance = 1e-12;

ChrfOptions chrf_plus_plus() {
  ChrfOptions options;
  options.word_order = 2;
  return options;
}

ChrfOptions unigrams_only() {
  ChrfOptions options;
  options.char_order = 1;
  return options;
}

TEST(ChrfTest, PerfectMatchScoresOne) {
  EXPECT_NEAR(sentence_chrf("the cat sat", {"the cat sat"}), 1.0, kTolerance);
  EXPECT_NEAR(sentence_chrf("the cat sat", {"the cat sat"}, chrf_plus_plus()), 1.0, kTolerance);
}

TEST(ChrfTest, EmptyHypothesisOrReferenceScoresZero) {
  EXPECT_EQ(sentence_chrf("", {"the cat"}), 0.0);
  EXPECT_EQ(sentence_chrf("the cat", {""}), 0.0);
  EXPECT_EQ(sentence_chrf("the cat", {}), 0.0);
}

TEST(ChrfTest, HandWorkedUnigramScore) {
  // P = 2/2, R = 2/3: F2 = 5 * 1 * (2/3) / (4 * 1 + 2/3) = 10/14.
  EXPECT_NEAR(sentence_chrf("ab", {"abc"}, unigrams_only()), 10.0 / 14.0, kTolerance);
}

TEST(ChrfTest, AveragesOnlyOrdersBothSidesHave) {
  // Orders 1 and 2 only: P = (1 + 1) / 2, R = (2/3 + 1/2) / 2 = 7/12;
  // F2 = 5 * 7/12 / (4 + 7/12) = 35/55. sacreBLEU: CHRF().sentence_score("ab", ["abc"])
  EXPECT_NEAR(sentence_chrf("ab", {"abc"}), 35.0 / 55.0, kTolerance);
}

TEST(ChrfTest, EpsSmoothingAveragesAllOrders) {
  ChrfOptions eps;
  eps.eps_smoothing = true;
  // sacreBLEU: CHRF(eps_smoothing=True).sentence_score("ab", ["abc"]).score / 100
  EXPECT_NEAR(sentence_chrf("ab", {"abc"}, eps), 0.2116402116402116, kTolerance);
}

TEST(ChrfTest, CountsCodePointsNotBytes) {
  EXPECT_NEAR(sentence_chrf("日本", {"日本語"}, unigrams_only()), 10.0 / 14.0, kTolerance);
  const std::vector<double> stats = chrf_statistics("日本", {"日本語"}, unigrams_only());
  EXPECT_EQ(stats, (std::vector<double>{2, 3, 2}));
}

TEST(ChrfTest, MixesAsciiAndMultibyteCharacters) {
  // sacreBLEU: CHRF().sentence_score("nße", ["ne"]).score / 100
  EXPECT_NEAR(sentence_chrf("nße", {"ne"}), 0.45454545454545453, kTolerance);
}

TEST(ChrfTest, IllFormedUtf8BytesCountAsOneCharacterEach) {
  // As Python reads them with errors="surrogateescape": "\xe2\x82" is two characters.
  const std::vector<double> stats = chrf_statistics("ab\xff\xe2\x82", {"ab\xff"}, unigrams_only());
  EXPECT_EQ(stats, (std::vector<double>{5, 3, 3}));
}

TEST(ChrfTest, IgnoresWhitespaceUnlessAsked) {
  EXPECT_NEAR(sentence_chrf("a b\u3000c", {"abc"}), 1.0, kTolerance);
  ChrfOptions whitespace;
  whitespace.whitespace = true;
  EXPECT_LT(sentence_chrf("a b c", {"abc"}, whitespace), 1.0);
}

TEST(ChrfTest, MatchesSacrebleuOnASentence) {
  const std::string hyp = "The quick brown fox jumps over the lazy dog.";
  const std::vector<std::string> refs = {"A quick brown fox jumped over a lazy dog."};
  // sacreBLEU: CHRF().sentence_score(hyp, refs).score / 100
  EXPECT_NEAR(sentence_chrf(hyp, refs), 0.6951105260588242, kTolerance);
  // sacreBLEU: CHRF(word_order=2).sentence_score(hyp, refs).score / 100
  EXPECT_NEAR(sentence_chrf(hyp, refs, chrf_plus_plus()), 0.6645512433759234, kTolerance);
}

TEST(ChrfTest, ChrfPlusPlusSplitsOnePunctuationMarkFromWordEdges) {
  // "hello!" becomes "hello" "!", as "hello !" is split.
  EXPECT_NEAR(sentence_chrf("hello!", {"hello !"}, chrf_plus_plus()), 1.0, kTolerance);
  // "(hi)" becomes "(hi" ")" only (sacreBLEU issue #124), unlike "( hi )".
  // sacreBLEU: CHRF(word_order=2).sentence_score("(hi) there", ["( hi ) there"]).score / 100
  EXPECT_NEAR(sentence_chrf("(hi) there", {"( hi ) there"}, chrf_plus_plus()), 0.8621870109546166,
              kTolerance);
}

TEST(ChrfTest, KeepsStatisticsOfBestReference) {
  const std::vector<std::string> refs = {"completely different", "the cat sat"};
  EXPECT_NEAR(sentence_chrf("the cat sat", refs), 1.0, kTolerance);
  EXPECT_EQ(chrf_statistics("the cat sat", refs), chrf_statistics("the cat sat", {refs[1]}));
}

TEST(ChrfTest, StatisticsHaveThreeNumbersPerOrder) {
  EXPECT_EQ(chrf_statistics("abc", {"abc"}).size(), 18u);
  EXPECT_EQ(chrf_statistics("abc", {"abc"}, chrf_plus_plus()).size(), 24u);
}

TEST(ChrfTest, LowercaseOptionIgnoresCase) {
  ChrfOptions lowercase;
  lowercase.lowercase = true;
  EXPECT_NEAR(sentence_chrf("ÉCOLE Normale", {"école normale"}, lowercase), 1.0, kTolerance);
  EXPECT_LT(sentence_chrf("ÉCOLE Normale", {"école normale"}), 1.0);
}

TEST(ChrfTest, CorpusChrfSumsStatisticsBeforeScoring) {
  const std::vector<std::string> hyps = {"hello world", "the cat sat on the mat"};
  const std::vector<std::vector<std::string>> refs = {{"hello there world"},
                                                      {"a cat sat on the mat"}};
  // sacreBLEU: CHRF().corpus_score(hyps, [["hello there world", "a cat sat on the mat"]])
  EXPECT_NEAR(corpus_chrf(hyps, refs), 0.659550722390548, kTolerance);

  std::vector<double> sums = chrf_statistics(hyps[0], refs[0]);
  const std::vector<double> second = chrf_statistics(hyps[1], refs[1]);
  for (std::size_t k = 0; k < sums.size(); ++k) sums[k] += second[k];
  EXPECT_EQ(chrf_from_statistics(sums), corpus_chrf(hyps, refs));
}

}  // namespace
}  // namespace ragmeter
