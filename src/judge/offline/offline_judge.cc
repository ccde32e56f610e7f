// The offline judge's ledger filling: claims once, each premise analysed once, every
// cell judged. Behaviour is documented in include/ragmeter/offline_judge.h.
#include "ragmeter/offline_judge.h"

#include <string>

#include "judge/offline/offline_language.h"
#include "ragmeter/language.h"

namespace ragmeter {
namespace {

std::vector<OfflineClaim> analyse_claims(const std::vector<Claim>& claims,
                                         std::string_view language) {
  std::vector<OfflineClaim> out;
  out.reserve(claims.size());
  for (const Claim& claim : claims) out.emplace_back(claim.text, language);
  return out;
}

void fill_table(const std::vector<OfflineClaim>& claims,
                const std::vector<OfflinePremise>& premises, VerdictTable* table) {
  for (std::size_t row = 0; row < claims.size(); ++row) {
    for (std::size_t col = 0; col < premises.size(); ++col) {
      table->at(row, col) = judge_claim(claims[row], premises[col]);
    }
  }
}

void fill_column(const std::vector<OfflineClaim>& claims, const OfflinePremise& premise,
                 std::vector<VerdictCell>* cells) {
  for (std::size_t row = 0; row < claims.size(); ++row) {
    (*cells)[row] = judge_claim(claims[row], premise);
  }
}

}  // namespace

std::vector<std::string> offline_judge_languages() { return offline_language_codes(); }

std::string offline_judge_gap(std::string_view language) {
  if (find_offline_language(language) != nullptr) return {};
  const std::string_view name = language_name(language);
  return "the offline judge does not cover " + std::string(name.empty() ? language : name);
}

std::string offline_sample_language(const Sample& sample) {
  if (!sample.language.empty()) return sample.language;
  return detect_sample_languages(sample).language;
}

Status fill_ledger_offline(const OfflineJudgeInput& input, ClaimLedger* ledger) {
  if (ledger == nullptr) return invalid_argument("fill_ledger_offline: ledger is null");
  if (!input.chunk_ids.empty() && input.chunk_ids.size() != input.chunks.size()) {
    return invalid_argument("fill_ledger_offline: " + std::to_string(input.chunk_ids.size()) +
                            " chunk ids for " + std::to_string(input.chunks.size()) + " chunks");
  }
  if (std::string gap = offline_judge_gap(input.language); !gap.empty()) {
    return failed_precondition(std::move(gap));
  }
  const std::string_view language = input.language;
  const std::vector<std::string> chunks(input.chunks.begin(), input.chunks.end());
  ClaimLedger out =
      make_claim_ledger(extract_claims(input.response, input.question, language),
                        extract_claims(input.reference, input.question, language), chunks);
  for (std::size_t k = 0; k < input.chunk_ids.size(); ++k)
    out.chunks[k].doc_id = input.chunk_ids[k];
  out.provenance = {"offline", "", std::string(kOfflineJudgeVersion)};

  const std::vector<OfflineClaim> response_claims = analyse_claims(out.response_claims, language);
  const std::vector<OfflineClaim> reference_claims = analyse_claims(out.reference_claims, language);
  std::vector<OfflinePremise> premises;
  premises.reserve(chunks.size());
  for (const std::string& chunk : chunks) premises.emplace_back(chunk, language);

  fill_table(response_claims, premises, &out.response_vs_chunks);
  fill_table(reference_claims, premises, &out.reference_vs_chunks);
  fill_column(response_claims,
              OfflinePremise(answer_premise(input.reference, input.question, language), language),
              &out.response_vs_reference);
  fill_column(reference_claims,
              OfflinePremise(answer_premise(input.response, input.question, language), language),
              &out.reference_vs_response);
  *ledger = std::move(out);
  return ok_status();
}

StatusOr<ClaimLedger> offline_claim_ledger(const Sample& sample) {
  static const std::vector<std::string> kNone;
  const auto& chunks = sample.retrieved_contexts ? *sample.retrieved_contexts : kNone;
  const auto& ids = sample.retrieved_context_ids ? *sample.retrieved_context_ids : kNone;
  OfflineJudgeInput input;
  input.question = sample.user_input ? std::string_view(*sample.user_input) : std::string_view();
  input.response = sample.response ? std::string_view(*sample.response) : std::string_view();
  input.reference = sample.reference().value_or(std::string_view());
  input.chunks = chunks;
  input.chunk_ids = ids;
  const std::string language = offline_sample_language(sample);
  input.language = language;
  ClaimLedger ledger;
  RAGMETER_RETURN_IF_ERROR(fill_ledger_offline(input, &ledger));
  return ledger;
}

}  // namespace ragmeter
