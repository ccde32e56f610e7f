// sacreBLEU's language tokenizers other than 13a: zh, intl, char (rules on characters, in
// sacrebleu_tokenizers.cc) and ja-mecab, ko-mecab (MeCab, in mecab_tokenizer.cc). Internal
// to src/metrics: not part of the public API.
#pragma once

#include <string>
#include <string_view>

#include "metrics/ngram_matches.h"
#include "ragmeter/bleu.h"

namespace ragmeter::sacrebleu_internal {

// Appends the tokens of `segment` (already lowercased and right-stripped, as BLEU does)
// under zh, intl or char to `*tokens`: views of `segment`, which must outlive them.
void append_character_rule_tokens(std::string_view segment, BleuTokenizer tokenizer,
                                  NGramSequence* tokens);

// The same tokens joined by single spaces.
std::string join_character_rule_tokens(std::string_view segment, BleuTokenizer tokenizer);

// Whether `tokenizer` is zh, intl or char.
inline bool is_character_rule_tokenizer(BleuTokenizer tokenizer) {
  return tokenizer == BleuTokenizer::kZh || tokenizer == BleuTokenizer::kIntl ||
         tokenizer == BleuTokenizer::kChar;
}

}  // namespace ragmeter::sacrebleu_internal
