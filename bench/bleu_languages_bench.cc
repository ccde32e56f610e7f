// Cost per character of sentence BLEU with sacreBLEU's language tokenizers (zh, ja-mecab,
// ko-mecab, intl, char), as ratios to the default 13a tokenizer on English.
//
// Two ratios per tokenizer, both in nanoseconds per character of hypothesis + reference:
//   own text / 13a English: the tokenizer on the language it is for (Chinese: OCNLI dev
//     pairs; Japanese: JNLI valid pairs; Korean: the sentences below) against 13a on
//     English pairs (HaluEval) -- the target: at most 2x;
//   on English / 13a English: the tokenizer's own cost on the same English pairs.
// Run from the repository root (it reads tests/data); ja-mecab and ko-mecab need the
// dictionaries of scripts/setup_mecab.sh:
//   ./build/bench/bleu_languages_bench --benchmark_min_time=0.5s
#include <benchmark/benchmark.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/bleu.h"

namespace {

struct Pair {
  std::string hypothesis;
  std::vector<std::string> references;
};

struct Corpus {
  std::vector<Pair> pairs;
  double characters = 0;  // code points of every hypothesis and reference
};

double code_points(const std::string& text) {
  double count = 0;
  for (char c : text) count += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return count;
}

Corpus corpus_of(std::vector<Pair> pairs) {
  Corpus corpus{std::move(pairs), 0};
  for (const Pair& pair : corpus.pairs) {
    corpus.characters += code_points(pair.hypothesis);
    for (const std::string& ref : pair.references) corpus.characters += code_points(ref);
  }
  return corpus;
}

std::vector<nlohmann::json> json_lines(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "bleu_languages_bench: cannot read %s (run from the repository root)\n",
                 path.c_str());
    std::exit(1);
  }
  std::vector<nlohmann::json> rows;
  for (std::string line; std::getline(in, line);) rows.push_back(nlohmann::json::parse(line));
  return rows;
}

// NLI pairs: the hypothesis against the premise.
Corpus nli(const std::string& path) {
  std::vector<Pair> pairs;
  for (const auto& row : json_lines(path)) {
    pairs.push_back({row["sentence2"], {row["sentence1"]}});
  }
  return corpus_of(std::move(pairs));
}

// HaluEval: the hallucinated answer and the question against the right answer and the
// question, sentences of about the NLI pairs' length in characters.
Corpus english() {
  std::vector<Pair> pairs;
  for (const auto& row : json_lines("tests/data/halueval_qa_one_turn.jsonl")) {
    const std::string question = row["question"];
    pairs.push_back({row["hallucinated_answer"].get<std::string>() + ". " + question,
                     {row["right_answer"].get<std::string>() + ". " + question}});
  }
  return corpus_of(std::move(pairs));
}

// Korean sentence pairs written for this benchmark (no Korean data set is in the
// repository); a paraphrase or a partial copy against its source.
Corpus korean() {
  return corpus_of({
      {"서울은 대한민국의 수도이며 가장 큰 도시이다.", {"대한민국의 수도는 서울이고, 서울은 가장 큰 도시입니다."}},
      {"한강은 서울을 동쪽에서 서쪽으로 가로질러 흐른다.", {"서울의 한가운데를 한강이 동서로 흐르고 있다."}},
      {"세종대왕은 1443년에 훈민정음을 만들었다.", {"훈민정음은 1443년 세종대왕이 창제한 문자이다."}},
      {"이 회사의 2023년 매출은 12.5% 증가한 4조 2천억 원이었다.", {"2023년에 회사 매출이 12.5퍼센트 늘어 4.2조 원을 기록했다."}},
      {"광합성은 빛 에너지를 화학 에너지로 바꾸는 과정이다.", {"식물은 광합성을 통해 햇빛의 에너지를 포도당에 저장한다."}},
      {"제주도는 한국에서 가장 큰 섬으로 화산 활동으로 만들어졌다.", {"화산섬인 제주도는 대한민국에서 제일 큰 섬이다."}},
      {"파이썬은 주로 참조 횟수로 메모리를 관리한다.", {"CPython은 참조 계수 방식으로 대부분의 객체를 해제한다."}},
      {"그 조약은 1919년 6월 28일 베르사유 궁전에서 서명되었다.", {"베르사유 조약은 1919년 6월 28일 거울의 방에서 체결되었다."}},
  });
}

const Corpus& corpus(const std::string& name) {
  static const std::map<std::string, Corpus> kCorpora = {
      {"english", english()},
      {"chinese", nli("tests/data/bleu_languages/ocnli_dev_sample.jsonl")},
      {"japanese", nli("tests/data/bleu_languages/jnli_valid_sample.jsonl")},
      {"korean", korean()},
  };
  return kCorpora.at(name);
}

void bleu_over(benchmark::State& state, ragmeter::BleuTokenizer tokenizer,
               const std::string& text) {
  if (const ragmeter::Status ready = ragmeter::prepare_bleu_tokenizer(tokenizer); !ready.ok()) {
    state.SkipWithError(ready.message().c_str());
    return;
  }
  const Corpus& c = corpus(text);
  ragmeter::BleuOptions options;
  options.tokenizer = tokenizer;
  for (auto _ : state) {
    for (const Pair& pair : c.pairs) {
      benchmark::DoNotOptimize(ragmeter::sentence_bleu(pair.hypothesis, pair.references, options));
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * c.characters));
  state.counters["ns_per_char"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * c.characters,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

using T = ragmeter::BleuTokenizer;
BENCHMARK_CAPTURE(bleu_over, 13a_english, T::k13a, "english");
BENCHMARK_CAPTURE(bleu_over, zh_english, T::kZh, "english");
BENCHMARK_CAPTURE(bleu_over, zh_chinese, T::kZh, "chinese");
BENCHMARK_CAPTURE(bleu_over, 13a_chinese, T::k13a, "chinese");
BENCHMARK_CAPTURE(bleu_over, intl_english, T::kIntl, "english");
BENCHMARK_CAPTURE(bleu_over, intl_chinese, T::kIntl, "chinese");
BENCHMARK_CAPTURE(bleu_over, char_english, T::kChar, "english");
BENCHMARK_CAPTURE(bleu_over, char_chinese, T::kChar, "chinese");
BENCHMARK_CAPTURE(bleu_over, ja_mecab_english, T::kJaMecab, "english");
BENCHMARK_CAPTURE(bleu_over, ja_mecab_japanese, T::kJaMecab, "japanese");
BENCHMARK_CAPTURE(bleu_over, ko_mecab_english, T::kKoMecab, "english");
BENCHMARK_CAPTURE(bleu_over, ko_mecab_korean, T::kKoMecab, "korean");

// Prints the runs as the console does, then each run's nanoseconds per character as a
// ratio to 13a on English.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred) continue;
      const auto it = run.counters.find("ns_per_char");
      if (it != run.counters.end()) ns_per_char_.emplace_back(run.benchmark_name(), it->second);
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    double base = 0;
    for (const auto& [name, ns] : ns_per_char_) {
      if (name.find("13a_english") != std::string::npos) base = ns;
    }
    if (base == 0) return;
    // The counter is seconds per character (a rate, inverted).
    std::printf("\nns per character (CPU time), and its ratio to 13a on English (%.2f ns):\n",
                base * 1e9);
    for (const auto& [name, seconds] : ns_per_char_) {
      std::printf("  %-40s %9.2f ns  %7.2fx\n", name.c_str(), seconds * 1e9, seconds / base);
    }
  }

 private:
  std::vector<std::pair<std::string, double>> ns_per_char_;
};

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
