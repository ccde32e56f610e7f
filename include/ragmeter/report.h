// The HTML report: one self-contained file (CSS, script and data inline; nothing is
// fetched) that opens from disk or as a CI artifact.
//
// A run's report leads with the answer (report_answer.h): the headline metrics, which part
// of the system is the weaker one and why, the worst samples with their reasons and, given
// a base run, the metrics that changed. Then the run's identity, per metric its mean with
// the 95% interval, counts and a histogram, charts (distributions; the paired differences
// from a base run; agreement and calibration from `ragmeter agree`), a sortable and
// filterable table of the samples (paged, so 100,000 rows stay usable) and a page per
// sample with its texts, contexts, claims, verdicts and reasons. A comparison's report
// shows `ragmeter compare`'s statistics, the paired differences and the samples that
// changed most, both runs side by side.
//
// Safety: the data is embedded as JSON inside a <script type="application/json">
// block with `<`, `>`, `&`, U+2028 and U+2029 written as \u escapes, so no string in
// the data can close the block or open a tag; the page's script inserts every data
// string with textContent and makes links only of http and https URLs.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/status.h"

namespace ragmeter {

struct ReportInput {
  // A run's report: its per-sample results (objects as `eval --out` writes them) and,
  // when known, its summary JSON (summary_to_json; gives the identity, usage and the
  // run's own intervals). Without a summary, means and intervals are computed from the
  // rows (summarize() with its defaults) and the identity is the results file's.
  std::vector<nlohmann::ordered_json> rows;
  nlohmann::ordered_json summary;     // null when not given
  std::string results_path;           // shown as the report's source
  // A run's report, optional: comparison_to_json() of a base run against this one (the
  // metrics that changed, the paired differences), and `ragmeter agree --out`'s JSON
  // (agreement_to_json: agreement and calibration charts). Null when not given.
  nlohmann::ordered_json changes;
  nlohmann::ordered_json agreement;
  // A comparison's report: comparison_to_json(). When not null, rows, summary, changes
  // and agreement are not used.
  nlohmann::ordered_json comparison;
};

// Reads a results file into `rows`: JSONL, one object per line, or CSV when `path` ends
// in .csv (as `eval --out FILE.csv` writes it: each row becomes the object the JSONL
// output has, without evidence, lists and objects parsed back from their JSON text and
// every other field a string; a rejected row's "row_error" holds its message).
// InvalidArgument naming the file and line for a line that is not a JSON object, or a CSV
// that is not a results file; NotFound when the file cannot be opened.
Status read_results_rows(const std::string& path, std::vector<nlohmann::ordered_json>* rows);

// The data the page's script reads first: {"kind": "run", "identity", "metrics", "usage",
// "answer", "changes", "agreement", "table"} (the sample table by column) or {"kind":
// "compare", "comparison", "answer"}. "answer" holds every judgement the first screen
// states, made in C++ (docs/report.md, "The first screen", has its fields); the page
// only draws it. The rows
// themselves go into a second block, one JSON object per line (claim and chunk ids left
// out of their evidence), parsed one at a time when a sample is opened. Exposed for tests.
nlohmann::ordered_json report_data(const ReportInput& input);

// JSON text safe inside an HTML <script> element: `value` serialised in ASCII, every other
// character as a \u escape (U+2028 and U+2029 included), and `<`, `>`, `&` written as
// \u003c, \u003e, \u0026 (all of which can only occur inside JSON strings, where the
// escape means the same character). Invalid UTF-8 is replaced by U+FFFD.
std::string json_for_script(const nlohmann::ordered_json& value);

// The whole HTML page.
std::string render_report(const ReportInput& input);

// Writes render_report(input) to `path`: InvalidArgument when the file cannot be created,
// Unavailable when writing it failed (a full disk).
Status write_report(const std::string& path, const ReportInput& input);

}  // namespace ragmeter
