// The scoring loop alone, on pairs already in memory: the counterpart of how
// bench/compare_references.py times the Python references (their scoring loop, no file
// reading or JSON parsing). Not a Google Benchmark: one timed pass, as the reference gets.
//
//   scoring_loop_bench PAIRS.jsonl METRIC
// PAIRS.jsonl: {"response": ..., "reference": ...} per line. METRIC: bleu, chrf, rouge_l,
// rouge2, levenshtein_similarity or jaro_winkler_similarity. Prints one JSON line:
// {"metric", "pairs", "seconds", "sum"} (the sum of the scores, 0..1 scale, so the
// caller can check both sides scored the same thing).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/bleu.h"
#include "ragmeter/chrf.h"
#include "ragmeter/rouge.h"
#include "ragmeter/string_similarity.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: scoring_loop_bench PAIRS.jsonl METRIC\n";
    return 2;
  }
  using Score = std::function<double(const std::string&, const std::vector<std::string>&)>;
  const std::map<std::string, Score> metrics = {
      {"bleu", [](const std::string& h, const std::vector<std::string>& r) { return ragmeter::sentence_bleu(h, r); }},
      {"chrf", [](const std::string& h, const std::vector<std::string>& r) { return ragmeter::sentence_chrf(h, r); }},
      {"rouge_l", [](const std::string& h, const std::vector<std::string>& r) { return ragmeter::rouge_l(h, r[0]).fmeasure; }},
      {"rouge2", [](const std::string& h, const std::vector<std::string>& r) { return ragmeter::rouge_n(h, r[0], 2).fmeasure; }},
      {"levenshtein_similarity",
       [](const std::string& h, const std::vector<std::string>& r) { return ragmeter::levenshtein_similarity(h, r[0]); }},
      {"jaro_winkler_similarity",
       [](const std::string& h, const std::vector<std::string>& r) { return ragmeter::jaro_winkler_similarity(h, r[0]); }},
  };
  auto metric = metrics.find(argv[2]);
  if (metric == metrics.end()) {
    std::cerr << "scoring_loop_bench: unknown metric " << argv[2] << "\n";
    return 2;
  }
  std::vector<std::pair<std::string, std::vector<std::string>>> pairs;
  std::ifstream in(argv[1]);
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json row = nlohmann::json::parse(line);
    pairs.emplace_back(row["response"].get<std::string>(),
                       std::vector<std::string>{row["reference"].get<std::string>()});
  }
  double sum = 0.0;
  const auto start = std::chrono::steady_clock::now();
  for (const auto& [hypothesis, references] : pairs) sum += metric->second(hypothesis, references);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << nlohmann::json({{"metric", argv[2]}, {"pairs", pairs.size()}, {"seconds", seconds}, {"sum", sum}}).dump()
            << "\n";
  return 0;
}
