// ICU's word break and word key alone, without the Latin fast path (latin_words.h): what
// the fast path derives its tables from, and what its tests compare it with. Behaviour as
// split_words_into and append_word_key in include/ragmeter/words.h.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ragmeter {

// ICU's BreakIterator word instance over `text`, its word segments appended to `*words`
// (cleared first).
void icu_split_words_into(std::string_view text, std::vector<std::string_view>* words);

// `word` in ICU's "nfkc_cf" form, appended to `*out`; ASCII is lowercased byte by byte.
void icu_append_word_key(std::string_view word, std::string* out);

}  // namespace ragmeter
