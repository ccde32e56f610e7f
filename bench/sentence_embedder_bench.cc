// Throughput of the local sentence embedder (all-MiniLM-L6-v2) on 2 threads, as a share of
// the machine's matrix-multiply peak measured in the same process with the same BLAS
// (OpenBLAS sgemm, one thread per call, two calls at once), and the memory of the loaded
// model (resident set growth).
//
//   build/bench/sentence_embedder_bench [MODEL_DIR]   (default: the installed model)
//
// Texts: the questions of tests/data/halueval_qa_one_turn.jsonl (short, about 16 ids) and
// its knowledge paragraphs joined and cut at 200 ids (long; 128 of them). Each set is
// embedded in batches of 256 distinct texts, best of 3 runs. FLOPs counted per text of n ids: per layer
// 2 n (384 * 1152 + 384 * 384 + 2 * 384 * 1536) for the dense layers and 4 n^2 384 for the
// attention scores and context; multiplications and additions each count one.
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "process_memory.h"
#include "ragmeter/sentence_embedder.h"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

using ragmeter::bench::rss_kib;

// GFLOP/s of `threads` concurrent single-threaded sgemm calls of m x k times k x n, each
// repeated for about `budget` seconds; best of 3.
double sgemm_gflops(int m, int n, int k, int threads, double budget) {
  double best = 0;
  for (int round = 0; round < 3; ++round) {
    std::vector<double> flops(threads, 0.0);
    const auto start = Clock::now();
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        std::vector<float> a(static_cast<std::size_t>(m) * k, 0.5f), b(static_cast<std::size_t>(k) * n, 0.25f),
            c(static_cast<std::size_t>(m) * n, 0.0f);
        const auto begin = Clock::now();
        while (seconds_since(begin) < budget) {
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, m, n, k, 1.0f, a.data(), k, b.data(), k, 0.0f,
                      c.data(), n);
          flops[t] += 2.0 * m * n * k;
        }
      });
    }
    for (auto& thread : pool) thread.join();
    double total = 0;
    for (double f : flops) total += f;
    best = std::max(best, total / seconds_since(start) / 1e9);
  }
  return best;
}

double model_flops(std::size_t n) {
  const double dense = 2.0 * n * (384.0 * 1152 + 384.0 * 384 + 2 * 384.0 * 1536);
  const double attention = 4.0 * n * n * 384;
  return 6 * (dense + attention);
}

struct Run {
  double sentences_per_second = 0;
  double gflops = 0;
  double mean_ids = 0;
};

Run measure(const ragmeter::SentenceEmbedder& embedder, const std::vector<std::string>& texts) {
  double flops = 0, ids = 0;
  for (const auto& text : texts) {
    const std::size_t n = embedder.token_ids(text).size();
    flops += model_flops(n);
    ids += static_cast<double>(n);
  }
  constexpr std::size_t kBatch = 256;
  double best = 1e300;
  for (int round = 0; round < 3; ++round) {
    const auto start = Clock::now();
    for (std::size_t i = 0; i < texts.size(); i += kBatch) {
      std::vector<std::string> batch(texts.begin() + static_cast<std::ptrdiff_t>(i),
                                     texts.begin() + static_cast<std::ptrdiff_t>(std::min(texts.size(), i + kBatch)));
      auto vectors = embedder.embed(batch);
      if (vectors.size() != batch.size()) std::abort();
    }
    best = std::min(best, seconds_since(start));
  }
  Run run;
  run.sentences_per_second = static_cast<double>(texts.size()) / best;
  run.gflops = flops / best / 1e9;
  run.mean_ids = ids / static_cast<double>(texts.size());
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string data = std::string(RAGMETER_BENCH_SOURCE_DIR) + "/tests/data/halueval_qa_one_turn.jsonl";
  std::vector<std::string> questions, knowledge;
  std::ifstream in(data);
  std::string line;
  while (std::getline(in, line)) {
    const auto row = nlohmann::json::parse(line);
    questions.push_back(row["question"].get<std::string>());
    knowledge.push_back(row["knowledge"].get<std::string>());
  }
  if (questions.empty()) {
    std::cerr << "cannot read " << data << "\n";
    return 1;
  }

  const long rss_before = rss_kib();
  ragmeter::SentenceEmbedderOptions options;
  if (argc > 1) options.model_path = argv[1];
  options.threads = 2;
  const auto load_start = Clock::now();
  auto loaded = ragmeter::SentenceEmbedder::load(options);
  if (!loaded.ok()) {
    std::cerr << loaded.status().to_string() << "\n";
    return 1;
  }
  const double load_seconds = seconds_since(load_start);
  const long rss_loaded = rss_kib();
  const auto& embedder = **loaded;

  // Long texts: knowledge paragraphs joined, cut at about 200 ids (a word boundary).
  std::vector<std::string> long_texts;
  for (std::size_t i = 0; i < 128; ++i) {
    std::istringstream words(knowledge[i] + " " + knowledge[(i + 1) % knowledge.size()] + " " +
                             knowledge[(i + 2) % knowledge.size()] + " " + knowledge[(i + 3) % knowledge.size()]);
    std::string text, word;
    while (words >> word) {
      const std::string next = text.empty() ? word : text + " " + word;
      if (embedder.token_ids(next).size() > 200) break;
      text = next;
    }
    long_texts.push_back(text);
  }

  const Run short_run = measure(embedder, questions);
  const Run long_run = measure(embedder, long_texts);
  const long rss_used = rss_kib();
  const double peak_square = sgemm_gflops(1024, 1024, 1024, 2, 0.5);
  const double peak_model = sgemm_gflops(4096, 1536, 384, 2, 0.5);

  std::printf("model: %s (loaded in %.3f s)\n", embedder.identity().c_str(), load_seconds);
  std::printf("memory: RSS %.1f MiB before load, %.1f MiB after load (+%.1f), %.1f MiB after the runs (+%.1f)\n",
              rss_before / 1024.0, rss_loaded / 1024.0, (rss_loaded - rss_before) / 1024.0, rss_used / 1024.0,
              (rss_used - rss_before) / 1024.0);
  std::printf("sgemm peak, 2 threads: %.1f GFLOP/s (1024^3), %.1f GFLOP/s (4096x384 by 384x1536, the FFN shape)\n",
              peak_square, peak_model);
  for (const auto& [name, run] : {std::pair<const char*, Run>{"short", short_run}, {"long", long_run}}) {
    std::printf("%-5s texts: %zu texts, %.1f ids each: %.0f sentences/s, %.1f GFLOP/s = %.0f%% of the 1024^3 peak\n",
                name, name[0] == 's' ? questions.size() : long_texts.size(), run.mean_ids,
                run.sentences_per_second, run.gflops, 100 * run.gflops / peak_square);
  }
  return 0;
}
