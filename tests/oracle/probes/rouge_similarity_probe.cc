// Oracle probe for ROUGE, the Porter stemmer and string similarity, driven by
// tests/oracle/test_rouge_similarity.py: one JSON request per stdin line, one JSON result
// per stdout line, in order. Requests:
//   {"fn":"rouge","cand":..,"ref":..,"stem":bool,"tokenizer":"default"|"unicode"}
//       -> {"rouge1":[p,r,f],"rouge2":[..],"rougeL":[..],"rougeLsum":[..]}
//   {"fn":"rouge_n","n":N,...} / {"fn":"rouge_l",...} / {"fn":"rouge_lsum",...} -> [p,r,f]
//   {"fn":"rouge_tokenize","text":..,"stem":bool} -> ["token", ...]
//   {"fn":"porter_stem","word":..} -> "stem"
//   {"fn":"levenshtein_distance"|"levenshtein_similarity"|"jaro"|"jaro_winkler"|
//         "hamming_distance"|"hamming_similarity","a":..,"b":..[,"prefix_weight":w]} -> number
// A string field may instead be given as "<name>_hex" (hex bytes), for input that is not
// valid UTF-8 and so cannot travel in JSON. Errors answer {"error": message}.
#include <iostream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "ragmeter/rouge.h"
#include "ragmeter/string_similarity.h"

#include "json_lines_probe.h"

namespace {

using nlohmann::json;

std::string from_hex(const std::string& hex) {
  if (hex.size() % 2 != 0) throw std::invalid_argument("odd-length hex string");
  std::string bytes;
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    bytes.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  }
  return bytes;
}

std::string text_field(const json& request, const std::string& name) {
  if (request.contains(name + "_hex")) return from_hex(request.at(name + "_hex").get<std::string>());
  return request.at(name).get<std::string>();
}

json as_array(const ragmeter::RougeScore& score) {
  return json::array({score.precision, score.recall, score.fmeasure});
}

ragmeter::RougeOptions rouge_options(const json& request) {
  ragmeter::RougeOptions options;
  options.use_stemmer = request.value("stem", false);
  if (request.value("tokenizer", std::string("default")) == "unicode") {
    options.tokenizer = ragmeter::RougeTokenizer::kUnicode;
  }
  return options;
}

json rouge_answer(const std::string& fn, const json& request) {
  const std::string cand = text_field(request, "cand");
  const std::string ref = text_field(request, "ref");
  const ragmeter::RougeOptions options = rouge_options(request);
  if (fn == "rouge_n") return as_array(ragmeter::rouge_n(cand, ref, request.at("n").get<int>(), options));
  if (fn == "rouge_l") return as_array(ragmeter::rouge_l(cand, ref, options));
  if (fn == "rouge_lsum") return as_array(ragmeter::rouge_lsum(cand, ref, options));
  return json{{"rouge1", as_array(ragmeter::rouge_n(cand, ref, 1, options))},
              {"rouge2", as_array(ragmeter::rouge_n(cand, ref, 2, options))},
              {"rougeL", as_array(ragmeter::rouge_l(cand, ref, options))},
              {"rougeLsum", as_array(ragmeter::rouge_lsum(cand, ref, options))}};
}

json similarity_answer(const std::string& fn, const json& request) {
  const std::string a = text_field(request, "a");
  const std::string b = text_field(request, "b");
  if (fn == "levenshtein_distance") return ragmeter::levenshtein_distance(a, b);
  if (fn == "levenshtein_similarity") return ragmeter::levenshtein_similarity(a, b);
  if (fn == "jaro") return ragmeter::jaro_similarity(a, b);
  if (fn == "jaro_winkler") {
    return ragmeter::jaro_winkler_similarity(a, b, request.value("prefix_weight", 0.1));
  }
  if (fn == "hamming_distance") return ragmeter::hamming_distance(a, b);
  if (fn == "hamming_similarity") return ragmeter::hamming_similarity(a, b);
  throw std::invalid_argument("unknown fn: " + fn);
}

json answer(const json& request) {
  const std::string fn = request.at("fn").get<std::string>();
  if (fn == "rouge" || fn == "rouge_n" || fn == "rouge_l" || fn == "rouge_lsum") {
    return rouge_answer(fn, request);
  }
  if (fn == "rouge_tokenize") {
    return ragmeter::rouge_tokenize(text_field(request, "text"), rouge_options(request));
  }
  if (fn == "porter_stem") return ragmeter::porter_stem(text_field(request, "word"));
  return similarity_answer(fn, request);
}

}  // namespace

int main() { return ragmeter::probes::serve_json_lines(answer); }
