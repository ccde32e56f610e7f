// A fast path for ragmeter's words (include/ragmeter/words.h) over text written in the
// common characters of the Latin script: ASCII, the Latin-1 Supplement (U+0080-U+00FF:
// "äöüß", "éèç", "«»") and the General Punctuation block's spaces, dashes, quotes and
// dots (U+2000-U+203F: "„“", "–", "’", "…"). English, German, French, Spanish, Italian,
// Portuguese, Dutch and the Nordic languages are mostly written in them.
//
// It gives exactly what ICU gives: each covered character's class (letter, digit, a mark
// that joins letters and/or digits, or a break) is read from ICU once per process, from
// its Word_Break property and from how ICU's root word rules segment the character
// between two letters and between two digits (ICU leaves ':' out of UAX #29's MidLetter,
// for instance); a word's key is the concatenation of its characters' keys, each ICU's
// "nfkc_cf" of that character. A text with any other character (Latin Extended letters,
// combining marks, the soft hyphen, other scripts, an invalid UTF-8 sequence) is not
// covered: the caller uses ICU. tests/unit/latin_words_test.cc compares both on every
// covered character in context, on random strings and on real text.
//
// Why: ICU's iterator costs 10-12 ns a character on such text, about 3x the whole of
// SQuAD's token_f1 on English; this path costs about 1.5 ns (docs/languages.md,
// "Cost of ragmeter's words").
//
// Thread-safety: every function is thread-safe (the tables are built once, on first use).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ragmeter::latin_words {

// When every character of `text` is covered, sets `*words` to the word segments ICU's
// word break finds in it (views into `text`) and returns true. Otherwise returns false,
// and `*words` holds nothing useful.
bool split(std::string_view text, std::vector<std::string_view>* words);

// When every character of `word` is covered, appends its key (ICU's "nfkc_cf" of it) to
// `*out` and returns true. Otherwise returns false with `*out` unchanged.
bool append_key(std::string_view word, std::string* out);

// Whether `code_point` is covered (the tests walk the covered set with it).
bool covers(char32_t code_point);

}  // namespace ragmeter::latin_words
