// ROUGE-N, ROUGE-L and ROUGE-Lsum equal to Google's rouge-score 0.1.2
// (rouge_score/rouge_scorer.py, tokenize.py), after C.-Y. Lin, "ROUGE: A Package for
// Automatic Evaluation of Summaries", ACL workshop Text Summarization Branches Out, 2004.
//
// Tokens (rouge_tokens.h): Python's str.lower(), every run outside [a-z0-9] becomes a
// separator, tokens longer than 3 characters Porter-stemmed (NLTK) when asked.
// With C = candidate (prediction) tokens and R = reference (target) tokens:
//   ROUGE-N:    hits = sum over n-grams g of min(count_C(g), count_R(g));
//               P = hits / max(#n-grams of C, 1), R = hits / max(#n-grams of R, 1).
//   ROUGE-L:    P = LCS(C, R) / |C|, R = LCS(C, R) / |R|; all 0 when C or R is empty.
//   ROUGE-Lsum: texts split on '\n' (empty lines dropped); for each reference sentence r,
//               the union over candidate sentences c of the positions in r of the one LCS
//               that rouge-score's backtracking reads out; each token of that union is a
//               hit while both texts still have an unused occurrence of it (counted per
//               token over the whole texts); P = hits / |C|, R = hits / |R|.
//   F = 2PR / (P + R), or 0 when P + R = 0.
//
// Speed (a pair of sentences takes about 0.6 microseconds): the texts become small integer
// token ids without a heap string per token, through open-addressing tables and buffers
// that each thread reuses from call to call; tokens are found from a bit per byte of
// text, without a branch per byte; bigrams of few distinct tokens are counted in a
// direct table; ROUGE-L of texts up to 64 tokens is the single-word bit-parallel LCS.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "ragmeter/rouge.h"

#include "metrics/rouge_tokens.h"

namespace ragmeter {
namespace {

using rouge_internal::IdTable;
using rouge_internal::TokenIdReader;
using rouge_internal::TokenIds;

// A text's sentences as token ids: all of them in one list, sentence s at
// ids[starts[s], starts[s + 1]).
struct Sentences {
  TokenIds ids;
  std::vector<std::size_t> starts;

  std::size_t count() const { return starts.empty() ? 0 : starts.size() - 1; }
  std::span<const int> sentence(std::size_t s) const {
    return std::span<const int>(ids).subspan(starts[s], starts[s + 1] - starts[s]);
  }
};

// Buffers reused between the calls of one thread, so that scoring a pair of texts
// allocates nothing once they have grown to the texts' size.
struct Workspace {
  TokenIdReader tokens;  // token -> id, shared by both texts of a call
  TokenIds cand, ref;
  IdTable grams;
  TokenIds cand_grams, ref_grams;
  std::vector<int> counts, cand_counts;
  std::vector<int> pair_counts;  // bigram_hits_dense: all zeros between calls
  std::vector<int> mask_slots;  // LCS: token id -> row of masks, -1 if not in the shorter text
  std::vector<std::uint64_t> masks, lcs_row;
  Sentences cand_sentences, ref_sentences;
  std::vector<int> lcs_table;
  std::vector<char> in_union;

  void start_call() { tokens.start_call(); }

  std::size_t memory_bytes() const {
    auto bytes = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
    return tokens.memory_bytes() + grams.memory_bytes() + bytes(cand) +
           bytes(ref) + bytes(cand_grams) + bytes(ref_grams) + bytes(counts) + bytes(cand_counts) +
           bytes(pair_counts) + bytes(mask_slots) + bytes(masks) + bytes(lcs_row) +
           bytes(cand_sentences.ids) + bytes(cand_sentences.starts) + bytes(ref_sentences.ids) +
           bytes(ref_sentences.starts) + bytes(lcs_table) + bytes(in_union);
  }
};

// The calling thread's workspace for one call. Buffers that an unusually long text grew
// past kMaxKeptBytes are freed when the call ends rather than kept for the thread's life.
class ScopedWorkspace {
 public:
  ScopedWorkspace() : workspace_(thread_workspace()) { workspace_.start_call(); }
  ~ScopedWorkspace() {
    if (workspace_.memory_bytes() > kMaxKeptBytes) workspace_ = Workspace{};
  }
  ScopedWorkspace(const ScopedWorkspace&) = delete;
  ScopedWorkspace& operator=(const ScopedWorkspace&) = delete;

  Workspace& operator*() { return workspace_; }

 private:
  static constexpr std::size_t kMaxKeptBytes = std::size_t{4} << 20;

  static Workspace& thread_workspace() {
    thread_local Workspace workspace;
    return workspace;
  }

  Workspace& workspace_;
};

RougeScore make_score(double precision, double recall) {
  RougeScore score;
  score.precision = precision;
  score.recall = recall;
  // Same expression order as rouge-score's scoring.fmeasure, so results agree to the bit.
  score.fmeasure = precision + recall > 0 ? 2 * precision * recall / (precision + recall) : 0.0;
  return score;
}

double ratio(std::size_t numerator, std::size_t denominator) {
  return static_cast<double>(numerator) / static_cast<double>(denominator);
}

std::uint64_t pair_key(int first, int second) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(first)) << 32) |
         static_cast<std::uint32_t>(second);
}

void count_tokens(const TokenIds& tokens, int alphabet_size, std::vector<int>& counts) {
  counts.assign(static_cast<std::size_t>(alphabet_size), 0);
  for (int token : tokens) ++counts[static_cast<std::size_t>(token)];
}

// Turns `grams`, the (k-1)-grams of `tokens`, into its k-grams: the id of each
// (k-1)-gram paired with the next token's id. `grams` must not be empty.
void extend_grams(TokenIds& grams, const TokenIds& tokens, int k, IdTable& ids) {
  for (std::size_t i = 0; i + 1 < grams.size(); ++i) {
    grams[i] = ids.id_of(pair_key(grams[i], tokens[i + static_cast<std::size_t>(k) - 1]));
  }
  grams.pop_back();
}

// Ids of the (n-1)-grams of ws.ref and ws.cand (n >= 2, both texts of at least n tokens),
// equal for equal grams: the token ids for n = 2, else grown one token at a time.
std::pair<std::span<const int>, std::span<const int>> prefix_gram_ids(Workspace& ws, int n) {
  if (n == 2) return {ws.ref, ws.cand};
  ws.ref_grams = ws.ref;
  ws.cand_grams = ws.cand;
  for (int k = 2; k < n; ++k) {
    ws.grams.clear();
    extend_grams(ws.ref_grams, ws.ref, k, ws.grams);
    extend_grams(ws.cand_grams, ws.cand, k, ws.grams);
  }
  return {ws.ref_grams, ws.cand_grams};
}

// ngram_hits for n = 2 when there are few distinct tokens: a bigram's count is at
// (first id) * (number of ids) + (second id) of ws.pair_counts, a table that is all zeros
// between calls (the entries used are zeroed again at the end), with no branch on
// whether a bigram matches.
std::size_t bigram_hits_dense(Workspace& ws) {
  const auto alphabet = static_cast<std::size_t>(ws.tokens.alphabet_size());
  std::vector<int>& counts = ws.pair_counts;
  if (counts.size() < alphabet * alphabet) counts.resize(alphabet * alphabet, 0);
  auto index = [&](const TokenIds& tokens, std::size_t i) {
    return static_cast<std::size_t>(tokens[i]) * alphabet + static_cast<std::size_t>(tokens[i + 1]);
  };
  for (std::size_t i = 0; i + 1 < ws.ref.size(); ++i) ++counts[index(ws.ref, i)];
  std::size_t hits = 0;
  for (std::size_t i = 0; i + 1 < ws.cand.size(); ++i) {
    int& count = counts[index(ws.cand, i)];
    const int hit = count > 0 ? 1 : 0;
    hits += static_cast<std::size_t>(hit);
    count -= hit;
  }
  for (std::size_t i = 0; i + 1 < ws.ref.size(); ++i) counts[index(ws.ref, i)] = 0;
  return hits;
}

// Clipped n-gram matches of ws.cand against ws.ref, both of at least n tokens: each
// candidate n-gram matches while the reference has an unmatched occurrence of it.
std::size_t ngram_hits(Workspace& ws, int n) {
  constexpr std::size_t kMaxDensePairs = std::size_t{1} << 16;  // 256 KiB of counts at most
  const auto alphabet = static_cast<std::size_t>(ws.tokens.alphabet_size());
  if (n == 2 && alphabet * alphabet <= kMaxDensePairs) return bigram_hits_dense(ws);
  std::vector<int>& ref_counts = ws.counts;
  std::size_t hits = 0;
  auto match = [&](int id) {
    if (id >= 0 && ref_counts[static_cast<std::size_t>(id)] > 0) {
      ++hits;
      --ref_counts[static_cast<std::size_t>(id)];
    }
  };
  if (n == 1) {
    count_tokens(ws.ref, ws.tokens.alphabet_size(), ref_counts);
    for (int token : ws.cand) match(token);
    return hits;
  }
  // An n-gram is its (n-1)-gram prefix paired with its last token; only the reference's
  // n-grams get ids, the candidate's are looked up.
  const auto [ref_prefixes, cand_prefixes] = prefix_gram_ids(ws, n);
  const auto last = static_cast<std::size_t>(n) - 1;
  ws.grams.clear();
  ref_counts.clear();
  for (std::size_t i = 0; i + last < ws.ref.size(); ++i) {
    const int id = ws.grams.id_of(pair_key(ref_prefixes[i], ws.ref[i + last]));
    if (static_cast<std::size_t>(id) == ref_counts.size()) ref_counts.push_back(0);
    ++ref_counts[static_cast<std::size_t>(id)];
  }
  for (std::size_t i = 0; i + last < ws.cand.size(); ++i) {
    match(ws.grams.find(pair_key(cand_prefixes[i], ws.cand[i + last])));
  }
  return hits;
}

// Two-row dynamic programme; used when the bit masks would take too much memory.
std::size_t lcs_length_dp(std::span<const int> a, std::span<const int> b) {
  std::vector<std::size_t> previous(b.size() + 1, 0);
  std::vector<std::size_t> current(b.size() + 1, 0);
  for (int token : a) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      current[j] = token == b[j - 1] ? previous[j - 1] + 1 : std::max(previous[j], current[j - 1]);
    }
    std::swap(previous, current);
  }
  return previous[b.size()];
}

// LCS length with the bit-parallel algorithm of Allison and Dix (1986) as given by Hyyrö
// (2004): one bit per position of the shorter sequence `a`, V' = (V + (V & M)) | (V & ~M)
// where M marks the positions of the token read from `b`; the LCS is the number of zero
// bits. This is the one-word case, |a| <= 64, with a mask per token id.
std::size_t lcs_length_one_word(std::span<const int> a, std::span<const int> b, Workspace& ws) {
  ws.masks.assign(static_cast<std::size_t>(ws.tokens.alphabet_size()), 0);
  for (std::size_t i = 0; i < a.size(); ++i) {
    ws.masks[static_cast<std::size_t>(a[i])] |= std::uint64_t{1} << i;
  }
  std::uint64_t v = ~std::uint64_t{0};
  for (int token : b) {
    const std::uint64_t u = v & ws.masks[static_cast<std::size_t>(token)];
    v = (v + u) | (v - u);  // no match: u == 0 and V is unchanged
  }
  const std::uint64_t positions =
      a.size() == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << a.size()) - 1;
  return a.size() - static_cast<std::size_t>(std::popcount(v & positions));
}

// The same for any |a|: V spans several words, carries propagate between them.
std::size_t lcs_length_many_words(std::span<const int> a, std::span<const int> b, Workspace& ws) {
  constexpr std::size_t kMaxMaskWords = std::size_t{1} << 20;
  const std::size_t words = (a.size() + 63) / 64;
  ws.mask_slots.assign(static_cast<std::size_t>(ws.tokens.alphabet_size()), -1);
  std::size_t distinct = 0;
  for (int token : a) {
    int& slot = ws.mask_slots[static_cast<std::size_t>(token)];
    if (slot < 0) slot = static_cast<int>(distinct++);
  }
  if (distinct * words > kMaxMaskWords) return lcs_length_dp(a, b);
  ws.masks.assign(distinct * words, 0);
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto slot = static_cast<std::size_t>(ws.mask_slots[static_cast<std::size_t>(a[i])]);
    ws.masks[slot * words + i / 64] |= std::uint64_t{1} << (i % 64);
  }
  std::vector<std::uint64_t>& v = ws.lcs_row;
  v.assign(words, ~std::uint64_t{0});
  for (int token : b) {
    const int slot = ws.mask_slots[static_cast<std::size_t>(token)];
    if (slot < 0) continue;  // no match: V is unchanged
    const std::uint64_t* mask = &ws.masks[static_cast<std::size_t>(slot) * words];
    std::uint64_t carry = 0;
    for (std::size_t w = 0; w < words; ++w) {
      std::uint64_t u = v[w] & mask[w];
      std::uint64_t sum = v[w] + u;
      std::uint64_t carry_out = sum < u ? 1 : 0;
      sum += carry;
      carry_out |= sum < carry ? 1 : 0;
      v[w] = sum | (v[w] - u);
      carry = carry_out;
    }
  }
  std::size_t ones = 0;
  for (std::size_t w = 0; w < words; ++w) {
    std::uint64_t bits = v[w];
    if (w + 1 == words && a.size() % 64 != 0) bits &= (std::uint64_t{1} << (a.size() % 64)) - 1;
    ones += static_cast<std::size_t>(std::popcount(bits));
  }
  return a.size() - ones;
}

std::size_t lcs_length(std::span<const int> a, std::span<const int> b, Workspace& ws) {
  if (a.size() > b.size()) std::swap(a, b);
  if (a.empty()) return 0;
  return a.size() <= 64 ? lcs_length_one_word(a, b, ws) : lcs_length_many_words(a, b, ws);
}

// Marks the positions in `ref` of the LCS with `cand` that rouge-score's
// _backtrack_norec reads out of the full table (ties go towards a shorter `ref` prefix).
void mark_backtracked_lcs(std::span<const int> ref, std::span<const int> cand,
                          std::vector<int>& table, std::vector<char>& marked) {
  const std::size_t cols = cand.size() + 1;
  table.assign((ref.size() + 1) * cols, 0);
  for (std::size_t i = 1; i <= ref.size(); ++i) {
    for (std::size_t j = 1; j <= cand.size(); ++j) {
      table[i * cols + j] = ref[i - 1] == cand[j - 1]
                                ? table[(i - 1) * cols + j - 1] + 1
                                : std::max(table[(i - 1) * cols + j], table[i * cols + j - 1]);
    }
  }
  std::size_t i = ref.size();
  std::size_t j = cand.size();
  while (i > 0 && j > 0) {
    if (ref[i - 1] == cand[j - 1]) {
      marked[i - 1] = 1;
      --i;
      --j;
    } else if (table[i * cols + j - 1] > table[(i - 1) * cols + j]) {
      --j;
    } else {
      --i;
    }
  }
}

// rouge-score's _summary_level_lcs on ws.ref_sentences and ws.cand_sentences.
RougeScore summary_level_lcs(Workspace& ws) {
  const Sentences& refs = ws.ref_sentences;
  const Sentences& cands = ws.cand_sentences;
  if (refs.ids.empty() || cands.ids.empty()) return RougeScore{};
  std::vector<int>& ref_counts = ws.counts;
  std::vector<int>& cand_counts = ws.cand_counts;
  count_tokens(refs.ids, ws.tokens.alphabet_size(), ref_counts);
  count_tokens(cands.ids, ws.tokens.alphabet_size(), cand_counts);
  std::size_t hits = 0;
  for (std::size_t r = 0; r < refs.count(); ++r) {
    std::span<const int> ref = refs.sentence(r);
    ws.in_union.assign(ref.size(), 0);
    for (std::size_t c = 0; c < cands.count(); ++c) {
      mark_backtracked_lcs(ref, cands.sentence(c), ws.lcs_table, ws.in_union);
    }
    for (std::size_t i = 0; i < ref.size(); ++i) {
      const auto token = static_cast<std::size_t>(ref[i]);
      // Each occurrence is a hit once only, as ROUGE-1.5.5 (not in Lin's paper).
      if (ws.in_union[i] && cand_counts[token] > 0 && ref_counts[token] > 0) {
        ++hits;
        --cand_counts[token];
        --ref_counts[token];
      }
    }
  }
  return make_score(ratio(hits, cands.ids.size()), ratio(hits, refs.ids.size()));
}

// Tokenizes each line of `text` (Python's str.split("\n") without the empty strings, as
// rouge-score's get_sents) into `out`.
void set_sentence_ids(std::string_view text, const RougeOptions& options, Workspace& ws,
                      Sentences& out) {
  out.ids.clear();
  out.starts.assign(1, 0);
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    if (end > start) {
      ws.tokens.append_ids(text.substr(start, end - start), options, out.ids);
      out.starts.push_back(out.ids.size());
    }
    start = end + 1;
  }
}

}  // namespace

std::vector<std::string> rouge_tokenize(std::string_view text, const RougeOptions& options) {
  return rouge_internal::string_tokens(text, options);
}

RougeScore rouge_n(std::string_view candidate, std::string_view reference, int n,
                   const RougeOptions& options) {
  if (n < 1) throw std::invalid_argument("rouge_n requires n >= 1");
  ScopedWorkspace scoped;
  Workspace& ws = *scoped;
  ws.tokens.set_ids(candidate, options, ws.cand);
  ws.tokens.set_ids(reference, options, ws.ref);
  const auto gram_length = static_cast<std::size_t>(n);
  // A text with fewer than n tokens has no n-grams: no hits, P = R = 0.
  if (ws.cand.size() < gram_length || ws.ref.size() < gram_length) return make_score(0.0, 0.0);
  const std::size_t hits = ngram_hits(ws, n);
  return make_score(ratio(hits, ws.cand.size() - gram_length + 1),
                    ratio(hits, ws.ref.size() - gram_length + 1));
}

RougeScore rouge_l(std::string_view candidate, std::string_view reference,
                   const RougeOptions& options) {
  ScopedWorkspace scoped;
  Workspace& ws = *scoped;
  ws.tokens.set_ids(candidate, options, ws.cand);
  ws.tokens.set_ids(reference, options, ws.ref);
  if (ws.cand.empty() || ws.ref.empty()) return RougeScore{};
  const std::size_t lcs = lcs_length(ws.cand, ws.ref, ws);
  return make_score(ratio(lcs, ws.cand.size()), ratio(lcs, ws.ref.size()));
}

RougeScore rouge_lsum(std::string_view candidate, std::string_view reference,
                      const RougeOptions& options) {
  ScopedWorkspace scoped;
  Workspace& ws = *scoped;
  set_sentence_ids(candidate, options, ws, ws.cand_sentences);
  set_sentence_ids(reference, options, ws, ws.ref_sentences);
  return summary_level_lcs(ws);
}

}  // namespace ragmeter
