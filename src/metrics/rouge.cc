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
//
// Speed (a pair of sentences takes about 0.6 microseconds): the texts become small integer
// token ids without a heap string per token, through open-addressing tables and buffers
// that each thread reuses from call to call; tokens are found from a bit per byte of
// text, without a branch per byte; bigrams of few distinct tokens are counted in a
// direct table; ROUGE-L of texts up to 64 tokens is the single-word bit-parallel LCS.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <unicode/brkiter.h>
#include <unicode/locid.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include "ragmeter/rouge.h"

#include "metrics/byte_masks.h"

namespace ragmeter {
namespace {

using TokenIds = std::vector<int>;

// Tokens longer than 3 characters are stemmed, as rouge-score's tokenize.tokenize.
void push_token(std::string token, bool use_stemmer, std::vector<std::string>& out) {
  if (token.empty()) return;
  if (use_stemmer && token.size() > 3) token = porter_stem(token);
  out.push_back(std::move(token));
}

constexpr std::array<bool, 256> kIsTokenByte = [] {
  std::array<bool, 256> table{};
  for (int c = 'a'; c <= 'z'; ++c) table[c] = true;
  for (int c = 'A'; c <= 'Z'; ++c) table[c] = true;
  for (int c = '0'; c <= '9'; ++c) table[c] = true;
  return table;
}();

// Lowercases a byte of [A-Za-z0-9]: setting bit 0x20 maps A-Z to a-z and keeps a-z and 0-9.
constexpr char kLowercaseBit = 0x20;

std::string lowercase_token(std::string_view raw) {
  std::string token(raw);
  for (char& c : token) c |= kLowercaseBit;
  return token;
}

// rouge-score's tokenizer without the stemmer: calls emit(raw) for each token in order,
// `raw` a view of bytes of [A-Za-z0-9] (of `text` or of `scratch`, valid during the call)
// that lowercased are the token. Python's str.lower() maps exactly two non-ASCII
// characters to [a-z]: U+0130 (I with dot above) to "i" + U+0307 (a separator), and U+212A
// (Kelvin sign) to "k"; every other non-ASCII character only separates tokens.
template <typename Emit>
void scan_default_tokens(std::string_view text, std::string& scratch, Emit&& emit) {
  // `scratch` holds a token only when it has a character from outside [A-Za-z0-9].
  scratch.clear();
  // One pass per run of [A-Za-z0-9] and the separator after it; i == text.size() is one
  // more pass, to emit a token that ends the text.
  std::size_t i = 0;
  while (i <= text.size()) {
    std::size_t end = i;
    while (end < text.size() && kIsTokenByte[static_cast<unsigned char>(text[end])]) ++end;
    std::string_view token = text.substr(i, end - i);
    const bool non_ascii = end < text.size() && static_cast<unsigned char>(text[end]) >= 0x80;
    if (non_ascii && text.substr(end, 3) == "\xE2\x84\xAA") {
      scratch += token;
      scratch += 'k';
      i = end + 3;
      continue;
    }
    if (non_ascii && text.substr(end, 2) == "\xC4\xB0") {
      scratch += token;
      scratch += 'i';
      i = end + 2;
    } else {
      if (!scratch.empty()) scratch += token;
      i = end + 1;
    }
    if (!scratch.empty()) token = scratch;
    if (!token.empty()) emit(token);
    scratch.clear();
  }
}

std::vector<std::string> default_tokens(std::string_view text, bool use_stemmer) {
  std::vector<std::string> tokens;
  std::string scratch;
  scan_default_tokens(text, scratch, [&](std::string_view raw) {
    push_token(lowercase_token(raw), use_stemmer, tokens);
  });
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

std::uint64_t hash_bytes(std::string_view bytes) {
  constexpr std::uint64_t kOdd = 0x9E3779B97F4A7C15u;
  std::uint64_t hash = bytes.size();
  std::size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    std::uint64_t chunk;
    std::memcpy(&chunk, bytes.data() + i, 8);
    hash = std::rotl((hash ^ chunk) * kOdd, 31);
  }
  std::uint64_t rest = 0;
  std::memcpy(&rest, bytes.data() + i, bytes.size() - i);
  return (hash ^ rest) * kOdd;
}

// Dense ids 0, 1, 2, ... for distinct (key, tag) pairs: open addressing with linear
// probing, at most a quarter full. A slot is in use only while it carries the current
// generation, so clear() is O(1) and the table is reused without being wiped.
class IdTable {
 public:
  // Forgets every key; keeps the memory.
  void clear() {
    size_ = 0;
    if (++generation_ == 0) {  // wrapped around: wipe so that no old slot looks current
      for (Slot& slot : slots_) slot.generation = 0;
      generation_ = 1;
    }
  }
  int size() const { return size_; }
  std::size_t memory_bytes() const { return slots_.capacity() * sizeof(Slot); }

  // The id of (key, tag); a new one, size() before the call, if it has none. `same(id)`
  // confirms a match of key and tag (for keys that are hashes).
  template <typename Same>
  int id_of(std::uint64_t key, std::uint32_t tag, Same&& same) {
    if (kMaxLoad * (static_cast<std::size_t>(size_) + 1) > slots_.size()) grow();
    for (std::size_t i = home(key);; i = (i + 1) & mask_) {
      Slot& slot = slots_[i];
      if (slot.generation != generation_) {
        slot = Slot{key, tag, generation_, size_};
        return size_++;
      }
      if (slot.key == key && slot.tag == tag && same(slot.id)) return slot.id;
    }
  }

  // id_of(key, tag) for keys that are the keys themselves, not hashes.
  int id_of(std::uint64_t key, std::uint32_t tag = 0) {
    return id_of(key, tag, [](int) { return true; });
  }

  // The id of (key, tag 0), or -1 if it has none.
  int find(std::uint64_t key) const {
    if (slots_.empty()) return -1;
    for (std::size_t i = home(key);; i = (i + 1) & mask_) {
      const Slot& slot = slots_[i];
      if (slot.generation != generation_) return -1;
      if (slot.key == key && slot.tag == 0) return slot.id;
    }
  }

 private:
  struct Slot {
    std::uint64_t key = 0;
    std::uint32_t tag = 0;
    std::uint32_t generation = 0;  // 0: never used
    int id = 0;
  };

  // At most one slot in kMaxLoad in use: fewer collisions than half full, and the larger
  // table costs nothing per call, since clear() does not wipe it.
  static constexpr std::size_t kMaxLoad = 4;

  // Fibonacci hashing: the top bits of key times 2^64 / golden ratio.
  std::size_t home(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15u) >> shift_);
  }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    const std::size_t capacity = std::max<std::size_t>(256, 2 * old.size());
    slots_.assign(capacity, Slot{});
    mask_ = capacity - 1;
    shift_ = 64 - std::countr_zero(capacity);
    for (const Slot& slot : old) {
      if (slot.generation != generation_) continue;
      std::size_t i = home(slot.key);
      while (slots_[i].generation == generation_) i = (i + 1) & mask_;
      slots_[i] = slot;
    }
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  int shift_ = 64;
  std::uint32_t generation_ = 1;
  int size_ = 0;
};

// Dense ids for token strings, equal tokens equal ids. A token of up to 8 bytes is its own
// key, packed into an integer and told apart by its length; a longer one is keyed by a
// hash and compared byte by byte with a copy kept here.
class TokenTable {
 public:
  void clear() {
    ids_.clear();
    starts_.clear();
    long_tokens_.clear();
  }
  int size() const { return ids_.size(); }
  std::size_t memory_bytes() const {
    return ids_.memory_bytes() + starts_.capacity() * sizeof(std::size_t) + long_tokens_.capacity();
  }

  int id_of(std::string_view token) {
    if (token.size() <= kMaxPackedBytes) return id_of_packed(pack(token), token.size());
    auto same = [&](int known) {
      const std::size_t start = starts_[static_cast<std::size_t>(known)];
      return std::string_view(long_tokens_).substr(start, token.size()) == token;
    };
    const int known = ids_.size();
    const int id = ids_.id_of(hash_bytes(token), static_cast<std::uint32_t>(token.size()), same);
    if (id == known) {  // new token
      starts_.resize(static_cast<std::size_t>(id) + 1);
      starts_[static_cast<std::size_t>(id)] = long_tokens_.size();
      long_tokens_ += token;
    }
    return id;
  }

  // id_of(token) for a token of `length` <= kMaxPackedBytes bytes given as pack(token).
  // Its tag, the length, tells it from a long token's hash.
  int id_of_packed(std::uint64_t key, std::size_t length) {
    return ids_.id_of(key, static_cast<std::uint32_t>(length));
  }

  static constexpr std::size_t kMaxPackedBytes = 8;

  // The bytes of a token of at most 8 bytes in one integer, the first in the low byte.
  // Two overlapping loads: a memcpy of variable length would be a library call.
  static std::uint64_t pack(std::string_view token) {
    const char* p = token.data();
    const std::size_t n = token.size();
    if (n >= 4) {
      std::uint32_t low;
      std::uint32_t high;
      std::memcpy(&low, p, 4);
      std::memcpy(&high, p + n - 4, 4);
      return (std::uint64_t{high} << (8 * (n - 4))) | low;
    }
    if (n == 0) return 0;
    auto byte = [&](std::size_t i) { return std::uint64_t{static_cast<unsigned char>(p[i])}; };
    return byte(0) | (byte(n / 2) << (8 * (n / 2))) | (byte(n - 1) << (8 * (n - 1)));
  }

 private:
  IdTable ids_;
  std::vector<std::size_t> starts_;  // per id of a long token: where it is in long_tokens_
  std::string long_tokens_;          // the tokens longer than 8 bytes, one after another
};

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
  TokenTable tokens;          // token -> id, shared by both texts of a call
  TokenTable unstemmed;       // with the stemmer: token before stemming -> index in stem_ids
  std::vector<int> stem_ids;  // the id of each stem, so a token is stemmed once per call
  std::string scratch;        // the token being read, when it spans a Kelvin sign
  std::string lowered;        // a token lowercased
  std::vector<std::uint64_t> token_bits;  // the text being tokenized, a bit per byte
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

  void start_call() {
    tokens.clear();
    unstemmed.clear();
    stem_ids.clear();
  }

  // The id of the token that `raw` (bytes of [A-Za-z0-9]) lowercased is, stemmed if asked.
  int default_token_id(std::string_view raw, bool use_stemmer) {
    if (raw.size() <= TokenTable::kMaxPackedBytes && !(use_stemmer && raw.size() > 3)) {
      // Lowercased in the packed key: every byte gets the lowercase bit.
      const std::uint64_t lowercase_bits = 0x2020202020202020u >> (8 * (8 - raw.size()));
      return tokens.id_of_packed(TokenTable::pack(raw) | lowercase_bits, raw.size());
    }
    lowered.assign(raw);
    for (char& c : lowered) c |= kLowercaseBit;
    return use_stemmer && lowered.size() > 3 ? stemmed_id(lowered) : tokens.id_of(lowered);
  }

  // The id of the stem of `token`; each distinct token is stemmed once per call.
  int stemmed_id(std::string_view token) {
    const int index = unstemmed.id_of(token);
    if (static_cast<std::size_t>(index) == stem_ids.size()) {
      stem_ids.push_back(tokens.id_of(porter_stem(token)));
    }
    return stem_ids[static_cast<std::size_t>(index)];
  }

  std::size_t memory_bytes() const {
    auto bytes = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
    return tokens.memory_bytes() + unstemmed.memory_bytes() + grams.memory_bytes() +
           bytes(stem_ids) + bytes(scratch) + bytes(lowered) + bytes(token_bits) + bytes(cand) +
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

// The high bits of the eight bytes of `marks` as eight bits, byte k's as bit k: the
// multiplication moves bit 8k to bit 56 + k, and its other products land below bit 56
// or above bit 63 without carries.
std::uint64_t gather_high_bits(std::uint64_t marks) {
  return ((marks >> 7) * 0x0102040810204080u) >> 56;
}

// A text as one bit per byte, set for the bytes of [A-Za-z0-9] (byte i is bit i % 64 of
// word i / 64), with a zero word after the last. ORs every byte into `any_byte`.
void mark_token_bytes(std::string_view text, std::vector<std::uint64_t>& bits,
                      std::uint64_t& any_byte) {
  bits.assign(text.size() / 64 + 2, 0);
  const std::size_t whole = text.size() / 8 * 8;
  std::uint64_t seen = 0;
  auto add = [&](std::size_t i, std::uint64_t bytes) {
    seen |= bytes;
    bits[i / 64] |= gather_high_bits(byte_masks::ascii_alnum(bytes)) << (i % 64);
  };
  for (std::size_t i = 0; i < whole; i += 8) {
    std::uint64_t bytes;
    std::memcpy(&bytes, text.data() + i, 8);
    add(i, bytes);
  }
  if (whole < text.size()) {
    std::uint64_t bytes = 0;  // zero bytes past the end: separators
    std::memcpy(&bytes, text.data() + whole, text.size() - whole);
    add(whole, bytes);
  }
  any_byte = seen;
}

// scan_default_tokens with the token ids appended to `out`, from a bit per byte: the
// tokens' starts and lengths come from bit operations rather than a byte loop, whose
// mispredicted exit at each word end was most of the cost; a token of up to 8 bytes is
// its packed key read in one load. Returns false, with `out` unchanged, for a text with
// U+0130 or U+212A, which only the scalar scan handles; every other non-ASCII byte only
// separates tokens, as it does there.
bool append_ascii_token_ids(std::string_view text, bool use_stemmer, Workspace& ws, TokenIds& out) {
  if constexpr (std::endian::native != std::endian::little) return false;
  std::vector<std::uint64_t>& bits = ws.token_bits;
  std::uint64_t any_byte = 0;
  mark_token_bytes(text, bits, any_byte);
  if ((any_byte & byte_masks::kHighs) != 0 &&
      (text.find("\xC4\xB0") != text.npos || text.find("\xE2\x84\xAA") != text.npos)) {
    return false;
  }
  const std::uint64_t lowercase = byte_masks::kOnes * static_cast<unsigned char>(kLowercaseBit);
  std::uint64_t previous_last = 0;  // the bit of the byte before word w
  for (std::size_t w = 0; w + 1 < bits.size(); ++w) {
    std::uint64_t starts = bits[w] & ~((bits[w] << 1) | previous_last);
    previous_last = bits[w] >> 63;
    for (; starts != 0; starts &= starts - 1) {
      const auto offset = static_cast<unsigned>(__builtin_ctzll(starts));
      const std::size_t start = w * 64 + offset;
      // The 64 bits from the token's start on (two shifts: one by 64 would be undefined).
      const std::uint64_t ahead = (bits[w] >> offset) | ((bits[w + 1] << 1) << (63 - offset));
      std::size_t length;
      if (~ahead != 0) {
        length = static_cast<std::size_t>(__builtin_ctzll(~ahead));
      } else {  // a token of 64 bytes or more
        length = 64;
        while (start + length < text.size() &&
               kIsTokenByte[static_cast<unsigned char>(text[start + length])]) {
          ++length;
        }
      }
      if (length <= TokenTable::kMaxPackedBytes && start + 8 <= text.size() &&
          !(use_stemmer && length > 3)) {
        std::uint64_t bytes;
        std::memcpy(&bytes, text.data() + start, 8);
        // Every byte is in [A-Za-z0-9]: the lowercase bit on each lowercases the token.
        const std::uint64_t key = (bytes | lowercase) & (~std::uint64_t{0} >> (64 - 8 * length));
        out.push_back(ws.tokens.id_of_packed(key, length));
      } else {
        out.push_back(ws.default_token_id(text.substr(start, length), use_stemmer));
      }
    }
  }
  return true;
}

// Appends the token ids of `text` to `out`.
void append_token_ids(std::string_view text, const RougeOptions& options, Workspace& ws,
                      TokenIds& out) {
  if (options.tokenizer == RougeTokenizer::kUnicode) {
    for (const std::string& token : unicode_tokens(text, options.use_stemmer)) {
      out.push_back(ws.tokens.id_of(token));
    }
    return;
  }
  if (append_ascii_token_ids(text, options.use_stemmer, ws, out)) return;
  scan_default_tokens(text, ws.scratch, [&](std::string_view raw) {
    out.push_back(ws.default_token_id(raw, options.use_stemmer));
  });
}

void set_token_ids(std::string_view text, const RougeOptions& options, Workspace& ws,
                   TokenIds& out) {
  out.clear();
  append_token_ids(text, options, ws, out);
}

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
  const auto alphabet = static_cast<std::size_t>(ws.tokens.size());
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
  const auto alphabet = static_cast<std::size_t>(ws.tokens.size());
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
    count_tokens(ws.ref, ws.tokens.size(), ref_counts);
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
  ws.masks.assign(static_cast<std::size_t>(ws.tokens.size()), 0);
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
  ws.mask_slots.assign(static_cast<std::size_t>(ws.tokens.size()), -1);
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
  count_tokens(refs.ids, ws.tokens.size(), ref_counts);
  count_tokens(cands.ids, ws.tokens.size(), cand_counts);
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
      append_token_ids(text.substr(start, end - start), options, ws, out.ids);
      out.starts.push_back(out.ids.size());
    }
    start = end + 1;
  }
}

}  // namespace

std::vector<std::string> rouge_tokenize(std::string_view text, const RougeOptions& options) {
  if (options.tokenizer == RougeTokenizer::kUnicode) return unicode_tokens(text, options.use_stemmer);
  return default_tokens(text, options.use_stemmer);
}

RougeScore rouge_n(std::string_view candidate, std::string_view reference, int n,
                   const RougeOptions& options) {
  if (n < 1) throw std::invalid_argument("rouge_n requires n >= 1");
  ScopedWorkspace scoped;
  Workspace& ws = *scoped;
  set_token_ids(candidate, options, ws, ws.cand);
  set_token_ids(reference, options, ws, ws.ref);
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
  set_token_ids(candidate, options, ws, ws.cand);
  set_token_ids(reference, options, ws, ws.ref);
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
