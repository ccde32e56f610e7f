// ragas 0.4's one-call multimodal metrics as a judge task (judge_tasks.h): one "vision"
// request showing the response (and the question), then every context in rank order, texts
// and images, and a verdict 0/1 with a reason in the sample's language.
#include "judge/llm/llm_requests.h"
#include "ragmeter/judge_tasks.h"
#include "ragmeter_prompts.inc"

namespace ragmeter {

using Json = nlohmann::json;

JudgeTask multimodal_verdict_task(const Sample& sample, const std::vector<SampleImage>& images,
                                  MultimodalQuestion question) {
  const bool relevance = question == MultimodalQuestion::kRelevance;
  std::string head;
  if (relevance) head += judge_section("QUESTION", sample.user_input.value_or(""));
  head += judge_section("RESPONSE", sample.response.value_or("")) + "CONTEXTS (in rank order):\n";
  std::vector<TaskPart> parts = {{.text = std::move(head)}};
  const std::vector<std::string> none;
  const auto& texts = sample.retrieved_contexts ? *sample.retrieved_contexts : none;
  std::size_t next_text = 0, next_image = 0;
  // An image goes at its rank; one ranked past the texts' end goes after them.
  for (std::size_t k = 1; next_text < texts.size() || next_image < images.size(); ++k) {
    const bool image_here =
        next_image < images.size() && (images[next_image].rank < k || next_text == texts.size());
    if (image_here) {
      parts.push_back({.text = "[" + std::to_string(k) + "] an image:"});
      parts.push_back({.image = &images[next_image++]});
    } else {
      parts.push_back({.text = "[" + std::to_string(k) + "] " + texts[next_text++] + "\n"});
    }
  }
  return {
      .kind = "vision",
      .prompt = std::string(relevance ? prompts::k_multimodal_relevance
                                      : prompts::k_multimodal_faithfulness),
      .schema = {{"type", "object"},
                 {"properties",
                  {{"reason", {{"type", "string"}}},
                   {"verdict", {{"type", "integer"}, {"enum", {0, 1}}}}}},
                 {"required", {"reason", "verdict"}}},
      .schema_name = "verdict",
      .written = "the reason",
      .written_texts = reply_reason,
      .subject = "one call over the response, the contexts and the images, as ragas 0.4",
      .parts = std::move(parts),
  };
}

StatusOr<MultimodalVerdict> ask_multimodal_verdict(Judge& judge, const Sample& sample,
                                                   const std::vector<SampleImage>& images,
                                                   MultimodalQuestion question, CallLog* calls) {
  RAGMETER_ASSIGN_OR_RETURN(
      TaskReply answer, judge.ask(multimodal_verdict_task(sample, images, question), sample, calls));
  const Json& reply = answer.reply;
  const auto verdict = reply.is_object() ? reply.find("verdict") : reply.end();
  if (verdict == reply.end() || !verdict->is_number_integer() ||
      (verdict->get<int>() != 0 && verdict->get<int>() != 1)) {
    return invalid_argument("the vision reply has no verdict 0 or 1");
  }
  MultimodalVerdict out;
  out.verdict = verdict->get<int>() == 1;
  if (reply.contains("reason") && reply["reason"].is_string()) out.reason = reply["reason"];
  if (!answer.wrong_script.empty()) out.warning = answer.wrong_script + "; the verdict is kept";
  return out;
}

}  // namespace ragmeter
