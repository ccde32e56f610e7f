// Internals shared by the dataset readers (src/io/*_reader.cc); not part of the API.
//
// Each reader derives from ReaderBase, which numbers rows and errors, stamps the file
// name on errors and keeps returning kEnd once the input is over. The readers that
// scan bytes themselves (JSON array, CSV) read through ByteSource, which keeps one
// fixed-size buffer and the line/column of the next byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/dataset.h"

namespace ragmeter::readers {

// A place in the input: 1-based line and 1-based byte column.
struct TextPosition {
  std::int64_t line = 1;
  std::int64_t column = 1;
};

// The position of text[offset] (offset may be text.size()) when text[0] is at `origin`.
TextPosition position_in(std::string_view text, std::size_t offset, TextPosition origin);

// What is wrong with one row, and where.
struct RowProblem {
  TextPosition where;
  std::string field;  // empty when not known
  std::string message;
};

// Base of every reader: see the file comment.
class ReaderBase : public RowReader {
 public:
  Result next(Row* row, RowError* error) final;

 protected:
  explicit ReaderBase(std::string name) : name_(std::move(name)) {}
  // Reads one row (setting row->fields and row->line) or reports one bad row through
  // fail(), or returns kEnd. Not called again after kEnd or fail_fatally().
  virtual Result read(Row* row, RowError* error) = 0;
  // Fills `error` for a row that could not be read; returns kError.
  Result fail(RowError* error, RowProblem problem);
  // Like fail() for a problem that leaves the rest of the input unreadable: the
  // reader returns kEnd from then on.
  Result fail_fatally(RowError* error, RowProblem problem);

 private:
  std::string name_;
  std::int64_t next_index_ = 0;
  bool ended_ = false;
};

// Buffered byte input that tracks the position of the next byte. Memory is one
// fixed buffer whatever the size of the input.
class ByteSource {
 public:
  static constexpr int kEof = -1;

  explicit ByteSource(std::unique_ptr<std::istream> stream);

  // The next byte (0..255) without consuming it, or kEof.
  int peek() {
    if (begin_ == end_ && !refill(1)) return kEof;
    return static_cast<unsigned char>(buffer_[begin_]);
  }
  // Consumes and returns the next byte, or kEof.
  int get() {
    const int c = peek();
    if (c == kEof) return kEof;
    ++begin_;
    if (c == '\n') {
      ++position_.line;
      position_.column = 1;
    } else {
      ++position_.column;
    }
    return c;
  }
  // Skips a UTF-8 byte order mark if the input continues with one.
  void skip_bom();
  // Where the next byte is.
  TextPosition position() const { return position_; }
  // Starts a new line without a '\n' (a lone '\r' ending a CSV record).
  void start_line() {
    ++position_.line;
    position_.column = 1;
  }
  // True when reading failed with an I/O error rather than reaching the end.
  bool failed() const { return stream_->bad(); }

 private:
  // Makes at least `wanted` unread bytes available; false if the input ends first.
  bool refill(std::size_t wanted);

  std::unique_ptr<std::istream> stream_;
  std::vector<char> buffer_;
  std::size_t begin_ = 0;  // next unread byte
  std::size_t end_ = 0;    // one past the last buffered byte
  TextPosition position_;
};

// Follows JSON string literals byte by byte, so that a scanner can tell structure
// ('{', ',', ...) from text inside strings.
class JsonStringTracker {
 public:
  // Takes the next byte; returns true when it belongs to a string literal, quotes
  // included.
  bool take(int c) {
    if (!in_string_) {
      in_string_ = c == '"';
      return in_string_;
    }
    if (escaped_) {
      escaped_ = false;
    } else if (c == '\\') {
      escaped_ = true;
    } else if (c == '"') {
      in_string_ = false;
    }
    return true;
  }
  bool in_string() const { return in_string_; }

 private:
  bool in_string_ = false;
  bool escaped_ = false;
};

// Parses `text`, the JSON of one row whose first byte is at `origin`, into `fields`.
// Returns what is wrong when it is not a JSON object; invalid UTF-8 is reported with
// the field it is in.
std::optional<RowProblem> parse_json_row(std::string_view text, TextPosition origin,
                                         nlohmann::ordered_json* fields);

// parse_json_row, several times faster: parses with simdjson and builds the same
// ordered_json (key order, duplicate keys, integer and floating-point types as nlohmann
// gives them). Rows simdjson rejects go through parse_json_row, so errors are the same
// too. Keeps simdjson's buffers between rows (about 15 bytes per byte of the largest
// row, up to rows of 1 MiB); one per reader, not thread-safe.
class JsonRowParser {
 public:
  JsonRowParser();
  ~JsonRowParser();
  JsonRowParser(const JsonRowParser&) = delete;
  JsonRowParser& operator=(const JsonRowParser&) = delete;

  // Parses one row's JSON object into `fields`; a repeated top-level key is added to
  // `warnings` (cleared first) when it is given.
  std::optional<RowProblem> parse(std::string_view text, TextPosition origin,
                                  nlohmann::ordered_json* fields,
                                  std::vector<std::string>* warnings = nullptr);

 private:
  struct Simdjson;  // keeps simdjson.h out of this header
  std::unique_ptr<Simdjson> simdjson_;
};

// Frees `buffer` when one huge row has made it large, so that the row does not pin
// its memory for the rest of the file; otherwise keeps it for reuse.
inline void release_if_large(std::string* buffer) {
  constexpr std::size_t kMaxKeptCapacity = std::size_t{16} << 20;
  if (buffer->capacity() > kMaxKeptCapacity) std::string().swap(*buffer);
}

// A description of a byte for messages: 'x' when printable ASCII, else 0xNN.
std::string describe_byte(int c);

// `format`, or for kAuto the format `path`'s extension names (.jsonl/.ndjson, .json,
// .csv). InvalidArgument for "-" (standard input) or another extension under kAuto.
StatusOr<DatasetFormat> resolve_format(const std::string& path, DatasetFormat format);

// `name` is used in errors ("<stdin>" for standard input).
std::unique_ptr<RowReader> make_jsonl_reader(std::unique_ptr<std::istream> stream,
                                             std::string name);
std::unique_ptr<RowReader> make_json_array_reader(std::unique_ptr<std::istream> stream,
                                                  std::string name, std::string rows_path = "");
// make_json_array_reader, having read up to the first element: InvalidArgument
// "name:line:column: what" when the document is not an array of rows (at rows_path).
StatusOr<std::unique_ptr<RowReader>> open_json_array_reader(std::unique_ptr<std::istream> stream,
                                                            std::string name,
                                                            std::string rows_path);
std::unique_ptr<RowReader> make_csv_reader(std::unique_ptr<std::istream> stream,
                                           std::string name);

}  // namespace ragmeter::readers
