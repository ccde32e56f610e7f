// Timing of sentence BLEU, chrF, chrF++ and the 13a tokenizer on realistic sentence
// pairs (a RAG answer of 20-40 words against a reference answer).
//
// For comparison with sacreBLEU 2.6 on the same pairs (one core), time in Python:
//   BLEU(effective_order=True).sentence_score(hyp, [ref]), CHRF().sentence_score(...),
//   CHRF(word_order=2).sentence_score(...), Tokenizer13a()(line) (uncached: new strings).
#include <benchmark/benchmark.h>

#include <array>
#include <string>
#include <utility>
#include <vector>

#include "ragmeter/bleu.h"
#include "ragmeter/chrf.h"

namespace {

struct Pair {
  std::string hypothesis;
  std::vector<std::string> references;
};

const std::vector<Pair>& pairs() {
  static const std::vector<Pair> kPairs = {
      {"The Eiffel Tower, completed in 1889 for the World's Fair, is a wrought-iron lattice "
       "tower in Paris that was designed by the engineering company of Gustave Eiffel.",
       {"Completed in 1889, the Eiffel Tower is a wrought-iron lattice tower on the Champ de "
        "Mars in Paris, named after the engineer Gustave Eiffel, whose company designed it."}},
      {"Photosynthesis converts light energy into chemical energy: plants use sunlight, water "
       "and carbon dioxide to produce glucose and release oxygen as a by-product.",
       {"In photosynthesis, plants, algae and some bacteria use the energy of sunlight to turn "
        "water and carbon dioxide into glucose, releasing oxygen into the atmosphere."}},
      {"According to the report, revenue grew by 12.5% to $4.2 billion in 2023, driven mainly "
       "by strong demand for cloud services in Europe and North America.",
       {"The company's 2023 revenue rose 12.5 percent to 4.2 billion dollars, mostly because "
        "demand for its cloud services was strong in North America and Europe."}},
      {"Marie Curie was the first woman to win a Nobel Prize and remains the only person to "
       "have won Nobel Prizes in two different sciences, physics and chemistry.",
       {"Marie Curie, the first woman awarded a Nobel Prize, is still the only person honoured "
        "with Nobel Prizes in two separate scientific fields: physics (1903) and chemistry."}},
      {"The treaty was signed on 28 June 1919 in the Hall of Mirrors at Versailles, formally "
       "ending the state of war between Germany and the Allied Powers.",
       {"Signed in the Hall of Mirrors of the Palace of Versailles on June 28, 1919, the "
        "Treaty of Versailles officially ended the war between Germany and the Allies."}},
      {"Python's garbage collector relies mainly on reference counting, and a cyclic collector "
       "periodically finds groups of objects that refer to each other but are unreachable.",
       {"CPython frees most objects through reference counting; in addition, a generational "
        "cycle detector runs from time to time to reclaim unreachable reference cycles."}},
  };
  return kPairs;
}

void BM_SentenceBleu(benchmark::State& state) {
  std::size_t i = 0;
  for (auto _ : state) {
    const Pair& pair = pairs()[i++ % pairs().size()];
    benchmark::DoNotOptimize(ragmeter::sentence_bleu(pair.hypothesis, pair.references));
  }
}
BENCHMARK(BM_SentenceBleu);

void BM_SentenceChrf(benchmark::State& state) {
  ragmeter::ChrfOptions options;
  options.word_order = static_cast<int>(state.range(0));
  std::size_t i = 0;
  for (auto _ : state) {
    const Pair& pair = pairs()[i++ % pairs().size()];
    benchmark::DoNotOptimize(ragmeter::sentence_chrf(pair.hypothesis, pair.references, options));
  }
}
BENCHMARK(BM_SentenceChrf)->Arg(0)->Arg(2)->ArgName("word_order");

void BM_Tokenize13a(benchmark::State& state) {
  std::size_t i = 0;
  for (auto _ : state) {
    const Pair& pair = pairs()[i++ % pairs().size()];
    benchmark::DoNotOptimize(ragmeter::tokenize_13a(pair.hypothesis));
  }
}
BENCHMARK(BM_Tokenize13a);

void BM_CorpusBleu(benchmark::State& state) {
  std::vector<std::string> hypotheses;
  std::vector<std::vector<std::string>> references;
  for (const Pair& pair : pairs()) {
    hypotheses.push_back(pair.hypothesis);
    references.push_back(pair.references);
  }
  for (auto _ : state) {
    benchmark::DoNotOptimize(ragmeter::corpus_bleu(hypotheses, references));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(hypotheses.size()));
}
BENCHMARK(BM_CorpusBleu);

}  // namespace

BENCHMARK_MAIN();
