// The evaluation sample: one question, its answer, what was retrieved and the reference.
//
// Field names follow ragas >= 0.2 (`user_input`, `response`, `retrieved_contexts`,
// `reference`, ...); legacy names (`question`, `answer`, `contexts`, `ground_truth`,
// `ground_truths`) are accepted on input. A field that the row does not have is empty
// (std::nullopt), which metrics report as `skipped` with the field's name.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/status.h"

namespace ragmeter {

struct Sample {
  std::optional<std::string> user_input;
  std::optional<std::string> response;
  // The first reference. When the row has a list of references (`ground_truths`), the
  // first is `reference` and all of them are in `references`: multi-reference metrics
  // (BLEU, chrF, SQuAD EM/F1) use every one, the others use the first.
  std::optional<std::string> reference;
  std::vector<std::string> references;
  std::optional<std::vector<std::string>> retrieved_contexts;
  std::optional<std::vector<std::string>> reference_contexts;
  std::optional<std::vector<std::string>> retrieved_context_ids;
  std::optional<std::vector<std::string>> reference_context_ids;
  std::optional<std::map<std::string, std::string>> rubrics;
};

// Column renames applied before field lookup: user column name -> ragmeter field name.
using ColumnMap = std::map<std::string, std::string>;

// Parses "a=b" (user column a holds field b). InvalidArgument on a missing '='.
Status parse_column_mapping(const std::string& spec, ColumnMap* map);

// The canonical field names, in the order the docs list them.
const std::vector<std::string>& sample_field_names();

// Builds a Sample from a row's fields. Lists may be JSON arrays or strings holding a
// JSON array or a Python list literal (CSV exported by pandas); ids may be strings or
// integers. On a field of the wrong type returns InvalidArgument whose message starts
// with "field 'name':".
StatusOr<Sample> sample_from_json(const nlohmann::ordered_json& fields, const ColumnMap& column_map = {});

}  // namespace ragmeter
