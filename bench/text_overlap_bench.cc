// Google Benchmark of the token-overlap metrics and of scoring a whole sample.
#include <benchmark/benchmark.h>

#include "ragmeter/evaluate.h"
#include "ragmeter/text_overlap.h"

namespace {

const std::string kResponse =
    "The Oberoi family is an Indian family that is famous for its involvement in hotels, "
    "namely through The Oberoi Group, whose head office is in Delhi.";
const std::string kReference =
    "The Oberoi Group is a hotel company with its head office in Delhi, owned by the Oberoi family.";

void BM_SquadTokenF1(benchmark::State& state) {
  std::vector<std::string> refs = {kReference};
  for (auto _ : state) benchmark::DoNotOptimize(ragmeter::squad_token_f1(kResponse, refs));
}
BENCHMARK(BM_SquadTokenF1);

void BM_KPrecision(benchmark::State& state) {
  std::vector<std::string> contexts = {kReference, kReference + " " + kResponse};
  for (auto _ : state) benchmark::DoNotOptimize(ragmeter::k_precision(kResponse, contexts));
}
BENCHMARK(BM_KPrecision);

// One sample through the adapters with the metrics of the streaming benchmark.
void BM_ScoreSampleBleuRougeLTokenF1(benchmark::State& state) {
  ragmeter::EvalOptions options;
  options.metrics = *ragmeter::parse_metric_list("bleu,rouge_l,token_f1");
  ragmeter::Sample sample;
  sample.response = kResponse;
  sample.set_reference(kReference);
  for (auto _ : state) benchmark::DoNotOptimize(ragmeter::score_sample(sample, options));
}
BENCHMARK(BM_ScoreSampleBleuRougeLTokenF1);

}  // namespace

BENCHMARK_MAIN();
