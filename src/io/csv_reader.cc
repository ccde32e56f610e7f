// CSV as pandas and Excel write it (RFC 4180): the first record names the fields,
// cells may be quoted with "" for a quote inside and may then hold commas and line
// breaks. Records end with LF, CRLF or a lone CR; a UTF-8 byte order mark at the start
// is skipped; blank lines are skipped.
//
// Every cell is a string, an empty cell the empty string: deciding what a cell means
// (a number, a list literal) is left to the sample layer, which knows the field.

#include <algorithm>
#include <istream>
#include <memory>
#include <string>
#include <vector>

#include "io/readers.h"

namespace ragmeter::readers {
namespace {

struct Cell {
  std::string text;     // unquoted and unescaped
  TextPosition start;   // of the cell's first byte (its opening quote when quoted)
  bool quoted = false;
};

// Where the byte text[offset] of `cell` was in the file: a quoted cell's text starts
// one byte after its opening quote and each '"' in it was written as two.
TextPosition position_in_cell(const Cell& cell, std::size_t offset) {
  TextPosition where = cell.start;
  if (cell.quoted) ++where.column;
  for (std::size_t i = 0; i < offset; ++i) {
    if (cell.text[i] == '\n') {
      ++where.line;
      where.column = 1;
    } else {
      where.column += cell.quoted && cell.text[i] == '"' ? 2 : 1;
    }
  }
  return where;
}

std::optional<RowProblem> check_utf8(const Cell& cell, const std::string& field) {
  std::size_t bad_offset = 0;
  if (is_valid_utf8(cell.text, &bad_offset)) return std::nullopt;
  return RowProblem{position_in_cell(cell, bad_offset), field,
                    "invalid UTF-8 (byte " +
                        describe_byte(static_cast<unsigned char>(cell.text[bad_offset])) + ")"};
}

// Column names as pandas.read_csv gives them, so that a column is called the same
// here and in pandas: an empty name is "Unnamed: <index>" (the index column pandas
// writes has no name), and a repeated name gets ".1", ".2", ... appended.
std::string column_name(std::string name, std::size_t index,
                        const std::vector<std::string>& earlier) {
  if (name.empty()) name = "Unnamed: " + std::to_string(index);
  const auto taken = [&](const std::string& candidate) {
    return std::find(earlier.begin(), earlier.end(), candidate) != earlier.end();
  };
  if (!taken(name)) return name;
  for (int suffix = 1;; ++suffix) {
    std::string candidate = name + "." + std::to_string(suffix);
    if (!taken(candidate)) return candidate;
  }
}

class CsvReader : public ReaderBase {
 public:
  CsvReader(std::unique_ptr<std::istream> stream, std::string name)
      : ReaderBase(std::move(name)), in_(std::move(stream)) {}

 protected:
  Result read(Row* row, RowError* error) override {
    if (header_.empty()) {
      in_.skip_bom();
      const RecordEnd end = read_nonblank_record();
      if (end != RecordEnd::kComplete) return unfinished(end, error);
      if (auto problem = take_header()) return fail_fatally(error, std::move(*problem));
    }
    const RecordEnd end = read_nonblank_record();
    if (end != RecordEnd::kComplete) return unfinished(end, error);
    row->line = record_start_.line;
    if (cell_count_ != header_.size()) {
      return fail(error, {{record_start_.line, 0}, "",
                          "row has " + std::to_string(cell_count_) + " cells but the header has " +
                              std::to_string(header_.size())});
    }
    for (std::size_t i = 0; i < cell_count_; ++i) {
      if (auto problem = check_utf8(cells_[i], header_[i])) return fail(error, std::move(*problem));
    }
    row->fields = nlohmann::ordered_json::object();
    for (std::size_t i = 0; i < cell_count_; ++i) row->fields[header_[i]] = cells_[i].text;
    row->warnings.clear();
    row->warnings.swap(header_warnings_);  // said once, with the first row
    return Result::kRow;
  }

 private:
  enum class RecordEnd { kComplete, kEndOfInput, kUnterminatedQuote };
  enum class CellState { kStart, kUnquoted, kQuoted, kAfterQuote };

  // Begins the next cell of the record at the current position.
  Cell* start_cell() {
    if (cell_count_ == cells_.size()) cells_.emplace_back();
    Cell* cell = &cells_[cell_count_++];
    release_if_large(&cell->text);
    cell->text.clear();
    cell->start = in_.position();
    cell->quoted = false;
    return cell;
  }

  // Reads one record into cells_[0, cell_count_).
  RecordEnd read_record() {
    cell_count_ = 0;
    record_start_ = in_.position();
    if (in_.peek() == ByteSource::kEof) return RecordEnd::kEndOfInput;
    Cell* cell = start_cell();
    CellState state = CellState::kStart;
    for (;;) {
      const int c = in_.get();
      if (c == ByteSource::kEof) {
        return state == CellState::kQuoted ? RecordEnd::kUnterminatedQuote : RecordEnd::kComplete;
      }
      if (state == CellState::kQuoted) {
        if (c == '"') {
          state = CellState::kAfterQuote;
        } else {
          cell->text.push_back(static_cast<char>(c));
        }
        continue;
      }
      if (c == '"' && (state == CellState::kStart || state == CellState::kAfterQuote)) {
        // An opening quote, or the second quote of a "" pair inside a quoted cell.
        if (state == CellState::kAfterQuote) cell->text.push_back('"');
        cell->quoted = true;
        state = CellState::kQuoted;
      } else if (c == ',') {
        cell = start_cell();
        state = CellState::kStart;
      } else if (c == '\n') {
        return RecordEnd::kComplete;
      } else if (c == '\r') {
        if (in_.peek() == '\n') {
          in_.get();
        } else {
          in_.start_line();  // a lone CR ends a line too
        }
        return RecordEnd::kComplete;
      } else {
        // Text after a closing quote ("ab"c) is kept, as Python's csv module does; a
        // quote inside an unquoted cell is an ordinary character.
        cell->text.push_back(static_cast<char>(c));
        state = CellState::kUnquoted;
      }
    }
  }

  RecordEnd read_nonblank_record() {
    for (;;) {
      const RecordEnd end = read_record();
      const bool blank = end == RecordEnd::kComplete && cell_count_ == 1 && !cells_[0].quoted &&
                         cells_[0].text.empty();
      if (!blank) return end;
    }
  }

  Result unfinished(RecordEnd end, RowError* error) {
    if (end == RecordEnd::kUnterminatedQuote) {
      const Cell& cell = cells_[cell_count_ - 1];
      return fail_fatally(error, {cell.start, "", "quoted cell is never closed"});
    }
    if (in_.failed()) return fail_fatally(error, {in_.position(), "", "read error"});
    return Result::kEnd;
  }

  std::optional<RowProblem> take_header() {
    for (std::size_t i = 0; i < cell_count_; ++i) {
      if (auto problem = check_utf8(cells_[i], "")) {
        problem->message += " in the header";
        return problem;
      }
      header_.push_back(column_name(cells_[i].text, i, header_));
      if (header_.back() != cells_[i].text && !cells_[i].text.empty()) {
        header_warnings_.push_back("duplicate column '" + cells_[i].text + "' in the header: "
                                   "this one is read as '" + header_.back() + "'");
      }
    }
    return std::nullopt;
  }

  ByteSource in_;
  std::vector<std::string> header_;
  std::vector<std::string> header_warnings_;  // repeated columns, for the first row
  std::vector<Cell> cells_;  // reused for every record; only the first cell_count_ count
  std::size_t cell_count_ = 0;
  TextPosition record_start_;
};

}  // namespace

std::unique_ptr<RowReader> make_csv_reader(std::unique_ptr<std::istream> stream,
                                           std::string name) {
  return std::make_unique<CsvReader>(std::move(stream), std::move(name));
}

}  // namespace ragmeter::readers
