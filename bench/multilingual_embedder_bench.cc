// Cost per text of the multilingual embedder (multilingual-e5-small, 12 layers, "query: "
// prefix, XLM-R ids) against the English one (all-MiniLM-L6-v2, 6 layers) on the same texts,
// in one process, 2 threads each, as a ratio. Also the ids per text of each model, their load
// time and the resident memory each adds.
//
//   build/bench/multilingual_embedder_bench [ENGLISH_DIR MULTILINGUAL_DIR]   (default: installed)
//
// Texts: the first 128 questions and knowledge paragraphs (cut at 80 words) of
// tests/data/halueval_qa_one_turn.jsonl (English), and 128 OCNLI and 128 JNLI sentences of
// tests/data/embedder_zh_ja_sentences.jsonl (Chinese, Japanese). Each set is embedded in one
// batch, best of 3 runs, after one warm-up batch; the two models alternate run by run, so a
// change of the machine's load falls on both.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "process_memory.h"
#include "ragmeter/sentence_embedder.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

using ragmeter::bench::rss_kib;

std::vector<nlohmann::json> read_rows(const std::string& name) {
  std::ifstream in(std::string(RAGMETER_BENCH_SOURCE_DIR) + "/tests/data/" + name);
  std::vector<nlohmann::json> rows;
  std::string line;
  while (std::getline(in, line)) rows.push_back(nlohmann::json::parse(line));
  return rows;
}

std::string first_words(const std::string& text, int count) {
  std::istringstream words(text);
  std::string out, word;
  for (int i = 0; i < count && words >> word; ++i) out += (out.empty() ? "" : " ") + word;
  return out;
}

double mean_ids(const ragmeter::SentenceEmbedder& embedder, const std::vector<std::string>& texts) {
  double ids = 0;
  for (const auto& text : texts) ids += static_cast<double>(embedder.token_ids(text).size());
  return ids / static_cast<double>(texts.size());
}

// Best of 3 seconds per text of each model, the two alternating.
std::pair<double, double> seconds_per_text(const ragmeter::SentenceEmbedder& a, const ragmeter::SentenceEmbedder& b,
                                           const std::vector<std::string>& texts) {
  const std::vector<std::string> warm(texts.begin(), texts.begin() + std::min<std::size_t>(texts.size(), 8));
  a.embed(warm);
  b.embed(warm);
  double best_a = 1e300, best_b = 1e300;
  for (int round = 0; round < 3; ++round) {
    for (auto [model, best] : {std::pair{&a, &best_a}, std::pair{&b, &best_b}}) {
      const auto start = Clock::now();
      if (model->embed(texts).size() != texts.size()) std::abort();
      *best = std::min(*best, seconds_since(start));
    }
  }
  const auto n = static_cast<double>(texts.size());
  return {best_a / n, best_b / n};
}

std::shared_ptr<const ragmeter::SentenceEmbedder> load(const std::string& path, const char* what) {
  ragmeter::SentenceEmbedderOptions options;
  options.model_path = path;
  options.threads = 2;
  const long before = rss_kib();
  const auto start = Clock::now();
  auto loaded = ragmeter::SentenceEmbedder::load(options);
  if (!loaded.ok()) {
    std::cerr << loaded.status().to_string() << "\n";
    std::exit(1);
  }
  std::printf("%s: %s, loaded in %.2f s, +%.1f MiB resident\n", what, (*loaded)->identity().c_str(),
              seconds_since(start), (rss_kib() - before) / 1024.0);
  std::fflush(stdout);
  return *loaded;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string english_dir = argc > 2 ? argv[1] : ragmeter::default_embedder_model_path();
  const std::string multilingual_dir = argc > 2 ? argv[2] : ragmeter::default_multilingual_embedder_model_path();
  std::vector<std::string> english, knowledge, chinese, japanese;
  constexpr std::size_t kTexts = 128;
  for (const auto& row : read_rows("halueval_qa_one_turn.jsonl")) {
    if (english.size() == kTexts) break;
    english.push_back(row["question"].get<std::string>());
    knowledge.push_back(first_words(row["knowledge"].get<std::string>(), 80));
  }
  for (const auto& row : read_rows("embedder_zh_ja_sentences.jsonl")) {
    auto& set = row["language"] == "zh" ? chinese : japanese;
    if (set.size() < kTexts) set.push_back(row["sentence1"].get<std::string>());
  }
  if (english.empty() || chinese.empty()) {
    std::cerr << "cannot read tests/data\n";
    return 1;
  }
  const auto en_model = load(english_dir, "English");
  const auto ml_model = load(multilingual_dir, "multilingual");
  std::printf("%-28s %6s %10s %10s %12s %12s %7s\n", "texts", "count", "ids (en)", "ids (ml)", "ms/text (en)",
              "ms/text (ml)", "ratio");
  for (const auto& [name, texts] : {std::pair<const char*, const std::vector<std::string>*>{"English questions", &english},
                                    {"English paragraphs (80 words)", &knowledge},
                                    {"Chinese sentences (OCNLI)", &chinese},
                                    {"Japanese sentences (JNLI)", &japanese}}) {
    const double en_ids = mean_ids(*en_model, *texts), ml_ids = mean_ids(*ml_model, *texts);
    const auto [en_seconds, ml_seconds] = seconds_per_text(*en_model, *ml_model, *texts);
    std::printf("%-28s %6zu %10.1f %10.1f %12.3f %12.3f %6.2fx\n", name, texts->size(), en_ids, ml_ids,
                1e3 * en_seconds, 1e3 * ml_seconds, ml_seconds / en_seconds);
    std::fflush(stdout);
  }
  return 0;
}
