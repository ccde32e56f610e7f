// The LLM judge's vision calls (llm_judge_impl.h, docs/images.md): images sent as OpenAI
// image_url content parts with data URIs, within the server's limits.
//   multimodal_verdict       one "vision" call: the response (and question), every context
//                            in rank order, texts and images, a verdict 0/1 and a reason
//                            (ragas 0.4's multimodal faithfulness / relevance)
//   multimodal_claim_ledger  the text ledger, plus one "image_verdicts" call per image: every
//                            response and reference claim against that image
// Both ask for their reasons in the sample's language (judge_language.h): a LANGUAGE line
// after the contexts (none for English, so English requests are unchanged); reasons still
// in another script when asked again keep their verdicts and warn.
#include <algorithm>
#include <cstddef>
#include <future>

#include "judge/llm/judge_language.h"
#include "judge/llm/llm_judge_impl.h"
#include "judge/llm/llm_requests.h"
#include "judge/llm/llm_window.h"
#include "judge/multimodal_ledger.h"
#include "ragmeter_prompts.inc"

namespace ragmeter {
namespace {

using Json = nlohmann::json;

llm::ContentPart text_part(std::string text) {
  llm::ContentPart part;
  part.text = std::move(text);
  return part;
}

llm::ContentPart image_part(const Image& image, const std::string& detail) {
  llm::ContentPart part;
  part.image_url = image.data_uri();
  part.detail = detail;
  part.estimated_tokens = llm::estimate_image_tokens(image.width, image.height, detail);
  return part;
}

// A judge request whose user message is `parts` after the task, then the LANGUAGE line
// `instruction` (after a blank line; none when empty).
llm::ChatRequest vision_request(std::string_view task, std::vector<llm::ContentPart> parts,
                                Json schema, std::string schema_name, int max_tokens,
                                std::string_view instruction) {
  llm::ChatRequest request =
      make_judge_request("", task, std::move(schema), std::move(schema_name), max_tokens);
  llm::ChatMessage& user = request.messages.back();
  parts.insert(parts.begin(), text_part(std::string(task) + "\n\n"));
  if (!instruction.empty()) parts.push_back(text_part("\n\n" + std::string(instruction)));
  user.parts = std::move(parts);
  user.content.clear();
  return request;
}

// The server's limit on one image's bytes: a larger image fails the call, named.
Status check_image_sizes(const std::vector<SampleImage>& images, std::size_t max_bytes) {
  for (const SampleImage& image : images) {
    if (image.image.bytes.size() > max_bytes) {
      return invalid_argument("image context " + std::to_string(image.rank + 1) + " has " +
                              std::to_string(image.image.bytes.size()) + " bytes, more than the " +
                              std::to_string(max_bytes) +
                              " the judge server takes (--judge-max-image-bytes)");
    }
  }
  return ok_status();
}

// The reason of a vision verdict reply (what the language check reads).
std::vector<std::string> reply_reason(const Json& reply) {
  if (reply.is_object() && reply.contains("reason") && reply["reason"].is_string()) {
    return {reply["reason"].get<std::string>()};
  }
  return {};
}

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

StatusOr<MultimodalVerdict> LlmJudge::multimodal_verdict(const Sample& sample,
                                                         const std::vector<SampleImage>& images,
                                                         MultimodalQuestion question,
                                                         CallLog* calls) {
  if (!options_.vision) return Judge::multimodal_verdict(sample, images, question, calls);
  if (images.size() > static_cast<std::size_t>(options_.max_images_per_request)) {
    return invalid_argument(std::to_string(images.size()) +
                            " images in one call, and the judge "
                            "server takes at most " +
                            std::to_string(options_.max_images_per_request) +
                            " per request (--judge-max-images)");
  }
  RAGMETER_RETURN_IF_ERROR(check_image_sizes(images, options_.max_image_bytes));
  const bool relevance = question == MultimodalQuestion::kRelevance;
  std::string head;
  if (relevance) head += judge_section("QUESTION", sample.user_input.value_or(""));
  head += judge_section("RESPONSE", sample.response.value_or("")) + "CONTEXTS (in rank order):\n";
  std::vector<llm::ContentPart> parts = {text_part(std::move(head))};
  const std::vector<std::string> none;
  const auto& texts = sample.retrieved_contexts ? *sample.retrieved_contexts : none;
  std::size_t next_text = 0, next_image = 0;
  for (std::size_t k = 1; next_text < texts.size() || next_image < images.size(); ++k) {
    const bool image_here =
        next_image < images.size() && (images[next_image].rank < k || next_text == texts.size());
    if (image_here) {
      parts.push_back(text_part("[" + std::to_string(k) + "] an image:"));
      parts.push_back(image_part(images[next_image++].image, options_.image_detail));
    } else {
      parts.push_back(text_part("[" + std::to_string(k) + "] " + texts[next_text++] + "\n"));
    }
  }
  Json schema = {
      {"type", "object"},
      {"properties",
       {{"reason", {{"type", "string"}}}, {"verdict", {{"type", "integer"}, {"enum", {0, 1}}}}}},
      {"required", {"reason", "verdict"}}};
  const JudgeLanguage language = judge_language_of(sample);
  LanguageReply answer = chat_in_language(
      book_, *options_.chat, language, "the reason",
      [&](const std::string& line) {
        return vision_request(
            relevance ? prompts::k_multimodal_relevance : prompts::k_multimodal_faithfulness, parts,
            schema, "verdict", options_.max_tokens, line);
      },
      reply_reason, "vision", calls);
  RAGMETER_ASSIGN_OR_RETURN(Json reply, std::move(answer.reply));
  const Json& verdict = reply["verdict"];
  if (!verdict.is_number_integer() || (verdict.get<int>() != 0 && verdict.get<int>() != 1)) {
    return invalid_argument("the vision reply has no verdict 0 or 1");
  }
  MultimodalVerdict out;
  out.verdict = verdict.get<int>() == 1;
  if (reply["reason"].is_string()) out.reason = reply["reason"];
  if (answer.wrong) {
    out.warning =
        wrong_script_message(language, "the reason", *answer.wrong) + "; the verdict is kept";
  }
  return out;
}

StatusOr<ClaimLedger> LlmJudge::multimodal_claim_ledger(const Sample& sample,
                                                        const std::vector<SampleImage>& images,
                                                        OcrReader& ocr, CallLog* calls) {
  if (!options_.vision || images.empty()) {
    return Judge::multimodal_claim_ledger(sample, images, ocr, calls);
  }
  RAGMETER_ASSIGN_OR_RETURN(ClaimLedger text, claim_ledger(sample, calls));
  RAGMETER_RETURN_IF_ERROR(check_image_sizes(images, options_.max_image_bytes));
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
  std::vector<std::future<LanguageReply>> replies;
  std::vector<CallLog> image_calls(images.size());
  for (std::size_t i = 0; i < images.size(); ++i) {
    replies.push_back(std::async(std::launch::async, [&, i] {
      return chat_in_language(
          book_, *options_.chat, language, kReasonsWhat,
          [&](const std::string& line) {
            return vision_request(prompts::k_image_verdicts,
                                  {text_part(judge_section("CLAIMS", listed) + "IMAGE:"),
                                   image_part(images[i].image, options_.image_detail)},
                                  schema, "verdicts", options_.max_tokens, line);
          },
          claim_reasons, "image_verdicts", &image_calls[i]);
    }));
  }
  std::vector<std::string> warnings = text.warnings;
  for (std::size_t i = 0; i < images.size(); ++i) {
    LanguageReply answer = replies[i].get();
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
