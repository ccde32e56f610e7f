// Pieces of the offline judge's tokenizer shared by its files: the English tokenizer
// (claim_segmenter.cc), the tokenizer of the other languages (offline_words.cc) and the
// rule tables (offline_language.h). Internal to src/judge/.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "judge/offline/offline_language.h"
#include "ragmeter/offline_judge.h"

namespace ragmeter {

// The rules for `code` (find_offline_language), English for a code it does not cover:
// the functions of offline_judge.h never fail, and fill_ledger_offline refuses an
// uncovered language before any of them is called.
const OfflineLanguage& offline_language_or_english(std::string_view code);

// The tokens of `text` under `language`'s rules: offline-v3's English tokenizer for
// English, tokenize_words for the others.
std::vector<OfflineToken> tokenize(std::string_view text, const OfflineLanguage& language);

// The tokens of `text` in a language other than English: ICU's words (words.h), NFKC
// case-folded, elided articles split off, numbers normalised (language's decimal mark;
// Chinese and Japanese numerals read by ICU's spell-out rules), a negating first
// character of a Chinese word split off, stopwords and negations marked, other words
// stemmed by the language's Snowball stemmer. Markers (marker_length) are skipped.
std::vector<OfflineToken> tokenize_words(std::string_view text, const OfflineLanguage& language);

// Length of a citation marker ("[1, 2]") or a list item's number ("1. " at a line's
// start) at text[i], else 0. offline_tokenize skips them (offline_judge.h).
std::size_t marker_length(std::string_view text, std::size_t i);

// Fills key and number for a token of ASCII digits, "," and "." (lowercased, ordinal
// suffix allowed) read with "," as the thousands separator; false when it is not a
// number ("3pm").
bool classify_number(const std::string& lower, OfflineToken* token);

// extract_claims and question_context_length (offline_judge.h) under `language`'s rules.
std::vector<std::string> extract_claims(std::string_view text, std::string_view question,
                                        const OfflineLanguage& language);
std::size_t question_context_length(std::string_view claim, const OfflineLanguage& language);

// `word` stemmed by libstemmer's `algorithm` (one stemmer per thread and algorithm);
// `word` itself when the algorithm is unknown.
std::string stem_with(std::string_view algorithm, const std::string& word);

}  // namespace ragmeter
