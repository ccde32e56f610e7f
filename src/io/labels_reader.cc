// Reading a labels file (include/ragmeter/labels.h): which columns hold labels, what a
// label's value is on the declared scale, and an error with file, line and field for
// everything that cannot be used.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "ragmeter/labels.h"

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

std::string trim(std::string_view text) {
  auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return "";
  auto last = text.find_last_not_of(" \t\r\n");
  return std::string(text.substr(first, last - first + 1));
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

bool parse_int(std::string_view text, int* out) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return error == std::errc() && end == text.data() + text.size();
}

bool parse_number(const std::string& text, double* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(*out);
}

// "LO..HI" -> (LO, HI).
bool parse_range(std::string_view text, int* low, int* high) {
  auto dots = text.find("..");
  return dots != std::string_view::npos && parse_int(text.substr(0, dots), low) &&
         parse_int(text.substr(dots + 2), high);
}

// What a text cell says as a number on `scale`, or false.
bool text_value(const std::string& cell, const LabelScale& scale, double* out) {
  std::string word = lower(trim(cell));
  if (scale.kind == LabelKind::kBinary && (word == "true" || word == "false")) {
    *out = word == "true" ? 1.0 : 0.0;
    return true;
  }
  if (scale.kind == LabelKind::kPairwise && (word == "a" || word == "b" || word == "tie")) {
    *out = word == "a" ? -1.0 : word == "b" ? 1.0 : 0.0;
    return true;
  }
  return parse_number(word, out);
}

std::string scale_help(const LabelScale& scale) {
  switch (scale.kind) {
    case LabelKind::kBinary:
      return "binary: 0 or 1 (true or false)";
    case LabelKind::kOrdinal:
      return fmt::format("{}: an integer from {} to {}", scale.to_string(), scale.low, scale.high);
    case LabelKind::kPairwise:
      return fmt::format("{}: a number from {} to {} (> 0 prefers row b), or \"a\", \"b\", \"tie\"",
                         scale.to_string(), scale.low, scale.high);
  }
  return "";
}

// The label in `cell` on `scale`: true and *out, false for an empty cell; a message in
// *error when the value is not on the scale.
bool label_value(const Json& cell, const LabelScale& scale, double* out, std::string* error) {
  if (cell.is_null() || (cell.is_string() && trim(cell.get<std::string>()).empty())) return false;
  bool read = false;
  if (cell.is_boolean()) {
    read = scale.kind == LabelKind::kBinary;
    *out = cell.get<bool>() ? 1.0 : 0.0;
  } else if (cell.is_number()) {
    read = true;
    *out = cell.get<double>();
  } else if (cell.is_string()) {
    read = text_value(cell.get<std::string>(), scale, out);
  }
  bool whole = read && *out == std::floor(*out);
  bool on_scale = read && *out >= scale.low && *out <= scale.high &&
                  (scale.kind == LabelKind::kPairwise || whole);
  if (!on_scale) *error = cell.dump() + " is outside the declared scale " + scale_help(scale);
  return on_scale;
}

// A row's id cell as text: a string as it is, an integer in decimal; else an error.
bool id_text(const Json& cell, std::string* out) {
  if (cell.is_string()) {
    *out = cell.get<std::string>();
    return !trim(*out).empty();
  }
  if (cell.is_number_integer() || cell.is_number_unsigned()) {
    *out = cell.dump();
    return true;
  }
  return false;
}

class LabelRowReader {
 public:
  LabelRowReader(const std::string& name, const std::vector<std::string>& metrics,
                 const LabelOptions& options, LabelSet* out)
      : name_(name), metrics_(metrics), options_(options), out_(out) {}

  void read(const Row& row) {
    if (!row.fields.is_object()) return;
    const bool pairwise = options_.scale.kind == LabelKind::kPairwise;
    Label base;
    base.line = row.line;
    if (pairwise) {
      if (!read_id(row, options_.id_column + "_a", &base.id)) return;
      if (!read_id(row, options_.id_column + "_b", &base.id_b)) return;
    } else if (!read_id(row, options_.id_column, &base.id)) {
      return;
    }
    if (auto it = row.fields.find(options_.annotator_column);
        it != row.fields.end() && !it->is_null()) {
      base.annotator = it->is_string() ? it->get<std::string>() : it->dump();
    }
    bool label_column = false;
    for (auto it = row.fields.begin(); it != row.fields.end(); ++it) {
      const std::string& key = it.key();
      if (is_id_or_annotator(key)) continue;
      Label label = base;
      if (!parse_column(key, &label)) {
        note_ignored(key);
        continue;
      }
      label_column = true;
      std::string error;
      if (!label_value(*it, options_.scale, &label.value, &error)) {
        if (!error.empty()) fail(row.line, key, error);
        continue;
      }
      if (is_duplicate(label)) {
        fail(row.line, key,
             fmt::format("a second label of the same item by annotator '{}' (the "
                         "first is on line {})",
                         label.annotator, first_line_[key_of(label)]));
        continue;
      }
      out_->labels.push_back(std::move(label));
    }
    if (!label_column) {
      fail(row.line, "",
           "no label column: expected 'label', a metric's name (one of the "
           "run's metrics) or either with ':ANNOTATOR'");
    }
  }

 private:
  bool read_id(const Row& row, const std::string& column, std::string* out) {
    auto it = row.fields.find(column);
    if (it == row.fields.end() || it->is_null()) {
      fail(row.line, column, "missing: a labels row names its results row by this column");
      return false;
    }
    if (!id_text(*it, out)) {
      fail(row.line, column, "must be a non-empty string or an integer, got " + it->dump());
      return false;
    }
    return true;
  }

  bool is_id_or_annotator(const std::string& key) const {
    if (key == options_.annotator_column) return true;
    if (options_.scale.kind == LabelKind::kPairwise) {
      return key == options_.id_column + "_a" || key == options_.id_column + "_b";
    }
    return key == options_.id_column;
  }

  // "label", "<metric>", either with ":NAME": sets the label's target and annotator.
  bool parse_column(const std::string& key, Label* label) const {
    auto colon = key.find(':');
    std::string base = key.substr(0, colon);
    if (base != "label" && std::find(metrics_.begin(), metrics_.end(), base) == metrics_.end()) {
      return false;
    }
    label->target = base == "label" ? "" : base;
    if (colon != std::string::npos) {
      std::string who = key.substr(colon + 1);
      label->annotator = label->annotator.empty() ? who : label->annotator + ":" + who;
    }
    return true;
  }

  using LabelKey = std::tuple<std::string, std::string, std::string, std::string>;
  static LabelKey key_of(const Label& l) { return {l.id, l.id_b, l.target, l.annotator}; }

  // A named annotator labels an item once per metric; anonymous labels may repeat.
  bool is_duplicate(const Label& label) {
    if (label.annotator.empty()) return false;
    return !first_line_.emplace(key_of(label), label.line).second;
  }

  void note_ignored(const std::string& key) {
    auto& ignored = out_->ignored_columns;
    if (std::find(ignored.begin(), ignored.end(), key) == ignored.end()) ignored.push_back(key);
  }

  void fail(std::int64_t line, const std::string& field, std::string message) {
    RowError error;
    error.file = name_;
    error.line = line;
    error.field = field;
    error.message = std::move(message);
    out_->errors.push_back(std::move(error));
  }

  const std::string& name_;
  const std::vector<std::string>& metrics_;
  const LabelOptions& options_;
  LabelSet* out_;
  std::map<LabelKey, std::int64_t> first_line_;
};

}  // namespace

std::string LabelScale::to_string() const {
  switch (kind) {
    case LabelKind::kBinary:
      return "binary";
    case LabelKind::kOrdinal:
      return fmt::format("ordinal:{}..{}", low, high);
    case LabelKind::kPairwise:
      return fmt::format("pairwise:{}..{}", low, high);
  }
  return "";
}

StatusOr<LabelScale> parse_label_scale(std::string_view text) {
  const std::string help =
      "--scale: expected binary, ordinal:LO..HI (integers, LO < HI), pairwise or "
      "pairwise:LO..HI (LO < 0 < HI), got '" +
      std::string(text) + "'";
  LabelScale scale;
  if (text == "binary") return scale;
  if (text == "pairwise") return LabelScale{LabelKind::kPairwise, -1, 1};
  auto colon = text.find(':');
  if (colon == std::string_view::npos) return invalid_argument(help);
  std::string_view kind = text.substr(0, colon);
  if (!parse_range(text.substr(colon + 1), &scale.low, &scale.high) || scale.low >= scale.high) {
    return invalid_argument(help);
  }
  if (kind == "ordinal") {
    scale.kind = LabelKind::kOrdinal;
  } else if (kind == "pairwise" && scale.low < 0 && scale.high > 0) {
    scale.kind = LabelKind::kPairwise;
  } else {
    return invalid_argument(help);
  }
  return scale;
}

LabelSet read_labels(RowReader& reader, const std::string& name,
                     const std::vector<std::string>& metrics, const LabelOptions& options) {
  LabelSet set;
  set.name = name;
  set.scale = options.scale;
  LabelRowReader rows(name, metrics, options, &set);
  Row row;
  RowError error;
  for (RowReader::Result r; (r = reader.next(&row, &error)) != RowReader::Result::kEnd;) {
    ++set.rows_read;
    if (r == RowReader::Result::kError) {
      set.errors.push_back(error);
      continue;
    }
    rows.read(row);
  }
  return set;
}

}  // namespace ragmeter
