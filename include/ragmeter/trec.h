// TREC qrels and run files, trec_eval's other relevance formats (qrels_jg) and its
// z-score files: the readers. Evaluation over them is trec_eval.h's.
//
// Thread-compatible: the functions hold no global state (read_run("-") reads the
// process's standard input).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ragmeter/retrieval.h"
#include "ragmeter/status.h"

namespace ragmeter {

// Which trec_eval release `ragmeter ir` reproduces. 9 is 9.0.x, the version
// pytrec_eval wraps (scores compared as C floats, recall cutoffs (long)(x R + 0.9));
// 10 is the current release (scores as doubles, recall cutoffs rounded, rbp, unj, -c
// queries printed). docs/trec_eval.md lists every difference.
enum class TrecEvalVersion { k9 = 9, k10 = 10 };
// The default: trec_eval's current release (docs/design.md says why).
inline constexpr TrecEvalVersion kDefaultTrecEvalVersion = TrecEvalVersion::k10;

// query id -> judgements, from lines `qid iter docid rel`.
using Qrels = std::map<std::string, Judgements>;

struct RunEntry {
  std::string doc_id;
  double score = 0.0;
};
// query id -> ranked documents, ordered as trec_eval orders them: score descending,
// ties broken by document id descending (the rank column is ignored, as trec_eval does).
// Scores are compared as trec_eval stores them: in single precision for trec_eval 9
// (scores equal as floats tie), in double precision for trec_eval 10. A document listed twice stays twice; the metrics count it at its first
// (best) place. trec_eval itself rejects such a run ("duplicate docs").
using Run = std::map<std::string, Ranking>;

// Reads a qrels file: exactly 4 whitespace-separated columns, an integer relevance.
// Blank lines and lines starting with '#' are skipped. Malformed lines, and a document
// judged twice for one query (trec_eval refuses those too), are an InvalidArgument
// error naming the file and line ("qrels.txt:12: expected 4 columns ..."); a file
// that cannot be opened is NotFound.
StatusOr<Qrels> read_qrels(const std::string& path);
// Reads a run file (`qid Q0 docid rank score tag`; columns after the tag are ignored)
// and orders each query's documents as `version` does; with ties_by_id_ascending,
// equal scores go by document id ascending, as trec_eval's preference formats (-R
// prefs, qrels_prefs) rank them. The score must be a number
// (trec_eval would read anything else as 0); errors as for read_qrels. Path "-" reads
// standard input (trec_eval 10 does so too).
// `run_tag`, when given, receives the tag (sixth column) of the file's last record,
// which trec_eval prints as `runid`; empty for a file with no records.
StatusOr<Run> read_run(const std::string& path, std::string* run_tag = nullptr,
                       TrecEvalVersion version = kDefaultTrecEvalVersion,
                       bool ties_by_id_ascending = false);

// The same readers over text already in memory; `name` stands for the file in error
// messages ("name:12: ..."). Never NotFound.
StatusOr<Qrels> parse_qrels(std::string_view text, const std::string& name);
StatusOr<Run> parse_run(std::string_view text, const std::string& name,
                        std::string* run_tag = nullptr,
                        TrecEvalVersion version = kDefaultTrecEvalVersion,
                        bool ties_by_id_ascending = false);

// trec_eval's qrels_jg format (-R qrels_jg): `qid group docid rel`, the second column
// naming the judgment group (the user who judged). query id -> group -> judgements,
// groups in bytewise order. A document judged twice within one group is an error;
// the same document in two groups is the point of the format.
using QrelsJg = std::map<std::string, std::map<std::string, Judgements>>;
StatusOr<QrelsJg> read_qrels_jg(const std::string& path);
StatusOr<QrelsJg> parse_qrels_jg(std::string_view text, const std::string& name);

// trec_eval's preference format (-R prefs): `qid group subgroup docid level`. Within a
// subgroup every document is preferred to those at a lower level (a float; 0 means
// non-relevant); a group's subgroups together give one consistent partial order
// (transitive); groups are users, who may disagree. query id -> lines in file order.
struct TrecPref {
  std::string group;
  std::string subgroup;
  std::string doc;
  double level = 0.0;
};
using TrecPrefs = std::map<std::string, std::vector<TrecPref>>;
StatusOr<TrecPrefs> read_trec_prefs(const std::string& path);
StatusOr<TrecPrefs> parse_trec_prefs(std::string_view text, const std::string& name);
// A qrels file read as preferences (-R qrels_prefs): the second column is the group,
// every line of a group in one subgroup ("0"), the level a number.
StatusOr<TrecPrefs> read_qrels_prefs(const std::string& path);
StatusOr<TrecPrefs> parse_qrels_prefs(std::string_view text, const std::string& name);

// trec_eval's z-score file (-Z): lines `qid measure mean stddev`, the mean and standard
// deviation of each measure's value for each query over a reference set of runs.
struct TrecZscore {
  double mean = 0.0;
  double stddev = 0.0;
};
// query id -> measure name as printed ("P_5", "map") -> mean and stddev.
using TrecZscores = std::map<std::string, std::map<std::string, TrecZscore>>;
// Errors as for read_qrels (4 columns, numbers for mean and stddev); a measure given
// twice for a query is an error. '#' comment lines and blank lines are skipped.
StatusOr<TrecZscores> read_trec_zscores(const std::string& path);
StatusOr<TrecZscores> parse_trec_zscores(std::string_view text, const std::string& name);

}  // namespace ragmeter
