// match_ngrams: the n-gram matching of BLEU and chrF (see ngram_matches.h).
#include "metrics/ngram_matches.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>

namespace ragmeter::sacrebleu_internal {
namespace {

constexpr std::uint32_t kNoId = 0xFFFFFFFF;

bool is_exact(std::uint64_t key) { return (key & NGramSequence::kHashedKey) == 0; }

// Whether two units of more than 7 bytes (the ones with hashed keys) are equal: eight
// bytes at a time, the last eight overlapping the ones before.
bool same_long_unit(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  const auto load = [](const char* p) {
    std::uint64_t word;
    std::memcpy(&word, p, 8);
    return word;
  };
  for (std::size_t k = 0; k + 8 < a.size(); k += 8) {
    if (load(a.data() + k) != load(b.data() + k)) return false;
  }
  return load(a.data() + a.size() - 8) == load(b.data() + b.size() - 8);
}

// Open-addressing map from 64-bit keys to ids. A key may stand for several values (a
// hash): `same(id)` then tells the true match. A slot is in use only if it carries the
// current stamp, so reset() clears nothing.
class IdTable {
 public:
  void reset(std::size_t expected) {
    // At most a quarter full: a probe past the first slot is a mispredicted branch.
    std::size_t capacity = 256;
    while (capacity < 4 * expected) capacity *= 2;
    if (slots_.size() < capacity) slots_.resize(capacity);
    mask_ = capacity - 1;
    shift_ = 64 - std::countr_zero(capacity);
    if (++stamp_ == 0) {  // wrapped: forget every slot
      std::fill(slots_.begin(), slots_.end(), Slot{});
      stamp_ = 1;
    }
  }

  template <typename Same>
  std::uint32_t find(std::uint64_t key, Same same) const {
    for (std::size_t s = slot_of(key);; s = (s + 1) & mask_) {
      const Slot& slot = slots_[s];
      if (slot.stamp != stamp_) return kNoId;
      if (slot.key == key && same(slot.id)) return slot.id;
    }
  }

  // The id of `key`; `new_id`, which it then gets, if it was absent.
  template <typename Same>
  std::uint32_t insert(std::uint64_t key, Same same, std::uint32_t new_id) {
    std::size_t s = slot_of(key);
    for (; slots_[s].stamp == stamp_; s = (s + 1) & mask_) {
      if (slots_[s].key == key && same(slots_[s].id)) return slots_[s].id;
    }
    slots_[s] = Slot{key, new_id, stamp_};
    return new_id;
  }

 private:
  struct Slot {
    std::uint64_t key = 0;
    std::uint32_t id = 0;
    std::uint32_t stamp = 0;
  };
  std::size_t slot_of(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ULL) >> shift_);
  }

  std::vector<Slot> slots_;
  std::size_t mask_ = 15;
  int shift_ = 60;
  std::uint32_t stamp_ = 0;
};

// Ids of single ASCII bytes (most characters), without hashing: one entry per byte,
// stamped like IdTable's slots. Used for character sequences only: in a sequence of
// words, one-byte words among longer ones would make the choice of table an
// unpredictable branch.
class AsciiIds {
 public:
  static bool covers(std::uint64_t key) { return key - kOneByte < 128; }
  void reset() {
    if (++stamp_ == 0) {
      entries_.fill(0);
      stamp_ = 1;
    }
  }
  std::uint32_t find(std::uint64_t key) const {
    const std::uint64_t entry = entries_[key - kOneByte];
    return (entry >> 32) == stamp_ ? static_cast<std::uint32_t>(entry) : kNoId;
  }
  std::uint32_t insert(std::uint64_t key, std::uint32_t new_id) {
    std::uint64_t& entry = entries_[key - kOneByte];
    if ((entry >> 32) != stamp_) entry = (std::uint64_t{stamp_} << 32) | new_id;
    return static_cast<std::uint32_t>(entry);
  }

 private:
  static constexpr std::uint64_t kOneByte = std::uint64_t{1} << 56;  // short_unit_key of "\0"
  std::array<std::uint64_t, 128> entries_{};
  std::uint32_t stamp_ = 0;
};

// match_ngrams, one order at a time, two ways. With one reference and at most 256
// hypothesis units (the usual sentence), match_by_bits: sets of hypothesis positions,
// a bit each. Otherwise the n-grams of the hypothesis get dense ids per order; an
// n-gram's key is then exact: (id of its first n-1 units, id of its last unit). Either
// way, positions whose n-gram no reference (or, for a reference, the hypothesis)
// contains are dropped, since no longer n-gram starting there can match either.
// One matcher per thread is reused, so its buffers stop growing after a few calls.
class LevelMatcher {
 public:
  void run(const NGramSequence& hypothesis, std::span<const NGramSequence> references,
           NGramMatches* result) {
    hyp_ = &hypothesis;
    refs_ = references;
    result_ = result;
    first_position_.clear();
    if (refs_.size() == 1 && result_->max_order <= 64) {
      switch ((hyp_->size() + 63) / 64) {  // words of 64 bits per set
        case 1: match_by_bits<1>(); return;
        case 2: match_by_bits<2>(); return;
        case 3: match_by_bits<3>(); return;
        case 4: match_by_bits<4>(); return;
        default: break;
      }
    }
    counts_.clear();
    hyp_side_.alive.clear();
    if (ref_sides_.size() < references.size()) ref_sides_.resize(references.size());
    for (std::size_t r = 0; r < references.size(); ++r) ref_sides_[r].alive.clear();
    match_units();
    // Matches of order n - 1 are needed for any of order n.
    for (int n = 2; n <= result_->max_order && result_->max_reference[n - 2] > 0; ++n) {
      match_order(n);
    }
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
    unit_count_ = counts_.size();
    for (std::size_t i = 0; i < hyp_->size(); ++i) {
      std::uint32_t& unit = hyp_side_.unit_ids[i];
      if (counts_[unit].ref_max == 0) {
        unit = kNoId;
      } else {
        hyp_side_.alive.push_back(static_cast<std::uint32_t>(i));
      }
    }
    hyp_side_.ids.resize(hyp_->size());  // order 2 reads its parents from unit_ids
  }

  // Gives each distinct unit of the hypothesis an id and counts it.
  void count_hypothesis_units() {
    const std::size_t m = hyp_->size();
    table_.reset(m);
    ascii_ids_.reset();
    counts_.reserve(m);
    first_position_.reserve(m);
    hyp_side_.unit_ids.resize(m);
    hyp_side_.alive.reserve(m);
    for (std::size_t i = 0; i < m; ++i) {
      const std::uint32_t id = insert_unit(i, static_cast<std::uint32_t>(counts_.size()));
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
    side.ids.resize(ref.size());
    per_reference(r, 1) = matches;
  }

  // The id of the hypothesis' unit i; `new_id` if it is the first of its kind.
  std::uint32_t insert_unit(std::size_t i, std::uint32_t new_id) {
    const std::uint64_t key = hyp_->key(i);
    if (!hyp_->has_units() && AsciiIds::covers(key)) return ascii_ids_.insert(key, new_id);
    return table_.insert(
        key,
        [&](std::uint32_t other) {
          return is_exact(key) || same_long_unit(hyp_->unit(first_position_[other]), hyp_->unit(i));
        },
        new_id);
  }

  // The id of unit j of `sequence` if the hypothesis has that unit, else kNoId.
  std::uint32_t find_unit(const NGramSequence& sequence, std::size_t j) {
    const std::uint64_t key = sequence.key(j);
    if (!hyp_->has_units() && AsciiIds::covers(key)) return ascii_ids_.find(key);
    return table_.find(key, [&](std::uint32_t other) {
      return is_exact(key) || same_long_unit(hyp_->unit(first_position_[other]), sequence.unit(j));
    });
  }

  // All orders for one reference and a hypothesis of at most 64 * W units, a bit per
  // hypothesis position (W words of 64 bits per set). For each reference position j
  // still alive, set j holds the hypothesis positions i whose n-gram equals the
  // reference's n-gram at j: for n = 1, the positions of its unit; then its order
  // n - 1 set, less the i where unit i + n - 1 differs from unit j + n - 1. A non-empty
  // set names its n-gram, since n-grams that differ occur at different positions; its
  // lowest position is the n-gram's slot. The t-th occurrence of an n-gram in the
  // reference is a clipped match while t is at most the size of the set (the
  // n-gram's count in the hypothesis). With one reference, BLEU's and chrF's counts
  // are the same.
  template <std::size_t W>
  void match_by_bits() {
    const std::size_t m = hyp_->size();
    table_.reset(m);
    ascii_ids_.reset();
    unit_positions_.clear();
    std::uint32_t units = 0;
    for (std::size_t i = 0; i < m; ++i) {
      const std::uint32_t id = insert_unit(i, units);
      if (id == units) {
        unit_positions_.resize(unit_positions_.size() + W, 0);
        first_position_.push_back(static_cast<std::uint32_t>(i));
        ++units;
      }
      unit_positions_[id * W + i / 64] |= std::uint64_t{1} << (i % 64);
    }
    const NGramSequence& ref = refs_[0];
    const std::size_t k = ref.size();
    unit_sets_.resize(k * W);
    sets_.resize(k * W);
    bit_alive_.resize(k);
    std::size_t alive = 0;
    for (std::size_t j = 0; j < k; ++j) {
      const std::uint32_t id = find_unit(ref, j);
      std::uint64_t any = 0;
      for (std::size_t w = 0; w < W; ++w) {
        const std::uint64_t bits = id == kNoId ? 0 : unit_positions_[id * W + w];
        unit_sets_[j * W + w] = bits;
        sets_[j * W + w] = bits;
        any |= bits;
      }
      bit_alive_[alive] = static_cast<std::uint32_t>(j);
      alive += any != 0 ? 1 : 0;
    }
    bit_alive_.resize(alive);
    if (seen_.size() < 64 * W) seen_.resize(64 * W, 0);
    for (int n = 1; n <= result_->max_order; ++n) {
      if (n > 1) extend_bit_sets<W>(n);
      const int matches = count_bit_matches<W>();
      per_reference(0, n) = matches;
      result_->max_reference[n - 1] = matches;
      if (matches == 0) break;  // no n-gram matches, so no longer one either
    }
  }

  // Narrows the sets of the alive reference positions from order n - 1 to order n
  // (n <= 64) and drops the positions left empty.
  template <std::size_t W>
  void extend_bit_sets(int n) {
    const std::size_t k = unit_sets_.size() / W;
    const unsigned shift = static_cast<unsigned>(n - 1);
    std::size_t kept = 0;
    for (std::uint32_t j : bit_alive_) {
      if (j + n > k) break;  // positions ascend: the rest are too close to the end
      // The unit sets of position j + n - 1, shifted down by n - 1 positions.
      const std::uint64_t* next = &unit_sets_[(j + n - 1) * W];
      std::uint64_t* set = &sets_[j * W];
      std::uint64_t any = 0;
      for (std::size_t w = 0; w < W; ++w) {
        std::uint64_t shifted = next[w] >> shift;
        if (w + 1 < W) shifted |= next[w + 1] << (64 - shift);  // 1 <= shift <= 63
        set[w] &= shifted;
        any |= set[w];
      }
      bit_alive_[kept] = j;
      kept += any != 0 ? 1 : 0;
    }
    bit_alive_.resize(kept);
  }

  // The clipped matches of the alive reference positions' (non-empty) sets: for each
  // n-gram, the smaller of its count in the reference (occurrences of its slot) and
  // in the hypothesis (its set's size, needed only when the reference has it more
  // than once). Leaves seen_ all zero, as it finds it.
  template <std::size_t W>
  int count_bit_matches() {
    distinct_.resize(bit_alive_.size());
    std::size_t distinct = 0;
    for (std::uint32_t j : bit_alive_) {
      distinct_[distinct] = j;
      distinct += seen_[lowest_bit<W>(&sets_[j * W])]++ == 0 ? 1 : 0;
    }
    int matches = 0;
    for (std::size_t d = 0; d < distinct; ++d) {
      const std::uint64_t* set = &sets_[distinct_[d] * W];
      std::uint32_t& in_reference = seen_[lowest_bit<W>(set)];
      matches += static_cast<int>(in_reference == 1 ? 1 : std::min(in_reference, bit_count<W>(set)));
      in_reference = 0;
    }
    return matches;
  }

  // The lowest position in a non-empty set, and the size of a set.
  template <std::size_t W>
  static std::size_t lowest_bit(const std::uint64_t* set) {
    std::size_t w = 0;
    while (w + 1 < W && set[w] == 0) ++w;
    return 64 * w + static_cast<std::size_t>(std::countr_zero(set[w]));
  }
  template <std::size_t W>
  static std::uint32_t bit_count(const std::uint64_t* set) {
    std::uint32_t count = 0;
    for (std::size_t w = 0; w < W; ++w) count += static_cast<std::uint32_t>(std::popcount(set[w]));
    return count;
  }

  // Order n > 1: an n-gram is its (n-1)-gram (the parent) and its last unit, so its
  // key (parent, unit) is exact. While parents times units is small, the ids sit in a
  // direct table (entries of an earlier order are told apart by a stamp, so the table
  // is never cleared); beyond that, in the hash table.
  void match_order(int n) {
    std::swap(counts_, parent_counts_);
    counts_.clear();
    const std::size_t parents = parent_counts_.size();
    const bool direct = parents * unit_count_ <= kMaxDirectCells;
    if (direct) {
      if (direct_ids_.size() < parents * unit_count_) direct_ids_.resize(parents * unit_count_, 0);
      if (++stamp_ == 0) {  // wrapped: forget every entry
        std::fill(direct_ids_.begin(), direct_ids_.end(), 0);
        stamp_ = 1;
      }
    } else {
      table_.reset(hyp_side_.alive.size());
    }
    const auto exact = [](std::uint32_t) { return true; };
    const auto key = [](std::uint32_t parent, std::uint32_t unit) {
      return (static_cast<std::uint64_t>(parent) << 32) | unit;
    };
    extend(hyp_->size(), n, &hyp_side_, [&](std::uint32_t parent, std::uint32_t unit) {
      // An (n-1)-gram no reference has cannot start a matching n-gram.
      if (parent_counts_[parent].ref_max == 0) return kNoId;
      const auto new_id = static_cast<std::uint32_t>(counts_.size());
      std::uint32_t id;
      if (direct) {
        std::uint64_t& entry = direct_ids_[parent * unit_count_ + unit];
        if ((entry >> 32) != stamp_) entry = (std::uint64_t{stamp_} << 32) | new_id;
        id = static_cast<std::uint32_t>(entry);
      } else {
        id = table_.insert(key(parent, unit), exact, new_id);
      }
      if (id == new_id) counts_.emplace_back();
      ++counts_[id].hyp;
      return id;
    });
    for (std::size_t r = 0; r < refs_.size(); ++r) {
      int matches = 0;
      extend(refs_[r].size(), n, &ref_sides_[r], [&](std::uint32_t parent, std::uint32_t unit) {
        std::uint32_t id;
        if (direct) {
          const std::uint64_t entry = direct_ids_[parent * unit_count_ + unit];
          id = (entry >> 32) == stamp_ ? static_cast<std::uint32_t>(entry) : kNoId;
        } else {
          id = table_.find(key(parent, unit), exact);
        }
        if (id != kNoId) matches += count_reference_match(id, r);
        return id;
      });
      per_reference(r, n) = matches;
    }
    finish_order(n);
  }

  // Moves each alive position of `side` from its (n-1)-gram to its n-gram, whose id
  // `lookup(parent, unit)` gives; drops the position when there is none.
  template <typename Lookup>
  void extend(std::size_t length, int n, Side* side, Lookup lookup) {
    std::size_t kept = 0;
    const std::uint32_t* parents = n == 2 ? side->unit_ids.data() : side->ids.data();
    for (std::uint32_t i : side->alive) {
      if (i + n > length) break;  // positions ascend: the rest are too close to the end
      const std::uint32_t unit = side->unit_ids[i + n - 1];
      if (unit == kNoId) continue;
      const std::uint32_t id = lookup(parents[i], unit);
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
    if (refs_.size() == 1) {  // the usual case: no reference to switch between
      const int clipped = counts.ref < counts.hyp ? 1 : 0;
      counts.ref_max = ++counts.ref;
      return clipped;
    }
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

  // Adds the BLEU matches of order n. (The next order drops the hypothesis positions
  // whose n-gram no reference has.)
  void finish_order(int n) {
    int matches = 0;
    for (const Counts& counts : counts_) matches += std::min(counts.hyp, counts.ref_max);
    result_->max_reference[n - 1] = matches;
  }

  const NGramSequence* hyp_ = nullptr;
  std::span<const NGramSequence> refs_;
  NGramMatches* result_ = nullptr;
  IdTable table_;
  std::vector<Counts> counts_;                 // by id of the current order
  std::vector<Counts> parent_counts_;          // by id of the order before
  std::vector<std::uint32_t> first_position_;  // in the hypothesis, by unit id
  AsciiIds ascii_ids_;
  std::size_t unit_count_ = 0;                 // distinct units of the hypothesis
  // Order n > 1: (stamp << 32 | id) by parent * unit_count_ + unit, up to 512 KiB.
  static constexpr std::size_t kMaxDirectCells = std::size_t{1} << 16;
  std::vector<std::uint64_t> direct_ids_;
  std::uint32_t stamp_ = 0;
  Side hyp_side_;
  std::vector<Side> ref_sides_;
  // match_by_bits: the hypothesis positions of each unit id; by reference
  // position, those of its unit and of its current n-gram; the reference positions
  // still alive.
  std::vector<std::uint64_t> unit_positions_;
  std::vector<std::uint64_t> unit_sets_;
  std::vector<std::uint64_t> sets_;
  std::vector<std::uint32_t> bit_alive_;
  std::vector<std::uint32_t> seen_;  // occurrences in the reference, by slot; kept zero
  std::vector<std::uint32_t> distinct_;  // the first reference position of each n-gram
};

}  // namespace

std::uint64_t unit_key(std::string_view unit) {
  if (unit.size() <= 7) return short_unit_key(unit);
  std::uint64_t first8;
  std::uint64_t last8;
  std::memcpy(&first8, unit.data(), 8);
  std::memcpy(&last8, unit.data() + unit.size() - 8, 8);
  return long_unit_key(first8, last8, unit.size());
}

void match_ngrams(const NGramSequence& hypothesis, std::span<const NGramSequence> references,
                  int max_order, NGramMatches* matches) {
  matches->max_order = std::max(0, max_order);
  matches->per_reference.assign(references.size() * matches->max_order, 0);
  matches->max_reference.assign(matches->max_order, 0);
  if (matches->max_order > 0 && hypothesis.size() > 0) {
    thread_local LevelMatcher matcher;
    matcher.run(hypothesis, references, matches);
  }
}

}  // namespace ragmeter::sacrebleu_internal
