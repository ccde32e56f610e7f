// sacreBLEU's ja-mecab and ko-mecab tokenizers in a build without MeCab
// (RAGMETER_WITH_MECAB=OFF; docs/library.md, "Building without a dependency"): preparing
// them fails with the reason, so `--bleu-tokenize ja-mecab` is refused before scoring.
#include <stdexcept>

#include "metrics/mecab_tokenizer.h"

namespace ragmeter::sacrebleu_internal {
namespace {

constexpr const char* kWithout =
    "the ja-mecab and ko-mecab tokenizers need MeCab, which this ragmeter was built without "
    "(RAGMETER_WITH_MECAB=OFF)";

}  // namespace

Status prepare_mecab(MecabDictionary) { return failed_precondition(kWithout); }

void mecab_wakati(std::string_view, MecabDictionary, std::string*) {
  throw std::runtime_error(kWithout);
}

}  // namespace ragmeter::sacrebleu_internal
