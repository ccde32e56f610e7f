// The claim ledger: every claim and every verdict the judged metrics of one sample need.
//
// The `compact` plan (docs/metrics.md) extracts the claims of the response A and of the
// reference R once, then asks a judge to fill four verdict tables:
//
//   table                   rows (hypotheses)   premise          RAGChecker's name
//   response_vs_chunks      A claims            each chunk       retrieved2response
//   reference_vs_chunks     R claims            each chunk       retrieved2answer
//   response_vs_reference   A claims            the text of R    answer2response
//   reference_vs_response   R claims            the text of A    response2answer
//
// (RAGChecker names a table premise2hypothesis with "answer" for the ground-truth answer:
// answer2response holds one verdict per *response* claim, checked against the reference.)
//
// Every judged metric (ledger_metrics.h) is a pure function of a ledger. A judge (an LLM
// judge or the offline judge) owns the filling; the metrics only read.
//
// Ownership and thread-safety: ClaimLedger and its parts are plain values that own all
// their strings. Concurrent reads of one ledger are safe; a ledger being written must
// not be read concurrently (thread-compatible, like std::vector). Free functions here
// are pure and thread-safe.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ragmeter/status.h"

namespace ragmeter {

// RAGChecker's three labels, plus "not judged". Only kEntailment supports a claim:
// Neutral and Contradiction both mean "not supported" for every metric; the
// difference shows in the evidence.
enum class Verdict {
  kMissing,        // not judged: the reply had fewer verdicts than claims, or the call failed
  kEntailment,     // the premise supports the claim
  kNeutral,        // the premise says nothing either way
  kContradiction,  // the premise contradicts the claim
};

// "Entailment", "Neutral", "Contradiction" (RAGChecker's spelling), "Missing".
const char* verdict_name(Verdict verdict);
// The inverse of verdict_name for the three judged labels; std::nullopt otherwise
// (including "Missing": a missing cell is written as JSON null).
std::optional<Verdict> parse_verdict(std::string_view name);

// One cell of a verdict table.
struct VerdictCell {
  Verdict verdict = Verdict::kMissing;
  std::optional<double> confidence;  // in [0, 1] when the judge gives one (P(yes), vote share)
  std::string reason;                // short, for negative verdicts; may be empty

  bool judged() const { return verdict != Verdict::kMissing; }
  bool supports() const { return verdict == Verdict::kEntailment; }
  bool operator==(const VerdictCell&) const = default;
};

// A claim: a short standalone statement extracted from A or R.
struct Claim {
  std::string text;
  std::string id;  // content_id(text); make_claim sets it

  bool operator==(const Claim&) const = default;
};

// A retrieved chunk, in rank order within the ledger.
struct Chunk {
  std::string text;
  std::string id;      // content_id(text); make_chunk sets it
  std::string doc_id;  // the dataset's own id for the chunk (retrieved_context_ids); may be empty
  // For an image among the contexts (multimodal ledgers, judge.h): the image's SHA-256
  // (image.h); `text` is then what the judge read in it (OCR text), possibly empty.
  // Empty for a text chunk.
  std::string image;

  bool operator==(const Chunk&) const = default;
};

// A rows x cols table of verdicts, row-major. Rows are claims, columns are chunks.
// Every cell starts kMissing.
class VerdictTable {
 public:
  VerdictTable() = default;
  VerdictTable(std::size_t rows, std::size_t cols)
      : rows_(rows), cols_(cols), cells_(rows * cols) {}

  std::size_t rows() const { return rows_; }
  std::size_t cols() const { return cols_; }
  // Precondition: row < rows(), col < cols() (checked by assert in debug builds).
  const VerdictCell& at(std::size_t row, std::size_t col) const;
  VerdictCell& at(std::size_t row, std::size_t col);
  // The cols() cells of `row`. Precondition: row < rows().
  std::span<const VerdictCell> row(std::size_t row) const;
  std::span<VerdictCell> row(std::size_t row);

  bool operator==(const VerdictTable&) const = default;

 private:
  std::size_t rows_ = 0;
  std::size_t cols_ = 0;
  std::vector<VerdictCell> cells_;
};

// Who filled the verdicts: part of the cache key, and shown with the evidence.
struct LedgerProvenance {
  std::string judge;           // e.g. "llm", "offline", "ragchecker"
  std::string model;           // the judge model; empty for the offline judge
  std::string prompt_version;  // changes whenever a prompt's wording or schema changes

  bool operator==(const LedgerProvenance&) const = default;
};

// The ledger of one sample. Invariants (validate_claim_ledger checks them):
//   response_vs_chunks    is response_claims.size() x chunks.size()
//   reference_vs_chunks   is reference_claims.size() x chunks.size()
//   response_vs_reference has response_claims.size() cells
//   reference_vs_response has reference_claims.size() cells
// Missing cells are allowed anywhere: the metrics decide what a gap means.
struct ClaimLedger {
  std::vector<Claim> response_claims;
  std::vector<Claim> reference_claims;
  std::vector<Chunk> chunks;
  VerdictTable response_vs_chunks;
  VerdictTable reference_vs_chunks;
  std::vector<VerdictCell> response_vs_reference;
  std::vector<VerdictCell> reference_vs_response;
  LedgerProvenance provenance;
  // What a reader of the scores must know that the verdicts do not say: e.g. that the LLM
  // judge wrote its reasons in another language than the sample's. Each once; usually none.
  std::vector<std::string> warnings;

  bool operator==(const ClaimLedger&) const = default;
};

// ---- Content ids ------------------------------------------------------------------
//
// A claim's or a chunk's id is the lowercase hex SHA-256 (64 characters) of its
// normalised text. Ids key the judge cache: a (claim id, chunk id, judge model, prompt
// version) verdict is reused whenever the same texts meet again, so a rerun where only
// the retriever changed pays only for the new pairs. The scheme is named by
// kContentIdScheme, written into every ledger's JSON; changing the normalisation or the
// hash must change that name.

inline constexpr std::string_view kContentIdScheme = "sha256-nfc-ws";

// The text an id is computed from: Unicode NFC, every run of Unicode white space
// replaced by one ASCII space, leading and trailing white space removed. Case and
// punctuation are kept: "US" and "us" are different claims. `text` should be valid
// UTF-8 (the dataset readers guarantee it); an ill-formed sequence becomes U+FFFD.
std::string normalize_content_text(std::string_view text);

// Lowercase hex SHA-256 of normalize_content_text(text). Never fails.
std::string content_id(std::string_view text);

// A claim or chunk with its id computed from the text.
Claim make_claim(std::string text);
Chunk make_chunk(std::string text, std::string doc_id = {});

// A ledger holding the given claims and chunks (ids computed) with every table sized
// to match and every cell kMissing: what a judge starts from.
ClaimLedger make_claim_ledger(const std::vector<std::string>& response_claims,
                              const std::vector<std::string>& reference_claims,
                              const std::vector<std::string>& chunks);

// OK when the invariants above hold and every confidence is in [0, 1]; otherwise
// InvalidArgument naming the first offending table or cell. Ids are not checked.
Status validate_claim_ledger(const ClaimLedger& ledger);

// ---- JSON -------------------------------------------------------------------------
//
// The ledger's JSON (the evidence field and the cache store it; stable, versioned):
//
//   {"version": 1, "id_scheme": "sha256-nfc-ws",
//    "provenance": {"judge": "llm", "model": "m", "prompt_version": "v1"},
//    "response_claims":  [{"id": "<64 hex>", "text": "..."}, ...],
//    "reference_claims": [...],
//    "chunks": [{"id": "<64 hex>", "doc_id": "d7", "text": "..."}, ...],   (no doc_id when empty;
//               an image chunk has "image": "<its SHA-256>" before "text")
//    "verdicts": {"response_vs_chunks":    [[cell, ...], ...],   one array per claim
//                 "reference_vs_chunks":   [[cell, ...], ...],
//                 "response_vs_reference": [cell, ...],
//                 "reference_vs_response": [cell, ...]},
//    "warnings": ["..."]}                    (only when there are some)
//
// A cell is written in the shortest form that keeps everything: null when missing,
// "Entailment" / "Neutral" / "Contradiction" when it has no confidence and no reason,
// else {"verdict": "Neutral" | null, "confidence": 0.8, "reason": "..."} (confidence and
// reason omitted when absent or empty). So RAGChecker's label arrays are valid tables.

// One cell in the form above. Never fails.
nlohmann::ordered_json verdict_cell_to_json(const VerdictCell& cell);

// Serialises `ledger` (which should satisfy validate_claim_ledger). Never fails.
nlohmann::ordered_json claim_ledger_to_json(const ClaimLedger& ledger);

// Parses the format above. "version" may be absent, else must be 1; "id_scheme" is
// informational. Stored ids are ignored and recomputed from the texts, so an id always
// matches this build's scheme. "provenance" and "verdicts" (and each table in it) may
// be absent: absent tables are all-missing. A claim or chunk may also be a bare string
// or a list of strings (joined with spaces, as RAGChecker's triplets); a doc_id may be
// an integer. Returns InvalidArgument naming the JSON path of the first problem (wrong
// type, unknown label, a table whose shape does not match the claims and chunks, a
// confidence outside [0, 1]).
StatusOr<ClaimLedger> claim_ledger_from_json(const nlohmann::ordered_json& json);

// One element of the "results" array of RAGChecker's checking output (as written by
// RAGResults.to_json): response_claims, gt_answer_claims, retrieved_context and the four
// checking arrays. A claim may be a string or a list of strings (a RefChecker triplet),
// joined with single spaces. A checking array that is null or absent leaves its table
// all-missing. Provenance judge is "ragchecker". InvalidArgument on a wrong type, an
// unknown label or a shape mismatch, naming the field.
StatusOr<ClaimLedger> claim_ledger_from_ragchecker(const nlohmann::ordered_json& result);

}  // namespace ragmeter
