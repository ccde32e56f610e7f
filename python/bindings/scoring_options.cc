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
  if (name == "13a") return BleuTokenizer::k13a;
  if (name == "none") return BleuTokenizer::kNone;
  raise_status(invalid_argument("bleu_tokenize: '" + name + "' is not one of 13a, none"));
}

RougeTokenizer rouge_tokenizer_named(const std::string& name) {
  if (name == "default") return RougeTokenizer::kDefault;
  if (name == "unicode") return RougeTokenizer::kUnicode;
  raise_status(invalid_argument("rouge_tokenizer: '" + name + "' is not one of default, unicode"));
}

}  // namespace ragmeter::python
