// Streaming dataset readers: JSONL, JSON (an array of objects) and CSV.
//
// Readers hold at most one row (plus a bounded read buffer) in memory, so memory does
// not grow with the file. A malformed row is reported as a RowError naming the file,
// the line and, where known, the column or field; the reader then moves on to the
// next row. A RowReader is not thread-safe: use one per thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/status.h"
#include "ragmeter/utf8.h"  // is_valid_utf8, which the readers use

namespace ragmeter {

// One input row: a JSON object with the row's fields in input order. CSV cells are
// strings (lists stay as their text and are parsed when a field needs a list).
struct Row {
  nlohmann::ordered_json fields;
  std::int64_t line = 0;   // 1-based line where the row starts
  std::int64_t index = 0;  // 0-based position among all rows read, good or bad
  // What is odd but not wrong about the row, e.g. "duplicate key 'response': the last
  // value is used"; a CSV header's repeated column is reported with the first row.
  std::vector<std::string> warnings;
};

// Why one row could not be read.
struct RowError {
  std::string file;
  // Where the fault is: the offending byte when known (in a multi-line row, its own
  // line), else the row's first line with column 0. Columns count bytes of the file,
  // a byte order mark included.
  std::int64_t line = 0;     // 1-based
  std::int64_t column = 0;   // 1-based byte column when known, else 0
  std::string field;         // the offending field when known, else empty
  std::string message;
  std::int64_t index = 0;    // 0-based position among all rows read
  // "file:line:column: field 'f': message" (parts that are unknown are left out).
  std::string to_string() const;
};

enum class DatasetFormat { kAuto, kJsonl, kJson, kCsv };

// "jsonl" (or "ndjson"), "json", "csv", "auto", in any case; InvalidArgument otherwise.
StatusOr<DatasetFormat> parse_dataset_format(const std::string& name);

class RowReader {
 public:
  enum class Result { kRow, kError, kEnd };
  virtual ~RowReader() = default;
  // Reads the next row into `row` (kRow), or reports a malformed row in `error` and
  // skips it (kError), or returns kEnd at the end of input. After kEnd, keeps
  // returning kEnd. An unrecoverable read error (I/O failure, a JSON file that is not
  // an array) is returned as kError with an empty field, followed by kEnd.
  virtual Result next(Row* row, RowError* error) = 0;
};

// Opens `path` (or "-" for standard input, which needs an explicit format and is
// called "<stdin>" in errors). kAuto picks the format from the extension, in any case
// (.jsonl/.ndjson, .json, .csv). Invalid UTF-8 in a row is a RowError for that row,
// naming the field. An empty file is an empty dataset in every format. In CSV the
// first record names the fields; an empty name becomes "Unnamed: <i>" and a repeated
// one gets ".1", ".2", ... as pandas.read_csv names them. NotFound when the file
// cannot be opened; InvalidArgument for a directory or, with kAuto, an unknown
// extension. `rows_path` (JSON only) names the array of rows inside a top-level object
// by its keys, dotted: "data" for {"data": [...]}; the rest of the document is not read.
// A JSON document that is not an array of rows (at rows_path) is InvalidArgument here,
// "file:line:column: what", since it is unusable input rather than one bad row.
StatusOr<std::unique_ptr<RowReader>> open_dataset(const std::string& path,
                                                  DatasetFormat format = DatasetFormat::kAuto,
                                                  const std::string& rows_path = "");

// The number of rows in the dataset file `path`, counted without parsing them, for a
// progress display's total: a JSONL file's non-blank lines, a CSV file's non-blank
// records after the header (quoted line breaks are inside a record), a JSON file's
// top-level array elements. A malformed row counts as the row the reader rejects, so
// the count is what a run sees unless the file breaks its format. nullopt for standard
// input ("-"), a JSON file read with `rows_path`, a JSON document that is not an array,
// a file that cannot be read, or when `stop` becomes true (checked every 64 KiB).
// Reads the file once at I/O speed. Thread-safe.
std::optional<std::int64_t> count_dataset_rows(const std::string& path, DatasetFormat format,
                                               const std::string& rows_path = "",
                                               const std::atomic<bool>* stop = nullptr);

// A reader over rows already in memory (a Python binding's converted dicts, a test's
// rows), so they go through the same checks as rows read from a file. Takes the rows by
// value: move them in to avoid a copy; each next() moves its row out. Row i gets
// index i and line i + 1 (so errors say "NAME:3: ..." for the third row); `name` plays
// the file's part in errors. A row that is not a JSON object, or holds a string (or a
// field name) that is not valid UTF-8, is a RowError with the message the file readers
// give (naming the top-level field), but no column. Not thread-safe.
std::unique_ptr<RowReader> make_memory_row_reader(std::vector<nlohmann::ordered_json> rows,
                                                  std::string name = "<memory>");

}  // namespace ragmeter

namespace ragmeter {

// Lowercase hex SHA-256 of the file's bytes (a run's dataset identity in summaries and
// reports). Reads the file in 1 MiB pieces. NotFound when it cannot be opened;
// InvalidArgument for "-" (standard input cannot be read twice).
StatusOr<std::string> file_sha256(const std::string& path);

}  // namespace ragmeter
