// open_dataset and the pieces the readers share (see readers.h).

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <system_error>
#include <vector>

#include "io/readers.h"
#include "ragmeter/dataset.h"

namespace ragmeter {
namespace readers {
namespace {

// Large enough that reading costs few system calls, small enough not to matter.
constexpr std::size_t kBufferSize = 1 << 16;

// Which top-level field of a JSON object text a byte offset falls in.
struct FieldAt {
  std::string key;      // the decoded key, empty before the first key
  bool in_key = false;  // the offset is inside the key itself
};

std::string decode_json_string(std::string_view quoted) {
  const auto parsed = nlohmann::ordered_json::parse(quoted, nullptr, /*allow_exceptions=*/false);
  return parsed.is_string() ? parsed.get<std::string>() : std::string(quoted);
}

// Scans only as far as `offset`, tracking strings and nesting, to find the key whose
// value (or which key) holds that byte. Used only on the error path.
FieldAt field_at(std::string_view text, std::size_t offset) {
  int depth = 0;
  bool expect_key = false;
  JsonStringTracker strings;
  std::size_t key_start = std::string_view::npos;
  std::string_view last_key;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    const char c = text[i];
    const bool was_in_string = strings.in_string();
    if (strings.take(c)) {
      if (!was_in_string) {  // an opening quote
        if (depth == 1 && expect_key) key_start = i;
        expect_key = false;
      } else if (!strings.in_string() && key_start != std::string_view::npos) {
        last_key = text.substr(key_start, i + 1 - key_start);  // with its quotes
        key_start = std::string_view::npos;
      }
    } else if (c == '{' || c == '[') {
      ++depth;
      expect_key = depth == 1 && c == '{';
    } else if (c == '}' || c == ']') {
      --depth;
    } else if (c == ',' && depth == 1) {
      expect_key = true;
    }
  }
  if (key_start != std::string_view::npos) return {"", true};
  return {last_key.empty() ? "" : decode_json_string(last_key), false};
}

RowProblem invalid_utf8_problem(std::string_view text, std::size_t offset, TextPosition origin) {
  const FieldAt at = field_at(text, offset);
  const std::string byte = describe_byte(static_cast<unsigned char>(text[offset]));
  return RowProblem{position_in(text, offset, origin), at.key,
                    at.in_key ? "invalid UTF-8 in a field name (byte " + byte + ")"
                              : "invalid UTF-8 (byte " + byte + ")"};
}

// nlohmann's what() is "[json.exception.parse_error.101] parse error at line 1, column
// 5: syntax error ...". Its line and column count from the start of `text`, not of the
// file, so keep only the explanation and compute the position ourselves.
std::string explanation(const nlohmann::ordered_json::exception& e) {
  const std::string_view what = e.what();
  const std::size_t colon = what.find(": ");
  return std::string(colon == std::string_view::npos ? what : what.substr(colon + 2));
}

RowProblem parse_failure(std::string_view text, TextPosition origin,
                         const nlohmann::ordered_json::exception& e) {
  // nlohmann rejects invalid UTF-8 too, but naming the field helps more.
  std::size_t bad_offset = 0;
  if (!is_valid_utf8(text, &bad_offset)) return invalid_utf8_problem(text, bad_offset, origin);
  std::size_t offset = 0;
  if (const auto* parse_error = dynamic_cast<const nlohmann::ordered_json::parse_error*>(&e)) {
    // `byte` is 1-based and is text.size() + 1 at the end of the input.
    offset = std::min(parse_error->byte > 0 ? parse_error->byte - 1 : 0, text.size());
  }
  return RowProblem{position_in(text, offset, origin), "", explanation(e)};
}

// An ifstream with a larger buffer than the default (BUFSIZ).
class FileStream : public std::ifstream {
 public:
  explicit FileStream(const std::string& path) : buffer_(kBufferSize) {
    rdbuf()->pubsetbuf(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
    open(path, std::ios::binary);
  }
  // Closes before buffer_ goes away: the file buffer reads into it.
  ~FileStream() override { close(); }

 private:
  std::vector<char> buffer_;
};

StatusOr<std::unique_ptr<std::istream>> open_input(const std::string& path) {
  if (path == "-") {
    // A file stream on /dev/stdin reads in large blocks; std::cin, synchronised with
    // stdio, would read a character at a time.
    auto stream = std::make_unique<FileStream>("/dev/stdin");
    if (stream->is_open()) return std::unique_ptr<std::istream>(std::move(stream));
    return std::make_unique<std::istream>(std::cin.rdbuf());
  }
  std::error_code ignored;
  if (std::filesystem::is_directory(path, ignored)) {
    return invalid_argument("dataset '" + path + "' is a directory");
  }
  auto stream = std::make_unique<FileStream>(path);
  if (!stream->is_open()) {
    return not_found("cannot open dataset '" + path + "': " + std::strerror(errno));
  }
  return std::unique_ptr<std::istream>(std::move(stream));
}

std::unique_ptr<RowReader> make_reader(DatasetFormat format, std::unique_ptr<std::istream> stream,
                                       std::string name, std::string rows_path) {
  switch (format) {
    case DatasetFormat::kJson:
      return make_json_array_reader(std::move(stream), std::move(name), std::move(rows_path));
    case DatasetFormat::kCsv: return make_csv_reader(std::move(stream), std::move(name));
    case DatasetFormat::kJsonl:
    case DatasetFormat::kAuto: break;
  }
  return make_jsonl_reader(std::move(stream), std::move(name));
}


}  // namespace

StatusOr<DatasetFormat> resolve_format(const std::string& path, DatasetFormat format) {
  if (format != DatasetFormat::kAuto) return format;
  if (path == "-") {
    return invalid_argument(
        "reading a dataset from standard input needs its format: --format jsonl, json or csv");
  }
  std::string extension = std::filesystem::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == ".jsonl" || extension == ".ndjson") return DatasetFormat::kJsonl;
  if (extension == ".json") return DatasetFormat::kJson;
  if (extension == ".csv") return DatasetFormat::kCsv;
  return invalid_argument("cannot tell the format of dataset '" + path +
                          "' from its extension (use .jsonl, .ndjson, .json or .csv, or name "
                          "the format)");
}

TextPosition position_in(std::string_view text, std::size_t offset, TextPosition origin) {
  const std::string_view before = text.substr(0, std::min(offset, text.size()));
  const std::size_t last_newline = before.rfind('\n');
  if (last_newline == std::string_view::npos) {
    return {origin.line, origin.column + static_cast<std::int64_t>(before.size())};
  }
  return {origin.line + std::count(before.begin(), before.end(), '\n'),
          static_cast<std::int64_t>(before.size() - last_newline)};
}

RowReader::Result ReaderBase::next(Row* row, RowError* error) {
  if (ended_) return Result::kEnd;
  const Result result = read(row, error);
  if (result == Result::kEnd) {
    ended_ = true;
  } else if (result == Result::kRow) {
    row->index = next_index_++;
  } else {
    error->index = next_index_++;
  }
  return result;
}

RowReader::Result ReaderBase::fail(RowError* error, RowProblem problem) {
  error->file = name_;
  error->line = problem.where.line;
  error->column = problem.where.column;
  error->field = std::move(problem.field);
  error->message = std::move(problem.message);
  return Result::kError;
}

RowReader::Result ReaderBase::fail_fatally(RowError* error, RowProblem problem) {
  ended_ = true;
  return fail(error, std::move(problem));
}

ByteSource::ByteSource(std::unique_ptr<std::istream> stream)
    : stream_(std::move(stream)), buffer_(kBufferSize) {}

bool ByteSource::refill(std::size_t wanted) {
  if (begin_ > 0) {
    std::copy(buffer_.begin() + static_cast<std::ptrdiff_t>(begin_),
              buffer_.begin() + static_cast<std::ptrdiff_t>(end_), buffer_.begin());
    end_ -= begin_;
    begin_ = 0;
  }
  while (end_ < wanted) {
    if (!*stream_) return false;  // end of input or an I/O error, reported by failed()
    stream_->read(buffer_.data() + end_, static_cast<std::streamsize>(buffer_.size() - end_));
    const std::streamsize count = stream_->gcount();
    if (count <= 0) return false;
    end_ += static_cast<std::size_t>(count);
  }
  return true;
}

void ByteSource::skip_bom() {
  static constexpr char kBom[] = "\xEF\xBB\xBF";
  if (end_ - begin_ < 3) refill(3);
  if (end_ - begin_ >= 3 && std::memcmp(buffer_.data() + begin_, kBom, 3) == 0) {
    begin_ += 3;
    position_.column += 3;
  }
}

std::optional<RowProblem> parse_json_row(std::string_view text, TextPosition origin,
                                         nlohmann::ordered_json* fields) {
  try {
    *fields = nlohmann::ordered_json::parse(text.data(), text.data() + text.size());
  } catch (const nlohmann::ordered_json::exception& e) {
    return parse_failure(text, origin, e);
  }
  if (!fields->is_object()) {
    return RowProblem{origin, "",
                      std::string("expected a JSON object, got a JSON ") + fields->type_name()};
  }
  return std::nullopt;
}

std::string describe_byte(int c) {
  if (c >= 0x20 && c < 0x7F) return std::string("'") + static_cast<char>(c) + "'";
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned>(c) & 0xFFu);
  return hex;
}

}  // namespace readers

StatusOr<std::unique_ptr<RowReader>> open_dataset(const std::string& path, DatasetFormat format,
                                                  const std::string& rows_path) {
  RAGMETER_ASSIGN_OR_RETURN(const DatasetFormat resolved, readers::resolve_format(path, format));
  if (!rows_path.empty() && resolved != DatasetFormat::kJson) {
    return invalid_argument("--rows-path applies to a JSON dataset (an object holding the rows)");
  }
  RAGMETER_ASSIGN_OR_RETURN(std::unique_ptr<std::istream> stream, readers::open_input(path));
  std::string name = path == "-" ? "<stdin>" : path;
  if (resolved == DatasetFormat::kJson) {
    return readers::open_json_array_reader(std::move(stream), std::move(name), rows_path);
  }
  return readers::make_reader(resolved, std::move(stream), std::move(name), rows_path);
}

}  // namespace ragmeter
