// Rows held in memory, read as a dataset (make_memory_row_reader in dataset.h).
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "io/readers.h"

namespace ragmeter::readers {
namespace {

using Json = nlohmann::ordered_json;

// The first string in `value` (recursively) that is not valid UTF-8, described for a
// message; empty when every string is valid.
std::string invalid_utf8(const Json& value) {
  std::size_t offset = 0;
  switch (value.type()) {
    case Json::value_t::string: {
      const std::string& text = value.get_ref<const std::string&>();
      if (is_valid_utf8(text, &offset)) return {};
      return "invalid UTF-8 (byte " + describe_byte(static_cast<unsigned char>(text[offset])) +
             " at offset " + std::to_string(offset) + ")";
    }
    case Json::value_t::array:
      for (const Json& item : value) {
        if (std::string problem = invalid_utf8(item); !problem.empty()) return problem;
      }
      return {};
    case Json::value_t::object:
      for (auto it = value.begin(); it != value.end(); ++it) {
        if (!is_valid_utf8(it.key())) return "invalid UTF-8 in a field name";
        if (std::string problem = invalid_utf8(*it); !problem.empty()) return problem;
      }
      return {};
    default:
      return {};
  }
}

// What the file readers would reject: a row that is not an object, a top-level field
// whose name or value holds invalid UTF-8 (in memory there are no columns: 0).
std::optional<RowProblem> check_row(const Json& fields, std::int64_t line) {
  if (!fields.is_object()) {
    return RowProblem{{line, 0}, "", std::string("expected a JSON object, got a JSON ") +
                                         fields.type_name()};
  }
  for (auto it = fields.begin(); it != fields.end(); ++it) {
    const bool bad_key = !is_valid_utf8(it.key());
    std::string problem = bad_key ? "invalid UTF-8 in a field name" : invalid_utf8(*it);
    if (problem.empty()) continue;
    // A field name that is not UTF-8 cannot be quoted in a message.
    return RowProblem{{line, 0}, bad_key ? "" : it.key(), std::move(problem)};
  }
  return std::nullopt;
}

class MemoryRowReader : public ReaderBase {
 public:
  MemoryRowReader(std::vector<Json> rows, std::string name)
      : ReaderBase(std::move(name)), rows_(std::move(rows)) {}

 protected:
  Result read(Row* row, RowError* error) override {
    if (next_ >= rows_.size()) {
      rows_ = {};  // the rows were moved out: free the vector itself
      return Result::kEnd;
    }
    const auto line = static_cast<std::int64_t>(next_) + 1;
    Json& fields = rows_[next_++];
    if (auto problem = check_row(fields, line)) {
      fields = nullptr;
      return fail(error, std::move(*problem));
    }
    row->fields = std::move(fields);
    row->line = line;
    return Result::kRow;
  }

 private:
  std::vector<Json> rows_;
  std::size_t next_ = 0;
};

}  // namespace
}  // namespace ragmeter::readers

namespace ragmeter {

std::unique_ptr<RowReader> make_memory_row_reader(std::vector<nlohmann::ordered_json> rows,
                                                  std::string name) {
  return std::make_unique<readers::MemoryRowReader>(std::move(rows), std::move(name));
}

}  // namespace ragmeter
