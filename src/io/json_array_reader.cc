// JSON: a top-level array of row objects, read one element at a time.
//
// nlohmann would need the whole array in memory, so the reader finds each element's
// extent itself: it scans bytes, tracking strings, escapes and bracket depth, until a
// ',' or ']' at depth 0. Only that element's text is then parsed (JsonRowParser). A
// malformed element is reported and the scan goes on with the next one.
//
// A stray or missing '"' would make the rest of the file one string, and every row after
// it would vanish into one error at the end. JSON strings cannot hold a raw line break,
// so a line break inside a string marks the element as damaged there: the element is
// reported (where it starts, and where the unclosed string starts), and reading resumes
// at the next line whose '{' is in the column where the damaged element began (the
// column every row of a one-row-per-line or pretty-printed array starts in). When no
// such line follows, the error says that every row from the damage on is lost.

#include <istream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "io/readers.h"

namespace ragmeter::readers {
namespace {

bool is_json_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The keys of a dotted rows path ("data", "result.rows").
std::vector<std::string> path_keys(const std::string& rows_path) {
  std::vector<std::string> keys;
  for (std::size_t start = 0; start <= rows_path.size();) {
    std::size_t dot = rows_path.find('.', start);
    if (dot == std::string::npos) dot = rows_path.size();
    keys.push_back(rows_path.substr(start, dot - start));
    start = dot + 1;
  }
  return keys;
}

class JsonArrayReader : public ReaderBase {
 public:
  JsonArrayReader(std::unique_ptr<std::istream> stream, std::string name, std::string rows_path)
      : ReaderBase(std::move(name)), in_(std::move(stream)), rows_path_(std::move(rows_path)) {}

  // Reads up to the first element: the BOM, the way down --rows-path, the '['. A
  // document that is not an array of rows (at that path) is unusable input, not a bad
  // row: open_dataset reports it. nullopt also for an empty file.
  std::optional<RowProblem> open() {
    in_.skip_bom();
    skip_whitespace();
    if (in_.peek() == ByteSource::kEof) return std::nullopt;
    if (!rows_path_.empty()) {
      if (std::optional<RowProblem> problem = descend_to_rows()) return problem;
    }
    if (in_.peek() != '[') return not_an_array();
    in_.get();
    state_ = State::kInArray;
    return std::nullopt;
  }

 protected:
  Result read(Row* row, RowError* error) override {
    if (state_ == State::kBeforeArray) {
      if (std::optional<RowProblem> problem = open()) {
        return fail_fatally(error, std::move(*problem));
      }
      if (state_ == State::kBeforeArray) return end_of_input(error, nullptr);
    }
    if (state_ == State::kInArray) return read_element(row, error);
    // Inside an object (a rows path) the rest of the document is not rows.
    if (!rows_path_.empty()) return Result::kEnd;
    return after_array(error);
  }

 private:
  enum class State { kBeforeArray, kInArray, kAfterArray };

  // Moves to the value at rows_path_ (objects' keys, one per dot), leaving the input at
  // its first byte. The members before it are skipped unread.
  std::optional<RowProblem> descend_to_rows() {
    std::string path;
    for (const std::string& key : path_keys(rows_path_)) {
      path += (path.empty() ? "" : ".") + key;
      skip_whitespace();
      if (in_.peek() != '{') {
        return RowProblem{in_.position(), "",
                          "--rows-path " + rows_path_ + ": expected an object holding '" + key +
                              "', found " + describe_byte(in_.peek())};
      }
      in_.get();
      if (!find_member(key)) {
        return RowProblem{in_.position(), "",
                          "--rows-path " + rows_path_ + ": no member '" + path + "'"};
      }
    }
    skip_whitespace();
    return std::nullopt;
  }

  // Inside an object just opened: reads members until the one named `key` (true, the
  // input at its value) or the object's end (false).
  bool find_member(const std::string& key) {
    for (;;) {
      skip_whitespace();
      if (in_.peek() != '"') return false;
      std::string quoted;
      JsonStringTracker strings;
      for (int c = in_.get(); c != ByteSource::kEof; c = in_.get()) {
        strings.take(c);
        quoted.push_back(static_cast<char>(c));
        if (!strings.in_string()) break;
      }
      const auto name = nlohmann::json::parse(quoted, nullptr, /*allow_exceptions=*/false);
      skip_whitespace();
      if (in_.get() != ':') return false;
      skip_whitespace();
      if (name.is_string() && name.get<std::string>() == key) return true;
      element_start_ = in_.position();
      const int terminator = scan_element_until('}');
      if (terminator != ',') return false;
    }
  }

  void skip_whitespace() {
    while (is_json_space(in_.peek())) in_.get();
  }

  // The end of the input where more was expected (or, with `message` null, where the
  // input may end).
  Result end_of_input(RowError* error, const char* message) {
    if (in_.failed()) return fail_fatally(error, {in_.position(), "", "read error"});
    if (message == nullptr) return Result::kEnd;
    return fail_fatally(error, {in_.position(), "", message});
  }

  RowProblem not_an_array() {
    const int c = in_.peek();
    std::string hint;
    if (c == '{' && rows_path_.empty()) {
      hint = ": when the rows are an array inside an object ({\"data\": [...]}), name it "
             "with --rows-path (e.g. --rows-path data)";
    }
    return {in_.position(), "",
            "expected a JSON array of row objects" +
                std::string(rows_path_.empty() ? "" : " at --rows-path " + rows_path_) +
                ", found " + describe_byte(c) + hint};
  }

  Result read_element(Row* row, RowError* error) {
    skip_whitespace();
    const TextPosition start = in_.position();
    const int c = in_.peek();
    if (c == ByteSource::kEof) {
      return end_of_input(error, "unexpected end of input: the array is not closed");
    }
    if (c == ']' || c == ',') {
      in_.get();
      const bool missing = c == ',' || after_comma_;
      after_comma_ = c == ',';
      if (c == ']') state_ = State::kAfterArray;
      if (!missing) return read(row, error);
      return fail(error, {start, "", c == ',' ? "missing element before ','"
                                             : "trailing comma before ']'"});
    }
    element_start_ = start;
    const int terminator = scan_element();
    if (terminator == kDamaged) return skip_damaged_element(start, error);
    if (terminator == ByteSource::kEof) {
      return end_of_input(error, "unexpected end of input inside an element");
    }
    after_comma_ = terminator == ',';
    if (terminator == ']') state_ = State::kAfterArray;
    row->line = start.line;
    if (auto problem = parser_.parse(element_, start, &row->fields, &row->warnings)) {
      return fail(error, std::move(*problem));
    }
    return Result::kRow;
  }

  // scan_element() found a raw line break inside a string.
  static constexpr int kDamaged = -2;

  // Reads one element's text into element_ (without trailing whitespace) and consumes
  // the ',' or ']' after it. Returns that byte, kEof, or kDamaged (a line break inside a
  // string: string_start_ is where that string opened; the break is consumed).
  int scan_element() { return scan_element_until(']'); }

  // scan_element() for a value that ends at ',' or at `closer` (']' in an array, '}' in
  // an object) at depth 0.
  int scan_element_until(int closer) {
    release_if_large(&element_);
    element_.clear();
    std::size_t content_size = 0;
    int depth = 0;
    JsonStringTracker strings;
    for (int c = in_.get(); c != ByteSource::kEof; c = in_.get()) {
      if (strings.in_string() && (c == '\n' || c == '\r')) return kDamaged;
      const bool was_in_string = strings.in_string();
      if (!was_in_string && c == '"') string_start_ = string_position(element_);
      if (!strings.take(c)) {
        if (depth == 0 && (c == ',' || c == closer)) {
          element_.resize(content_size);
          return c;
        }
        if (c == '{' || c == '[') {
          ++depth;
        } else if ((c == '}' || c == ']') && depth > 0) {
          // A stray '}' at depth 0 stays in the element, which then fails to parse.
          --depth;
        }
      }
      element_.push_back(static_cast<char>(c));
      if (strings.in_string() || !is_json_space(c)) content_size = element_.size();
    }
    return ByteSource::kEof;
  }

  // The position of the next byte of an element whose text so far is `element`.
  TextPosition string_position(const std::string& element) const {
    return position_in(element, element.size(), element_start_);
  }

  // Reports the damaged element that began at `start` and moves to the next line whose
  // first non-blank byte is a '{' in start's column: the next row. Without one, the rest
  // of the input is lost, and the error says from where.
  Result skip_damaged_element(TextPosition start, RowError* error) {
    const std::string where = "line " + std::to_string(string_start_.line) + ", column " +
                              std::to_string(string_start_.column);
    for (;;) {
      // At the start of a line: its indentation, then its first byte.
      std::int64_t column = 1;
      int c = in_.peek();
      while (c == ' ' || c == '\t') {
        in_.get();
        ++column;
        c = in_.peek();
      }
      if (c == '{' && column == start.column) {
        after_comma_ = false;
        return fail(error, {start, "",
                            "a string opened at " + where +
                                " is not closed on its line (a stray or missing '\"'); this "
                                "row is lost, reading resumes at line " +
                                std::to_string(in_.position().line)});
      }
      while (c != '\n' && c != ByteSource::kEof) {
        in_.get();
        c = in_.peek();
      }
      if (c == ByteSource::kEof) {
        if (in_.failed()) return fail_fatally(error, {in_.position(), "", "read error"});
        return fail_fatally(error, {start, "",
                                    "a string opened at " + where +
                                        " is not closed on its line (a stray or missing "
                                        "'\"'), and no row starts after it: every row from "
                                        "line " + std::to_string(start.line) +
                                        " to the end of the file is lost"});
      }
      in_.get();  // the '\n'
    }
  }

  Result after_array(RowError* error) {
    skip_whitespace();
    if (in_.peek() == ByteSource::kEof) return end_of_input(error, nullptr);
    return fail_fatally(error, {in_.position(), "", "unexpected content after the array"});
  }

  ByteSource in_;
  State state_ = State::kBeforeArray;
  bool after_comma_ = false;  // the last thing read was a ',' between elements
  std::string element_;       // reused for every element
  TextPosition element_start_;  // where element_ starts
  TextPosition string_start_;   // where the last string of element_ opened
  JsonRowParser parser_;
  const std::string rows_path_;  // dotted keys to the array of rows; empty: the root
};

}  // namespace

StatusOr<std::unique_ptr<RowReader>> open_json_array_reader(std::unique_ptr<std::istream> stream,
                                                            std::string name,
                                                            std::string rows_path) {
  auto reader = std::make_unique<JsonArrayReader>(std::move(stream), name, std::move(rows_path));
  if (std::optional<RowProblem> problem = reader->open()) {
    return invalid_argument(name + ":" + std::to_string(problem->where.line) + ":" +
                            std::to_string(problem->where.column) + ": " + problem->message);
  }
  return std::unique_ptr<RowReader>(std::move(reader));
}

std::unique_ptr<RowReader> make_json_array_reader(std::unique_ptr<std::istream> stream,
                                                  std::string name, std::string rows_path) {
  return std::make_unique<JsonArrayReader>(std::move(stream), std::move(name),
                                           std::move(rows_path));
}

}  // namespace ragmeter::readers
