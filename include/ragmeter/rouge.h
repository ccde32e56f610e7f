// ROUGE-N, ROUGE-L and ROUGE-Lsum, equal to Google's rouge-score package (Lin, 2004).
//
// Pure functions, thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ragmeter {

struct RougeScore {
  double precision = 0.0;
  double recall = 0.0;
  double fmeasure = 0.0;
};

enum class RougeTokenizer {
  // rouge-score's default: lowercase, every character outside [a-z0-9] is a separator.
  // Drops all non-ASCII text (a CJK answer scores 0), as rouge-score does.
  kDefault,
  // Unicode-aware (not in rouge-score): ICU full case folding (so "Straße" matches
  // "STRASSE"), then ICU word boundaries; a word is kept if it has a letter or digit of any
  // script, and every ideograph (UCHAR_IDEOGRAPHIC: Han, etc.) is a token of its own, the
  // rest of the word (kana, Latin, ...) staying in runs. Words keep inner punctuation
  // ("don't", "3.14"). With use_stemmer, only words of ASCII letters and digits are stemmed.
  kUnicode,
};

struct RougeOptions {
  bool use_stemmer = false;  // Porter stemmer as rouge-score's (NLTK), on tokens longer than 3
  RougeTokenizer tokenizer = RougeTokenizer::kDefault;
};

// Tokens as rouge-score produces them (exposed for tests).
std::vector<std::string> rouge_tokenize(std::string_view text, const RougeOptions& options = {});

// ROUGE-N (n >= 1) of `candidate` (prediction) against `reference` (target): clipped
// n-gram overlap over max(#n-grams, 1), so a text with fewer than n tokens scores 0.
// Throws std::invalid_argument for n < 1 (rouge-score raises ValueError).
RougeScore rouge_n(std::string_view candidate, std::string_view reference, int n,
                   const RougeOptions& options = {});
// ROUGE-L: longest common subsequence over the whole text; 0 if either has no tokens.
RougeScore rouge_l(std::string_view candidate, std::string_view reference,
                   const RougeOptions& options = {});
// ROUGE-Lsum: summary-level LCS with texts split into sentences on '\n' (empty lines
// dropped), as rouge-score's _summary_level_lcs: per reference sentence the union of its
// LCS with each candidate sentence, each token occurrence counted once.
RougeScore rouge_lsum(std::string_view candidate, std::string_view reference,
                      const RougeOptions& options = {});

// What rouge-score's default tokenizer throws away of a response and its reference: empty
// when it keeps every letter and digit of both (or options.tokenizer is kUnicode); else a
// note for the user, the same for the same situation so that notes can be counted: which
// text lost letters, whether all of them (then the score is computed on nothing of that
// text), the script of the first lost letter (ICU's name: "Han", "Hangul", "Latin"...),
// and that the unicode tokenizer (--rouge-tokenizer unicode) keeps every script.
// Thread-safe.
std::string rouge_dropped_letters_note(std::string_view response, std::string_view reference,
                                       const RougeOptions& options = {});

// The NLTK Porter stemmer (NLTK_EXTENSIONS mode) as rouge-score uses it (exposed for tests).
// Equal to NLTK's PorterStemmer().stem(word) for ASCII words; ASCII capitals are
// lowercased, other bytes are treated as consonants.
std::string porter_stem(std::string_view word);

}  // namespace ragmeter
