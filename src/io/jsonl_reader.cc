// JSON Lines: one JSON object per line.
//
// Lines are read with std::getline into one reused string, so memory is the longest
// line, and each line is parsed by JsonRowParser (simdjson) from that string. Blank
// lines are skipped, CRLF line ends and a UTF-8 byte order mark at the start are
// accepted.

#include <istream>
#include <memory>
#include <string>
#include <string_view>

#include "io/readers.h"

namespace ragmeter::readers {
namespace {

bool is_blank(std::string_view text) {
  return text.find_first_not_of(" \t\r") == std::string_view::npos;
}

class JsonlReader : public ReaderBase {
 public:
  JsonlReader(std::unique_ptr<std::istream> stream, std::string name)
      : ReaderBase(std::move(name)), stream_(std::move(stream)) {}

 protected:
  Result read(Row* row, RowError* error) override {
    release_if_large(&line_);
    while (std::getline(*stream_, line_)) {
      ++line_number_;
      TextPosition origin{line_number_, 1};
      std::string_view text = line_;
      if (line_number_ == 1 && text.starts_with("\xEF\xBB\xBF")) {
        text.remove_prefix(3);
        origin.column += 3;  // columns count bytes of the file, the mark included
      }
      if (text.ends_with('\r')) text.remove_suffix(1);
      if (is_blank(text)) continue;
      row->line = line_number_;
      if (auto problem = parser_.parse(text, origin, &row->fields, &row->warnings)) {
        return fail(error, std::move(*problem));
      }
      return Result::kRow;
    }
    if (stream_->bad()) {
      return fail_fatally(error, {{line_number_ + 1, 1}, "", "read error"});
    }
    return Result::kEnd;
  }

 private:
  std::unique_ptr<std::istream> stream_;
  std::string line_;  // reused for every line: its capacity is kept between rows
  JsonRowParser parser_;
  std::int64_t line_number_ = 0;
};

}  // namespace

std::unique_ptr<RowReader> make_jsonl_reader(std::unique_ptr<std::istream> stream,
                                             std::string name) {
  return std::make_unique<JsonlReader>(std::move(stream), std::move(name));
}

}  // namespace ragmeter::readers
