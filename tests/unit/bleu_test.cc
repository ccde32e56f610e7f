// BLEU and the 13a tokenizer. Values marked "sacreBLEU" were computed with sacrebleu 2.6
// in /root/.cache/ragmeter/venv, with the Python call quoted next to them; the others
// are worked by hand.
#include "ragmeter/bleu.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace ragmeter {
namespace {

constexpr double kTolerance = 1e-12;

// Statistic layout: [sys_len, ref_len, matches_1..4, totals_1..4].
constexpr int kRefLen = 1;
constexpr int kMatches1 = 2;
constexpr int kTotals1 = 6;

BleuOptions with_smoothing(BleuSmoothing smoothing) {
  BleuOptions options;
  options.smoothing = smoothing;
  return options;
}

TEST(BleuTest, PerfectMatchScoresOne) {
  EXPECT_NEAR(sentence_bleu("the cat sat on the mat", {"the cat sat on the mat"}), 1.0, kTolerance);
}

// sacreBLEU gives 100.00000000000004 for this pair (exp of the mean log of 100): a score
// above BLEU's range, which the result writers refuse. The perfect match is exactly 1.
TEST(BleuTest, APerfectMatchIsExactlyOneNotOneUlpAbove) {
  EXPECT_EQ(sentence_bleu("the 23rd Summer Deaflympics", {"the 23rd Summer Deaflympics"}), 1.0);
  EXPECT_EQ(corpus_bleu({"the 23rd Summer Deaflympics"}, {{"the 23rd Summer Deaflympics"}}), 1.0);
}

TEST(BleuTest, NoSharedWordScoresZero) {
  EXPECT_EQ(sentence_bleu("alpha beta gamma delta", {"one two three four"}), 0.0);
}

TEST(BleuTest, EmptyHypothesisScoresZero) {
  EXPECT_EQ(sentence_bleu("", {"the cat"}), 0.0);
  EXPECT_EQ(sentence_bleu("the cat", {""}), 0.0);
}

TEST(BleuTest, HandWorkedExampleAppliesBrevityPenalty) {
  // 6 hypothesis tokens against 7: precisions 6/6, 4/5, 3/4, 2/3; BP = exp(1 - 7/6).
  const double expected = std::exp(1.0 - 7.0 / 6.0) * std::pow(1.0 * 0.8 * 0.75 * (2.0 / 3), 0.25);
  EXPECT_NEAR(sentence_bleu("the cat sat on the mat", {"the cat sat on the red mat"}), expected,
              kTolerance);
}

TEST(BleuTest, StatisticsCountClippedMatchesAndTotals) {
  const std::vector<double> stats =
      bleu_statistics("the cat sat on the mat", {"the cat sat on the red mat"});
  EXPECT_EQ(stats, (std::vector<double>{6, 7, 6, 4, 3, 2, 6, 5, 4, 3}));
}

TEST(BleuTest, MultipleReferencesClipByHighestCount) {
  // "the" occurs 3 times; one reference has it twice, so 2 of the 3 match.
  const std::vector<double> stats = bleu_statistics("the the the", {"the cat", "the the dog"});
  EXPECT_EQ(stats[kMatches1], 2);
  EXPECT_EQ(stats[kTotals1], 3);
}

TEST(BleuTest, ClosestReferenceLengthPrefersShorterOnTie) {
  EXPECT_EQ(bleu_statistics("a b c d e", {"a b c d e f", "a b c d"})[kRefLen], 4);
  EXPECT_EQ(bleu_statistics("a b c d e", {"a b", "a b c d e f g"})[kRefLen], 7);
}

TEST(BleuTest, NoReferencesGiveZeroReferenceLength) {
  EXPECT_EQ(bleu_statistics("a b", {})[kRefLen], 0);
  EXPECT_EQ(sentence_bleu("a b", {}), 0.0);
}

TEST(BleuTest, SmoothingMethodsMatchSacrebleu) {
  const std::string hyp = "The quick brown fox jumps over the lazy dog.";
  const std::vector<std::string> refs = {"A quick brown fox jumped over a lazy dog."};
  // sacreBLEU: BLEU(effective_order=True, smooth_method=m).sentence_score(hyp, refs).score / 100
  EXPECT_NEAR(sentence_bleu(hyp, refs, with_smoothing(BleuSmoothing::kExp)), 0.2730120862709067,
              kTolerance);
  EXPECT_NEAR(sentence_bleu(hyp, refs, with_smoothing(BleuSmoothing::kFloor)), 0.18257418583505533,
              kTolerance);
  EXPECT_NEAR(sentence_bleu(hyp, refs, with_smoothing(BleuSmoothing::kAddK)), 0.3475075148610632,
              kTolerance);
  EXPECT_EQ(sentence_bleu(hyp, refs, with_smoothing(BleuSmoothing::kNone)), 0.0);
}

TEST(BleuTest, ExtraReferenceMatchesSacrebleu) {
  // sacreBLEU: BLEU(effective_order=True).sentence_score(hyp, refs).score / 100
  EXPECT_NEAR(sentence_bleu("The quick brown fox jumps over the lazy dog.",
                            {"A quick brown fox jumped over a lazy dog.",
                             "The fast brown fox leaps over the lazy dog ."}),
              0.5410822690539397, kTolerance);
}

TEST(BleuTest, SentenceBleuUsesEffectiveOrderForShortSegments) {
  EXPECT_NEAR(sentence_bleu("hello world", {"hello world"}), 1.0, kTolerance);
  // Without effective order, the missing 3- and 4-grams floor the score to 0.
  // sacreBLEU: BLEU().corpus_score(["hello world"], [["hello world"]]).score == 0
  EXPECT_EQ(corpus_bleu({"hello world"}, {{"hello world"}}), 0.0);
}

TEST(BleuTest, CorpusBleuSumsStatisticsBeforeScoring) {
  const std::vector<std::string> hyps = {"hello world", "the cat sat on the mat"};
  const std::vector<std::vector<std::string>> refs = {{"hello world"}, {"the cat sat on a mat"}};
  // sacreBLEU: BLEU().corpus_score(hyps, [["hello world", "the cat sat on a mat"]]).score / 100
  EXPECT_NEAR(corpus_bleu(hyps, refs), 0.5583948264724183, kTolerance);

  std::vector<double> sums(kBleuStatCount, 0.0);
  for (std::size_t i = 0; i < hyps.size(); ++i) {
    const std::vector<double> stats = bleu_statistics(hyps[i], refs[i]);
    for (int k = 0; k < kBleuStatCount; ++k) sums[k] += stats[k];
  }
  EXPECT_EQ(bleu_from_statistics(sums), corpus_bleu(hyps, refs));
}

TEST(BleuTest, LowercaseOptionIgnoresCase) {
  BleuOptions lowercase;
  lowercase.lowercase = true;
  EXPECT_NEAR(sentence_bleu("The CAT Sat", {"the cat sat"}, lowercase), 1.0, kTolerance);
  EXPECT_LT(sentence_bleu("The CAT Sat", {"the cat sat"}), 0.5);
  EXPECT_NEAR(sentence_bleu("ÉCOLE ΣΟΦΟΣ", {"école σοφος"}, lowercase), 1.0, kTolerance);
}

TEST(BleuTest, NoneTokenizerKeepsPunctuationAttached) {
  BleuOptions none;
  none.tokenizer = BleuTokenizer::kNone;
  EXPECT_EQ(bleu_statistics("the cat.", {"the cat ."}, none)[kMatches1], 1);
  EXPECT_EQ(bleu_statistics("the cat.", {"the cat ."})[kMatches1], 3);
}

TEST(BleuTest, UnicodeWhitespaceSeparatesTokens) {
  // U+00A0 and U+3000 are whitespace to Python's str.split(); U+200B is not.
  EXPECT_EQ(bleu_statistics("a\u00a0b\u3000c", {"a b c"})[kMatches1], 3);
  EXPECT_EQ(bleu_statistics("a\u200bb", {"a b"})[0], 1);
}

TEST(Tokenize13aTest, SeparatesSymbolsAndKeepsNumbersWhole) {
  EXPECT_EQ(tokenize_13a("Hello, world! It costs $3.50 (approx.)"),
            "Hello , world ! It costs $ 3.50 ( approx . )");
  EXPECT_EQ(tokenize_13a("1,000 people in 1990-2000"), "1,000 people in 1990 - 2000");
  EXPECT_EQ(tokenize_13a("e-mail don't"), "e-mail don't");
}

TEST(Tokenize13aTest, FollowsNonOverlappingRegexMatching) {
  // Python: Tokenizer13a()(...) gives these: the second regex consumes the '.' it
  // matches, so the next '.' is only split by the third regex.
  EXPECT_EQ(tokenize_13a("a..b"), "a . . b");
  EXPECT_EQ(tokenize_13a("1.,2"), "1 . , 2");
  EXPECT_EQ(tokenize_13a("..5"), ". .5");
}

TEST(Tokenize13aTest, UnescapesEntitiesInSacrebleuOrder) {
  EXPECT_EQ(tokenize_13a("&quot;hi&quot; &amp; &lt;b&gt;"), "\" hi \" & < b >");
  EXPECT_EQ(tokenize_13a("&amp;lt;"), "<");           // &amp; is replaced before &lt;
  EXPECT_EQ(tokenize_13a("&amp;quot;"), "& quot ;");  // but after &quot;
}

TEST(Tokenize13aTest, HandlesLineBreaksAndSkippedMarker) {
  EXPECT_EQ(tokenize_13a("co-\noperate<skipped> now"), "cooperate now");
  EXPECT_EQ(tokenize_13a("two\nlines"), "two lines");
}

TEST(Tokenize13aTest, KeepsMultibyteCharactersInsideTokens) {
  EXPECT_EQ(tokenize_13a("naïve café, 東京!"), "naïve café , 東京 !");
  EXPECT_EQ(tokenize_13a("  spaced\u3000out\t"), "spaced out");
}

// BLEU's statistics come from a bit-parallel 13a tokenizer where the rules are local and
// from the byte-by-byte one elsewhere; tokenize_13a always uses the byte-by-byte one.
// Splitting its output on spaces must give the same n-grams, so the same statistics.
// Random texts over the characters the 13a rules treat specially, 1 to 600 bytes (up to
// ten 64-byte blocks) and a few over 2 KiB; each ends with a letter, since BLEU strips
// trailing space before tokenizing and tokenize_13a does not.
TEST(Tokenize13aTest, BleuTokensEqualTokenize13aOnRandomTexts) {
  const std::vector<std::string> pieces = {
      "a", "Zq", "word", "longerword", "0", "42", "3.14", "1,000", ".", ",", "-", "--",
      " ", " ", " ", "\t", "\n", "'", "\"", "$", "(", ")", "/", "&", ";", "<", ">",
      "&amp;", "&lt;", "<skipped>", "-\n", "\u00e9", "\u6771", "\u00a0", "\u2009",
      "\u3000", "\xc2", "\x1f"};
  std::mt19937 rng(13);
  BleuOptions none;
  none.tokenizer = BleuTokenizer::kNone;
  for (int c = 0; c < 4000; ++c) {
    const std::size_t target = c % 400 == 0 ? 2200 : 1 + rng() % 600;
    std::string texts[2];
    for (std::string& text : texts) {
      while (text.size() < target) text += pieces[rng() % pieces.size()];
      text += "x";
    }
    const std::vector<double> fast = bleu_statistics(texts[0], {texts[1]});
    const std::vector<double> scalar =
        bleu_statistics(tokenize_13a(texts[0]), {tokenize_13a(texts[1])}, none);
    ASSERT_EQ(fast, scalar) << "hypothesis: " << texts[0] << "\nreference: " << texts[1];
  }
}

}  // namespace
}  // namespace ragmeter
