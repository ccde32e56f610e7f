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
  // Unicode-aware: lowercases with ICU case folding and splits on ICU word boundaries,
  // keeping letters and digits of every script (CJK characters count as one token each).
  kUnicode,
};

struct RougeOptions {
  bool use_stemmer = false;  // Porter stemmer as rouge-score's (NLTK), on tokens longer than 3
  RougeTokenizer tokenizer = RougeTokenizer::kDefault;
};

// Tokens as rouge-score produces them (exposed for tests).
std::vector<std::string> rouge_tokenize(std::string_view text, const RougeOptions& options = {});

// ROUGE-N (n >= 1) of `candidate` (prediction) against `reference` (target).
RougeScore rouge_n(std::string_view candidate, std::string_view reference, int n,
                   const RougeOptions& options = {});
// ROUGE-L: longest common subsequence over the whole text.
RougeScore rouge_l(std::string_view candidate, std::string_view reference,
                   const RougeOptions& options = {});
// ROUGE-Lsum: summary-level LCS with texts split into sentences on newlines, as rouge-score.
RougeScore rouge_lsum(std::string_view candidate, std::string_view reference,
                      const RougeOptions& options = {});

// The NLTK Porter stemmer (NLTK_EXTENSIONS mode) as rouge-score uses it (exposed for tests).
std::string porter_stem(std::string_view word);

}  // namespace ragmeter
