// The scoring options by the names the CLI's flags use (--bleu-smoothing exp, ...), for
// the keyword arguments of the Python API. Unknown names raise InvalidArgumentError.
#pragma once

#include <string>

#include "ragmeter/bleu.h"
#include "ragmeter/chrf.h"
#include "ragmeter/rouge.h"

namespace ragmeter::python {

// "exp" (sacreBLEU's default), "floor", "add-k", "none".
BleuSmoothing bleu_smoothing_named(const std::string& name);
// "13a" (sacreBLEU's default) or "none".
BleuTokenizer bleu_tokenizer_named(const std::string& name);
// "default" (rouge-score's) or "unicode".
RougeTokenizer rouge_tokenizer_named(const std::string& name);

}  // namespace ragmeter::python
