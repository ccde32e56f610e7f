// The claim ledger: content ids, shape checks and the JSON form (see claim_ledger.h).
#include "ragmeter/claim_ledger.h"

#include <openssl/evp.h>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include <cassert>
#include <cstdint>
#include <iterator>
#include <utility>

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

constexpr int kLedgerVersion = 1;

std::string to_hex(const unsigned char* bytes, unsigned int size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * size);
  for (unsigned int i = 0; i < size; ++i) {
    hex.push_back(kDigits[bytes[i] >> 4]);
    hex.push_back(kDigits[bytes[i] & 0xF]);
  }
  return hex;
}

icu::UnicodeString to_nfc(const icu::UnicodeString& text) {
  UErrorCode status = U_ZERO_ERROR;
  const icu::Normalizer2* nfc = icu::Normalizer2::getNFCInstance(status);
  if (U_FAILURE(status)) return text;
  icu::UnicodeString normalized = nfc->normalize(text, status);
  return U_SUCCESS(status) ? normalized : text;
}

// ---- Writing ----------------------------------------------------------------------

Json verdict_label_json(Verdict verdict) {
  return verdict == Verdict::kMissing ? Json(nullptr) : Json(verdict_name(verdict));
}

Json cells_to_json(std::span<const VerdictCell> cells) {
  Json array = Json::array();
  for (const VerdictCell& cell : cells) array.push_back(verdict_cell_to_json(cell));
  return array;
}

Json table_to_json(const VerdictTable& table) {
  Json rows = Json::array();
  for (std::size_t r = 0; r < table.rows(); ++r) rows.push_back(cells_to_json(table.row(r)));
  return rows;
}

Json claims_to_json(const std::vector<Claim>& claims) {
  Json array = Json::array();
  for (const Claim& claim : claims) array.push_back({{"id", claim.id}, {"text", claim.text}});
  return array;
}

Json chunks_to_json(const std::vector<Chunk>& chunks) {
  Json array = Json::array();
  for (const Chunk& chunk : chunks) {
    Json entry = {{"id", chunk.id}};
    if (!chunk.doc_id.empty()) entry["doc_id"] = chunk.doc_id;
    if (!chunk.image.empty()) entry["image"] = chunk.image;
    entry["text"] = chunk.text;
    array.push_back(std::move(entry));
  }
  return array;
}

// ---- Reading ----------------------------------------------------------------------
//
// Each reader takes the value (nullptr when the key is absent) and its JSON path for
// the error message.

Status type_error(const std::string& path, const char* expected) {
  return invalid_argument(path + ": expected " + expected);
}

const Json* member(const Json& object, const char* key) {
  auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

bool absent(const Json* value) { return value == nullptr || value->is_null(); }

std::string element_path(const std::string& path, std::size_t index) {
  return path + "[" + std::to_string(index) + "]";
}

Status read_label(const Json& value, const std::string& path, Verdict* verdict) {
  if (value.is_null()) {
    *verdict = Verdict::kMissing;
    return ok_status();
  }
  if (!value.is_string()) return type_error(path, "a verdict label or null");
  std::optional<Verdict> parsed = parse_verdict(value.get_ref<const std::string&>());
  if (!parsed)
    return invalid_argument(path + ": unknown verdict '" + value.get<std::string>() + "'");
  *verdict = *parsed;
  return ok_status();
}

Status read_confidence(const Json* value, const std::string& path, VerdictCell* cell) {
  if (absent(value)) return ok_status();
  if (!value->is_number()) return type_error(path, "a number");
  double confidence = value->get<double>();
  if (!(confidence >= 0.0 && confidence <= 1.0)) return invalid_argument(path + ": outside [0, 1]");
  cell->confidence = confidence;
  return ok_status();
}

Status read_cell(const Json& value, const std::string& path, VerdictCell* cell) {
  *cell = VerdictCell();
  if (!value.is_object()) return read_label(value, path, &cell->verdict);
  const Json* verdict = member(value, "verdict");
  RAGMETER_RETURN_IF_ERROR(
      read_label(verdict ? *verdict : Json(), path + ".verdict", &cell->verdict));
  RAGMETER_RETURN_IF_ERROR(
      read_confidence(member(value, "confidence"), path + ".confidence", cell));
  const Json* reason = member(value, "reason");
  if (absent(reason)) return ok_status();
  if (!reason->is_string()) return type_error(path + ".reason", "a string");
  cell->reason = reason->get<std::string>();
  return ok_status();
}

// A list of `expected` cells; absent means all missing.
Status read_cells(const Json* value, const std::string& path, std::size_t expected,
                  std::span<VerdictCell> cells) {
  if (absent(value)) return ok_status();
  if (!value->is_array()) return type_error(path, "an array of verdicts");
  if (value->size() != expected) {
    return invalid_argument(path + ": " + std::to_string(value->size()) + " verdicts for " +
                            std::to_string(expected) + " premises or claims");
  }
  for (std::size_t i = 0; i < expected; ++i) {
    RAGMETER_RETURN_IF_ERROR(read_cell((*value)[i], element_path(path, i), &cells[i]));
  }
  return ok_status();
}

Status read_table(const Json* value, const std::string& path, VerdictTable* table) {
  if (absent(value)) return ok_status();
  if (!value->is_array()) return type_error(path, "an array with one array per claim");
  if (value->size() != table->rows()) {
    return invalid_argument(path + ": " + std::to_string(value->size()) + " rows for " +
                            std::to_string(table->rows()) + " claims");
  }
  for (std::size_t r = 0; r < table->rows(); ++r) {
    RAGMETER_RETURN_IF_ERROR(
        read_cells(&(*value)[r], element_path(path, r), table->cols(), table->row(r)));
  }
  return ok_status();
}

// A string, or a list of strings joined with spaces (a RefChecker triplet).
Status read_text(const Json& value, const std::string& path, std::string* text) {
  if (value.is_string()) {
    *text = value.get<std::string>();
    return ok_status();
  }
  if (!value.is_array()) return type_error(path, "a string or a list of strings");
  text->clear();
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (!value[i].is_string()) return type_error(element_path(path, i), "a string");
    if (i > 0) text->push_back(' ');
    *text += value[i].get_ref<const std::string&>();
  }
  return ok_status();
}

// A claim or chunk: its text directly, or an object with "text". Ids are recomputed.
Status read_text_entry(const Json& value, const std::string& path, std::string* text) {
  if (!value.is_object()) return read_text(value, path, text);
  const Json* inner = member(value, "text");
  if (absent(inner)) return invalid_argument(path + ".text: missing");
  return read_text(*inner, path + ".text", text);
}

Status read_doc_id(const Json& value, const std::string& path, std::string* doc_id) {
  const Json* id = value.is_object() ? member(value, "doc_id") : nullptr;
  if (absent(id)) return ok_status();
  if (id->is_string()) {
    *doc_id = id->get<std::string>();
  } else if (id->is_number_integer()) {
    *doc_id = id->dump();
  } else {
    return type_error(path + ".doc_id", "a string or an integer");
  }
  return ok_status();
}

// An array whose elements `read` takes one by one (element, its path).
template <typename Read>
Status read_array(const Json* value, const std::string& path, const char* expected, Read read) {
  if (absent(value)) return ok_status();
  if (!value->is_array()) return type_error(path, expected);
  for (std::size_t i = 0; i < value->size(); ++i) {
    RAGMETER_RETURN_IF_ERROR(read((*value)[i], element_path(path, i)));
  }
  return ok_status();
}

Status read_claims(const Json* value, const std::string& path, std::vector<Claim>* claims) {
  return read_array(value, path, "an array of claims",
                    [claims](const Json& entry, const std::string& at) {
                      std::string text;
                      RAGMETER_RETURN_IF_ERROR(read_text_entry(entry, at, &text));
                      claims->push_back(make_claim(std::move(text)));
                      return ok_status();
                    });
}

Status read_chunks(const Json* value, const std::string& path, std::vector<Chunk>* chunks) {
  return read_array(value, path, "an array of chunks",
                    [chunks](const Json& entry, const std::string& at) {
                      std::string text;
                      std::string doc_id;
                      RAGMETER_RETURN_IF_ERROR(read_text_entry(entry, at, &text));
                      RAGMETER_RETURN_IF_ERROR(read_doc_id(entry, at, &doc_id));
                      chunks->push_back(make_chunk(std::move(text), std::move(doc_id)));
                      const Json* image = entry.is_object() ? member(entry, "image") : nullptr;
                      if (!absent(image)) {
                        if (!image->is_string()) return type_error(at + ".image", "a string");
                        chunks->back().image = image->get<std::string>();
                      }
                      return ok_status();
                    });
}

Status read_provenance(const Json* value, LedgerProvenance* provenance) {
  if (absent(value)) return ok_status();
  if (!value->is_object()) return type_error("provenance", "an object");
  std::pair<const char*, std::string*> fields[] = {{"judge", &provenance->judge},
                                                   {"model", &provenance->model},
                                                   {"prompt_version", &provenance->prompt_version}};
  for (auto& [key, target] : fields) {
    const Json* field = member(*value, key);
    if (absent(field)) continue;
    if (!field->is_string()) return type_error(std::string("provenance.") + key, "a string");
    *target = field->get<std::string>();
  }
  return ok_status();
}

// Where each part of a ledger sits in a JSON document; the paths name it in errors.
struct LedgerSource {
  const Json& root;
  const Json* verdicts;  // the object holding the four tables
  const char* verdicts_path;
  const char* response_claims;
  const char* reference_claims;
  const char* chunks;
  const char* response_vs_chunks;
  const char* reference_vs_chunks;
  const char* response_vs_reference;
  const char* reference_vs_response;
};

std::string path_in(const char* parent, const char* key) {
  return *parent == '\0' ? key : std::string(parent) + "." + key;
}

const Json* verdict_member(const LedgerSource& s, const char* key) {
  return s.verdicts == nullptr ? nullptr : member(*s.verdicts, key);
}

// The verdicts under `key` (a table, or one verdict per claim), sized beforehand.
Status read_verdicts(const LedgerSource& s, const char* key, VerdictTable* table) {
  return read_table(verdict_member(s, key), path_in(s.verdicts_path, key), table);
}

Status read_verdicts(const LedgerSource& s, const char* key, std::vector<VerdictCell>* cells) {
  return read_cells(verdict_member(s, key), path_in(s.verdicts_path, key), cells->size(), *cells);
}

StatusOr<ClaimLedger> read_ledger(const LedgerSource& s) {
  ClaimLedger ledger;
  RAGMETER_RETURN_IF_ERROR(
      read_claims(member(s.root, s.response_claims), s.response_claims, &ledger.response_claims));
  RAGMETER_RETURN_IF_ERROR(read_claims(member(s.root, s.reference_claims), s.reference_claims,
                                       &ledger.reference_claims));
  RAGMETER_RETURN_IF_ERROR(read_chunks(member(s.root, s.chunks), s.chunks, &ledger.chunks));
  const std::size_t a = ledger.response_claims.size();
  const std::size_t r = ledger.reference_claims.size();
  const std::size_t k = ledger.chunks.size();
  ledger.response_vs_chunks = VerdictTable(a, k);
  ledger.reference_vs_chunks = VerdictTable(r, k);
  ledger.response_vs_reference.resize(a);
  ledger.reference_vs_response.resize(r);
  RAGMETER_RETURN_IF_ERROR(read_verdicts(s, s.response_vs_chunks, &ledger.response_vs_chunks));
  RAGMETER_RETURN_IF_ERROR(read_verdicts(s, s.reference_vs_chunks, &ledger.reference_vs_chunks));
  RAGMETER_RETURN_IF_ERROR(
      read_verdicts(s, s.response_vs_reference, &ledger.response_vs_reference));
  RAGMETER_RETURN_IF_ERROR(
      read_verdicts(s, s.reference_vs_response, &ledger.reference_vs_response));
  return ledger;
}

Status check_version(const Json& root) {
  const Json* version = member(root, "version");
  if (absent(version)) return ok_status();
  if (!version->is_number_integer() || version->get<std::int64_t>() != kLedgerVersion) {
    return invalid_argument("version: " + version->dump() + " is not supported (expected " +
                            std::to_string(kLedgerVersion) + ")");
  }
  return ok_status();
}

// ---- Validation -------------------------------------------------------------------

Status check_confidences(std::span<const VerdictCell> cells, const std::string& path) {
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const std::optional<double>& c = cells[i].confidence;
    if (c && !(*c >= 0.0 && *c <= 1.0)) {
      return invalid_argument(element_path(path, i) + ": confidence outside [0, 1]");
    }
  }
  return ok_status();
}

Status check_table(const VerdictTable& table, std::size_t rows, std::size_t cols,
                   const char* name) {
  if (table.rows() != rows || table.cols() != cols) {
    return invalid_argument(std::string(name) + " is " + std::to_string(table.rows()) + "x" +
                            std::to_string(table.cols()) + ", expected " + std::to_string(rows) +
                            "x" + std::to_string(cols));
  }
  for (std::size_t r = 0; r < rows; ++r) {
    RAGMETER_RETURN_IF_ERROR(check_confidences(table.row(r), element_path(name, r)));
  }
  return ok_status();
}

Status check_cell_list(const std::vector<VerdictCell>& cells, std::size_t size, const char* name) {
  if (cells.size() != size) {
    return invalid_argument(std::string(name) + " has " + std::to_string(cells.size()) +
                            " verdicts, expected " + std::to_string(size));
  }
  return check_confidences(cells, name);
}

}  // namespace

const char* verdict_name(Verdict verdict) {
  // In the order of the enum.
  static constexpr const char* kNames[] = {"Missing", "Entailment", "Neutral", "Contradiction"};
  const auto index = static_cast<std::size_t>(verdict);
  return index < std::size(kNames) ? kNames[index] : "Missing";
}

std::optional<Verdict> parse_verdict(std::string_view name) {
  for (Verdict v : {Verdict::kEntailment, Verdict::kNeutral, Verdict::kContradiction}) {
    if (name == verdict_name(v)) return v;
  }
  return std::nullopt;
}

const VerdictCell& VerdictTable::at(std::size_t row, std::size_t col) const {
  assert(row < rows_ && col < cols_);
  return cells_[row * cols_ + col];
}

VerdictCell& VerdictTable::at(std::size_t row, std::size_t col) {
  assert(row < rows_ && col < cols_);
  return cells_[row * cols_ + col];
}

std::span<const VerdictCell> VerdictTable::row(std::size_t row) const {
  assert(row < rows_);
  return std::span<const VerdictCell>(cells_).subspan(row * cols_, cols_);
}

std::span<VerdictCell> VerdictTable::row(std::size_t row) {
  assert(row < rows_);
  return std::span<VerdictCell>(cells_).subspan(row * cols_, cols_);
}

std::string normalize_content_text(std::string_view text) {
  const icu::UnicodeString nfc = to_nfc(icu::UnicodeString::fromUTF8(
      icu::StringPiece(text.data(), static_cast<int32_t>(text.size()))));
  icu::UnicodeString collapsed;
  bool pending_space = false;
  for (int32_t i = 0; i < nfc.length();) {
    const UChar32 c = nfc.char32At(i);
    i += U16_LENGTH(c);
    if (u_isUWhiteSpace(c)) {
      pending_space = !collapsed.isEmpty();  // drops leading white space
      continue;
    }
    if (pending_space) collapsed.append(static_cast<UChar>(' '));
    pending_space = false;  // trailing white space is never appended
    collapsed.append(c);
  }
  std::string out;
  collapsed.toUTF8String(out);
  return out;
}

std::string content_id(std::string_view text) {
  const std::string normalized = normalize_content_text(text);
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  const int ok =
      EVP_Digest(normalized.data(), normalized.size(), digest, &size, EVP_sha256(), nullptr);
  assert(ok == 1);  // SHA-256 is built into every OpenSSL; it cannot fail on a buffer
  (void)ok;
  return to_hex(digest, size);
}

Claim make_claim(std::string text) {
  std::string id = content_id(text);
  return Claim{std::move(text), std::move(id)};
}

Chunk make_chunk(std::string text, std::string doc_id) {
  std::string id = content_id(text);
  return Chunk{std::move(text), std::move(id), std::move(doc_id)};
}

ClaimLedger make_claim_ledger(const std::vector<std::string>& response_claims,
                              const std::vector<std::string>& reference_claims,
                              const std::vector<std::string>& chunks) {
  ClaimLedger ledger;
  for (const std::string& text : response_claims)
    ledger.response_claims.push_back(make_claim(text));
  for (const std::string& text : reference_claims)
    ledger.reference_claims.push_back(make_claim(text));
  for (const std::string& text : chunks) ledger.chunks.push_back(make_chunk(text));
  ledger.response_vs_chunks = VerdictTable(response_claims.size(), chunks.size());
  ledger.reference_vs_chunks = VerdictTable(reference_claims.size(), chunks.size());
  ledger.response_vs_reference.resize(response_claims.size());
  ledger.reference_vs_response.resize(reference_claims.size());
  return ledger;
}

Status validate_claim_ledger(const ClaimLedger& ledger) {
  const std::size_t a = ledger.response_claims.size();
  const std::size_t r = ledger.reference_claims.size();
  const std::size_t k = ledger.chunks.size();
  RAGMETER_RETURN_IF_ERROR(check_table(ledger.response_vs_chunks, a, k, "response_vs_chunks"));
  RAGMETER_RETURN_IF_ERROR(check_table(ledger.reference_vs_chunks, r, k, "reference_vs_chunks"));
  RAGMETER_RETURN_IF_ERROR(
      check_cell_list(ledger.response_vs_reference, a, "response_vs_reference"));
  return check_cell_list(ledger.reference_vs_response, r, "reference_vs_response");
}

Json verdict_cell_to_json(const VerdictCell& cell) {
  if (!cell.confidence && cell.reason.empty()) return verdict_label_json(cell.verdict);
  Json json = {{"verdict", verdict_label_json(cell.verdict)}};
  if (cell.confidence) json["confidence"] = *cell.confidence;
  if (!cell.reason.empty()) json["reason"] = cell.reason;
  return json;
}

Json claim_ledger_to_json(const ClaimLedger& ledger) {
  const LedgerProvenance& p = ledger.provenance;
  Json out = {
      {"version", kLedgerVersion},
      {"id_scheme", std::string(kContentIdScheme)},
      {"provenance",
       {{"judge", p.judge}, {"model", p.model}, {"prompt_version", p.prompt_version}}},
      {"response_claims", claims_to_json(ledger.response_claims)},
      {"reference_claims", claims_to_json(ledger.reference_claims)},
      {"chunks", chunks_to_json(ledger.chunks)},
      {"verdicts",
       {{"response_vs_chunks", table_to_json(ledger.response_vs_chunks)},
        {"reference_vs_chunks", table_to_json(ledger.reference_vs_chunks)},
        {"response_vs_reference", cells_to_json(ledger.response_vs_reference)},
        {"reference_vs_response", cells_to_json(ledger.reference_vs_response)}}},
  };
  if (!ledger.warnings.empty()) out["warnings"] = ledger.warnings;
  return out;
}

StatusOr<ClaimLedger> claim_ledger_from_json(const Json& json) {
  if (!json.is_object()) return type_error("ledger", "an object");
  RAGMETER_RETURN_IF_ERROR(check_version(json));
  const Json* verdicts = member(json, "verdicts");
  if (!absent(verdicts) && !verdicts->is_object()) return type_error("verdicts", "an object");
  LedgerSource source{json,
                      absent(verdicts) ? nullptr : verdicts,
                      "verdicts",
                      "response_claims",
                      "reference_claims",
                      "chunks",
                      "response_vs_chunks",
                      "reference_vs_chunks",
                      "response_vs_reference",
                      "reference_vs_response"};
  RAGMETER_ASSIGN_OR_RETURN(ClaimLedger ledger, read_ledger(source));
  RAGMETER_RETURN_IF_ERROR(read_provenance(member(json, "provenance"), &ledger.provenance));
  if (const Json* warnings = member(json, "warnings"); !absent(warnings)) {
    if (!warnings->is_array()) return type_error("warnings", "a list of strings");
    for (const Json& warning : *warnings) {
      if (!warning.is_string()) return type_error("warnings", "a list of strings");
      ledger.warnings.push_back(warning.get<std::string>());
    }
  }
  return ledger;
}

StatusOr<ClaimLedger> claim_ledger_from_ragchecker(const Json& result) {
  if (!result.is_object()) return type_error("result", "an object");
  // RAGChecker keeps the checking arrays next to the claims, at the top level.
  LedgerSource source{result,
                      &result,
                      "",
                      "response_claims",
                      "gt_answer_claims",
                      "retrieved_context",
                      "retrieved2response",
                      "retrieved2answer",
                      "answer2response",
                      "response2answer"};
  RAGMETER_ASSIGN_OR_RETURN(ClaimLedger ledger, read_ledger(source));
  ledger.provenance.judge = "ragchecker";
  return ledger;
}

}  // namespace ragmeter
