// Oracle probe for BLEU and chrF: reads one JSON request a line on stdin and writes one
// JSON answer a line on stdout, for tests/oracle/test_bleu_chrf.py to compare with
// sacreBLEU.
//
// Requests ("options" is optional; keys as sacreBLEU's arguments):
//   {"metric": "sentence_bleu" | "sentence_chrf", "hyp": "...", "refs": ["...", ...]}
//   {"metric": "corpus_bleu" | "corpus_chrf", "hyps": ["..."], "refs": [["refs of hyp 0"], ...]}
//   {"metric": "tokenize_13a", "text": "..."}
//   {"metric": "tokenize_bleu", "text": "...", "tokenize": "zh"}: the tokens BLEU counts
//   BLEU options: smooth_method ("none", "floor", "add-k", "exp"), smooth_value,
//     tokenize (sacreBLEU's names: "13a", "none", "zh", "intl", "char", "ja-mecab",
//     "ko-mecab"), lowercase, effective_order (corpus only).
//   chrF options: char_order, word_order, beta, lowercase, whitespace, eps_smoothing.
// Answers: {"value": <0..1 score>}, {"tokens": "..."} or {"error": "..."}.
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "ragmeter/bleu.h"
#include "ragmeter/chrf.h"

#include "json_lines_probe.h"

namespace {

using nlohmann::json;

ragmeter::BleuSmoothing parse_smoothing(const std::string& name) {
  if (name == "none") return ragmeter::BleuSmoothing::kNone;
  if (name == "floor") return ragmeter::BleuSmoothing::kFloor;
  if (name == "add-k") return ragmeter::BleuSmoothing::kAddK;
  if (name == "exp") return ragmeter::BleuSmoothing::kExp;
  throw std::invalid_argument("unknown smooth_method: " + name);
}

// The tokenizer named `name`, ready to use (MeCab's dictionary loaded); throws otherwise.
ragmeter::BleuTokenizer parse_tokenizer(const std::string& name) {
  const auto tokenizer = ragmeter::parse_bleu_tokenizer(name);
  if (!tokenizer.ok()) throw std::invalid_argument(tokenizer.status().message());
  const ragmeter::Status ready = ragmeter::prepare_bleu_tokenizer(*tokenizer);
  if (!ready.ok()) throw std::runtime_error(ready.message());
  return *tokenizer;
}

ragmeter::BleuOptions parse_bleu_options(const json& o) {
  ragmeter::BleuOptions options;
  options.smoothing = parse_smoothing(o.value("smooth_method", std::string("exp")));
  if (o.contains("smooth_value") && !o["smooth_value"].is_null()) {
    options.smooth_value = o["smooth_value"].get<double>();
  }
  options.tokenizer = parse_tokenizer(o.value("tokenize", std::string("13a")));
  options.lowercase = o.value("lowercase", false);
  options.effective_order = o.value("effective_order", false);
  return options;
}

ragmeter::ChrfOptions parse_chrf_options(const json& o) {
  ragmeter::ChrfOptions options;
  options.char_order = o.value("char_order", options.char_order);
  options.word_order = o.value("word_order", options.word_order);
  options.beta = o.value("beta", options.beta);
  options.lowercase = o.value("lowercase", false);
  options.whitespace = o.value("whitespace", false);
  options.eps_smoothing = o.value("eps_smoothing", false);
  return options;
}

json answer(const json& request) {
  const std::string metric = request.at("metric").get<std::string>();
  const json options = request.value("options", json::object());
  if (metric == "tokenize_13a") {
    return {{"tokens", ragmeter::tokenize_13a(request.at("text").get<std::string>())}};
  }
  if (metric == "tokenize_bleu") {
    const auto tokenizer = parse_tokenizer(request.at("tokenize").get<std::string>());
    return {{"tokens", ragmeter::tokenize_bleu_segment(request.at("text").get<std::string>(),
                                                       tokenizer)}};
  }
  if (metric == "sentence_bleu" || metric == "sentence_chrf") {
    const auto hyp = request.at("hyp").get<std::string>();
    const auto refs = request.at("refs").get<std::vector<std::string>>();
    const double value = metric == "sentence_bleu"
                             ? ragmeter::sentence_bleu(hyp, refs, parse_bleu_options(options))
                             : ragmeter::sentence_chrf(hyp, refs, parse_chrf_options(options));
    return {{"value", value}};
  }
  if (metric == "corpus_bleu" || metric == "corpus_chrf") {
    const auto hyps = request.at("hyps").get<std::vector<std::string>>();
    const auto refs = request.at("refs").get<std::vector<std::vector<std::string>>>();
    const double value = metric == "corpus_bleu"
                             ? ragmeter::corpus_bleu(hyps, refs, parse_bleu_options(options))
                             : ragmeter::corpus_chrf(hyps, refs, parse_chrf_options(options));
    return {{"value", value}};
  }
  throw std::invalid_argument("unknown metric: " + metric);
}

}  // namespace

int main() { return ragmeter::probes::serve_json_lines(answer); }
