// Benchmarks of ROUGE and string similarity on realistic inputs: a sentence pair of
// 20-40 words and a passage pair of 100 words, the candidate a paraphrase-like edit of
// the reference (about one word in five replaced, some dropped or repeated).
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <benchmark/benchmark.h>

#include "ragmeter/rouge.h"
#include "ragmeter/string_similarity.h"

namespace {

constexpr std::string_view kWords[] = {
    "the", "of", "and", "to", "in", "was", "is", "for", "on", "as", "with", "by", "he", "at",
    "from", "his", "an", "were", "are", "which", "this", "also", "be", "has", "or", "had",
    "first", "one", "their", "its", "new", "after", "who", "they", "two", "her", "she",
    "been", "other", "when", "time", "during", "there", "into", "school", "more", "years",
    "American", "film", "city", "world", "national", "known", "university", "series",
    "released", "album", "American", "team", "played", "season", "group", "company",
    "founded", "located", "population", "district", "county", "television", "magazine",
    "published", "directed", "starring", "character", "novel", "author", "singer", "band",
    "football", "league", "president", "government", "river", "village", "century",
    "Philadelphia", "England", "1991", "2004", "born", "March", "musician", "songs",
    "various", "culture", "topics", "videos", "posted", "named", "after", "middle",
    "animated", "created", "voiced", "featured", "fictional", "headquartered", "running",
};

std::string make_text(std::mt19937& rng, int words) {
  std::uniform_int_distribution<std::size_t> pick(0, std::size(kWords) - 1);
  std::string text;
  for (int i = 0; i < words; ++i) {
    if (i > 0) text += (i % 12 == 0) ? ". " : " ";
    text += kWords[pick(rng)];
  }
  return text + ".";
}

// The reference with about one word in five replaced and one in twenty dropped.
std::string paraphrase(std::mt19937& rng, const std::string& reference) {
  std::uniform_int_distribution<std::size_t> pick(0, std::size(kWords) - 1);
  std::uniform_int_distribution<int> roll(0, 19);
  std::string out;
  std::size_t start = 0;
  while (start < reference.size()) {
    std::size_t end = reference.find(' ', start);
    if (end == std::string::npos) end = reference.size();
    int r = roll(rng);
    std::string word = r < 4 ? std::string(kWords[pick(rng)]) : reference.substr(start, end - start);
    if (r != 4) out += (out.empty() ? "" : " ") + word;
    start = end + 1;
  }
  return out;
}

// range(0) == 0: a sentence pair of 20-40 words; 1: a passage pair of 100 words.
std::pair<std::string, std::string> make_pair(int kind) {
  std::mt19937 rng(kind == 0 ? 11 : 29);
  std::string reference = make_text(rng, kind == 0 ? 32 : 100);
  return {paraphrase(rng, reference), reference};
}

// Newline-separated sentences, as ROUGE-Lsum expects.
std::string one_sentence_per_line(std::string text) {
  for (std::size_t i = 0; i + 1 < text.size(); ++i) {
    if (text[i] == '.' && text[i + 1] == ' ') text[i + 1] = '\n';
  }
  return text;
}

// Times `score(candidate, reference)`; range(0) picks the input size (see make_pair).
template <typename Score>
void run_on_pair(benchmark::State& state, Score score, bool sentence_per_line = false) {
  auto [cand, ref] = make_pair(static_cast<int>(state.range(0)));
  if (sentence_per_line) {
    cand = one_sentence_per_line(cand);
    ref = one_sentence_per_line(ref);
  }
  for (auto _ : state) benchmark::DoNotOptimize(score(cand, ref));
  state.SetLabel(state.range(0) == 0 ? "sentence" : "passage");
}

void BM_RougeL(benchmark::State& state) {
  run_on_pair(state, [](const std::string& c, const std::string& r) { return ragmeter::rouge_l(c, r); });
}
BENCHMARK(BM_RougeL)->Arg(0)->Arg(1);

void BM_RougeLStemmed(benchmark::State& state) {
  ragmeter::RougeOptions options;
  options.use_stemmer = true;
  run_on_pair(state, [&](const std::string& c, const std::string& r) {
    return ragmeter::rouge_l(c, r, options);
  });
}
BENCHMARK(BM_RougeLStemmed)->Arg(0)->Arg(1);

void BM_Rouge2(benchmark::State& state) {
  run_on_pair(state, [](const std::string& c, const std::string& r) { return ragmeter::rouge_n(c, r, 2); });
}
BENCHMARK(BM_Rouge2)->Arg(0)->Arg(1);

void BM_RougeLsum(benchmark::State& state) {
  run_on_pair(
      state, [](const std::string& c, const std::string& r) { return ragmeter::rouge_lsum(c, r); },
      /*sentence_per_line=*/true);
}
BENCHMARK(BM_RougeLsum)->Arg(0)->Arg(1);

void BM_LevenshteinSimilarity(benchmark::State& state) {
  run_on_pair(state, [](const std::string& c, const std::string& r) {
    return ragmeter::levenshtein_similarity(c, r);
  });
}
BENCHMARK(BM_LevenshteinSimilarity)->Arg(0)->Arg(1);

void BM_JaroWinklerSimilarity(benchmark::State& state) {
  run_on_pair(state, [](const std::string& c, const std::string& r) {
    return ragmeter::jaro_winkler_similarity(c, r);
  });
}
BENCHMARK(BM_JaroWinklerSimilarity)->Arg(0)->Arg(1);

// Short strings (names, short answers): the single-word Myers path.
void BM_LevenshteinShort(benchmark::State& state) {
  for (auto _ : state) {
    benchmark::DoNotOptimize(ragmeter::levenshtein_similarity("President Richard Nixon",
                                                              "President Richard M. Nixon"));
  }
}
BENCHMARK(BM_LevenshteinShort);

}  // namespace

BENCHMARK_MAIN();
