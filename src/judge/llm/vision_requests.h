// The LLM judge's requests that show images (docs/images.md): OpenAI image_url content
// parts with data URIs, within the server's limits. Used by the image verdicts of the
// multimodal ledger (llm_vision.cc) and by tasks that show images (llm_task.cc).
// Internal to src/judge/.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/judge.h"
#include "ragmeter/llm.h"

namespace ragmeter {

llm::ContentPart text_part(std::string text);

// The image as a data URI, at `detail` ("low", "high", "auto"), with its estimated tokens.
llm::ContentPart image_part(const Image& image, const std::string& detail);

// A judge request whose user message is `parts` after the task (and a blank line), then
// the LANGUAGE line `instruction` after a blank line (none when empty).
llm::ChatRequest vision_request(std::string_view task, std::vector<llm::ContentPart> parts,
                                nlohmann::json schema, std::string schema_name, int max_tokens,
                                std::string_view instruction);

// The server's limit on one image's bytes: InvalidArgument naming the first larger image
// ("image context 2 has ... bytes, more than the ... the judge server takes").
Status check_image_sizes(const std::vector<const SampleImage*>& images, std::size_t max_bytes);

}  // namespace ragmeter
