// RowError formatting and dataset format names.

#include <cctype>
#include <string>

#include "ragmeter/dataset.h"

namespace ragmeter {

std::string RowError::to_string() const {
  // Compiler style, "file:line:column: ", so that editors and terminals can jump there.
  std::string out = file;
  if (line > 0) {
    if (!out.empty()) out += ':';
    out += std::to_string(line);
    if (column > 0) out += ':' + std::to_string(column);
  }
  if (!out.empty()) out += ": ";
  if (!field.empty()) out += "field '" + field + "': ";
  out += message;
  return out;
}

StatusOr<DatasetFormat> parse_dataset_format(const std::string& name) {
  std::string lower = name;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "auto") return DatasetFormat::kAuto;
  // "ndjson" is the other common name of JSON Lines, as the .ndjson extension is.
  if (lower == "jsonl" || lower == "ndjson") return DatasetFormat::kJsonl;
  if (lower == "json") return DatasetFormat::kJson;
  if (lower == "csv") return DatasetFormat::kCsv;
  return invalid_argument("unknown dataset format '" + name +
                          "' (expected jsonl, json, csv or auto)");
}

}  // namespace ragmeter
