// chrF (Popovic, 2015) and chrF++ (Popovic, 2017), computed exactly as sacreBLEU 2.x's
// CHRF (sacrebleu/metrics/chrf.py and helpers.py).
//
// For each order (character n-grams 1..char_order over the segment with its whitespace
// removed, then word n-grams 1..word_order over punctuation-separated words), with
// matches = sum over n-grams of min(count_hyp, count_ref):
//   P_n = matches / hyp n-grams,  R_n = matches / ref n-grams
//   chrF = (1 + beta^2) * P * R / (beta^2 * P + R)
// where P and R average P_n and R_n over the orders in which both the hypothesis and the
// reference have n-grams (sacreBLEU's default "effective order"). With eps_smoothing,
// chrF is instead the mean over all orders of the per-order F-beta, with 1e-16 standing
// in for undefined precisions, recalls and F scores (chrF++.py, Moses, NLTK). With
// several references, a segment keeps the statistics of the first reference with the
// highest sentence score; a corpus sums segment statistics before scoring.
#include "ragmeter/chrf.h"

#include <algorithm>
#include <array>
#include <span>
#include <string>
#include <vector>

#include "metrics/ngram_matches.h"
#include "metrics/sacrebleu_text.h"

namespace ragmeter {
namespace {

using sacrebleu_internal::NGramMatches;
using sacrebleu_internal::NGramSequence;

// string.punctuation, which CHRF._remove_punctuation separates from word edges.
constexpr std::array<bool, 256> kPunctuation = [] {
  std::array<bool, 256> table{};
  for (char c : std::string_view("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")) {
    table[static_cast<unsigned char>(c)] = true;
  }
  return table;
}();

bool is_punctuation(char c) { return kPunctuation[static_cast<unsigned char>(c)]; }

// Byte length of the code point at text[pos]: a well-formed UTF-8 character's, else 1
// (an ill-formed byte is one code point, as Python's surrogateescape decodes it).
std::size_t utf8_unit_length(std::string_view text, std::size_t pos) {
  const auto byte = [&](std::size_t k) -> unsigned char {
    return pos + k < text.size() ? static_cast<unsigned char>(text[pos + k]) : 0;
  };
  const auto continues = [&](std::size_t k, unsigned char lo = 0x80, unsigned char hi = 0xBF) {
    return byte(k) >= lo && byte(k) <= hi;
  };
  const unsigned char lead = byte(0);
  if (lead < 0xC2) return 1;
  if (lead <= 0xDF) return continues(1) ? 2 : 1;
  if (lead <= 0xEF) {
    const unsigned char lo = lead == 0xE0 ? 0xA0 : 0x80;  // no overlong forms
    const unsigned char hi = lead == 0xED ? 0x9F : 0xBF;  // no surrogates
    return continues(1, lo, hi) && continues(2) ? 3 : 1;
  }
  if (lead <= 0xF4) {
    const unsigned char lo = lead == 0xF0 ? 0x90 : 0x80;
    const unsigned char hi = lead == 0xF4 ? 0x8F : 0xBF;  // nothing past U+10FFFF
    return continues(1, lo, hi) && continues(2) && continues(3) ? 4 : 1;
  }
  return 1;
}

// The code points of `line` (without its whitespace unless `keep_whitespace`), as
// extract_all_char_ngrams sees them. A character's key is its bytes (at most 4).
void char_sequence(std::string_view line, bool keep_whitespace, NGramSequence* sequence) {
  std::uint64_t* keys = sequence->keys_for(line.size());
  std::size_t count = 0;
  for (std::size_t i = 0; i < line.size();) {
    const auto c = static_cast<unsigned char>(line[i]);
    if (c < 0x80) {  // ASCII: no decoding, and no branch on whether it is a space
      keys[count] = sacrebleu_internal::short_unit_key(std::string_view(&line[i], 1));
      count += keep_whitespace || sacrebleu_internal::python_space_length(line, i) == 0 ? 1 : 0;
      ++i;
      continue;
    }
    const std::size_t space =
        keep_whitespace ? 0 : sacrebleu_internal::python_space_length(line, i);
    if (space > 0) {
      i += space;
      continue;
    }
    const std::size_t length = utf8_unit_length(line, i);
    keys[count++] = sacrebleu_internal::short_unit_key(std::string_view(&line[i], length));
    i += length;
  }
  sequence->set_size(count);
}

// CHRF._remove_punctuation: a word of two or more characters loses one punctuation
// character from its end, or else from its start, to a word of its own. The words are
// views of `sentence`.
void punctuation_separated_words(std::string_view sentence, NGramSequence* words) {
  words->clear();
  const auto add = [words](std::string_view word) { sacrebleu_internal::append_word(word, words); };
  thread_local std::vector<std::string_view> split;
  sacrebleu_internal::python_split(sentence, &split);
  for (std::string_view word : split) {
    const std::size_t last = word.size() - 1;
    if (utf8_unit_length(word, 0) == word.size()) {
      add(word);
    } else if (is_punctuation(word[last])) {
      add(word.substr(0, last));
      add(word.substr(last));
    } else if (is_punctuation(word[0])) {
      add(word.substr(0, 1));
      add(word.substr(1));
    } else {
      add(word);
    }
  }
}

// The buffers of one thread's chrF statistics, reused from call to call: per segment
// ([0] the hypothesis, [1 + r] reference r) its lowercased text, characters and words.
// Only grown, so the word views into `lowered` stay valid while a call uses them.
struct ChrfWorkspace {
  std::vector<std::string> lowered;
  std::vector<NGramSequence> chars;
  std::vector<NGramSequence> words;
  NGramMatches char_matches;
  NGramMatches word_matches;
  std::vector<double> stats;

  void reserve(std::size_t segments) {
    if (chars.size() >= segments) return;
    lowered.resize(segments);
    chars.resize(segments);
    words.resize(segments);
  }

  // Segment k's characters and, for chrF++, words.
  void prepare(std::size_t k, std::string_view text, const ChrfOptions& options) {
    if (options.lowercase) {
      sacrebleu_internal::python_lower(text, &lowered[k]);
      text = lowered[k];
    }
    char_sequence(text, options.whitespace, &chars[k]);
    words[k].clear();
    if (options.word_order > 0) punctuation_separated_words(text, &words[k]);
  }
};

int order_count(const ChrfOptions& options) {
  return std::max(0, options.char_order) + std::max(0, options.word_order);
}

// CHRF._get_match_statistics against reference `r` for each order of one unit kind:
// appends [hyp n-grams (0 if the reference has none), ref n-grams, matches] per order.
void append_match_statistics(std::size_t hyp_units, std::size_t ref_units,
                             const NGramMatches& matches, std::size_t r,
                             std::vector<double>* stats) {
  const auto max_order = static_cast<std::size_t>(matches.max_order);
  for (std::size_t n = 1; n <= max_order; ++n) {
    const std::size_t hyp_ngrams = hyp_units >= n ? hyp_units - n + 1 : 0;
    const std::size_t ref_ngrams = ref_units >= n ? ref_units - n + 1 : 0;
    stats->push_back(ref_ngrams > 0 ? static_cast<double>(hyp_ngrams) : 0.0);
    stats->push_back(static_cast<double>(ref_ngrams));
    stats->push_back(matches.per_reference[r * max_order + n - 1]);
  }
}

// CHRF._compute_f_score on sacreBLEU's 0..100 scale, operation for operation: the
// choice between references compares these values, so they must be bit-identical.
double f_score_percent(std::span<const double> stats, const ChrfOptions& options) {
  const double eps = 1e-16;
  const double factor = options.beta * options.beta;
  const int order = order_count(options);
  double score = 0.0;
  double avg_prec = 0.0;
  double avg_rec = 0.0;
  int effective_order = 0;
  for (int i = 0; i < order && 3 * i + 2 < static_cast<int>(stats.size()); ++i) {
    const double n_hyp = stats[3 * i];
    const double n_ref = stats[3 * i + 1];
    const double n_match = stats[3 * i + 2];
    const double prec = n_hyp > 0 ? n_match / n_hyp : eps;
    const double rec = n_ref > 0 ? n_match / n_ref : eps;
    const double denom = factor * prec + rec;
    score += denom > 0 ? (1 + factor) * prec * rec / denom : eps;
    if (n_hyp > 0 && n_ref > 0) {
      avg_prec += prec;
      avg_rec += rec;
      ++effective_order;
    }
  }
  if (options.eps_smoothing) return 100 * score / order;
  if (effective_order == 0) {
    avg_prec = avg_rec = 0.0;
  } else {
    avg_prec /= effective_order;
    avg_rec /= effective_order;
  }
  if (avg_prec + avg_rec == 0) return 0.0;
  score = (1 + factor) * avg_prec * avg_rec;
  score /= factor * avg_prec + avg_rec;
  return 100 * score;
}

}  // namespace

std::vector<double> chrf_statistics(std::string_view hypothesis,
                                    const std::vector<std::string>& references,
                                    const ChrfOptions& options) {
  const int char_order = std::max(0, options.char_order);
  const int word_order = std::max(0, options.word_order);
  thread_local ChrfWorkspace workspace;
  workspace.reserve(1 + references.size());
  workspace.prepare(0, hypothesis, options);
  for (std::size_t r = 0; r < references.size(); ++r) {
    workspace.prepare(1 + r, references[r], options);
  }
  const std::span<const NGramSequence> ref_chars(workspace.chars.data() + 1, references.size());
  const std::span<const NGramSequence> ref_words(workspace.words.data() + 1, references.size());
  sacrebleu_internal::match_ngrams(workspace.chars[0], ref_chars, char_order,
                                   &workspace.char_matches);
  sacrebleu_internal::match_ngrams(workspace.words[0], ref_words, word_order,
                                   &workspace.word_matches);

  std::vector<double> best_stats(3 * static_cast<std::size_t>(char_order + word_order), 0.0);
  double best_f_score = -1.0;
  std::vector<double>& stats = workspace.stats;
  for (std::size_t r = 0; r < references.size(); ++r) {
    stats.clear();
    append_match_statistics(workspace.chars[0].size(), ref_chars[r].size(),
                            workspace.char_matches, r, &stats);
    append_match_statistics(workspace.words[0].size(), ref_words[r].size(),
                            workspace.word_matches, r, &stats);
    const double f_score = f_score_percent(stats, options);
    if (f_score > best_f_score) {
      best_f_score = f_score;
      best_stats = stats;
    }
  }
  return best_stats;
}

double chrf_from_statistics(const std::vector<double>& stats, const ChrfOptions& options) {
  return f_score_percent(stats, options) / 100.0;
}

double sentence_chrf(std::string_view hypothesis, const std::vector<std::string>& references,
                     const ChrfOptions& options) {
  return chrf_from_statistics(chrf_statistics(hypothesis, references, options), options);
}

double corpus_chrf(const std::vector<std::string>& hypotheses,
                   const std::vector<std::vector<std::string>>& references,
                   const ChrfOptions& options) {
  static const std::vector<std::string> kNoReferences;
  std::vector<double> sums(3 * static_cast<std::size_t>(order_count(options)), 0.0);
  for (std::size_t i = 0; i < hypotheses.size(); ++i) {
    const auto& refs = i < references.size() ? references[i] : kNoReferences;
    const std::vector<double> stats = chrf_statistics(hypotheses[i], refs, options);
    for (std::size_t k = 0; k < sums.size(); ++k) sums[k] += stats[k];
  }
  return chrf_from_statistics(sums, options);
}

}  // namespace ragmeter
