// BLEU (Papineni et al., 2002), computed exactly as sacreBLEU 2.x (Post, 2018):
// sacrebleu/metrics/bleu.py, sacrebleu/tokenizers/tokenizer_13a.py and tokenizer_re.py.
//
//   p_n  = sum over hypothesis n-grams g of min(count_hyp(g), max_r count_ref_r(g))
//          / (number of hypothesis n-grams),                        n = 1..4
//   BP   = 1 if c >= r, else exp(1 - r / c) (0 when c = 0), where c is the hypothesis
//          length and r the reference length closest to c (ties: the shorter one)
//   BLEU = BP * exp((1 / N) * sum_{n=1..N} log p_n)
//
// N is 4, or with effective order the highest n with a hypothesis n-gram. Zero
// precisions are smoothed (Chen and Cherry, 2014): "floor" uses smooth_value / total,
// "add-k" adds k to matches and totals for n > 1, "exp" uses 1 / (2^k * total) for the
// k-th zero; "none" leaves log 0 as sacreBLEU's floor of -9999999999. No match at all
// gives 0. A corpus sums the statistics of its segments first. Segments are lowercased
// (optionally), right-stripped and tokenized; n-grams are over whitespace-split tokens.
#include "ragmeter/bleu.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "metrics/byte_masks.h"
#include "metrics/mecab_tokenizer.h"
#include "metrics/ngram_matches.h"
#include "metrics/sacrebleu_text.h"
#include "metrics/sacrebleu_tokenizers.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ragmeter {
namespace {

using sacrebleu_internal::NGramSequence;

constexpr int kMaxOrder = 4;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Python's str.replace(from, to): non-overlapping, left to right, one pass.
void replace_all(std::string* text, std::string_view from, std::string_view to) {
  std::size_t pos = text->find(from);
  if (pos == std::string::npos) return;
  std::string out;
  out.reserve(text->size());
  std::size_t done = 0;
  for (; pos != std::string::npos; pos = text->find(from, done)) {
    out.append(*text, done, pos - done);
    out.append(to);
    done = pos + from.size();
  }
  out.append(*text, done);
  *text = std::move(out);
}

// Whether `text` holds '<', '&' or '\n', the bytes every pattern of unescape_13a
// contains: eight bytes at a time (a zero byte of x ^ v marks a byte equal to v).
bool has_unescape_byte(std::string_view text) {
  using byte_masks::kOnes;
  using byte_masks::zero_bytes;
  const auto marks = [&](std::size_t at) {
    std::uint64_t bytes;
    std::memcpy(&bytes, text.data() + at, 8);
    return zero_bytes(bytes ^ (kOnes * '<')) | zero_bytes(bytes ^ (kOnes * '&')) |
           zero_bytes(bytes ^ (kOnes * '\n'));
  };
  if (text.size() < 8) {
    return text.find_first_of("<&\n") != std::string_view::npos;
  }
  std::uint64_t found = 0;
  for (std::size_t i = 0; i + 8 < text.size(); i += 8) found |= marks(i);
  return (found | marks(text.size() - 8)) != 0;  // the last 8 bytes overlap the ones before
}

// Whether unescape_13a can change how `line` tokenizes. A '\n' that is not part of
// "-\n" only becomes ' ', which the tokenizer treats alike, so a text without these
// patterns is tokenized as it is (each find is a memchr scan).
bool needs_unescape_13a(std::string_view line) {
  if (!has_unescape_byte(line)) return false;  // the usual case, without a branch per byte
  if (line.find("<skipped>") != std::string_view::npos) return true;
  if (line.find("-\n") != std::string_view::npos) return true;
  if (line.find('&') == std::string_view::npos) return false;
  for (std::string_view entity : {"&quot;", "&amp;", "&lt;", "&gt;"}) {
    if (line.find(entity) != std::string_view::npos) return true;
  }
  return false;
}

// tokenizer_13a's language-independent part, in sacreBLEU's order (each replace is a
// separate pass, so "&amp;lt;" becomes "<"). Returns `line` itself when that changes
// no token, else a view of `*storage`.
std::string_view unescape_13a(std::string_view line, std::string* storage) {
  if (!needs_unescape_13a(line)) return line;
  std::string& text = *storage;
  text.assign(line);
  replace_all(&text, "<skipped>", "");
  replace_all(&text, "-\n", "");
  std::replace(text.begin(), text.end(), '\n', ' ');
  if (text.find('&') != std::string::npos) {
    replace_all(&text, "&quot;", "\"");
    replace_all(&text, "&amp;", "&");
    replace_all(&text, "&lt;", "<");
    replace_all(&text, "&gt;", ">");
  }
  return text;
}

// Where the tokenizer writes words: the bytes text[from, to) extend the current word,
// end_word() ends it. A word is always one contiguous piece of the scanned text.
//
// JoinedWords: the words joined by single spaces, as tokenize_13a returns them.
class JoinedWords {
 public:
  explicit JoinedWords(std::string_view text) : text_(text) { out_.reserve(2 * text.size()); }
  void append(std::size_t from, std::size_t to) {
    if (!in_word_ && !out_.empty()) out_.push_back(' ');
    out_.append(text_.substr(from, to - from));
    in_word_ = true;
  }
  void end_word() { in_word_ = false; }
  std::string take() { return std::move(out_); }

 private:
  std::string_view text_;
  std::string out_;
  bool in_word_ = false;
};

// SequenceWords: the words as the units of an n-gram sequence, as views of the text.
class SequenceWords {
 public:
  SequenceWords(std::string_view text, NGramSequence* sequence)
      : text_(text), sequence_(sequence) {}
  void append(std::size_t from, std::size_t to) {
    if (!in_word_) start_ = from;
    end_ = to;
    in_word_ = true;
  }
  void end_word() {
    if (in_word_) sacrebleu_internal::append_word_in(text_, start_, end_ - start_, sequence_);
    in_word_ = false;
  }

 private:
  std::string_view text_;
  NGramSequence* sequence_;
  std::size_t start_ = 0;
  std::size_t end_ = 0;
  bool in_word_ = false;
};

// What a byte can do in the 13a scan.
enum class Byte13a : std::uint8_t {
  kPlain,        // extends the word
  kSpace,        // ASCII whitespace
  kMaybeSpace,   // the lead byte of U+0085, U+00A0, U+1680, U+2000... or U+3000, or not
  kSymbol,       // mteval's {|}~ [\]^_` !"#$%& ()*+ :;<=>?@ and /: a token of its own
  kPeriodComma,  // '.' or ',': on its own depending on its neighbours
  kDash,         // '-': on its own after a digit
};

constexpr std::array<Byte13a, 256> kBytes13a = [] {
  std::array<Byte13a, 256> table{};
  const auto mark = [&table](int from, int to, Byte13a role) {
    for (int c = from; c <= to; ++c) table[c] = role;
  };
  mark(0x7B, 0x7E, Byte13a::kSymbol);
  mark(0x5B, 0x60, Byte13a::kSymbol);
  mark(0x21, 0x26, Byte13a::kSymbol);
  mark(0x28, 0x2B, Byte13a::kSymbol);
  mark(0x3A, 0x40, Byte13a::kSymbol);
  mark('/', '/', Byte13a::kSymbol);
  mark('.', '.', Byte13a::kPeriodComma);
  mark(',', ',', Byte13a::kPeriodComma);
  mark('-', '-', Byte13a::kDash);
  mark(0x09, 0x0D, Byte13a::kSpace);
  mark(0x1C, 0x20, Byte13a::kSpace);
  for (int lead : {0xC2, 0xE1, 0xE2, 0xE3}) table[lead] = Byte13a::kMaybeSpace;
  return table;
}();

// The high bit of each byte of `bytes` that is not an ASCII letter or digit: the bytes
// that may end a run of kPlain bytes (the others are all kPlain).
std::uint64_t maybe_not_plain(std::uint64_t bytes) {
  return ~byte_masks::ascii_alnum(bytes) & byte_masks::kHighs;
}

// The end of the run of kPlain bytes that starts at `start` (itself kPlain). Eight bytes
// at a time: words end at unpredictable places, and a byte-by-byte loop pays a
// mispredicted branch for each.
std::size_t plain_run_end(std::string_view text, std::size_t start) {
  std::size_t end = start + 1;
  if constexpr (std::endian::native == std::endian::little) {
    while (end + 8 <= text.size()) {
      std::uint64_t bytes;
      std::memcpy(&bytes, text.data() + end, 8);
      const std::uint64_t candidates = maybe_not_plain(bytes);
      if (candidates == 0) {
        end += 8;
        continue;
      }
      end += static_cast<std::size_t>(std::countr_zero(candidates)) / 8;
      if (kBytes13a[static_cast<unsigned char>(text[end])] != Byte13a::kPlain) return end;
      ++end;  // an apostrophe, a control or a non-ASCII byte that is plain after all
    }
  }
  while (end < text.size() && kBytes13a[static_cast<unsigned char>(text[end])] == Byte13a::kPlain) {
    ++end;
  }
  return end;
}

// TokenizerRegexp on " " + text + " ", then ' '.join(line.split()), in one scan.
//
// Each of the four re.sub calls of sacreBLEU puts spaces on both sides of one
// character (a symbol; a [.,] after a non-digit; a [.,] before a non-digit; a '-' after
// a digit). So a character becomes a token of its own if any substitution picks it,
// and the rest is split on whitespace. Whether a substitution picks a [.,] depends on
// its neighbours in the previous substitution's output and on re.sub's non-overlapping
// left-to-right matching; inserted spaces never sit next to a digit, which lets
// the rules below read the neighbours in the original text t:
//   after_non_digit(j)  = !digit(t[j-1]) && !after_non_digit(j-1)
//       (a [.,] consumed as \2 of the previous match cannot be the next match's \1)
//   before_non_digit(j) = !digit(t[j+1]) && !(before_non_digit(j-1) && nothing was
//       inserted between t[j-1] and t[j], i.e. !after_non_digit(j-1) && !after_non_digit(j))
//       (then t[j] was consumed as the previous match's \2)
// where after_non_digit and before_non_digit are false for anything but [.,], and
// t[-1] and t[size] are the padding spaces. Every pattern tests ASCII bytes only, and
// multi-byte UTF-8 characters contain none, so scanning bytes equals scanning code
// points (a continuation byte, like a space, is not a digit).
template <typename Words>
void write_13a_tokens(std::string_view text, Words* words) {
  bool prev_after_non_digit = false;
  bool prev_before_non_digit = false;
  const auto role = [&text](std::size_t j) { return kBytes13a[static_cast<unsigned char>(text[j])]; };
  for (std::size_t j = 0; j < text.size(); ++j) {
    bool after_non_digit = false;
    bool before_non_digit = false;
    bool alone = false;
    const Byte13a this_role = role(j);
    if (this_role == Byte13a::kPlain) [[likely]] {  // most bytes: the whole run at once
      const std::size_t end = plain_run_end(text, j);
      words->append(j, end);
      prev_after_non_digit = prev_before_non_digit = false;
      if (end < text.size() && role(end) == Byte13a::kSpace) {  // and the usual space after it
        words->end_word();
        j = end;
      } else {
        j = end - 1;
      }
      continue;
    }
    switch (this_role) {
      case Byte13a::kPlain:
        break;
      case Byte13a::kMaybeSpace:
        if (const std::size_t space = sacrebleu_internal::non_ascii_space_length(text, j)) {
          words->end_word();
          j += space - 1;
          prev_after_non_digit = prev_before_non_digit = false;
          continue;
        }
        break;
      case Byte13a::kSpace:
        words->end_word();
        prev_after_non_digit = prev_before_non_digit = false;
        continue;
      case Byte13a::kSymbol:
        alone = true;
        break;
      case Byte13a::kPeriodComma: {
        const bool prev_digit = j > 0 && is_digit(text[j - 1]);
        const bool next_digit = j + 1 < text.size() && is_digit(text[j + 1]);
        after_non_digit = !prev_digit && !prev_after_non_digit;
        const bool consumed = prev_before_non_digit && !prev_after_non_digit && !after_non_digit;
        before_non_digit = !next_digit && !consumed;
        alone = after_non_digit || before_non_digit;
        break;
      }
      case Byte13a::kDash:
        alone = j > 0 && is_digit(text[j - 1]);
        break;
    }
    if (alone) words->end_word();
    words->append(j, j + 1);
    if (alone) words->end_word();
    prev_after_non_digit = after_non_digit;
    prev_before_non_digit = before_non_digit;
  }
  words->end_word();
}

#if defined(__SSE2__)
// The 13a roles of the bytes of one 64-byte block of a text, a bit per byte (byte i of
// the block is bit i), bytes past the end of the text in none.
struct Block13a {
  std::uint64_t space;         // kSpace
  std::uint64_t symbol;        // kSymbol
  std::uint64_t digit;         // [0-9]
  std::uint64_t period_comma;  // kPeriodComma
  std::uint64_t dash;          // kDash
  std::uint64_t high;          // >= 0x80
};

// Adds the roles of the 16 bytes at `p` to `*block` at bit `shift`. Signed comparisons:
// bytes >= 0x80 are negative, so no ASCII range test picks them, as kBytes13a has them
// all plain but for the kMaybeSpace leads. Always inlined: as a call it took about a
// third of the fast path's time, and BLEU was 3% slower.
[[gnu::always_inline]] inline void add_roles_13a(const char* p, unsigned shift, Block13a* block) {
  const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  const auto set = [](char c) { return _mm_set1_epi8(c); };
  // Bytes in [lo, hi].
  const auto in = [&](__m128i v, char lo, char hi) {
    return _mm_and_si128(_mm_cmpgt_epi8(v, set(static_cast<char>(lo - 1))),
                         _mm_cmplt_epi8(v, set(static_cast<char>(hi + 1))));
  };
  const __m128i digit = in(x, '0', '9');
  const __m128i space = _mm_or_si128(in(x, 0x09, 0x0D), in(x, 0x1C, 0x20));
  const __m128i dash = _mm_cmpeq_epi8(x, set('-'));
  const __m128i period_comma =
      _mm_or_si128(_mm_cmpeq_epi8(x, set('.')), _mm_cmpeq_epi8(x, set(',')));
  // Setting 0x20 maps A-Z onto a-z and nothing else onto a-z.
  const __m128i letter = in(_mm_or_si128(x, set(0x20)), 'a', 'z');
  // Every printable ASCII byte but letters, digits, the apostrophe, [.,] and '-' is a
  // symbol of mteval's list.
  const __m128i not_symbol =
      _mm_or_si128(_mm_or_si128(letter, digit),
                   _mm_or_si128(_mm_or_si128(period_comma, dash), _mm_cmpeq_epi8(x, set('\''))));
  const __m128i symbol = _mm_andnot_si128(not_symbol, in(x, 0x21, 0x7E));
  const auto bits = [shift](__m128i marks) {
    return static_cast<std::uint64_t>(static_cast<std::uint32_t>(_mm_movemask_epi8(marks)))
           << shift;
  };
  block->space |= bits(space);
  block->symbol |= bits(symbol);
  block->digit |= bits(digit);
  block->period_comma |= bits(period_comma);
  block->dash |= bits(dash);
  block->high |= bits(x);
}

// write_13a_tokens into `*tokens` from a bit per byte: the token starts and ends come
// from bit operations on the role masks instead of a byte loop, whose mispredicted
// branch at each word end was most of the tokenizer's time. Only for texts where the
// rules of write_13a_tokens are local: returns false, having appended nothing, when
// `text` has two adjacent [.,] (the sequential "consumed" rule) or a non-ASCII space,
// or is longer than the blocks on the stack hold (2 KiB). Then, with no [.,] next to another:
//   a symbol is alone;
//   a [.,] is alone unless digits are on both sides (after_non_digit = !digit before,
//     before_non_digit = !digit after, nothing consumed);
//   a '-' is alone after a digit;
// and every other non-space byte extends the word.
bool write_13a_tokens_by_bits(std::string_view text, NGramSequence* tokens) {
  constexpr std::size_t kMaxBlocks = 32;
  const std::size_t count = (text.size() + 63) / 64;
  if (count > kMaxBlocks) return false;
  // And an empty block after the last. Only the first count + 1 are cleared.
  std::array<Block13a, kMaxBlocks + 1> blocks;
  for (std::size_t b = 0; b <= count; ++b) blocks[b] = Block13a{};
  const std::size_t whole = text.size() / 16 * 16;
  for (std::size_t i = 0; i < whole; i += 16) {
    add_roles_13a(text.data() + i, i % 64, &blocks[i / 64]);
  }
  if (whole < text.size()) {  // the tail, padded with zero bytes: no role but plain
    char tail[16] = {};
    std::memcpy(tail, text.data() + whole, text.size() - whole);
    add_roles_13a(tail, whole % 64, &blocks[whole / 64]);
  }
  std::uint64_t previous_top = 0;  // bit 63 of the previous block's [.,] mask
  for (std::size_t b = 0; b < count; ++b) {
    const std::uint64_t pc = blocks[b].period_comma;
    if ((pc & ((pc << 1) | previous_top)) != 0) return false;  // two adjacent [.,]
    previous_top = pc >> 63;
    for (std::uint64_t high = blocks[b].high; high != 0; high &= high - 1) {
      const std::size_t j = b * 64 + static_cast<std::size_t>(std::countr_zero(high));
      if (kBytes13a[static_cast<unsigned char>(text[j])] == Byte13a::kMaybeSpace &&
          sacrebleu_internal::non_ascii_space_length(text, j) != 0) {
        return false;
      }
    }
  }
  // The alone bytes and the word bytes of block b; the digit bits of the neighbouring
  // blocks give the neighbours of bits 0 and 63.
  const auto alone_of = [&blocks](std::size_t b) {
    const Block13a& block = blocks[b];
    const std::uint64_t digit_before = (block.digit << 1) | (b > 0 ? blocks[b - 1].digit >> 63 : 0);
    const std::uint64_t digit_after = (block.digit >> 1) | (blocks[b + 1].digit << 63);
    return block.symbol | (block.period_comma & ~(digit_before & digit_after)) |
           (block.dash & digit_before);
  };
  const std::size_t tail_bits = text.size() % 64;
  const auto word_of = [&](std::size_t b, std::uint64_t alone) {
    // The zero padding is plain: not part of the last word.
    const std::uint64_t valid =
        b + 1 < count || tail_bits == 0 ? ~std::uint64_t{0} : (std::uint64_t{1} << tail_bits) - 1;
    return valid & ~blocks[b].space & ~alone;
  };
  // Each token is an alone byte or a run of word bytes: its start and last byte are
  // bits of `starts` and `ends`, in order, start_k <= end_k < start_k+1. Only a word
  // can span blocks: its start is kept in `open` until a block has its end.
  std::size_t open = 0;
  bool is_open = false;
  std::uint64_t previous_word = 0;
  std::uint64_t alone = count > 0 ? alone_of(0) : 0;
  std::uint64_t word = count > 0 ? word_of(0, alone) : 0;
  for (std::size_t b = 0; b < count; ++b) {
    const std::uint64_t next_alone = b + 1 < count ? alone_of(b + 1) : 0;
    const std::uint64_t next_word = b + 1 < count ? word_of(b + 1, next_alone) : 0;
    std::uint64_t starts = alone | (word & ~((word << 1) | (previous_word >> 63)));
    std::uint64_t ends = alone | (word & ~((word >> 1) | (next_word << 63)));
    const std::size_t base = b * 64;
    if (is_open && ends != 0) {
      const std::size_t end = base + static_cast<std::size_t>(std::countr_zero(ends)) + 1;
      sacrebleu_internal::append_word_in(text, open, end - open, tokens);
      ends &= ends - 1;
      is_open = false;
    }
    for (; ends != 0; ends &= ends - 1, starts &= starts - 1) {
      const auto start = static_cast<std::size_t>(std::countr_zero(starts));
      const auto last = static_cast<std::size_t>(std::countr_zero(ends));
      sacrebleu_internal::append_word_in(text, base + start, last + 1 - start, tokens);
    }
    if (starts != 0) {  // a word that goes on into the next block
      open = base + static_cast<std::size_t>(std::countr_zero(starts));
      is_open = true;
    }
    previous_word = word;
    alone = next_alone;
    word = next_word;
  }
  return true;
}
#endif

// The words of `text` split on Python's whitespace, appended to `*tokens`.
void append_split_words(std::string_view text, NGramSequence* tokens) {
  thread_local std::vector<std::string_view> words;
  sacrebleu_internal::python_split(text, &words);
  for (std::string_view word : words) sacrebleu_internal::append_word(word, tokens);
}

sacrebleu_internal::MecabDictionary mecab_dictionary(BleuTokenizer tokenizer) {
  return tokenizer == BleuTokenizer::kJaMecab ? sacrebleu_internal::MecabDictionary::kIpadic
                                              : sacrebleu_internal::MecabDictionary::kMecabKoDic;
}

// BLEU._preprocess_segment, then the tokens that extract_all_word_ngrams splits, into
// `*tokens`: views of `segment` or of `*lowered` or `*rewritten` (13a's unescaped text, MeCab's
// output), which must outlive them.
void bleu_tokens(std::string_view segment, const BleuOptions& options, std::string* lowered,
                 std::string* rewritten, NGramSequence* tokens) {
  tokens->clear();
  if (options.lowercase) {
    sacrebleu_internal::python_lower(segment, lowered);
    segment = *lowered;
  }
  segment = sacrebleu_internal::python_rstrip(segment);
  switch (options.tokenizer) {
    case BleuTokenizer::k13a: {
      const std::string_view text = unescape_13a(segment, rewritten);
      tokens->reserve(text.size());  // at most one token per byte
#if defined(__SSE2__)
      if (write_13a_tokens_by_bits(text, tokens)) return;
#endif
      SequenceWords words(text, tokens);
      write_13a_tokens(text, &words);
      return;
    }
    case BleuTokenizer::kZh:
    case BleuTokenizer::kIntl:
    case BleuTokenizer::kChar:
      sacrebleu_internal::append_character_rule_tokens(segment, options.tokenizer, tokens);
      return;
    case BleuTokenizer::kJaMecab:
    case BleuTokenizer::kKoMecab:
      sacrebleu_internal::mecab_wakati(segment, mecab_dictionary(options.tokenizer), rewritten);
      append_split_words(*rewritten, tokens);
      return;
    case BleuTokenizer::kNone:
      append_split_words(segment, tokens);
      return;
  }
}

// The buffers of one thread's BLEU statistics, reused from call to call.
struct BleuWorkspace {
  // [0]: the hypothesis, [1 + r]: reference r. Only grown, so the views in `tokens`
  // into `lowered` and `rewritten` stay valid while a call uses them.
  std::vector<std::string> lowered;
  std::vector<std::string> rewritten;
  std::vector<NGramSequence> tokens;
  sacrebleu_internal::NGramMatches matches;

  void reserve(std::size_t segments) {
    if (tokens.size() >= segments) return;
    lowered.resize(segments);
    rewritten.resize(segments);
    tokens.resize(segments);
  }
};

using BleuStats = std::array<double, kBleuStatCount>;

// BLEU._get_closest_ref_len: the closest length, the shorter one on a tie.
int closest_reference_length(int hyp_len, std::span<const NGramSequence> refs) {
  int closest_diff = -1;
  int closest_len = 0;
  for (const NGramSequence& ref : refs) {
    const int ref_len = static_cast<int>(ref.size());
    const int diff = std::abs(hyp_len - ref_len);
    if (closest_diff == -1 || diff < closest_diff ||
        (diff == closest_diff && ref_len < closest_len)) {
      closest_diff = diff;
      closest_len = ref_len;
    }
  }
  return closest_len;
}

double default_smooth_value(const BleuOptions& options) {
  if (options.smooth_value >= 0) return options.smooth_value;
  return options.smoothing == BleuSmoothing::kAddK ? 1.0 : 0.1;
}

// sacreBLEU's my_log: log with log(0) floored.
// How far above 1 a score can be from float rounding alone (exp and log of 100 lose a few
// ulps; an ulp of 1 is 2.2e-16).
constexpr double kRoundingAboveOne = 1e-12;

double floored_log(double x) { return x == 0.0 ? -9999999999.0 : std::log(x); }

BleuOptions with_effective_order(BleuOptions options) {
  options.effective_order = true;
  return options;
}

}  // namespace

constexpr std::pair<BleuTokenizer, const char*> kTokenizerNames[] = {
    {BleuTokenizer::k13a, "13a"},         {BleuTokenizer::kNone, "none"},
    {BleuTokenizer::kZh, "zh"},           {BleuTokenizer::kIntl, "intl"},
    {BleuTokenizer::kChar, "char"},       {BleuTokenizer::kJaMecab, "ja-mecab"},
    {BleuTokenizer::kKoMecab, "ko-mecab"},
};

const char* bleu_tokenizer_name(BleuTokenizer tokenizer) {
  for (const auto& [value, name] : kTokenizerNames) {
    if (value == tokenizer) return name;
  }
  return "unknown";
}

StatusOr<BleuTokenizer> parse_bleu_tokenizer(std::string_view name) {
  std::string names;
  for (const auto& [value, known] : kTokenizerNames) {
    if (name == known) return value;
    names += names.empty() ? "" : ", ";
    names += known;
  }
  return invalid_argument("unknown BLEU tokenizer '" + std::string(name) + "' (sacreBLEU's: " +
                          names + ")");
}

Status prepare_bleu_tokenizer(BleuTokenizer tokenizer) {
  if (tokenizer != BleuTokenizer::kJaMecab && tokenizer != BleuTokenizer::kKoMecab) {
    return ok_status();
  }
  return sacrebleu_internal::prepare_mecab(mecab_dictionary(tokenizer));
}

std::string tokenize_bleu_segment(std::string_view segment, BleuTokenizer tokenizer) {
  BleuOptions options;
  options.tokenizer = tokenizer;
  std::string lowered;
  std::string rewritten;
  NGramSequence tokens;
  bleu_tokens(segment, options, &lowered, &rewritten, &tokens);
  std::string out;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (i > 0) out.push_back(' ');
    out.append(tokens.unit(i));
  }
  return out;
}

std::string tokenize_13a(std::string_view line) {
  std::string unescaped;
  const std::string_view text = unescape_13a(line, &unescaped);
  JoinedWords words(text);
  write_13a_tokens(text, &words);
  return words.take();
}

namespace {

// The statistics of one segment, in this thread's reusable buffers.
BleuStats segment_statistics(std::string_view hypothesis,
                             const std::vector<std::string>& references,
                             const BleuOptions& options) {
  thread_local BleuWorkspace workspace;
  workspace.reserve(1 + references.size());
  NGramSequence& hyp = workspace.tokens[0];
  bleu_tokens(hypothesis, options, &workspace.lowered[0], &workspace.rewritten[0], &hyp);
  for (std::size_t r = 0; r < references.size(); ++r) {
    bleu_tokens(references[r], options, &workspace.lowered[1 + r], &workspace.rewritten[1 + r],
                &workspace.tokens[1 + r]);
  }
  const std::span<const NGramSequence> refs(workspace.tokens.data() + 1, references.size());
  sacrebleu_internal::match_ngrams(hyp, refs, kMaxOrder, &workspace.matches);

  const int hyp_len = static_cast<int>(hyp.size());
  BleuStats stats{};
  stats[0] = hyp_len;
  stats[1] = closest_reference_length(hyp_len, refs);
  for (int n = 1; n <= kMaxOrder; ++n) {
    stats[1 + n] = workspace.matches.max_reference[n - 1];
    stats[1 + kMaxOrder + n] = std::max(0, hyp_len - n + 1);
  }
  return stats;
}

// BLEU.compute_bleu, operation for operation (the result is compared to 1e-9).
double bleu_from_counts(const BleuStats& stats, const BleuOptions& options) {
  const double sys_len = stats[0];
  const double ref_len = stats[1];
  std::array<double, kMaxOrder> correct{};
  std::array<double, kMaxOrder> total{};
  bool any_correct = false;
  for (int n = 0; n < kMaxOrder; ++n) {
    correct[n] = stats[2 + n];
    total[n] = stats[2 + kMaxOrder + n];
    any_correct = any_correct || correct[n] != 0;
  }
  if (!any_correct) return 0.0;
  double bp = 1.0;
  if (sys_len < ref_len) bp = sys_len > 0 ? std::exp(1 - ref_len / sys_len) : 0.0;

  const double smooth_value = default_smooth_value(options);
  std::array<double, kMaxOrder> precisions{};
  double smooth_mteval = 1.0;
  int eff_order = kMaxOrder;
  for (int n = 1; n <= kMaxOrder; ++n) {
    if (options.smoothing == BleuSmoothing::kAddK && n > 1) {
      correct[n - 1] += smooth_value;
      total[n - 1] += smooth_value;
    }
    if (total[n - 1] == 0) break;
    if (options.effective_order) eff_order = n;
    if (correct[n - 1] == 0) {
      if (options.smoothing == BleuSmoothing::kExp) {
        smooth_mteval *= 2;
        precisions[n - 1] = 100. / (smooth_mteval * total[n - 1]);
      } else if (options.smoothing == BleuSmoothing::kFloor) {
        precisions[n - 1] = 100. * smooth_value / total[n - 1];
      }
    } else {
      precisions[n - 1] = 100. * correct[n - 1] / total[n - 1];
    }
  }
  double log_sum = 0.0;
  for (int n = 0; n < eff_order; ++n) log_sum += floored_log(precisions[n]);
  // exp(log(100)) is 100.00000000000004, so a perfect match scores one ulp above 1 (as in
  // sacreBLEU): that rounding is dropped, well within the 1e-9 of the oracle test, so the
  // score lies in the metric's declared range. A value truly above 1 (floor smoothing with
  // a smooth_value above 1, which sacreBLEU allows) is left as sacreBLEU gives it.
  const double score = bp * std::exp(log_sum / eff_order) / 100.0;
  return score > 1.0 && score - 1.0 < kRoundingAboveOne ? 1.0 : score;
}

}  // namespace

std::vector<double> bleu_statistics(std::string_view hypothesis,
                                    const std::vector<std::string>& references,
                                    const BleuOptions& options) {
  const BleuStats stats = segment_statistics(hypothesis, references, options);
  return std::vector<double>(stats.begin(), stats.end());
}

double bleu_from_statistics(const std::vector<double>& stats, const BleuOptions& options) {
  if (stats.size() < static_cast<std::size_t>(kBleuStatCount)) return 0.0;
  BleuStats counts{};
  std::copy_n(stats.begin(), kBleuStatCount, counts.begin());
  return bleu_from_counts(counts, options);
}

double sentence_bleu(std::string_view hypothesis, const std::vector<std::string>& references,
                     const BleuOptions& options) {
  const BleuOptions effective = with_effective_order(options);
  return bleu_from_counts(segment_statistics(hypothesis, references, effective), effective);
}

double corpus_bleu(const std::vector<std::string>& hypotheses,
                   const std::vector<std::vector<std::string>>& references,
                   const BleuOptions& options) {
  static const std::vector<std::string> kNoReferences;
  BleuStats sums{};
  for (std::size_t i = 0; i < hypotheses.size(); ++i) {
    const auto& refs = i < references.size() ? references[i] : kNoReferences;
    const BleuStats stats = segment_statistics(hypotheses[i], refs, options);
    for (int k = 0; k < kBleuStatCount; ++k) sums[k] += stats[k];
  }
  return bleu_from_counts(sums, options);
}

}  // namespace ragmeter
