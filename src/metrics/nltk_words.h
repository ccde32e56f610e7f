// NLTK's word tokenizer (the rules of nltk.tokenize.destructive.NLTKWordTokenizer, NLTK
// 3.10, which word_tokenize applies to each sentence), for the CMRC 2018 scorer. Internal
// to src/metrics: not part of the public API.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ragmeter::nltk_internal {

// NLTKWordTokenizer().tokenize(text) on UTF-8 text (no sentence splitting, no
// parenthesis conversion). Thread-safe.
std::vector<std::string> nltk_word_tokenize(std::string_view text);

}  // namespace ragmeter::nltk_internal
