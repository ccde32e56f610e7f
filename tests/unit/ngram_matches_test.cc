// match_ngrams against a brute-force count: every n-gram of every sequence in a
// std::map keyed by its words, clipped counts summed as sacreBLEU sums them. Random
// sequences from a small vocabulary (so n-grams repeat), around the 64-unit steps of the
// bit-parallel path (one reference, up to 256 hypothesis units), with one to three
// references, and with long words whose keys are
// equal though the words differ (same length, first and last 8 bytes).
#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "metrics/ngram_matches.h"

namespace {

using ragmeter::sacrebleu_internal::append_word;
using ragmeter::sacrebleu_internal::match_ngrams;
using ragmeter::sacrebleu_internal::NGramMatches;
using ragmeter::sacrebleu_internal::NGramSequence;
using ragmeter::sacrebleu_internal::unit_key;

using Words = std::vector<std::string>;
using Counts = std::map<Words, int>;

Counts count_ngrams(const Words& words, int n) {
  Counts counts;
  for (std::size_t i = 0; i + n <= words.size(); ++i) {
    ++counts[Words(words.begin() + i, words.begin() + i + n)];
  }
  return counts;
}

// The expected NGramMatches, by definition.
NGramMatches brute_force(const Words& hyp, const std::vector<Words>& refs, int max_order) {
  NGramMatches expected;
  expected.max_order = max_order;
  expected.per_reference.assign(refs.size() * max_order, 0);
  expected.max_reference.assign(max_order, 0);
  for (int n = 1; n <= max_order; ++n) {
    const Counts hyp_counts = count_ngrams(hyp, n);
    std::map<Words, int> ref_max;
    for (std::size_t r = 0; r < refs.size(); ++r) {
      for (const auto& [ngram, count] : count_ngrams(refs[r], n)) {
        const auto in_hyp = hyp_counts.find(ngram);
        if (in_hyp != hyp_counts.end()) {
          expected.per_reference[r * max_order + n - 1] += std::min(count, in_hyp->second);
        }
        ref_max[ngram] = std::max(ref_max[ngram], count);
      }
    }
    for (const auto& [ngram, count] : hyp_counts) {
      const auto in_refs = ref_max.find(ngram);
      if (in_refs != ref_max.end()) expected.max_reference[n - 1] += std::min(count, in_refs->second);
    }
  }
  return expected;
}

NGramSequence sequence_of(const Words& words) {
  NGramSequence sequence;
  for (const std::string& word : words) append_word(word, &sequence);
  return sequence;
}

// Words that repeat often; the long ones share their length and first and last 8
// bytes, so only their middle byte tells them apart.
const std::vector<std::string> kVocabulary = {
    "a", "the", "of", "cat", "sat", "on", "mat", "seven77",
    "abcdefgh_X_ijklmnop", "abcdefgh_Y_ijklmnop", "abcdefgh_Z_ijklmnop", "eightchr", "eightchs"};

Words random_words(std::mt19937& rng, std::size_t length, std::size_t vocabulary) {
  std::uniform_int_distribution<std::size_t> pick(0, vocabulary - 1);
  Words words;
  for (std::size_t i = 0; i < length; ++i) words.push_back(kVocabulary[pick(rng)]);
  return words;
}

TEST(NGramMatchesTest, LongWordsWithEqualKeysAreStillDifferentWords) {
  ASSERT_EQ(unit_key(kVocabulary[8]), unit_key(kVocabulary[9]));
  const Words hyp = {kVocabulary[8], "x", kVocabulary[9]};
  const Words ref = {kVocabulary[9], "x", kVocabulary[10]};
  const NGramSequence hyp_sequence = sequence_of(hyp);
  const std::vector<NGramSequence> refs = {sequence_of(ref)};
  NGramMatches matches;
  match_ngrams(hyp_sequence, refs, 2, &matches);
  // Unigrams: "x" and kVocabulary[9]; no bigram, since "X...x" and "Y...x" differ.
  EXPECT_EQ(matches.max_reference, (std::vector<int>{2, 0}));
}

TEST(NGramMatchesTest, EqualsBruteForceCountsOnRandomSequences) {
  std::mt19937 rng(20261122);
  std::uniform_int_distribution<std::size_t> short_length(0, 80);
  std::uniform_int_distribution<std::size_t> long_length(0, 300);
  std::uniform_int_distribution<std::size_t> ref_count(1, 3);
  std::uniform_int_distribution<std::size_t> vocabulary(2, kVocabulary.size());
  int bit_path_cases = 0;
  int wide_bit_path_cases = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    auto& length = trial % 4 == 0 ? long_length : short_length;
    const std::size_t words = vocabulary(rng);
    const Words hyp = random_words(rng, length(rng), words);
    std::vector<Words> refs(ref_count(rng));
    for (Words& ref : refs) ref = random_words(rng, length(rng), words);
    const int max_order = 1 + trial % 6;
    const bool bit_path = refs.size() == 1 && hyp.size() <= 256;
    bit_path_cases += bit_path ? 1 : 0;
    wide_bit_path_cases += bit_path && hyp.size() > 128 ? 1 : 0;

    const NGramSequence hyp_sequence = sequence_of(hyp);
    std::vector<NGramSequence> ref_sequences;
    for (const Words& ref : refs) ref_sequences.push_back(sequence_of(ref));
    NGramMatches matches;
    match_ngrams(hyp_sequence, ref_sequences, max_order, &matches);

    const NGramMatches expected = brute_force(hyp, refs, max_order);
    ASSERT_EQ(matches.max_reference, expected.max_reference) << "trial " << trial;
    ASSERT_EQ(matches.per_reference, expected.per_reference) << "trial " << trial;
  }
  // Both paths are exercised, the bit path also with sets of 3 and 4 words.
  EXPECT_GT(bit_path_cases, 500);
  EXPECT_GT(wide_bit_path_cases, 50);
}

}  // namespace
