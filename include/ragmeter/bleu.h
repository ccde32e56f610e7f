// BLEU, compatible with sacreBLEU (Post, 2018; Papineni et al., 2002).
//
// Pure functions, thread-safe, no global state. Scores are on a 0..1 scale:
// sacreBLEU's `score` divided by 100.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ragmeter {

// sacreBLEU's smoothing methods (Chen and Cherry, 2014), by sacreBLEU's names.
enum class BleuSmoothing {
  kNone,   // "none": a zero n-gram precision makes the score 0
  kFloor,  // "floor": a zero match count becomes `smooth_value` (default 0.1)
  kAddK,   // "add-k": add `smooth_value` (default 1) to matches and totals for n > 1
  kExp,    // "exp": sacreBLEU's default; 1 / 2^k for the k-th zero precision
};

// Tokenizers of sacreBLEU.
enum class BleuTokenizer {
  k13a,   // sacreBLEU's default (mteval-v13a): the only one a user normally needs
  kNone,  // split on whitespace only
};

struct BleuOptions {
  BleuSmoothing smoothing = BleuSmoothing::kExp;
  // < 0 means sacreBLEU's default for the method (floor: 0.1, add-k: 1).
  double smooth_value = -1.0;
  BleuTokenizer tokenizer = BleuTokenizer::k13a;
  bool lowercase = false;
  // sacreBLEU's `effective_order`: ignore n-gram orders with no candidate n-grams.
  // sentence_bleu() always uses it, as sacrebleu.sentence_bleu() does by default.
  bool effective_order = false;
};

// Additive sufficient statistics of one segment (or summed over a corpus):
// [sys_len, ref_len, matches_1..4, totals_1..4], 10 numbers.
constexpr int kBleuStatCount = 10;

// Returns the statistics of `hypothesis` against `references` (closest reference
// length, ties to the shorter, as sacreBLEU). An empty `references` gives ref_len 0.
std::vector<double> bleu_statistics(std::string_view hypothesis,
                                    const std::vector<std::string>& references,
                                    const BleuOptions& options = {});

// Returns BLEU in 0..1 from (summed) statistics, as sacreBLEU's corpus_score does.
double bleu_from_statistics(const std::vector<double>& stats, const BleuOptions& options = {});

// Sentence BLEU in 0..1, equal to sacreBLEU's sentence_score(...).score / 100.
double sentence_bleu(std::string_view hypothesis, const std::vector<std::string>& references,
                     const BleuOptions& options = {});

// Corpus BLEU in 0..1, equal to sacreBLEU's corpus_score(hyps, [refs...]).score / 100, where
// references[i] holds the references of hypotheses[i].
double corpus_bleu(const std::vector<std::string>& hypotheses,
                   const std::vector<std::vector<std::string>>& references,
                   const BleuOptions& options = {});

// sacreBLEU's 13a tokenization of one line (exposed for tests): tokens joined by single
// spaces. sacreBLEU right-strips a segment before tokenizing it; this function does not.
std::string tokenize_13a(std::string_view line);

}  // namespace ragmeter
