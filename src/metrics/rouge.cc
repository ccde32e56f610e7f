// ROUGE-N, ROUGE-L and ROUGE-Lsum equal to Google's rouge-score 0.1.2
// (rouge_score/rouge_scorer.py, tokenize.py), after C.-Y. Lin, "ROUGE: A Package for
// Automatic Evaluation of Summaries", ACL workshop Text Summarization Branches Out, 2004.
//
// Tokens: Python's str.lower(), every run outside [a-z0-9] becomes a separator, tokens
// longer than 3 characters Porter-stemmed (NLTK) when asked.
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
#include <algorithm>
#include <bit>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <unicode/brkiter.h>
#include <unicode/locid.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include "ragmeter/rouge.h"

namespace ragmeter {
namespace {

using TokenIds = std::vector<int>;

// Tokens longer than 3 characters are stemmed, as rouge-score's tokenize.tokenize.
void push_token(std::string token, bool use_stemmer, std::vector<std::string>& out) {
  if (token.empty()) return;
  if (use_stemmer && token.size() > 3) token = porter_stem(token);
  out.push_back(std::move(token));
}

// rouge-score's tokenizer. Python's str.lower() maps exactly two non-ASCII characters to
// [a-z]: U+0130 (I with dot above) to "i" + U+0307 (a separator), and U+212A (Kelvin
// sign) to "k"; every other non-ASCII character only separates tokens.
std::vector<std::string> default_tokens(std::string_view text, bool use_stemmer) {
  std::vector<std::string> tokens;
  std::string current;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
      current += c;
    } else if (c >= 'A' && c <= 'Z') {
      current += static_cast<char>(c - 'A' + 'a');
    } else if (text.substr(i, 2) == "\xC4\xB0") {
      current += 'i';
      push_token(std::move(current), use_stemmer, tokens);
      current.clear();
      i += 1;
    } else if (text.substr(i, 3) == "\xE2\x84\xAA") {
      current += 'k';
      i += 2;
    } else {
      push_token(std::move(current), use_stemmer, tokens);
      current.clear();
    }
  }
  push_token(std::move(current), use_stemmer, tokens);
  return tokens;
}

icu::BreakIterator& word_breaker() {
  // Creating a break iterator loads rules; one per thread keeps the call thread-safe.
  thread_local std::unique_ptr<icu::BreakIterator> breaker = [] {
    UErrorCode status = U_ZERO_ERROR;
    std::unique_ptr<icu::BreakIterator> created(
        icu::BreakIterator::createWordInstance(icu::Locale::getRoot(), status));
    if (U_FAILURE(status) || !created) {
      throw std::runtime_error(std::string("ICU word break iterator: ") + u_errorName(status));
    }
    return created;
  }();
  return *breaker;
}

bool is_plain_ascii_word(std::string_view token) {
  return std::all_of(token.begin(), token.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); });
}

// Keeps a piece of a word only if it has a letter or digit; only ASCII words are stemmed
// (the Porter stemmer is for English).
void push_unicode_token(const icu::UnicodeString& piece, bool use_stemmer,
                        std::vector<std::string>& out) {
  bool has_alnum = false;
  for (int32_t i = 0; i < piece.length() && !has_alnum; i += U16_LENGTH(piece.char32At(i))) {
    UChar32 c = piece.char32At(i);
    has_alnum = u_isalnum(c) || u_hasBinaryProperty(c, UCHAR_ALPHABETIC);
  }
  if (!has_alnum) return;
  std::string token;
  piece.toUTF8String(token);
  bool stem = use_stemmer && is_plain_ascii_word(token);
  push_token(std::move(token), stem, out);
}

// Splits one ICU word into tokens: each ideograph alone (ICU's dictionary words for
// Chinese and Japanese vary between ICU versions), the rest in runs.
void push_word_pieces(const icu::UnicodeString& text, int32_t start, int32_t end,
                      bool use_stemmer, std::vector<std::string>& out) {
  icu::UnicodeString run;
  for (int32_t i = start; i < end;) {
    UChar32 c = text.char32At(i);
    int32_t next = i + U16_LENGTH(c);
    if (u_hasBinaryProperty(c, UCHAR_IDEOGRAPHIC)) {
      push_unicode_token(run, use_stemmer, out);
      run.remove();
      push_unicode_token(icu::UnicodeString(text, i, next - i), use_stemmer, out);
    } else {
      run.append(c);
    }
    i = next;
  }
  push_unicode_token(run, use_stemmer, out);
}

std::vector<std::string> unicode_tokens(std::string_view text, bool use_stemmer) {
  icu::UnicodeString folded = icu::UnicodeString::fromUTF8(
      icu::StringPiece(text.data(), static_cast<int32_t>(text.size())));
  folded.foldCase();
  icu::BreakIterator& breaker = word_breaker();
  breaker.setText(folded);
  std::vector<std::string> tokens;
  int32_t start = breaker.first();
  for (int32_t end = breaker.next(); end != icu::BreakIterator::DONE; end = breaker.next()) {
    push_word_pieces(folded, start, end, use_stemmer, tokens);
    start = end;
  }
  return tokens;
}

// Token strings to small integers, equal tokens to equal ids, shared by both texts.
class TokenInterner {
 public:
  TokenIds intern(const std::vector<std::string>& tokens) {
    TokenIds ids;
    ids.reserve(tokens.size());
    for (const std::string& token : tokens) {
      ids.push_back(ids_.try_emplace(token, static_cast<int>(ids_.size())).first->second);
    }
    return ids;
  }
  int size() const { return static_cast<int>(ids_.size()); }

 private:
  std::unordered_map<std::string, int> ids_;
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

// Replaces token ids by n-gram ids (equal n-grams get equal ids in both texts), growing
// the grams one token at a time: the id of a (k-1)-gram paired with the next token id.
// Returns one past the largest id.
int to_ngram_ids(TokenIds& a, TokenIds& b, int n, int alphabet_size) {
  const TokenIds tokens_a = a;
  const TokenIds tokens_b = b;
  int id_count = alphabet_size;
  for (int k = 2; k <= n; ++k) {
    std::unordered_map<std::uint64_t, int> gram_ids;
    auto extend = [&](TokenIds& grams, const TokenIds& tokens) {
      if (grams.empty()) return;
      for (std::size_t i = 0; i + 1 < grams.size(); ++i) {
        std::uint64_t key = (static_cast<std::uint64_t>(grams[i]) << 32) |
                            static_cast<std::uint32_t>(tokens[i + k - 1]);
        grams[i] = gram_ids.try_emplace(key, static_cast<int>(gram_ids.size())).first->second;
      }
      grams.pop_back();
    };
    extend(a, tokens_a);
    extend(b, tokens_b);
    id_count = static_cast<int>(gram_ids.size());
  }
  return id_count;
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
// (2004): one bit per position of the shorter sequence, V' = (V + (V & M)) | (V & ~M);
// the LCS is the number of zero bits.
std::size_t lcs_length(std::span<const int> a, std::span<const int> b, int alphabet_size) {
  if (a.size() > b.size()) std::swap(a, b);
  if (a.empty()) return 0;
  constexpr std::size_t kMaxMaskWords = std::size_t{1} << 20;
  const std::size_t words = (a.size() + 63) / 64;
  std::vector<int> slot(static_cast<std::size_t>(alphabet_size), -1);
  std::size_t distinct = 0;
  for (int token : a) {
    if (slot[token] < 0) slot[token] = static_cast<int>(distinct++);
  }
  if (distinct * words > kMaxMaskWords) return lcs_length_dp(a, b);
  std::vector<std::uint64_t> masks(distinct * words, 0);
  for (std::size_t i = 0; i < a.size(); ++i) {
    masks[static_cast<std::size_t>(slot[a[i]]) * words + i / 64] |= std::uint64_t{1} << (i % 64);
  }
  std::vector<std::uint64_t> v(words, ~std::uint64_t{0});
  for (int token : b) {
    if (slot[token] < 0) continue;  // no match: V is unchanged
    const std::uint64_t* mask = &masks[static_cast<std::size_t>(slot[token]) * words];
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

std::size_t total_size(const std::vector<TokenIds>& sentences) {
  std::size_t total = 0;
  for (const TokenIds& sentence : sentences) total += sentence.size();
  return total;
}

std::vector<int> token_counts(const std::vector<TokenIds>& sentences, int alphabet_size) {
  std::vector<int> counts(static_cast<std::size_t>(alphabet_size), 0);
  for (const TokenIds& sentence : sentences) {
    for (int token : sentence) ++counts[token];
  }
  return counts;
}

// rouge-score's _summary_level_lcs.
RougeScore summary_level_lcs(const std::vector<TokenIds>& ref_sentences,
                             const std::vector<TokenIds>& cand_sentences, int alphabet_size) {
  const std::size_t ref_total = total_size(ref_sentences);
  const std::size_t cand_total = total_size(cand_sentences);
  if (ref_total == 0 || cand_total == 0) return RougeScore{};
  std::vector<int> ref_counts = token_counts(ref_sentences, alphabet_size);
  std::vector<int> cand_counts = token_counts(cand_sentences, alphabet_size);
  std::size_t hits = 0;
  std::vector<int> table;
  std::vector<char> in_union;
  for (const TokenIds& ref : ref_sentences) {
    in_union.assign(ref.size(), 0);
    for (const TokenIds& cand : cand_sentences) mark_backtracked_lcs(ref, cand, table, in_union);
    for (std::size_t i = 0; i < ref.size(); ++i) {
      int token = ref[i];
      // Each occurrence is a hit once only, as ROUGE-1.5.5 (not in Lin's paper).
      if (in_union[i] && cand_counts[token] > 0 && ref_counts[token] > 0) {
        ++hits;
        --cand_counts[token];
        --ref_counts[token];
      }
    }
  }
  return make_score(ratio(hits, cand_total), ratio(hits, ref_total));
}

// Python's str.split("\n") without the empty strings, as rouge-score's get_sents.
std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = std::min(text.find('\n', start), text.size());
    if (end > start) lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

std::vector<TokenIds> sentence_ids(std::string_view text, const RougeOptions& options,
                                   TokenInterner& interner) {
  std::vector<TokenIds> sentences;
  for (std::string_view line : split_lines(text)) {
    sentences.push_back(interner.intern(rouge_tokenize(line, options)));
  }
  return sentences;
}

}  // namespace

std::vector<std::string> rouge_tokenize(std::string_view text, const RougeOptions& options) {
  if (options.tokenizer == RougeTokenizer::kUnicode) return unicode_tokens(text, options.use_stemmer);
  return default_tokens(text, options.use_stemmer);
}

RougeScore rouge_n(std::string_view candidate, std::string_view reference, int n,
                   const RougeOptions& options) {
  if (n < 1) throw std::invalid_argument("rouge_n requires n >= 1");
  TokenInterner interner;
  TokenIds cand = interner.intern(rouge_tokenize(candidate, options));
  TokenIds ref = interner.intern(rouge_tokenize(reference, options));
  int id_count = to_ngram_ids(cand, ref, n, interner.size());
  std::vector<int> ref_counts(static_cast<std::size_t>(id_count), 0);
  for (int gram : ref) ++ref_counts[gram];
  std::size_t hits = 0;
  for (int gram : cand) {
    if (ref_counts[gram] > 0) {
      ++hits;
      --ref_counts[gram];
    }
  }
  return make_score(ratio(hits, std::max<std::size_t>(cand.size(), 1)),
                    ratio(hits, std::max<std::size_t>(ref.size(), 1)));
}

RougeScore rouge_l(std::string_view candidate, std::string_view reference,
                   const RougeOptions& options) {
  TokenInterner interner;
  TokenIds cand = interner.intern(rouge_tokenize(candidate, options));
  TokenIds ref = interner.intern(rouge_tokenize(reference, options));
  if (cand.empty() || ref.empty()) return RougeScore{};
  std::size_t lcs = lcs_length(cand, ref, interner.size());
  return make_score(ratio(lcs, cand.size()), ratio(lcs, ref.size()));
}

RougeScore rouge_lsum(std::string_view candidate, std::string_view reference,
                      const RougeOptions& options) {
  TokenInterner interner;
  std::vector<TokenIds> cand = sentence_ids(candidate, options, interner);
  std::vector<TokenIds> ref = sentence_ids(reference, options, interner);
  return summary_level_lcs(ref, cand, interner.size());
}

}  // namespace ragmeter
