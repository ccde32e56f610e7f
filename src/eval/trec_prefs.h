// trec_eval's preference measures (-R prefs, -R qrels_prefs): how a ranking fulfils the
// preferences "document A before document B" that judgment groups (users) expressed,
// as pure functions of one query's preference counts.
//
// A preference A > B is
//   fulfilled among the retrieved (ret) when A and B are both retrieved, A above B;
//   possible among the retrieved when both are retrieved (fulfilled or not);
//   fulfilled implied (imp) when A is retrieved and B is not;
//   possible implied when exactly one of them is retrieved;
//   not occurring (notoccur) when neither is.
// The *_ret measures count only the first kind, *_imp the first two, the others all
// three (a preference between two unretrieved documents counts as failed).
//
// Thread-safe: no function holds state.
#pragma once

#include <cstdint>
#include <vector>

#include "ragmeter/retrieval.h"
#include "ragmeter/status.h"
#include "ragmeter/trec.h"

namespace ragmeter {

// One judgment group's counts (trec_eval's JG).
struct TrecPrefGroup {
  long fulfilled_ret = 0;
  long possible_ret = 0;  // includes fulfilled_ret
  long fulfilled_imp = 0;
  long possible_imp = 0;  // includes fulfilled_imp
  long possible_notoccur = 0;
  long num_rel = 0;         // documents judged with level > 0
  long num_rel_ret = 0;     // ... of them retrieved
  long num_nonrel = 0;      // documents judged with level 0 (any level <= 0 for a group
                            // of one subgroup)
  long num_nonrel_ret = 0;  // ... of them retrieved

  // The group's preferences, for the *_Rnonrel measures that recount them. A group of
  // one subgroup is a list of classes, highest level first, each the internal ranks of
  // its documents ascending; otherwise a closed preference matrix over every judged
  // document plus each document's level (-1: not judged by this group).
  std::vector<std::vector<long>> classes;
  std::vector<std::uint8_t> prefers;  // judged x judged, row i column j: i preferred to j
  std::vector<double> levels;
};

// One query's preferences against a ranking. Documents are numbered by internal rank:
// the judged retrieved ones 0 .. judged_ret - 1 in ranking order, then the judged
// unretrieved ones by document id.
struct TrecPrefCounts {
  long judged = 0;
  long judged_ret = 0;
  std::vector<TrecPrefGroup> groups;  // by group id
  // judged x judged: how many groups prefer i to j.
  std::vector<std::uint16_t> pair_counts;

  std::uint16_t count(long i, long j) const { return pair_counts[i * judged + j]; }
};

// The counts of `prefs` (one query's lines) against `ranking`, ordered as trec_eval
// orders a run for preferences (read_run with ties_by_id_ascending). A document listed
// twice counts at its first place; only the first `max_docs` distinct documents count
// (0 = all). InvalidArgument when the lines contradict themselves: a document at two
// levels of one subgroup, at level 0 and another level in one group, or a group whose
// subgroups prefer A to B and B to A.
StatusOr<TrecPrefCounts> trec_pref_counts(const Ranking& ranking,
                                          const std::vector<TrecPref>& prefs, long max_docs = 0);

// Counts over every group.
long trec_prefs_num_possible(const TrecPrefCounts& c);      // prefs_num_prefs_poss
long trec_prefs_num_fulfilled(const TrecPrefCounts& c);     // prefs_num_prefs_ful
long trec_prefs_num_fulfilled_ret(const TrecPrefCounts& c); // prefs_num_prefs_ful_ret

// Which preferences a measure counts.
enum class TrecPrefScope {
  kAll,        // ret + imp + notoccur (prefs_simp, prefs_pair, prefs_avgjg...)
  kRetrieved,  // ret only (*_ret)
  kImplied,    // ret + imp (*_imp)
};
// prefs_simp*: fulfilled / possible over every group; 0 when nothing is possible.
double trec_prefs_simple(const TrecPrefCounts& c, TrecPrefScope scope);
// prefs_pair*: for each document pair some group has a preference on, the share of the
// groups' preferences on it that the ranking fulfils, averaged over the pairs (a pair
// of two unretrieved documents scores 0 under kAll).
double trec_prefs_pair(const TrecPrefCounts& c, TrecPrefScope scope);
// prefs_avgjg*: each group's fulfilled / possible, averaged over the groups.
double trec_prefs_avg_groups(const TrecPrefCounts& c, TrecPrefScope scope);
// prefs_avgjg_Rnonrel (kAll) and prefs_avgjg_Rnonrel_ret (kRetrieved): as avg_groups,
// with each group's non-relevant documents set to as many as its relevant ones: fewer
// add fulfilled preferences, more are cut to the first ones (as trec_eval counts them).
double trec_prefs_avg_groups_rnonrel(const TrecPrefCounts& c, TrecPrefScope scope);

}  // namespace ragmeter
