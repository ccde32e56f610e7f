// BLEU, compatible with sacreBLEU (Post, 2018; Papineni et al., 2002).
//
// Pure functions, thread-safe, no global state. Scores are on a 0..1 scale:
// sacreBLEU's `score` divided by 100.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
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
  k13a,  // sacreBLEU's default (mteval-v13a): the only one a user normally needs
  kNone, // split on whitespace only
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

// Implementation details shared by BLEU and chrF (bleu.cc defines them); not a stable
// API. sacreBLEU works on Python `str`: these give its semantics on UTF-8 text.
namespace sacrebleu_internal {

// Python's str.lower() (full Unicode lowercase mapping, final sigma included).
std::string python_lower(std::string_view text);

// Byte length of the character at `text[pos]` if Python's str.isspace() holds for it
// (ASCII \t\n\v\f\r, \x1c-\x1f, space, U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028,
// U+2029, U+202F, U+205F, U+3000), else 0.
std::size_t python_space_length(std::string_view text, std::size_t pos);

// Python's str.split() without arguments.
std::vector<std::string_view> python_split(std::string_view text);

// A sequence of units (tokens or characters) whose n-grams are compared by content.
struct NGramSequence {
  std::string text;                  // the units, one after another, `gap` bytes apart
  std::vector<std::uint32_t> starts; // byte offset of each unit, then text.size() + gap
  std::vector<std::uint64_t> unit_hashes;  // equal units have equal hashes
  std::uint32_t gap = 0;

  std::size_t size() const { return unit_hashes.size(); }
  // The n-gram of `n` units starting at unit `i`, as bytes of `text`.
  std::string_view ngram(std::size_t i, std::size_t n) const {
    return std::string_view(text).substr(starts[i], starts[i + n] - gap - starts[i]);
  }
};

// The tokens of `joined` (tokens joined by single spaces, as ' '.join(...) gives).
NGramSequence word_sequence(std::string joined);

// The n-grams (orders 1..max_order) of a hypothesis, counted once and then matched
// against any number of references.
class NGramMatcher {
 public:
  NGramMatcher(const NGramSequence& hypothesis, int max_order);

  // Adds to matches[n - 1], for each order n, the sum over n-grams of
  // min(count in hypothesis, count in `reference`).
  void match(const NGramSequence& reference, std::span<int> matches);

  // Adds to matches[n - 1] the sum over the hypothesis' n-grams of
  // min(count in hypothesis, highest count in any reference matched so far), as BLEU.
  void add_max_reference_matches(std::span<int> matches) const;

 private:
  struct Entry {
    std::uint64_t hash;
    std::uint32_t start;   // n-gram bytes in the hypothesis text
    std::uint32_t length;
    int order;
    int hyp_count;
    int ref_count;  // in the reference being matched (`ref_id`)
    int ref_max;    // highest ref_count over the references matched so far
    int ref_id;
  };
  struct Slot {
    std::uint32_t tag;    // low bits of the hash
    std::uint32_t entry;  // index into entries_ + 1; 0 = empty
  };

  std::size_t slot_of(std::uint64_t hash, int order) const;
  Entry* find(std::uint64_t hash, int order, std::string_view ngram);
  void insert(std::uint64_t hash, int order, std::uint32_t start, std::uint32_t length);

  const NGramSequence* hypothesis_;
  int max_order_;
  std::vector<Entry> entries_;
  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  int ref_id_ = 0;
  std::vector<std::uint64_t> rolling_;  // scratch: rolling hash of the n-gram at each unit
  std::vector<char> alive_;             // scratch: the (n-1)-gram there is in the hypothesis
};

}  // namespace sacrebleu_internal

}  // namespace ragmeter
