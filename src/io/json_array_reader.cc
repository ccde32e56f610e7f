// JSON: a top-level array of row objects, read one element at a time.
//
// nlohmann would need the whole array in memory, so the reader finds each element's
// extent itself: it scans bytes, tracking strings, escapes and bracket depth, until a
// ',' or ']' at depth 0. Only that element's text is then parsed (JsonRowParser). A
// malformed element is reported and the scan goes on with the next one.

#include <istream>
#include <memory>
#include <string>

#include "io/readers.h"

namespace ragmeter::readers {
namespace {

bool is_json_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

class JsonArrayReader : public ReaderBase {
 public:
  JsonArrayReader(std::unique_ptr<std::istream> stream, std::string name)
      : ReaderBase(std::move(name)), in_(std::move(stream)) {}

 protected:
  Result read(Row* row, RowError* error) override {
    if (state_ == State::kBeforeArray) {
      in_.skip_bom();
      skip_whitespace();
      if (in_.peek() != '[') return not_an_array(error);
      in_.get();
      state_ = State::kInArray;
    }
    if (state_ == State::kInArray) return read_element(row, error);
    return after_array(error);
  }

 private:
  enum class State { kBeforeArray, kInArray, kAfterArray };

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

  Result not_an_array(RowError* error) {
    const int c = in_.peek();
    // An empty file is an empty dataset, as it is for JSONL and CSV.
    if (c == ByteSource::kEof) return end_of_input(error, nullptr);
    return fail_fatally(error, {in_.position(), "",
                                "expected a JSON array of row objects, found " +
                                    describe_byte(c)});
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
    const int terminator = scan_element();
    if (terminator == ByteSource::kEof) {
      return end_of_input(error, "unexpected end of input inside an element");
    }
    after_comma_ = terminator == ',';
    if (terminator == ']') state_ = State::kAfterArray;
    row->line = start.line;
    if (auto problem = parser_.parse(element_, start, &row->fields)) {
      return fail(error, std::move(*problem));
    }
    return Result::kRow;
  }

  // Reads one element's text into element_ (without trailing whitespace) and consumes
  // the ',' or ']' after it. Returns that byte, or kEof.
  int scan_element() {
    release_if_large(&element_);
    element_.clear();
    std::size_t content_size = 0;
    int depth = 0;
    JsonStringTracker strings;
    for (int c = in_.get(); c != ByteSource::kEof; c = in_.get()) {
      if (!strings.take(c)) {
        if (depth == 0 && (c == ',' || c == ']')) {
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

  Result after_array(RowError* error) {
    skip_whitespace();
    if (in_.peek() == ByteSource::kEof) return end_of_input(error, nullptr);
    return fail_fatally(error, {in_.position(), "", "unexpected content after the array"});
  }

  ByteSource in_;
  State state_ = State::kBeforeArray;
  bool after_comma_ = false;  // the last thing read was a ',' between elements
  std::string element_;       // reused for every element
  JsonRowParser parser_;
};

}  // namespace

std::unique_ptr<RowReader> make_json_array_reader(std::unique_ptr<std::istream> stream,
                                                  std::string name) {
  return std::make_unique<JsonArrayReader>(std::move(stream), std::move(name));
}

}  // namespace ragmeter::readers
