// The LLM judge's multimodal ledger with a vision model (llm_judge_impl.h, docs/images.md):
// the text ledger, plus one "image_verdicts" call per image (vision_requests.h): every
// response and reference claim against that image (the one-call multimodal metrics are a
// task: vision_verdict_task.cc). It asks for the reasons in the sample's language
// (judge_language.h): a LANGUAGE line after the image (none for English, so English
// requests are unchanged); reasons still in another script when asked again keep their
// verdicts and warn.
#include <algorithm>
#include <cstddef>

#include "core/concurrent_jobs.h"
#include "judge/llm/judge_language.h"
#include "judge/llm/llm_judge_impl.h"
#include "judge/llm/llm_requests.h"
#include "judge/llm/llm_window.h"
#include "judge/llm/vision_requests.h"
#include "judge/multimodal_ledger.h"
#include "ragmeter_prompts.inc"

namespace ragmeter {
namespace {

using Json = nlohmann::json;

// The reasons of an image_verdicts reply: one object per claim key.
std::vector<std::string> claim_reasons(const Json& reply) {
  std::vector<std::string> out;
  if (!reply.is_object()) return out;
  for (const auto& [key, entry] : reply.items()) {
    if (entry.is_object() && entry.contains("reason") && entry["reason"].is_string()) {
      out.push_back(entry["reason"].get<std::string>());
    }
  }
  return out;
}

std::string claim_key(std::size_t index, std::size_t count) {
  const std::size_t width = std::max<std::size_t>(2, std::to_string(count).size());
  std::string number = std::to_string(index + 1);
  return "claim " + std::string(width - number.size(), '0') + number;
}

}  // namespace

StatusOr<ClaimLedger> LlmJudge::multimodal_claim_ledger(const Sample& sample,
                                                        const std::vector<SampleImage>& images,
                                                        OcrReader& ocr, CallLog* calls) {
  if (!options_.vision || images.empty()) {
    return Judge::multimodal_claim_ledger(sample, images, ocr, calls);
  }
  RAGMETER_ASSIGN_OR_RETURN(ClaimLedger text, claim_ledger(sample, calls));
  std::vector<const SampleImage*> shown;
  for (const SampleImage& image : images) shown.push_back(&image);
  RAGMETER_RETURN_IF_ERROR(check_image_sizes(shown, options_.max_image_bytes));
  std::vector<std::string> claims;
  for (const Claim& claim : text.response_claims) claims.push_back(claim.text);
  for (const Claim& claim : text.reference_claims) claims.push_back(claim.text);
  std::vector<std::vector<VerdictCell>> response_cells(images.size()),
      reference_cells(images.size());
  if (claims.empty()) return ledger_with_images(text, images, response_cells, reference_cells);
  Json properties = Json::object();
  Json required = Json::array();
  std::string listed;
  for (std::size_t c = 0; c < claims.size(); ++c) {
    const std::string key = claim_key(c, claims.size());
    properties[key] = {
        {"type", "object"},
        {"properties",
         {{"reason", {{"type", "string"}}},
          {"verdict", {{"type", "string"}, {"enum", {"Entailment", "Neutral", "Contradiction"}}}}}},
        {"required", {"reason", "verdict"}}};
    required.push_back(key);
    listed += key + ": " + claims[c] + "\n";
  }
  const Json schema = {{"type", "object"}, {"properties", properties}, {"required", required}};
  const JudgeLanguage language = judge_language_of(sample);
  std::vector<CallLog> image_calls(images.size());
  std::vector<LanguageReply> replies = run_concurrently(images.size(), [&](std::size_t i) {
    return chat_in_language(
        book_, *options_.chat, language, kReasonsWhat,
        [&](const std::string& line) {
          return vision_request(prompts::k_image_verdicts,
                                {text_part(judge_section("CLAIMS", listed) + "IMAGE:"),
                                 image_part(images[i].image, options_.image_detail)},
                                schema, "verdicts", options_.max_tokens, line);
        },
        claim_reasons, "image_verdicts", &image_calls[i]);
  });
  std::vector<std::string> warnings = text.warnings;
  for (std::size_t i = 0; i < images.size(); ++i) {
    LanguageReply& answer = replies[i];
    if (calls) calls->insert(calls->end(), image_calls[i].begin(), image_calls[i].end());
    if (!answer.reply.ok()) {
      const Status& status = answer.reply.status();
      return Status(status.code(), "image context " + std::to_string(images[i].rank + 1) + ": " +
                                       status.message());
    }
    if (answer.wrong) add_warning(&warnings, reasons_warning(language, *answer.wrong));
    const Json& reply = *answer.reply;
    std::vector<VerdictCell> cells(claims.size());
    for (std::size_t c = 0; c < claims.size(); ++c) {
      const auto found = reply.is_object() ? reply.find(claim_key(c, claims.size())) : reply.end();
      const Json entry = found != reply.end() ? *found : Json();
      if (!entry.is_object() || !entry.contains("verdict") || !entry["verdict"].is_string()) {
        cells[c].reason = "not judged: the judge's reply had no verdict for this claim";
        continue;  // stays Missing
      }
      if (auto verdict = parse_verdict(entry["verdict"].get<std::string>()))
        cells[c].verdict = *verdict;
      if (entry.contains("reason") && entry["reason"].is_string())
        cells[c].reason = entry["reason"];
    }
    const std::size_t split = text.response_claims.size();
    response_cells[i].assign(cells.begin(), cells.begin() + static_cast<std::ptrdiff_t>(split));
    reference_cells[i].assign(cells.begin() + static_cast<std::ptrdiff_t>(split), cells.end());
  }
  ClaimLedger out = ledger_with_images(text, images, response_cells, reference_cells);
  out.warnings = std::move(warnings);
  return out;
}

}  // namespace ragmeter
