// Words by ICU's word break, and the normal form ragmeter compares them in.
//
// split_words is ICU's BreakIterator word instance (root locale), which segments text
// written without spaces with ICU's dictionaries: Chinese and Japanese (one dictionary
// for Han and kana), Thai, Lao, Khmer and Burmese. Text with spaces is split at UAX #29
// word boundaries: "don't", "3.5" and "1,000" stay whole, "state-of-the-art" is four
// words. Only words are returned: spaces, punctuation and symbols are not. Text written
// only in ASCII, Latin-1 and the General Punctuation block (most English, German, French,
// Spanish, ...) takes a table-driven path that gives ICU's words and keys exactly, at a
// fraction of the iterator's cost (src/core/latin_words.h).
//
// The words a metric counts are compared in word_key's form: NFKC with case folding
// (ICU's Normalizer2 "nfkc_cf"), so full-width "ＡＢＣ１２３" and "abc123" are one word,
// as are "Straße" and "STRASSE".
//
// Thread-safety: every function is thread-safe. Each thread keeps its own ICU
// BreakIterator, created on its first call (creating one costs tens of microseconds; a
// call then costs only the text's own work); the normalizer is ICU's shared instance.
// Text is expected as valid UTF-8: an invalid sequence is read as U+FFFD, which is not
// a word character.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ragmeter {

// The words of `text` in order, as views into `text` (valid while it is): every segment
// of ICU's word break whose rule status is a word (letters, numbers, kana, ideographs),
// never spaces or punctuation. Empty for empty text or text without a word, and also if
// ICU cannot create its iterator (it never does in a normal install: its data is built
// into libicudata). Never throws.
std::vector<std::string_view> split_words(std::string_view text);

// The same, appended to `*words` (cleared first): for callers that reuse a buffer.
void split_words_into(std::string_view text, std::vector<std::string_view>* words);

// `text` in NFKC (compatibility composition: full-width letters and digits become
// ASCII, ligatures are spelled out, "①" becomes "1"). `text` itself when it is already
// in NFKC (all ASCII text is), or when ICU cannot normalise it. Never throws.
std::string nfkc(std::string_view text);

// The form a word is compared in: NFKC with Unicode case folding ("nfkc_cf"). ASCII
// words take a fast path (lowercased bytes), Latin-1 words a table of ICU's keys. Appends to `*out` (not cleared). Never throws.
void append_word_key(std::string_view word, std::string* out);

// The word keys of `text`: split_words, each word in append_word_key's form. Text is
// split before it is normalised, so the offsets of split_words stay those of `text`;
// characters that NFKC turns into several words (e.g. "㍻") stay one key.
std::vector<std::string> word_keys(std::string_view text);

}  // namespace ragmeter
