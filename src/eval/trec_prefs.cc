// trec_eval's preference evaluation (its form_prefs_counts.c and m_prefs_*.c, read for
// their semantics): documents get internal ranks, each judgment group's preferences
// become either classes of equal level (one subgroup) or a transitively closed
// preference matrix (several subgroups), and every preference is counted as fulfilled
// or possible among the retrieved, implied, or not occurring.
#include "eval/trec_prefs.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

namespace ragmeter {
namespace {

double as_double(long value) { return static_cast<double>(value); }

// A preference line with its document's internal rank.
struct RankedPref {
  const TrecPref* pref;
  long rank;
};

// Internal ranks: judged retrieved documents in ranking order, then the judged
// unretrieved ones by id. Sets judged_ret and judged.
std::unordered_map<std::string, long> internal_ranks(const Ranking& ranking,
                                                     const std::vector<TrecPref>& prefs,
                                                     long max_docs, TrecPrefCounts& counts) {
  const std::set<std::string> judged = [&] {
    std::set<std::string> docs;
    for (const TrecPref& p : prefs) docs.insert(p.doc);
    return docs;
  }();
  std::unordered_map<std::string, long> ranks;
  std::unordered_set<std::string> seen;
  for (const std::string& doc : ranking) {
    if (max_docs > 0 && static_cast<long>(seen.size()) == max_docs) break;
    if (!seen.insert(doc).second) continue;
    if (judged.count(doc) > 0) ranks.emplace(doc, static_cast<long>(ranks.size()));
  }
  counts.judged_ret = static_cast<long>(ranks.size());
  for (const std::string& doc : judged) ranks.emplace(doc, static_cast<long>(ranks.size()));
  counts.judged = static_cast<long>(ranks.size());
  return ranks;
}

// Classifies the preference of internal rank `a` over `b` into `g` (a != b).
void count_preference(long a, long b, long judged_ret, TrecPrefGroup& g) {
  if (a < b) {
    if (b < judged_ret) {
      ++g.fulfilled_ret;
    } else if (a < judged_ret) {
      ++g.fulfilled_imp;
    } else {
      ++g.possible_notoccur;
    }
  } else if (a < judged_ret) {
    ++g.possible_ret;
  } else if (b < judged_ret) {
    ++g.possible_imp;
  } else {
    ++g.possible_notoccur;
  }
}

void close_counts(TrecPrefGroup& g) {
  g.possible_ret += g.fulfilled_ret;
  g.possible_imp += g.fulfilled_imp;
}

// A group of one subgroup: classes of equal level, highest first.
Status count_classes(std::span<const RankedPref> lines, TrecPrefCounts& c, TrecPrefGroup& g) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i == 0 || lines[i].pref->level != lines[i - 1].pref->level) g.classes.emplace_back();
    g.classes.back().push_back(lines[i].rank);
  }
  std::vector<double> class_levels;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i == 0 || lines[i].pref->level != lines[i - 1].pref->level) {
      class_levels.push_back(lines[i].pref->level);
    }
  }
  for (std::size_t c1 = 0; c1 < g.classes.size(); ++c1) {
    const std::vector<long>& docs = g.classes[c1];
    const long retrieved = std::count_if(docs.begin(), docs.end(),
                                         [&](long r) { return r < c.judged_ret; });
    if (class_levels[c1] > 0.0) {
      g.num_rel_ret += retrieved;
      g.num_rel += static_cast<long>(docs.size());
    } else {
      g.num_nonrel_ret += retrieved;
      g.num_nonrel += static_cast<long>(docs.size());
    }
    for (std::size_t c2 = c1 + 1; c2 < g.classes.size(); ++c2) {
      for (const long a : docs) {
        for (const long b : g.classes[c2]) {
          if (a == b) {
            return invalid_argument(fmt::format(
                "document '{}' has two levels in group '{}' subgroup '{}'",
                std::find_if(lines.begin(), lines.end(),
                             [&](const RankedPref& p) { return p.rank == a; })->pref->doc,
                lines.front().pref->group, lines.front().pref->subgroup));
          }
          ++c.pair_counts[a * c.judged + b];
          count_preference(a, b, c.judged_ret, g);
        }
      }
    }
  }
  close_counts(g);
  return ok_status();
}

// Transitive closure (Warshall) of `m`, n x n; false when it holds A > B and B > A.
bool close_transitively(std::vector<std::uint8_t>& m, long n) {
  for (long k = 0; k < n; ++k) {
    for (long i = 0; i < n; ++i) {
      if (!m[i * n + k]) continue;
      for (long j = 0; j < n; ++j) m[i * n + j] |= m[k * n + j];
    }
  }
  for (long i = 0; i < n; ++i) m[i * n + i] = 0;
  for (long i = 0; i < n; ++i) {
    for (long j = i + 1; j < n; ++j) {
      if (m[i * n + j] && m[j * n + i]) return false;
    }
  }
  return true;
}

// A group of several subgroups: the preference matrix, closed transitively.
Status count_matrix(std::span<const RankedPref> lines, TrecPrefCounts& c, TrecPrefGroup& g) {
  const long n = c.judged;
  const std::string& group = lines.front().pref->group;
  g.prefers.assign(n * n, 0);
  g.levels.assign(n, -1.0);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const TrecPref& p = *lines[i].pref;
    double& level = g.levels[lines[i].rank];
    if ((level > 0.0 && p.level == 0.0) || (level == 0.0 && p.level > 0.0)) {
      return invalid_argument(fmt::format(
          "document '{}' is both non-relevant (0) and relevant in group '{}'", p.doc, group));
    }
    level = p.level;
    std::size_t j = i + 1;
    const auto same_subgroup = [&](std::size_t k) {
      return k < lines.size() && lines[k].pref->subgroup == p.subgroup;
    };
    while (same_subgroup(j) && lines[j].pref->level == p.level) ++j;
    for (; same_subgroup(j); ++j) g.prefers[lines[i].rank * n + lines[j].rank] = 1;
  }
  if (!close_transitively(g.prefers, n)) {
    return invalid_argument(
        fmt::format("group '{}' prefers a document to another and back (its subgroups "
                    "contradict each other)", group));
  }
  for (long i = 0; i < n; ++i) {
    const bool retrieved = i < c.judged_ret;
    if (g.levels[i] > 0.0) {
      ++g.num_rel;
      g.num_rel_ret += retrieved;
    } else if (g.levels[i] == 0.0) {
      ++g.num_nonrel;
      g.num_nonrel_ret += retrieved;
    }
  }
  for (long i = 0; i < n; ++i) {
    for (long j = 0; j < n; ++j) {
      if (!g.prefers[i * n + j]) continue;
      ++c.pair_counts[i * n + j];
      count_preference(i, j, c.judged_ret, g);
    }
  }
  close_counts(g);
  return ok_status();
}

long fulfilled(const TrecPrefGroup& g, TrecPrefScope scope) {
  return scope == TrecPrefScope::kRetrieved ? g.fulfilled_ret : g.fulfilled_ret + g.fulfilled_imp;
}

long possible(const TrecPrefGroup& g, TrecPrefScope scope) {
  switch (scope) {
    case TrecPrefScope::kRetrieved:
      return g.possible_ret;
    case TrecPrefScope::kImplied:
      return g.possible_ret + g.possible_imp;
    case TrecPrefScope::kAll:
      break;
  }
  return g.possible_ret + g.possible_imp + g.possible_notoccur;
}

// The *_Rnonrel recount of a class group, with the last class (the non-relevant one)
// cut to its first `keep` documents. trec_eval's loops, quirks included: the cut class
// is also paired with the last class itself, and with `retrieved_only` a class stops at
// its first unretrieved document.
std::pair<long, long> recount_classes(const TrecPrefGroup& g, long judged_ret, long keep,
                                      bool retrieved_only) {
  long ful = 0;
  long poss = 0;
  const auto tally = [&](long a, long b) {
    const bool met = retrieved_only ? a < b : a < b && a < judged_ret;
    met ? ++ful : ++poss;
  };
  const auto usable = [&](const std::vector<long>& docs, std::size_t limit) {
    std::size_t n = std::min(limit, docs.size());
    if (retrieved_only) {
      n = std::find_if(docs.begin(), docs.begin() + n, [&](long r) { return r >= judged_ret; }) -
          docs.begin();
    }
    return std::span<const long>(docs.data(), n);
  };
  const std::size_t classes = g.classes.size();
  for (std::size_t c1 = 0; c1 < classes; ++c1) {
    for (std::size_t c2 = c1 + 1; c2 + 1 < classes; ++c2) {
      for (const long a : usable(g.classes[c1], g.classes[c1].size())) {
        for (const long b : usable(g.classes[c2], g.classes[c2].size())) tally(a, b);
      }
    }
  }
  const std::span<const long> cut = usable(g.classes.back(), static_cast<std::size_t>(keep));
  for (std::size_t c1 = 0; c1 < classes; ++c1) {
    for (const long a : usable(g.classes[c1], g.classes[c1].size())) {
      for (const long b : cut) tally(a, b);
    }
  }
  return {ful, poss + ful};
}

// The *_Rnonrel recount of a matrix group: non-relevant documents past the first
// `keep` (in internal rank order) left out.
std::pair<long, long> recount_matrix(const TrecPrefGroup& g, long judged, long judged_ret,
                                     long keep, bool retrieved_only) {
  const long scan_end = retrieved_only ? judged_ret : judged;
  long first_dropped = 0;
  long nonrel_seen = 0;
  for (; first_dropped < scan_end; ++first_dropped) {
    if (g.levels[first_dropped] == 0.0 && ++nonrel_seen == keep + 1) break;
  }
  const auto dropped = [&](long i) { return i >= first_dropped && g.levels[i] == 0.0; };
  const long end = retrieved_only ? judged_ret : judged;
  long ful = 0;
  long poss = 0;
  for (long i = 0; i < end; ++i) {
    if (dropped(i)) continue;
    for (long j = 0; j < end; ++j) {
      if (j == i || dropped(j) || !g.prefers[i * judged + j]) continue;
      // Fulfilled: both retrieved with i above j, or only i retrieved.
      const bool met = i < judged_ret && (j >= judged_ret || i < j);
      met ? ++ful : ++poss;
    }
  }
  return {ful, poss + ful};
}

}  // namespace

StatusOr<TrecPrefCounts> trec_pref_counts(const Ranking& ranking,
                                          const std::vector<TrecPref>& prefs, long max_docs) {
  TrecPrefCounts c;
  const std::unordered_map<std::string, long> ranks = internal_ranks(ranking, prefs, max_docs, c);
  c.pair_counts.assign(c.judged * c.judged, 0);
  std::vector<RankedPref> lines;
  lines.reserve(prefs.size());
  for (const TrecPref& p : prefs) lines.push_back({&p, ranks.at(p.doc)});
  std::stable_sort(lines.begin(), lines.end(), [](const RankedPref& a, const RankedPref& b) {
    if (a.pref->group != b.pref->group) return a.pref->group < b.pref->group;
    if (a.pref->subgroup != b.pref->subgroup) return a.pref->subgroup < b.pref->subgroup;
    if (a.pref->level != b.pref->level) return a.pref->level > b.pref->level;
    return a.rank < b.rank;
  });
  for (std::size_t start = 0; start < lines.size();) {
    std::size_t end = start;
    std::set<std::string_view> subgroups;
    while (end < lines.size() && lines[end].pref->group == lines[start].pref->group) {
      subgroups.insert(lines[end++].pref->subgroup);
    }
    const std::span<const RankedPref> group(lines.data() + start, end - start);
    TrecPrefGroup& g = c.groups.emplace_back();
    RAGMETER_RETURN_IF_ERROR(subgroups.size() > 1 ? count_matrix(group, c, g)
                                                  : count_classes(group, c, g));
    start = end;
  }
  return c;
}

long trec_prefs_num_possible(const TrecPrefCounts& c) {
  long sum = 0;
  for (const TrecPrefGroup& g : c.groups) sum += possible(g, TrecPrefScope::kAll);
  return sum;
}

long trec_prefs_num_fulfilled(const TrecPrefCounts& c) {
  long sum = 0;
  for (const TrecPrefGroup& g : c.groups) sum += fulfilled(g, TrecPrefScope::kAll);
  return sum;
}

long trec_prefs_num_fulfilled_ret(const TrecPrefCounts& c) {
  long sum = 0;
  for (const TrecPrefGroup& g : c.groups) sum += g.fulfilled_ret;
  return sum;
}

double trec_prefs_simple(const TrecPrefCounts& c, TrecPrefScope scope) {
  long ful = 0;
  long poss = 0;
  for (const TrecPrefGroup& g : c.groups) {
    ful += fulfilled(g, scope);
    poss += possible(g, scope);
  }
  return poss > 0 ? as_double(ful) / as_double(poss) : 0.0;
}

double trec_prefs_pair(const TrecPrefCounts& c, TrecPrefScope scope) {
  double sum = 0.0;
  long pairs = 0;
  const auto add = [&](long i, long j, bool scored) {
    const long ij = c.count(i, j);
    const long ji = c.count(j, i);
    if (ij == 0 && ji == 0) return;
    ++pairs;
    if (scored) sum += as_double(ij) / as_double(ij + ji);
  };
  const long r = c.judged_ret;
  for (long i = 0; i < r; ++i) {
    for (long j = i + 1; j < r; ++j) add(i, j, true);
  }
  if (scope == TrecPrefScope::kRetrieved) return pairs > 0 ? sum / as_double(pairs) : 0.0;
  for (long i = 0; i < r; ++i) {
    for (long j = r; j < c.judged; ++j) add(i, j, true);
  }
  if (scope == TrecPrefScope::kAll) {
    for (long i = r; i < c.judged; ++i) {
      for (long j = i + 1; j < c.judged; ++j) add(i, j, false);
    }
  }
  return pairs > 0 ? sum / as_double(pairs) : 0.0;
}

double trec_prefs_avg_groups(const TrecPrefCounts& c, TrecPrefScope scope) {
  double sum = 0.0;
  for (const TrecPrefGroup& g : c.groups) {
    const long poss = possible(g, scope);
    if (poss > 0) sum += as_double(fulfilled(g, scope)) / as_double(poss);
  }
  return sum > 0.0 ? sum / as_double(static_cast<long>(c.groups.size())) : 0.0;
}

double trec_prefs_avg_groups_rnonrel(const TrecPrefCounts& c, TrecPrefScope scope) {
  const bool retrieved_only = scope == TrecPrefScope::kRetrieved;
  double sum = 0.0;
  for (const TrecPrefGroup& g : c.groups) {
    const long rel = retrieved_only ? g.num_rel_ret : g.num_rel;
    const long nonrel = retrieved_only ? g.num_nonrel_ret : g.num_nonrel;
    long ful = 0;
    long poss = 0;
    if (rel >= nonrel) {
      // Every counted preference stays; the missing non-relevant documents add
      // preferences the retrieved relevant ones fulfil (trec_eval multiplies the
      // possible ones by all relevant documents, retrieved or not, in both measures).
      ful = fulfilled(g, scope) + g.num_rel_ret * (rel - nonrel);
      poss = possible(g, scope) + g.num_rel * (rel - nonrel);
    } else if (!g.classes.empty()) {
      std::tie(ful, poss) = recount_classes(g, c.judged_ret, rel, retrieved_only);
    } else {
      std::tie(ful, poss) = recount_matrix(g, c.judged, c.judged_ret, g.num_rel, retrieved_only);
    }
    // 0 / 0 is NaN here, as in trec_eval; the test below then gives 0.
    sum += as_double(ful) / as_double(poss);
  }
  return sum > 0.0 ? sum / as_double(static_cast<long>(c.groups.size())) : 0.0;
}

}  // namespace ragmeter
