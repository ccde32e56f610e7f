// TREC qrels and run files: the readers. Evaluation over them is trec_eval.h's.
//
// Thread-compatible: the functions hold no global state.
#pragma once

#include <map>
#include <string>
#include <string_view>
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
// `run_tag`, when given, receives the tag (sixth column) of the file's first line,
// which trec_eval prints as `runid`; empty for a file with no lines.
StatusOr<Run> read_run(const std::string& path, std::string* run_tag = nullptr);

// The same readers over text already in memory; `name` stands for the file in error
// messages ("name:12: ..."). Never NotFound.
StatusOr<Qrels> parse_qrels(std::string_view text, const std::string& name);
StatusOr<Run> parse_run(std::string_view text, const std::string& name,
                        std::string* run_tag = nullptr);

}  // namespace ragmeter
