// Requests that show images (vision_requests.h).
#include "judge/llm/vision_requests.h"

#include "judge/llm/llm_requests.h"

namespace ragmeter {

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

Status check_image_sizes(const std::vector<const SampleImage*>& images, std::size_t max_bytes) {
  for (const SampleImage* image : images) {
    if (image->image.bytes.size() > max_bytes) {
      return invalid_argument("image context " + std::to_string(image->rank + 1) + " has " +
                              std::to_string(image->image.bytes.size()) + " bytes, more than the " +
                              std::to_string(max_bytes) +
                              " the judge server takes (--judge-max-image-bytes)");
    }
  }
  return ok_status();
}

}  // namespace ragmeter
