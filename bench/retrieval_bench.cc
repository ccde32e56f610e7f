// Benchmarks of the retrieval metrics and of trec_evaluate on generated rankings.
//
//   cmake --build <build> --target retrieval_bench && <build>/bench/retrieval_bench
#include <benchmark/benchmark.h>

#include <random>
#include <string>

#include "ragmeter/retrieval.h"
#include "ragmeter/trec.h"
#include "ragmeter/trec_eval.h"

namespace {

constexpr unsigned kSeed = 42;

// The measure families `ragmeter ir` printed by default before it took trec_eval's
// "official" set: the figures in docs/performance.md are for these.
const std::vector<std::string> kDefaultFamilies = {"map",    "Rprec", "recip_rank", "P",
                                                   "recall", "ndcg",  "ndcg_cut",   "success"};

struct Query {
  ragmeter::Ranking ranking;
  ragmeter::Judgements qrels;
};

// A ranking of `length` documents out of a pool twice as large; a tenth of the pool is
// judged, with graded levels 0..3.
Query make_query(int length, std::mt19937& rng) {
  Query query;
  std::uniform_int_distribution<int> pick(0, 2 * length - 1);
  std::uniform_int_distribution<int> level(0, 3);
  for (int i = 0; i < length; ++i) query.ranking.push_back("doc-" + std::to_string(pick(rng)));
  for (int i = 0; i < 2 * length; i += 10) query.qrels["doc-" + std::to_string(i)] = level(rng);
  return query;
}

// Arguments: ranking length, cutoff (0: the whole ranking).
void BM_NdcgAtK(benchmark::State& state) {
  std::mt19937 rng(kSeed);
  const Query query = make_query(static_cast<int>(state.range(0)), rng);
  const int k = static_cast<int>(state.range(1));
  for (auto _ : state) {
    benchmark::DoNotOptimize(ragmeter::ndcg_at_k(query.ranking, query.qrels, k));
  }
}
BENCHMARK(BM_NdcgAtK)->ArgsProduct({{100, 1000}, {10, 0}});

void BM_AveragePrecision(benchmark::State& state) {
  std::mt19937 rng(kSeed);
  const Query query = make_query(static_cast<int>(state.range(0)), rng);
  for (auto _ : state) {
    benchmark::DoNotOptimize(ragmeter::average_precision(query.ranking, query.qrels));
  }
}
BENCHMARK(BM_AveragePrecision)->Arg(100)->Arg(1000);

// trec_eval's default measures over 1000 queries of `range(0)` documents each.
void BM_TrecEvaluate(benchmark::State& state) {
  std::mt19937 rng(kSeed);
  ragmeter::Qrels qrels;
  ragmeter::Run run;
  for (int q = 0; q < 1000; ++q) {
    Query query = make_query(static_cast<int>(state.range(0)), rng);
    const std::string qid = "q" + std::to_string(q);
    run[qid] = std::move(query.ranking);
    qrels[qid] = std::move(query.qrels);
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        ragmeter::trec_evaluate(qrels, run, {.per_query = true, .measures = kDefaultFamilies}));
  }
  state.SetItemsProcessed(state.iterations() * 1000);
}
BENCHMARK(BM_TrecEvaluate)->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
