// Oracle probe for the WordPiece tokenizer: loads the tokenizer.json named by argv[1],
// then reads one JSON request a line on stdin and writes one JSON answer a line, for
// tests/oracle/test_wordpiece_tokenizer.py to compare with the `tokenizers` package.
//   {"text": "...", "max_length": N}   (max_length optional, 0: no truncation)
//   -> {"ids": [101, ..., 102]} or {"error": "..."}
//   {"texts": ["...", ...], "max_length": N}  -> {"ids": [[...], ...]}
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "embed/wordpiece_tokenizer.h"

#include "json_lines_probe.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: wordpiece_probe TOKENIZER_JSON\n";
    return 2;
  }
  auto tokenizer = ragmeter::WordPieceTokenizer::load(argv[1]);
  if (!tokenizer.ok()) {
    std::cerr << tokenizer.status().to_string() << "\n";
    return 1;
  }
  return ragmeter::probes::serve_json_lines([&](const nlohmann::json& request) {
    const auto max_length = request.value("max_length", std::size_t{0});
    if (request.contains("texts")) {
      nlohmann::json ids = nlohmann::json::array();
      for (const auto& text : request["texts"]) {
        ids.push_back(tokenizer->encode(text.get<std::string>(), max_length));
      }
      return nlohmann::json{{"ids", std::move(ids)}};
    }
    const std::string text = request.at("text").get<std::string>();
    return nlohmann::json{{"ids", tokenizer->encode(text, max_length)}};
  });
}
