// The evaluation sample: one question, its answer, what was retrieved and the reference.
//
// Field names follow ragas >= 0.2 (`user_input`, `response`, `retrieved_contexts`,
// `reference`, ...); legacy names (`question`, `answer`, `contexts`, `ground_truth`,
// `ground_truths`) are accepted on input. A field that the row does not have is empty
// (std::nullopt), which metrics report as `skipped` with the field's name.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/conversation.h"
#include "ragmeter/image_ref.h"
#include "ragmeter/status.h"

namespace ragmeter {

class Sample {
 public:
  std::optional<std::string> user_input;
  std::optional<std::string> response;
  // The text items of the row's retrieved contexts, in rank order. The image items
  // (image.h: data URIs, files, URLs) are in retrieved_images, each with its rank in the
  // row's list: text metrics read the text, the multimodal metrics both, in rank order.
  // A row whose contexts are all images has an empty list here.
  std::optional<std::vector<std::string>> retrieved_contexts;
  std::vector<RetrievedImage> retrieved_images;
  std::optional<std::vector<std::string>> reference_contexts;
  std::optional<std::vector<std::string>> retrieved_context_ids;
  std::optional<std::vector<std::string>> reference_context_ids;
  std::optional<std::map<std::string, std::string>> rubrics;
  // Set for a multi-turn row (conversation.h): its messages, tool calls and expected tool
  // calls. Such a sample has no user_input or response; its `reference` (ragas) is the
  // reference below. Shared, not copied, when the sample is copied.
  std::shared_ptr<const Conversation> conversation;

  // The sample's language, an ISO 639-1 code ("zh") or "und" (language.h): the row's
  // `language` column, else the run's --language (which overrides the column), else
  // detected from its text by assign_sample_language. Empty until one of them sets it.
  std::string language;
  // Set only when the sample's texts are in different languages: each text field's
  // detected language ("response" -> "zh", "retrieved_contexts" -> "en"), "und" left out.
  std::map<std::string, std::string> field_languages;

  // The reference answers, held once: `reference()` is always the first of
  // `references()`, so single-reference metrics (ROUGE, exact match, the judged ones)
  // and multi-reference ones (BLEU, chrF, SQuAD EM/F1, which take the best over all)
  // read the same data. A sample with a reference but no list of references cannot be
  // built. Absent (no reference) when the list is empty; an empty string is present but
  // empty, which metrics report as `skipped`.
  std::optional<std::string_view> reference() const {
    if (references_.empty()) return std::nullopt;
    return std::string_view(references_.front());
  }
  const std::vector<std::string>& references() const { return references_; }
  // One reference answer (a row's `reference` or `ground_truth`).
  void set_reference(std::string text) {
    references_.clear();
    references_.push_back(std::move(text));
  }
  // Several (a row's `ground_truths`); the first is reference(). Empty: no reference.
  void set_references(std::vector<std::string> texts) { references_ = std::move(texts); }
  void clear_reference() { references_.clear(); }

 private:
  std::vector<std::string> references_;
};

// Column renames applied before field lookup: user column name -> ragmeter field name.
using ColumnMap = std::map<std::string, std::string>;

// Parses "a=b" (user column a holds field b). InvalidArgument on a missing '='. A
// column with dots ("meta.question=user_input") is, when the row has no column of that
// exact name, the path through nested objects (Hugging Face exports).
Status parse_column_mapping(const std::string& spec, ColumnMap* map);

// Whether the row has a non-null value for mapped column `column` (dotted paths as in
// parse_column_mapping).
bool row_has_column(const nlohmann::ordered_json& fields, const std::string& column);

// The canonical field names, in the order the docs list them.
const std::vector<std::string>& sample_field_names();

// Builds a Sample from a row's fields. A row with a conversation (conversation_from_json:
// `messages`, `turns`, or a `user_input` list) becomes a multi-turn sample: its
// conversation, its `reference`, `rubrics` and `language`; its conversation's errors are
// returned as they are ("field 'messages': message 3: ..."). Lists may be JSON arrays or strings holding a
// JSON array or a Python list literal (CSV exported by pandas). Text fields and text
// list items must be JSON strings (a number or a boolean is an error, not text); ids may
// be strings or integers. On a field of the wrong type returns InvalidArgument whose
// message starts with "field 'name':". A row of `ragmeter run`'s output that got no
// answer (a non-null "run_error": {"kind", "message", ...}) is not a sample either: it is
// InvalidArgument "field 'run_error': KIND: MESSAGE", so that every metric of the row
// fails with the target's reason, as `run --eval` reports it, instead of being skipped
// for a missing response.
StatusOr<Sample> sample_from_json(const nlohmann::ordered_json& fields, const ColumnMap& column_map = {});

}  // namespace ragmeter
