// The CMRC 2018 scorer (Cui et al., "A Span-Extraction Dataset for Chinese Machine Reading
// Comprehension", EMNLP 2019), the one DRCD results are reported with too: its official
// evaluate script (cmrc2018_evaluate.py, v5) as a pair of metrics.
//
// Pure functions, thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ragmeter {

// The script's mixed_segmentation(text, rm_punc=True): the text lowercased and stripped;
// its punctuation list (- : _ * ^ / \ ~ ` + = and ，。：？！“”；’《》·、「」（）－～『』)
// removed; every character of U+4E00..U+9FA5 a token; the runs of other characters in
// between tokenized by NLTK's word_tokenize (its NLTKWordTokenizer rules, NLTK 3.10;
// without Punkt's sentence splitting, which only matters for a run holding two
// sentences).
std::vector<std::string> cmrc_segments(std::string_view text);

// CMRC 2018 F1: for each answer, L = the length of the longest common run of consecutive
// segments of answer and prediction (the script's find_lcs: a common substring, not a
// subsequence), precision L / |prediction|, recall L / |answer|, F1 their harmonic mean
// (0 when L = 0); the maximum over `answers`. 0 when `answers` is empty. On a 0..1 scale
// (the script reports x 100).
double cmrc_f1(std::string_view prediction, const std::vector<std::string>& answers);

// CMRC 2018 exact match: 1 when the prediction equals some answer after both are
// lowercased, stripped and cleared of the punctuation list above, else 0.
double cmrc_exact_match(std::string_view prediction, const std::vector<std::string>& answers);

}  // namespace ragmeter
