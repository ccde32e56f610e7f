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
#include "metrics/sacrebleu_text.h"

#include <unicode/bytestream.h>
#include <unicode/casemap.h>
#include <unicode/stringpiece.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace ragmeter {
namespace sacrebleu_internal {
namespace {

constexpr std::uint32_t kNoId = 0xFFFFFFFF;

bool is_ascii(std::string_view text) {
  for (char c : text) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

// A cheap 64-bit hash of a short byte string (8 bytes at a time).
std::uint64_t hash_bytes(std::string_view bytes) {
  std::uint64_t hash = bytes.size() * 0xFF51AFD7ED558CCDULL;
  std::size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    std::uint64_t word;
    std::memcpy(&word, bytes.data() + i, 8);
    hash = (hash ^ word) * 0xC4CEB9FE1A85EC53ULL;
    hash ^= hash >> 29;
  }
  std::uint64_t tail = 0;
  for (std::size_t k = i; k < bytes.size(); ++k) {
    tail |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[k])) << (8 * (k - i));
  }
  hash = (hash ^ tail) * 0xC4CEB9FE1A85EC53ULL;
  return hash ^ (hash >> 32);
}

bool is_exact(std::uint64_t key) { return (key & NGramSequence::kHashedKey) == 0; }

// Ends the word that `sequence->text` holds from the last start up to `end`.
void seal_word(NGramSequence* sequence, std::uint32_t end) {
  const std::uint32_t start = sequence->starts.back();
  const std::string_view word = std::string_view(sequence->text).substr(start, end - start);
  sequence->keys.push_back(word.size() <= 7 ? short_unit_key(word)
                                            : hash_bytes(word) | NGramSequence::kHashedKey);
  sequence->starts.push_back(end);
}

// Units are short: a plain loop beats a call to memcmp.
bool same_bytes(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (a[k] != b[k]) return false;
  }
  return true;
}

// Open-addressing map from 64-bit keys to ids. A key may stand for several values (a
// hash): `same(id)` then tells the true match.
class IdTable {
 public:
  void reset(std::size_t expected) {
    std::size_t capacity = 16;
    while (capacity < 2 * expected) capacity *= 2;
    ids_.assign(capacity, kNoId);  // keys_ of empty slots are never read
    if (keys_.size() < capacity) keys_.resize(capacity);
    shift_ = 64 - std::countr_zero(capacity);
  }

  template <typename Same>
  std::uint32_t find(std::uint64_t key, Same same) const {
    for (std::size_t s = slot_of(key);; s = next(s)) {
      if (ids_[s] == kNoId) return kNoId;
      if (keys_[s] == key && same(ids_[s])) return ids_[s];
    }
  }

  // The id of `key`; `new_id`, which it then gets, if it was absent.
  template <typename Same>
  std::uint32_t insert(std::uint64_t key, Same same, std::uint32_t new_id) {
    std::size_t s = slot_of(key);
    for (; ids_[s] != kNoId; s = next(s)) {
      if (keys_[s] == key && same(ids_[s])) return ids_[s];
    }
    keys_[s] = key;
    ids_[s] = new_id;
    return new_id;
  }

 private:
  std::size_t slot_of(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> shift_);
  }
  std::size_t next(std::size_t s) const { return (s + 1) & (ids_.size() - 1); }

  std::vector<std::uint32_t> ids_;
  std::vector<std::uint64_t> keys_;
  int shift_ = 60;
};

// match_ngrams, one order at a time. The n-grams of the hypothesis get dense ids per
// order; an n-gram's key is then exact: (id of its first n-1 units, id of its last
// unit). Positions whose n-gram no reference (or, for a reference, the hypothesis)
// contains are dropped, since no longer n-gram starting there can match either.
class LevelMatcher {
 public:
  LevelMatcher(const NGramSequence& hypothesis, std::span<const NGramSequence> references,
               NGramMatches* result)
      : hyp_(hypothesis), refs_(references), result_(result), ref_sides_(references.size()) {}

  void run() {
    match_units();
    for (int n = 2; n <= result_->max_order && !hyp_side_.alive.empty(); ++n) match_order(n);
  }

 private:
  struct Counts {
    int hyp = 0;
    int ref = 0;      // in reference `ref_id`
    int ref_max = 0;  // the highest `ref` over references
    int ref_id = -1;
  };
  // Per position of a sequence: the id of its unit and of its current n-gram, and
  // the positions still worth extending.
  struct Side {
    std::vector<std::uint32_t> unit_ids;
    std::vector<std::uint32_t> ids;
    std::vector<std::uint32_t> alive;
  };

  // Order 1: units compared by content. Afterwards a hypothesis unit that no
  // reference has gets kNoId, like a reference unit that the hypothesis lacks: no
  // longer n-gram can contain either.
  void match_units() {
    count_hypothesis_units();
    for (std::size_t r = 0; r < refs_.size(); ++r) match_reference_units(r);
    finish_order(1);
    for (std::size_t i = 0; i < hyp_.size(); ++i) {
      std::uint32_t& unit = hyp_side_.unit_ids[i];
      if (counts_[unit].ref_max == 0) {
        unit = kNoId;
      } else {
        hyp_side_.alive.push_back(static_cast<std::uint32_t>(i));
      }
    }
    hyp_side_.ids = hyp_side_.unit_ids;
  }

  // Gives each distinct unit of the hypothesis an id and counts it.
  void count_hypothesis_units() {
    const std::size_t m = hyp_.size();
    table_.reset(m);
    ascii_ids_.fill(kNoId);
    counts_.reserve(m);
    first_position_.reserve(m);
    hyp_side_.unit_ids.resize(m);
    hyp_side_.alive.reserve(m);
    for (std::size_t i = 0; i < m; ++i) {
      const std::uint32_t id = insert_unit(i);
      if (id == counts_.size()) {
        counts_.emplace_back();
        first_position_.push_back(static_cast<std::uint32_t>(i));
      }
      ++counts_[id].hyp;
      hyp_side_.unit_ids[i] = id;
    }
  }

  // Finds the units of reference r in the hypothesis.
  void match_reference_units(std::size_t r) {
    const NGramSequence& ref = refs_[r];
    Side& side = ref_sides_[r];
    side.unit_ids.resize(ref.size());
    side.alive.reserve(ref.size());
    int matches = 0;
    for (std::size_t j = 0; j < ref.size(); ++j) {
      const std::uint32_t id = find_unit(ref, j);
      side.unit_ids[j] = id;
      if (id == kNoId) continue;
      matches += count_reference_match(id, r);
      side.alive.push_back(static_cast<std::uint32_t>(j));
    }
    side.ids = side.unit_ids;
    per_reference(r, 1) = matches;
  }

  // The id of the hypothesis' unit i, a new one if it is the first of its kind.
  std::uint32_t insert_unit(std::size_t i) {
    const std::uint64_t key = hyp_.keys[i];
    if (std::uint32_t* id = ascii_id(key)) {
      if (*id == kNoId) *id = static_cast<std::uint32_t>(counts_.size());
      return *id;
    }
    return table_.insert(
        key,
        [&](std::uint32_t other) {
          return is_exact(key) || same_bytes(hyp_.unit(first_position_[other]), hyp_.unit(i));
        },
        static_cast<std::uint32_t>(counts_.size()));
  }

  // The id of unit j of `sequence` if the hypothesis has that unit, else kNoId.
  std::uint32_t find_unit(const NGramSequence& sequence, std::size_t j) {
    const std::uint64_t key = sequence.keys[j];
    if (const std::uint32_t* id = ascii_id(key)) return *id;
    return table_.find(key, [&](std::uint32_t other) {
      return is_exact(key) || same_bytes(hyp_.unit(first_position_[other]), sequence.unit(j));
    });
  }

  // Single ASCII bytes, most characters, skip the hash table: their ids are in a small
  // array. Returns the entry for `key`, or nullptr for any other unit.
  std::uint32_t* ascii_id(std::uint64_t key) {
    const std::uint64_t byte = key - short_unit_key(std::string_view("\0", 1));
    return byte < ascii_ids_.size() ? &ascii_ids_[byte] : nullptr;
  }

  // Order n > 1: keys (id of the (n-1)-gram, id of the last unit) are exact.
  void match_order(int n) {
    table_.reset(hyp_side_.alive.size());
    counts_.clear();
    const auto exact = [](std::uint32_t) { return true; };
    extend(hyp_.size(), n, &hyp_side_, [&](std::uint64_t key) {
      const std::uint32_t id =
          table_.insert(key, exact, static_cast<std::uint32_t>(counts_.size()));
      if (id == counts_.size()) counts_.emplace_back();
      ++counts_[id].hyp;
      return id;
    });
    for (std::size_t r = 0; r < refs_.size(); ++r) {
      int matches = 0;
      extend(refs_[r].size(), n, &ref_sides_[r], [&](std::uint64_t key) {
        const std::uint32_t id = table_.find(key, exact);
        if (id != kNoId) matches += count_reference_match(id, r);
        return id;
      });
      per_reference(r, n) = matches;
    }
    finish_order(n);
  }

  // Moves each alive position of `side` from its (n-1)-gram to its n-gram, whose id
  // `lookup` gives for the n-gram's key; drops the position when there is none.
  template <typename Lookup>
  void extend(std::size_t length, int n, Side* side, Lookup lookup) {
    std::size_t kept = 0;
    for (std::uint32_t i : side->alive) {
      if (i + n > length) continue;
      const std::uint32_t unit = side->unit_ids[i + n - 1];
      if (unit == kNoId) continue;
      const std::uint32_t id = lookup((static_cast<std::uint64_t>(side->ids[i]) << 32) | unit);
      if (id == kNoId) continue;
      side->ids[i] = id;
      side->alive[kept++] = i;
    }
    side->alive.resize(kept);
  }

  // Counts one occurrence of n-gram `id` in reference `r`; returns 1 while the
  // reference has no more of them than the hypothesis (a clipped match), else 0.
  int count_reference_match(std::uint32_t id, std::size_t r) {
    Counts& counts = counts_[id];
    if (counts.ref_id != static_cast<int>(r)) {
      counts.ref_id = static_cast<int>(r);
      counts.ref = 0;
    }
    const int clipped = counts.ref < counts.hyp ? 1 : 0;
    ++counts.ref;
    counts.ref_max = std::max(counts.ref_max, counts.ref);
    return clipped;
  }

  int& per_reference(std::size_t r, int n) {
    return result_->per_reference[r * result_->max_order + n - 1];
  }

  // Adds the BLEU matches of order n; keeps the hypothesis positions some reference
  // matched.
  void finish_order(int n) {
    int matches = 0;
    for (const Counts& counts : counts_) matches += std::min(counts.hyp, counts.ref_max);
    result_->max_reference[n - 1] = matches;
    if (n == 1) return;  // match_units filters by unit instead
    std::size_t kept = 0;
    for (std::uint32_t i : hyp_side_.alive) {
      if (counts_[hyp_side_.ids[i]].ref_max > 0) hyp_side_.alive[kept++] = i;
    }
    hyp_side_.alive.resize(kept);
  }

  const NGramSequence& hyp_;
  std::span<const NGramSequence> refs_;
  NGramMatches* result_;
  IdTable table_;
  std::vector<Counts> counts_;                 // by id of the current order
  std::vector<std::uint32_t> first_position_;  // in the hypothesis, by unit id
  std::array<std::uint32_t, 128> ascii_ids_;   // by byte
  Side hyp_side_;
  std::vector<Side> ref_sides_;
};

}  // namespace

std::string python_lower(std::string_view text) {
  std::string out;
  if (is_ascii(text)) {  // the common case needs no Unicode tables
    out.resize(text.size());
    std::transform(text.begin(), text.end(), out.begin(), [](char c) {
      return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    });
    return out;
  }
  out.reserve(text.size());
  icu::StringByteSink<std::string> sink(&out);
  UErrorCode status = U_ZERO_ERROR;
  // The root locale ("") gives the language-independent mapping Python uses.
  icu::CaseMap::utf8ToLower("", 0, icu::StringPiece(text.data(), static_cast<int32_t>(text.size())),
                            sink, nullptr, status);
  if (U_FAILURE(status)) return std::string(text);
  return out;
}

std::size_t non_ascii_space_length(std::string_view text, std::size_t pos) {
  const auto byte = [&](std::size_t i) -> unsigned char {
    return i < text.size() ? static_cast<unsigned char>(text[i]) : 0;
  };
  const unsigned char b1 = byte(pos + 1);
  const unsigned char b2 = byte(pos + 2);
  switch (byte(pos)) {
    case 0xC2:  // U+0085, U+00A0
      return (b1 == 0x85 || b1 == 0xA0) ? 2 : 0;
    case 0xE1:  // U+1680
      return (b1 == 0x9A && b2 == 0x80) ? 3 : 0;
    case 0xE2:  // U+2000-U+200A, U+2028, U+2029, U+202F; U+205F
      if (b1 == 0x80) {
        return (b2 >= 0x80 && b2 <= 0x8A) || b2 == 0xA8 || b2 == 0xA9 || b2 == 0xAF ? 3 : 0;
      }
      return (b1 == 0x81 && b2 == 0x9F) ? 3 : 0;
    case 0xE3:  // U+3000
      return (b1 == 0x80 && b2 == 0x80) ? 3 : 0;
    default:
      return 0;
  }
}

std::vector<std::string_view> python_split(std::string_view text) {
  std::vector<std::string_view> words;
  words.reserve(text.size() / 4 + 4);
  std::size_t word_start = 0;
  bool in_word = false;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t space = python_space_length(text, i);
    if (space == 0) {
      if (!in_word) word_start = i;
      in_word = true;
      ++i;
      continue;
    }
    if (in_word) words.push_back(text.substr(word_start, i - word_start));
    in_word = false;
    i += space;
  }
  if (in_word) words.push_back(text.substr(word_start));
  return words;
}

void append_word(std::string_view word, NGramSequence* sequence) {
  if (sequence->starts.empty()) sequence->starts.push_back(0);
  sequence->text.append(word);
  seal_word(sequence, static_cast<std::uint32_t>(sequence->text.size()));
}

NGramMatches match_ngrams(const NGramSequence& hypothesis,
                          std::span<const NGramSequence> references, int max_order) {
  NGramMatches result;
  result.max_order = std::max(0, max_order);
  result.per_reference.assign(references.size() * result.max_order, 0);
  result.max_reference.assign(result.max_order, 0);
  if (result.max_order > 0 && hypothesis.size() > 0) {
    LevelMatcher(hypothesis, references, &result).run();
  }
  return result;
}

}  // namespace sacrebleu_internal

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

// tokenizer_13a's language-independent part, in sacreBLEU's order (each replace is a
// separate pass, so "&amp;lt;" becomes "<"). Returns `line` itself when it has nothing
// to replace, else a view of `*storage`.
std::string_view unescape_13a(std::string_view line, std::string* storage) {
  // (find_first_of would call memchr once per character.)
  if (std::none_of(line.begin(), line.end(),
                   [](char c) { return c == '<' || c == '\n' || c == '&'; })) {
    return line;
  }
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

// Where the tokenizer writes words: a character either extends the current word,
// ends it (whitespace), or is a word of its own. Both sinks write into buffers sized
// for the worst case up front: the scan is the hot loop of BLEU.
//
// JoinedWords: the words joined by single spaces, as tokenize_13a returns them.
class JoinedWords {
 public:
  // Each input byte yields at most itself and one space.
  explicit JoinedWords(std::size_t input_size) { out_.resize(2 * input_size); }
  void append(char c) {
    if (!in_word_ && size_ > 0) out_[size_++] = ' ';
    out_[size_++] = c;
    in_word_ = true;
  }
  void end_word() { in_word_ = false; }
  std::string take() {
    out_.resize(size_);
    return std::move(out_);
  }

 private:
  std::string out_;
  std::size_t size_ = 0;
  bool in_word_ = false;
};

// SequenceWords: the words as the units of an n-gram sequence.
class SequenceWords {
 public:
  SequenceWords(std::size_t input_size, NGramSequence* sequence) : sequence_(sequence) {
    sequence_->text.resize(input_size);
    sequence_->starts.assign(1, 0);
  }
  void append(char c) {
    sequence_->text[size_++] = c;
    in_word_ = true;
  }
  void end_word() {
    if (in_word_) sacrebleu_internal::seal_word(sequence_, static_cast<std::uint32_t>(size_));
    in_word_ = false;
  }
  void finish() { sequence_->text.resize(size_); }

 private:
  NGramSequence* sequence_;
  std::size_t size_ = 0;
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
  for (std::size_t j = 0; j < text.size(); ++j) {
    const char c = text[j];
    bool after_non_digit = false;
    bool before_non_digit = false;
    bool alone = false;
    switch (kBytes13a[static_cast<unsigned char>(c)]) {
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
    words->append(c);
    if (alone) words->end_word();
    prev_after_non_digit = after_non_digit;
    prev_before_non_digit = before_non_digit;
  }
  words->end_word();
}

// Python's str.rstrip(). A multi-byte space ends in a continuation byte: look back for
// its lead byte.
std::string_view python_rstrip(std::string_view text) {
  std::size_t end = text.size();
  while (end > 0) {
    std::size_t space = 0;
    for (std::size_t length = 1; length <= 3 && length <= end && space == 0; ++length) {
      if (sacrebleu_internal::python_space_length(text.substr(0, end), end - length) == length) {
        space = length;
      }
    }
    if (space == 0) break;
    end -= space;
  }
  return text.substr(0, end);
}

// BLEU._preprocess_segment, then the tokens that extract_all_word_ngrams splits.
NGramSequence bleu_tokens(std::string_view segment, const BleuOptions& options) {
  std::string lowered;
  if (options.lowercase) {
    lowered = sacrebleu_internal::python_lower(segment);
    segment = lowered;
  }
  segment = python_rstrip(segment);
  NGramSequence sequence;
  if (options.tokenizer == BleuTokenizer::k13a) {
    std::string unescaped;
    const std::string_view text = unescape_13a(segment, &unescaped);
    sequence.keys.reserve(text.size() / 3 + 4);
    sequence.starts.reserve(text.size() / 3 + 5);
    SequenceWords words(text.size(), &sequence);
    write_13a_tokens(text, &words);
    words.finish();
  } else {
    for (std::string_view word : sacrebleu_internal::python_split(segment)) {
      sacrebleu_internal::append_word(word, &sequence);
    }
  }
  return sequence;
}

// BLEU._get_closest_ref_len: the closest length, the shorter one on a tie.
int closest_reference_length(int hyp_len, const std::vector<NGramSequence>& refs) {
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
double floored_log(double x) { return x == 0.0 ? -9999999999.0 : std::log(x); }

BleuOptions with_effective_order(BleuOptions options) {
  options.effective_order = true;
  return options;
}

}  // namespace

std::string tokenize_13a(std::string_view line) {
  std::string unescaped;
  const std::string_view text = unescape_13a(line, &unescaped);
  JoinedWords words(text.size());
  write_13a_tokens(text, &words);
  return words.take();
}

std::vector<double> bleu_statistics(std::string_view hypothesis,
                                    const std::vector<std::string>& references,
                                    const BleuOptions& options) {
  const NGramSequence hyp = bleu_tokens(hypothesis, options);
  std::vector<NGramSequence> refs;
  refs.reserve(references.size());
  for (const std::string& reference : references) refs.push_back(bleu_tokens(reference, options));
  const sacrebleu_internal::NGramMatches matches =
      sacrebleu_internal::match_ngrams(hyp, refs, kMaxOrder);

  const int hyp_len = static_cast<int>(hyp.size());
  std::vector<double> stats(kBleuStatCount, 0.0);
  stats[0] = hyp_len;
  stats[1] = closest_reference_length(hyp_len, refs);
  for (int n = 1; n <= kMaxOrder; ++n) {
    stats[1 + n] = matches.max_reference[n - 1];
    stats[1 + kMaxOrder + n] = std::max(0, hyp_len - n + 1);
  }
  return stats;
}

// BLEU.compute_bleu, operation for operation (the result is compared to 1e-9).
double bleu_from_statistics(const std::vector<double>& stats, const BleuOptions& options) {
  if (stats.size() < static_cast<std::size_t>(kBleuStatCount)) return 0.0;
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
  return bp * std::exp(log_sum / eff_order) / 100.0;
}

double sentence_bleu(std::string_view hypothesis, const std::vector<std::string>& references,
                     const BleuOptions& options) {
  const BleuOptions effective = with_effective_order(options);
  return bleu_from_statistics(bleu_statistics(hypothesis, references, effective), effective);
}

double corpus_bleu(const std::vector<std::string>& hypotheses,
                   const std::vector<std::vector<std::string>>& references,
                   const BleuOptions& options) {
  static const std::vector<std::string> kNoReferences;
  std::vector<double> sums(kBleuStatCount, 0.0);
  for (std::size_t i = 0; i < hypotheses.size(); ++i) {
    const auto& refs = i < references.size() ? references[i] : kNoReferences;
    const std::vector<double> stats = bleu_statistics(hypotheses[i], refs, options);
    for (int k = 0; k < kBleuStatCount; ++k) sums[k] += stats[k];
  }
  return bleu_from_statistics(sums, options);
}

}  // namespace ragmeter
