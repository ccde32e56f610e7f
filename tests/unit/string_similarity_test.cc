// String similarity: expected values are hand-checked and equal rapidfuzz 3.10's, e.g.
//   rapidfuzz.distance.JaroWinkler.similarity("martha", "marhta") == 0.9611111111111111.
#include "ragmeter/string_similarity.h"

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace ragmeter {
namespace {

// Textbook O(|a| |b|) dynamic programme on bytes, to check the bit-parallel algorithm.
std::size_t reference_levenshtein(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

TEST(StringSimilarityLevenshtein, CountsUnitCostEdits) {
  EXPECT_EQ(levenshtein_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(levenshtein_distance("", "abc"), 3u);
  EXPECT_EQ(levenshtein_distance("abc", "abc"), 0u);
  EXPECT_DOUBLE_EQ(levenshtein_similarity("kitten", "sitting"), 1.0 - 3.0 / 7.0);
}

TEST(StringSimilarityLevenshtein, TwoEmptyStringsAreIdentical) {
  EXPECT_DOUBLE_EQ(levenshtein_similarity("", ""), 1.0);
  EXPECT_DOUBLE_EQ(levenshtein_similarity("", "a"), 0.0);
}

TEST(StringSimilarityLevenshtein, ComparesCodePointsNotBytes) {
  EXPECT_EQ(levenshtein_distance("café", "cafe"), 1u);
  EXPECT_EQ(levenshtein_distance("😀", "😃"), 1u);
  EXPECT_DOUBLE_EQ(levenshtein_similarity("東京", "東北"), 0.5);
}

TEST(StringSimilarityLevenshtein, MatchesDynamicProgrammingAcrossBlockBoundaries) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> letter(0, 3);
  for (std::size_t length : {1u, 63u, 64u, 65u, 127u, 128u, 129u, 300u}) {
    for (int trial = 0; trial < 20; ++trial) {
      std::string a;
      std::string b;
      for (std::size_t i = 0; i < length; ++i) a += static_cast<char>('a' + letter(rng));
      for (std::size_t i = 0; i < length + trial; ++i) b += static_cast<char>('a' + letter(rng));
      EXPECT_EQ(levenshtein_distance(a, b), reference_levenshtein(a, b)) << a << " / " << b;
    }
  }
}

struct JaroCase {
  const char* a;
  const char* b;
  double jaro;
  double jaro_winkler;
};

// Winkler's classic name pairs, and a pair with seven common leading characters of which
// only four count: 11/12 + 4 * 0.1 * (1/12) = 0.95.
constexpr JaroCase kJaroCases[] = {
    {"martha", "marhta", 0.9444444444444445, 0.9611111111111111},
    {"dwayne", "duane", 0.8222222222222223, 0.8400000000000001},
    {"dixon", "dicksonx", 0.7666666666666666, 0.8133333333333332},
    {"abcdefgh", "abcdefgx", 0.9166666666666666, 0.95},
};

TEST(StringSimilarityJaro, MatchesClassicExamples) {
  for (const JaroCase& c : kJaroCases) EXPECT_DOUBLE_EQ(jaro_similarity(c.a, c.b), c.jaro) << c.a;
}

TEST(StringSimilarityJaro, HandlesEmptyAndSingleCharacterStrings) {
  EXPECT_DOUBLE_EQ(jaro_similarity("", ""), 1.0);
  EXPECT_DOUBLE_EQ(jaro_similarity("", "a"), 0.0);
  EXPECT_DOUBLE_EQ(jaro_similarity("a", "a"), 1.0);
  EXPECT_DOUBLE_EQ(jaro_similarity("a", "b"), 0.0);
  // The match window of two-character strings is 0: "ab" and "ba" share no aligned match.
  EXPECT_DOUBLE_EQ(jaro_similarity("ab", "ba"), 0.0);
}

TEST(StringSimilarityJaroWinkler, BoostsSharedPrefixOfAtMostFourCharacters) {
  for (const JaroCase& c : kJaroCases) {
    EXPECT_DOUBLE_EQ(jaro_winkler_similarity(c.a, c.b), c.jaro_winkler) << c.a;
  }
}

TEST(StringSimilarityJaroWinkler, NoBoostAtOrBelowJaroOfSevenTenths) {
  EXPECT_DOUBLE_EQ(jaro_winkler_similarity("abcdefgh", "abcdxyzw"), 0.6666666666666666);
  EXPECT_DOUBLE_EQ(jaro_winkler_similarity("abcdefgh", "abcdxyzw"), jaro_similarity("abcdefgh", "abcdxyzw"));
}

TEST(StringSimilarityJaroWinkler, PrefixWeightScalesTheBoostAndMustBeAFraction) {
  EXPECT_DOUBLE_EQ(jaro_winkler_similarity("martha", "marhta", 0.0), jaro_similarity("martha", "marhta"));
  EXPECT_THROW(jaro_winkler_similarity("a", "b", 1.5), std::invalid_argument);
  EXPECT_THROW(jaro_winkler_similarity("a", "b", -0.1), std::invalid_argument);
}

TEST(StringSimilarityHamming, PadsTheShorterString) {
  EXPECT_EQ(hamming_distance("karolin", "kathrin"), 3u);
  EXPECT_EQ(hamming_distance("abc", "abcde"), 2u);
  EXPECT_DOUBLE_EQ(hamming_similarity("abc", "abcde"), 0.6);
  EXPECT_DOUBLE_EQ(hamming_similarity("", ""), 1.0);
  EXPECT_EQ(hamming_distance("né", "ne"), 1u);
}

TEST(StringSimilarityInvalidUtf8, EachInvalidByteIsOneUnitEqualOnlyToItself) {
  EXPECT_EQ(levenshtein_distance("\xff", "\xff"), 0u);
  EXPECT_EQ(levenshtein_distance("\xff", "\xfe"), 1u);
  // A stray byte 0xFF is not U+00FF ("ÿ"), and a truncated "é" is one unit, not "é".
  EXPECT_EQ(levenshtein_distance("\xff", "ÿ"), 1u);
  EXPECT_EQ(levenshtein_distance("caf\xc3", "café"), 1u);
  // An encoded surrogate (ED A0 80) is three invalid bytes.
  EXPECT_EQ(hamming_distance("\xed\xa0\x80", "abc"), 3u);
}

}  // namespace
}  // namespace ragmeter
