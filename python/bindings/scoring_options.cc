// Scoring option names (scoring_options.h).
#include "scoring_options.h"

#include "status_errors.h"

namespace ragmeter::python {

BleuSmoothing bleu_smoothing_named(const std::string& name) {
  if (name == "exp") return BleuSmoothing::kExp;
  if (name == "floor") return BleuSmoothing::kFloor;
  if (name == "add-k") return BleuSmoothing::kAddK;
  if (name == "none") return BleuSmoothing::kNone;
  raise_status(invalid_argument("bleu_smoothing: '" + name + "' is not one of exp, floor, add-k, none"));
}

BleuTokenizer bleu_tokenizer_named(const std::string& name) {
  StatusOr<BleuTokenizer> tokenizer = parse_bleu_tokenizer(name);
  if (!tokenizer.ok()) raise_status(invalid_argument("bleu_tokenize: " + tokenizer.status().message()));
  // ja-mecab and ko-mecab: a missing MeCab dictionary is raised now, not a `failed` per row.
  if (Status ready = prepare_bleu_tokenizer(*tokenizer); !ready.ok()) raise_status(ready);
  return *tokenizer;
}

RougeTokenizer rouge_tokenizer_named(const std::string& name) {
  if (name == "default") return RougeTokenizer::kDefault;
  if (name == "unicode") return RougeTokenizer::kUnicode;
  raise_status(invalid_argument("rouge_tokenizer: '" + name + "' is not one of default, unicode"));
}

}  // namespace ragmeter::python
