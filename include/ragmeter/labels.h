// People's labels for the rows of a run: the LABELS file of `ragmeter agree` (docs/agree.md).
//
// A labels file is JSONL, a JSON array or CSV (read by open_dataset). Each row names a
// results row by its id column (`id` unless LabelOptions::id_column says otherwise; for
// pairwise preferences two rows, `id_a` and `id_b`) and gives one or more labels:
//   label               a label for every metric of the run
//   <metric>            a label for that metric only (e.g. `faithfulness`)
//   label:NAME, <metric>:NAME   the same, given by annotator NAME (several per row)
//   annotator           who gave the row's labels (combined with a :NAME suffix as "A:NAME")
// Other columns are ignored and listed. An empty cell (null, "") is no label. Labels
// without an annotator are anonymous; an id labelled again is another person's label.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ragmeter/dataset.h"
#include "ragmeter/status.h"

namespace ragmeter {

enum class LabelKind {
  kBinary,    // 1 (true): the row is good, should pass; 0 (false): it should not
  kOrdinal,   // integer levels low..high, higher is better (a 1-5 rating)
  kPairwise,  // a preference between rows id_a and id_b: > 0 prefers b, < 0 a, 0 a tie
};

// The scale labels are declared on (`ragmeter agree --scale`).
struct LabelScale {
  LabelKind kind = LabelKind::kBinary;
  int low = 0;  // the lowest and highest level (binary: 0 and 1)
  int high = 1;
  // "binary", "ordinal:1..5", "pairwise:-2..2": what parse_label_scale reads back.
  std::string to_string() const;
};

// "binary"; "ordinal:LO..HI" (integers, LO < HI); "pairwise" (= "pairwise:-1..1") or
// "pairwise:LO..HI" (LO < 0 < HI). InvalidArgument naming the accepted forms otherwise.
StatusOr<LabelScale> parse_label_scale(std::string_view text);

struct LabelOptions {
  std::string id_column = "id";  // names a results row; pairwise: <id>_a and <id>_b
  std::string annotator_column = "annotator";
  LabelScale scale;
};

// One person's label of one results row (pairwise: of a pair of rows).
struct Label {
  std::string id;         // the results row's id; pairwise: row a
  std::string id_b;       // pairwise: row b (a label > 0 prefers it); else empty
  std::string target;     // the metric it is about; empty: every metric (`label`)
  std::string annotator;  // who gave it; empty when the file does not say
  double value = 0.0;     // on the scale: 0 or 1, or a level
  std::int64_t line = 0;  // the row's line in the labels file
};

struct LabelSet {
  std::string name;  // the labels file's name in messages
  LabelScale scale;
  std::vector<Label> labels;  // in file order
  // Rows and cells that could not be used, each with file, line and field: malformed
  // rows, a missing id, a value outside the scale, a repeated (id, metric, annotator).
  // A bad cell costs only that label; the row's other labels are kept.
  std::vector<RowError> errors;
  std::vector<std::string> ignored_columns;  // first-seen order
  std::int64_t rows_read = 0;                // rows read, bad ones included
};

// Reads every row of `reader` (`name` in messages). `metrics` are the names a column
// may use to label one metric (the run's metrics). Never fails as a whole: what cannot
// be used is in LabelSet::errors. Not thread-safe (the reader is not).
LabelSet read_labels(RowReader& reader, const std::string& name,
                     const std::vector<std::string>& metrics, const LabelOptions& options);

}  // namespace ragmeter
