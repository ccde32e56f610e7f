// Evaluating rows held in memory, for library callers (the Python package) that have
// their data as values rather than in a file: the same conversion, the same per-row
// outcomes and the same summary as `ragmeter eval` on the same rows as JSONL.
//
//   std::vector<nlohmann::ordered_json> rows = ...;  // {"user_input": ..., ...}
//   EvalOptions options;
//   options.metrics = parse_metric_list("token_f1,bleu").value();
//   StatusOr<EvalRun> run = evaluate_rows(std::move(rows), options);
//   // run->table.rows[i].results[m]: row i's outcome for metric m
//   // summary_json_text(run->summary, info): the bytes --summary writes
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/dataset.h"
#include "ragmeter/evaluate.h"
#include "ragmeter/result_table.h"
#include "ragmeter/status.h"

namespace ragmeter {

struct EvalRun {
  EvalSummary summary;
  ResultTable table;  // every row the run delivered, in input order
};

// Scores `rows` (one JSON object per sample, with ragas's field names, the legacy ones,
// or names options.column_map renames), as evaluate() over make_memory_row_reader(rows,
// source_name). A row that is not an object, has a field of the wrong type or invalid
// UTF-8 is rejected: it keeps its place in the table with every metric `failed` and the
// reason "row rejected: SOURCE:N: field 'f': ...", N its 1-based position, and the run
// goes on (options.strict: InvalidArgument instead). With options.cancel set during the
// run, returns the rows finished before it and summary.cancelled. Takes the rows by
// value: move them in; the table holds them afterwards. Thread-safe as evaluate().
StatusOr<EvalRun> evaluate_rows(std::vector<nlohmann::ordered_json> rows,
                                const EvalOptions& options,
                                const ProgressCallback& progress = {},
                                const std::string& source_name = "<memory>");

// The same over any reader (a file from open_dataset, a caller's own RowReader).
StatusOr<EvalRun> evaluate_to_table(RowReader& reader, const std::string& source_name,
                                    const EvalOptions& options,
                                    const ProgressCallback& progress = {});

}  // namespace ragmeter
