// Cost per character of the deterministic token metrics in Chinese, Japanese and German
// against English, and of telling a sample's language. The target (issue 33): text in
// another language costs at most 2x English per character.
//
// English is scored as `ragmeter eval` scores it (SQuAD's tokens), the other languages
// with ragmeter's words (ICU word break with its dictionaries, NFKC case folding). Texts
// are cut from real sentences of tests/data (HaluEval passages, OCNLI dev, JNLI valid;
// German: sentences written for this benchmark) to the same lengths in characters (code
// points): a 100-character response and a 400-character reference or context, so the
// per-call overhead weighs the same in every language. At the end the ratios to English
// are printed, per metric, and the cost of detecting a sample's languages relative to
// scoring it with the text metrics (token_f1, answer_token_recall, k_precision, bleu,
// chrf, rouge_l).
//
//   build/bench/language_words_bench --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true      (one command line)
#include <benchmark/benchmark.h>

#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/evaluate.h"
#include "ragmeter/language.h"
#include "ragmeter/sample.h"
#include "ragmeter/text_overlap.h"
#include "ragmeter/words.h"

namespace {

using ragmeter::OverlapTokens;

std::vector<nlohmann::json> rows_of(const std::string& name) {
  std::ifstream in(std::string(RAGMETER_BENCH_SOURCE_DIR) + "/tests/data/" + name);
  std::vector<nlohmann::json> rows;
  for (std::string line; std::getline(in, line);) rows.push_back(nlohmann::json::parse(line));
  return rows;
}

// The first `count` code points of `text` from code point `skip` on, wrapping around.
std::string code_points(const std::string& text, std::size_t skip, std::size_t count) {
  std::vector<std::size_t> starts;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) starts.push_back(i);
  }
  std::string out;
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t at = starts[(skip + k) % starts.size()];
    std::size_t end = at + 1;
    while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
    out.append(text, at, end - at);
  }
  return out;
}

struct Texts {
  std::string response;   // 100 code points
  std::string reference;  // 400 code points
  OverlapTokens tokens;
};

constexpr std::size_t kResponseChars = 100;
constexpr std::size_t kReferenceChars = 400;

Texts texts_of(const std::string& corpus, OverlapTokens tokens) {
  return {code_points(corpus, 0, kResponseChars), code_points(corpus, kResponseChars, kReferenceChars),
          tokens};
}

const std::map<std::string, Texts>& languages() {
  static const std::map<std::string, Texts> kTexts = [] {
    std::string english, chinese, japanese;
    for (const auto& row : rows_of("halueval_qa_one_turn.jsonl")) {
      english += row.at("knowledge").get<std::string>() + " ";
      if (english.size() > 4000) break;
    }
    for (const auto& row : rows_of("ocnli_dev_head.jsonl")) {
      chinese += row.at("sentence1").get<std::string>() + row.at("sentence2").get<std::string>();
    }
    for (const auto& row : rows_of("jnli_valid_head.jsonl")) {
      japanese += row.at("sentence1").get<std::string>() + row.at("sentence2").get<std::string>();
    }
    const std::string german =
        "Der Eiffelturm ist ein 330 Meter hoher Eisenfachwerkturm in Paris. Er steht im "
        "siebten Arrondissement am nordwestlichen Ende des Marsfeldes, nahe dem Ufer der "
        "Seine. Der Turm wurde von Gustave Eiffel zur Weltausstellung 1889 errichtet, die an "
        "den hundertsten Jahrestag der Französischen Revolution erinnerte. Zur Zeit seiner "
        "Errichtung war er das höchste Bauwerk der Welt und blieb es bis 1930. Heute gehört "
        "er zu den meistbesuchten Sehenswürdigkeiten Frankreichs und ist ein Wahrzeichen der "
        "Stadt, dessen Besuch jedes Jahr Millionen Menschen anzieht.";
    return std::map<std::string, Texts>{{"en", texts_of(english, OverlapTokens::kSquad)},
                                        {"zh", texts_of(chinese, OverlapTokens::kWords)},
                                        {"ja", texts_of(japanese, OverlapTokens::kWords)},
                                        {"de", texts_of(german, OverlapTokens::kWords)}};
  }();
  return kTexts;
}

// Reports seconds per character (the counter, inverted rate) for `chars` a call.
void per_char(benchmark::State& state, std::size_t chars) {
  state.counters["s_per_char"] =
      benchmark::Counter(static_cast<double>(chars) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void BM_TokenF1(benchmark::State& state, const std::string& language) {
  const Texts& t = languages().at(language);
  const std::vector<std::string> references = {t.reference};
  for (auto _ : state) benchmark::DoNotOptimize(ragmeter::token_f1(t.response, references, t.tokens));
  per_char(state, kResponseChars + kReferenceChars);
}

void BM_AnswerTokenRecall(benchmark::State& state, const std::string& language) {
  const Texts& t = languages().at(language);
  for (auto _ : state) {
    benchmark::DoNotOptimize(ragmeter::answer_token_recall(t.response, t.reference, t.tokens));
  }
  per_char(state, kResponseChars + kReferenceChars);
}

void BM_KPrecision(benchmark::State& state, const std::string& language) {
  const Texts& t = languages().at(language);
  const std::vector<std::string> contexts = {t.reference, t.reference};
  for (auto _ : state) benchmark::DoNotOptimize(ragmeter::k_precision(t.response, contexts, t.tokens));
  per_char(state, kResponseChars + 2 * kReferenceChars);
}

// ICU's word break alone over the reference (the words path's main cost), for every
// language, English included, to set apart what ICU's dictionaries cost.
void BM_SplitWords(benchmark::State& state, const std::string& language) {
  const Texts& t = languages().at(language);
  std::vector<std::string_view> words;
  for (auto _ : state) {
    ragmeter::split_words_into(t.reference, &words);
    benchmark::DoNotOptimize(words.data());
  }
  per_char(state, kReferenceChars);
}

// A sample of the language's texts: question and response 100 characters, reference
// and two contexts 400 each.
ragmeter::Sample sample_of(const std::string& language) {
  const Texts& t = languages().at(language);
  ragmeter::Sample sample;
  sample.user_input = t.response;
  sample.response = t.response;
  sample.set_reference(t.reference);
  sample.retrieved_contexts = std::vector<std::string>{t.reference, t.reference};
  return sample;
}
constexpr std::size_t kSampleChars = 2 * kResponseChars + 3 * kReferenceChars;

// What `ragmeter eval` adds per sample: its language and each field's.
void BM_DetectSampleLanguages(benchmark::State& state, const std::string& language) {
  const ragmeter::Sample sample = sample_of(language);
  for (auto _ : state) benchmark::DoNotOptimize(ragmeter::detect_sample_languages(sample));
  per_char(state, kSampleChars);
}

// The same sample scored with the deterministic metrics that read its text, its
// language already known (as `ragmeter eval` has it when it scores).
void BM_ScoreTextMetrics(benchmark::State& state, const std::string& language) {
  ragmeter::Sample sample = sample_of(language);
  sample.language = language;
  ragmeter::EvalOptions options;
  options.metrics =
      *ragmeter::parse_metric_list("token_f1,answer_token_recall,k_precision,bleu,chrf,rouge_l");
  for (auto _ : state) benchmark::DoNotOptimize(ragmeter::score_sample(sample, options));
  per_char(state, kSampleChars);
}

void register_all() {
  for (const char* language : {"en", "zh", "ja", "de"}) {
    const std::string code = language;
    benchmark::RegisterBenchmark(("token_f1/" + code).c_str(), BM_TokenF1, code);
    benchmark::RegisterBenchmark(("answer_token_recall/" + code).c_str(), BM_AnswerTokenRecall, code);
    benchmark::RegisterBenchmark(("k_precision/" + code).c_str(), BM_KPrecision, code);
    benchmark::RegisterBenchmark(("detect_sample_languages/" + code).c_str(),
                                 BM_DetectSampleLanguages, code);
    benchmark::RegisterBenchmark(("score_text_metrics/" + code).c_str(), BM_ScoreTextMetrics, code);
    benchmark::RegisterBenchmark(("split_words/" + code).c_str(), BM_SplitWords, code);
  }
}

// The console report, then each language's seconds per character over English's, per
// metric (the median when repetitions are asked for, else the single run).
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      const bool usable = run.run_type == Run::RT_Iteration
                              ? run.repetitions <= 1
                              : run.aggregate_name == "median";
      if (!usable || run.error_occurred) continue;
      const std::string name = run.run_name.function_name;  // "token_f1/zh"
      const std::size_t slash = name.rfind('/');
      per_char_[name.substr(0, slash)][name.substr(slash + 1)] = run.counters.at("s_per_char").value;
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    std::cout << "\ncost per character relative to English (target: at most 2x)\n";
    for (const auto& [metric, by_language] : per_char_) {
      const auto english = by_language.find("en");
      if (english == by_language.end()) continue;
      std::cout << "  " << metric << ":";
      for (const auto& [language, seconds] : by_language) {
        if (language == "en") continue;
        std::cout << "  " << language << " " << std::to_string(seconds / english->second).substr(0, 4)
                  << "x";
      }
      std::cout << "\n";
    }
    std::cout << "detecting a sample's languages relative to scoring it with the text metrics\n";
    const auto detect = per_char_.find("detect_sample_languages");
    const auto score = per_char_.find("score_text_metrics");
    if (detect == per_char_.end() || score == per_char_.end()) return;
    for (const auto& [language, seconds] : detect->second) {
      const auto scored = score->second.find(language);
      if (scored == score->second.end()) continue;
      std::cout << "  " << language << " " << std::to_string(seconds / scored->second).substr(0, 4)
                << "x\n";
    }
  }

 private:
  std::map<std::string, std::map<std::string, double>> per_char_;
};

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
