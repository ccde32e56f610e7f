// TREC qrels and run files, and trec_eval-compatible evaluation over them.
//
// Thread-compatible: the functions hold no global state.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ragmeter/retrieval.h"
#include "ragmeter/status.h"

namespace ragmeter {

// query id -> judgements, from lines `qid iter docid rel`.
using Qrels = std::map<std::string, Judgements>;

struct RunEntry {
  std::string doc_id;
  double score = 0.0;
};
// query id -> ranked documents, ordered as trec_eval orders them: score descending,
// ties broken by document id descending (the rank column is ignored, as trec_eval does).
// Scores are compared as trec_eval stores them, in single precision: scores equal as
// floats tie. A document listed twice stays twice; the metrics count it at its first
// (best) place. trec_eval itself rejects such a run ("duplicate docs").
using Run = std::map<std::string, Ranking>;

// Reads a qrels file: exactly 4 whitespace-separated columns, an integer relevance.
// Blank lines and lines starting with '#' are skipped. Malformed lines, and a document
// judged twice for one query (trec_eval refuses those too), are an InvalidArgument
// error naming the file and line ("qrels.txt:12: expected 4 columns ..."); a file
// that cannot be opened is NotFound.
StatusOr<Qrels> read_qrels(const std::string& path);
// Reads a run file (`qid Q0 docid rank score tag`; columns after the tag are ignored)
// and orders each query's documents. The score must be a number (trec_eval would read
// anything else as 0); errors as for read_qrels.
StatusOr<Run> read_run(const std::string& path);

// One trec_eval output line: measure name, query id (or "all"), value.
struct TrecMeasureValue {
  std::string measure;
  std::string query;
  double value = 0.0;
};

struct TrecEvalOptions {
  bool per_query = false;  // trec_eval -q: also one line per query
  // Measure families to compute, trec_eval's names ("P", "recall", "map", "recip_rank",
  // "Rprec", "ndcg", "ndcg_cut", "success"); empty = all of them.
  std::vector<std::string> measures;
};

// Evaluates `run` against `qrels` as trec_eval does: only queries present in both are
// evaluated (trec_eval's default without -c), default cutoffs (P/recall at
// 5,10,15,20,30,100,200,500,1000; ndcg_cut at 5,10,15,20,30,100,200,500,1000;
// success at 1,5,10), means over the evaluated queries for "all". A query judged but
// with nothing relevant counts, with 0 for every measure. Lines come in trec_eval's
// order: with per_query, every measure of each query in query-id order, then the
// "all" lines; measures in the order map, Rprec, recip_rank, P_*, recall_*, ndcg,
// ndcg_cut_*, success_*. No lines at all when no query is in both (trec_eval stops
// with an error then). Unknown family names in `options.measures` select nothing.
std::vector<TrecMeasureValue> trec_evaluate(const Qrels& qrels, const Run& run,
                                            const TrecEvalOptions& options = {});

// Formats one line as trec_eval does: "%-22s\t%s\t%.4f" (value precision 4).
std::string format_trec_line(const TrecMeasureValue& value);

}  // namespace ragmeter
