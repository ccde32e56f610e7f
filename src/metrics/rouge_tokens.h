// rouge-score's tokens (rouge_score/tokenize.py) for ROUGE: as strings, for
// rouge_tokenize(), and as small integer ids, for scoring, without a heap string per
// token. Internal to src/metrics: not part of the public API.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "ragmeter/rouge.h"

namespace ragmeter::rouge_internal {

using TokenIds = std::vector<int>;

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

// A 64-bit hash of a token's bytes.
std::uint64_t hash_bytes(std::string_view bytes);

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

// rouge-score's tokens of `text` as strings.
std::vector<std::string> string_tokens(std::string_view text, const RougeOptions& options);

// The token ids of the texts of one call: equal tokens get equal ids, 0, 1, 2, ... in
// order of first appearance, across all the texts read since start_call(). Its tables
// and buffers are kept from call to call.
class TokenIdReader {
 public:
  // Forgets the tokens of the previous call; keeps the memory.
  void start_call() {
    tokens_.clear();
    unstemmed_.clear();
    stem_ids_.clear();
  }
  // How many distinct tokens this call has read: every id is below it.
  int alphabet_size() const { return tokens_.size(); }

  // Appends the token ids of `text` to `out`.
  void append_ids(std::string_view text, const RougeOptions& options, TokenIds& out);
  // The token ids of `text`, in place of `out`'s contents.
  void set_ids(std::string_view text, const RougeOptions& options, TokenIds& out) {
    out.clear();
    append_ids(text, options, out);
  }

  std::size_t memory_bytes() const {
    auto bytes = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
    return tokens_.memory_bytes() + unstemmed_.memory_bytes() + bytes(stem_ids_) + bytes(scratch_) +
           bytes(lowered_) + bytes(token_bits_);
  }

 private:
  int default_token_id(std::string_view raw, bool use_stemmer);
  int stemmed_id(std::string_view token);
  bool append_ascii_ids(std::string_view text, bool use_stemmer, TokenIds& out);

  TokenTable tokens_;          // token -> id
  TokenTable unstemmed_;       // with the stemmer: token before stemming -> index in stem_ids_
  std::vector<int> stem_ids_;  // the id of each stem, so a token is stemmed once per call
  std::string scratch_;        // the token being read, when it spans a Kelvin sign
  std::string lowered_;        // a token lowercased
  std::vector<std::uint64_t> token_bits_;  // the text being tokenized, a bit per byte
};

}  // namespace ragmeter::rouge_internal
