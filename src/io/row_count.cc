// count_dataset_rows (dataset.h): rows counted by a byte scan, for a progress total.
#include <cstdio>
#include <memory>

#include "io/readers.h"
#include "ragmeter/dataset.h"

namespace ragmeter {
namespace {

constexpr std::size_t kChunk = 1 << 16;

bool is_blank(unsigned char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// One counter per format; each takes the file's bytes in order.
class JsonlCounter {
 public:
  void take(unsigned char c) {
    if (c == '\n') {
      rows_ += content_;
      content_ = false;
    } else if (!is_blank(c)) {
      content_ = true;
    }
  }
  std::optional<std::int64_t> rows() const { return rows_ + content_; }

 private:
  std::int64_t rows_ = 0;
  bool content_ = false;  // the current line has a non-blank byte
};

// Records end at LF, CR or CRLF outside quotes; empty records are skipped, as the
// reader skips blank lines; the first record is the header.
class CsvCounter {
 public:
  void take(unsigned char c) {
    if (c == '"') quoted_ = !quoted_;  // "" inside a quoted cell toggles twice
    if (!quoted_ && (c == '\n' || c == '\r')) {
      records_ += content_;
      content_ = false;
    } else {
      content_ = true;
    }
  }
  std::optional<std::int64_t> rows() const {
    const std::int64_t records = records_ + content_;
    return records > 0 ? records - 1 : 0;
  }

 private:
  std::int64_t records_ = 0;
  bool content_ = false;
  bool quoted_ = false;
};

// Elements of the top-level array: a value starts at depth 1 after '[' or ','.
class JsonArrayCounter {
 public:
  void take(unsigned char c) {
    if (broken_) return;
    const bool opening = !strings_.in_string();
    if (strings_.take(c)) {
      if (opening) start_value(c);
      return;
    }
    if (is_blank(c)) return;
    if (depth_ == 1 && c == ',') {
      in_element_ = false;
      return;
    }
    if (c != ']' && c != '}') start_value(c);
    if (c == '[' || c == '{') {
      ++depth_;
    } else if (c == ']' || c == '}') {
      --depth_;
    }
  }
  std::optional<std::int64_t> rows() const {
    if (broken_) return std::nullopt;
    return rows_;
  }

 private:
  // A value's first byte: the array itself at depth 0, an element at depth 1.
  void start_value(unsigned char c) {
    if (depth_ == 0) {
      if (seen_array_ || c != '[') broken_ = true;  // not an array, or text after it
      seen_array_ = true;
    } else if (depth_ == 1 && !in_element_) {
      in_element_ = true;
      ++rows_;
    }
  }

  readers::JsonStringTracker strings_;
  std::int64_t rows_ = 0;
  int depth_ = 0;
  bool seen_array_ = false;
  bool in_element_ = false;
  bool broken_ = false;
};

template <typename Counter>
std::optional<std::int64_t> count_with(std::FILE* file, const std::atomic<bool>* stop) {
  Counter counter;
  std::unique_ptr<unsigned char[]> buffer(new unsigned char[kChunk]);
  bool first = true;
  for (std::size_t got; (got = std::fread(buffer.get(), 1, kChunk, file)) > 0;) {
    if (stop != nullptr && stop->load(std::memory_order_relaxed)) return std::nullopt;
    std::size_t i = 0;
    if (first && got >= 3 && buffer[0] == 0xEF && buffer[1] == 0xBB && buffer[2] == 0xBF) {
      i = 3;  // a UTF-8 byte order mark, which the readers skip too
    }
    first = false;
    for (; i < got; ++i) counter.take(buffer[i]);
  }
  if (std::ferror(file)) return std::nullopt;
  return counter.rows();
}

}  // namespace

std::optional<std::int64_t> count_dataset_rows(const std::string& path, DatasetFormat format,
                                               const std::string& rows_path,
                                               const std::atomic<bool>* stop) {
  if (path == "-") return std::nullopt;
  auto resolved = readers::resolve_format(path, format);
  if (!resolved.ok()) return std::nullopt;
  if (*resolved == DatasetFormat::kJson && !rows_path.empty()) return std::nullopt;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                        &std::fclose);
  if (file == nullptr) return std::nullopt;
  switch (*resolved) {
    case DatasetFormat::kCsv: return count_with<CsvCounter>(file.get(), stop);
    case DatasetFormat::kJson: return count_with<JsonArrayCounter>(file.get(), stop);
    case DatasetFormat::kJsonl:
    case DatasetFormat::kAuto: break;
  }
  return count_with<JsonlCounter>(file.get(), stop);
}

}  // namespace ragmeter
