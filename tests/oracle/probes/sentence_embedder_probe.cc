// Oracle probe for the local sentence embedder: loads the model directory named by argv[1],
// then reads one JSON request a line on stdin and writes one JSON answer a line, for
// tests/oracle/test_sentence_embedder.py and bench/sentence_embedder_reference.py.
//   {"texts": ["...", ...]}  -> {"vectors": [[384 floats], ...], "ids": [[...], ...]}
//   (the ids are the truncated token ids each text was encoded from, its prefix included);
//   {"texts": [...], "ids_only": true} -> {"ids": [[...], ...]} (the tokenizer alone).
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/sentence_embedder.h"

#include "json_lines_probe.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: sentence_embedder_probe MODEL_DIR\n";
    return 2;
  }
  ragmeter::SentenceEmbedderOptions options;
  options.model_path = argv[1];
  auto embedder = ragmeter::SentenceEmbedder::load(options);
  if (!embedder.ok()) {
    std::cerr << embedder.status().to_string() << "\n";
    return 1;
  }
  const auto& model = **embedder;
  return ragmeter::probes::serve_json_lines([&](const nlohmann::json& request) {
    const auto texts = request.at("texts").get<std::vector<std::string>>();
    nlohmann::json ids = nlohmann::json::array();
    for (const auto& text : texts) ids.push_back(model.token_ids(text));
    if (request.value("ids_only", false)) return nlohmann::json{{"ids", std::move(ids)}};
    return nlohmann::json{{"vectors", model.embed(texts)}, {"ids", std::move(ids)}};
  });
}
