// The one way the LLM judge asks a task (judge.h's Judge::ask; the tasks are built in
// judge_tasks.h, answer_relevancy's questions among them): one request of the task's prompt
// over its sections (or its parts, images among them, with a vision model), in the
// sample's language.
#include <algorithm>

#include "judge/llm/llm_judge_impl.h"
#include "judge/llm/llm_requests.h"
#include "judge/llm/vision_requests.h"

namespace ragmeter {

using Json = nlohmann::json;

namespace {

std::vector<std::string> no_texts(const Json&) { return {}; }

// A task's images within the server's limits (--judge-max-images, --judge-max-image-bytes).
Status check_shown_images(const JudgeTask& task, const LlmJudgeOptions& options) {
  std::vector<const SampleImage*> images;
  for (const TaskPart& part : task.parts)
    if (part.image) images.push_back(part.image);
  if (images.size() > static_cast<std::size_t>(options.max_images_per_request)) {
    return invalid_argument(std::to_string(images.size()) +
                            " images in one call, and the judge "
                            "server takes at most " +
                            std::to_string(options.max_images_per_request) +
                            " per request (--judge-max-images)");
  }
  return check_image_sizes(images, options.max_image_bytes);
}

// The request of a task that shows images: its parts after the prompt, each image as a
// data URI at the judge's detail, then the LANGUAGE line `line`.
llm::ChatRequest image_request(const JudgeTask& task, const LlmJudgeOptions& options,
                               const std::string& line) {
  std::vector<llm::ContentPart> parts;
  for (const TaskPart& part : task.parts) {
    parts.push_back(part.image ? image_part(part.image->image, options.image_detail)
                               : text_part(part.text));
  }
  return vision_request(task.prompt, std::move(parts), task.schema, task.schema_name,
                        options.max_tokens, line);
}

}  // namespace

StatusOr<TaskReply> LlmJudge::ask(const JudgeTask& task, const Sample& sample, CallLog* calls) {
  const bool vision_task = task.needs_vision();
  if (vision_task) {
    if (!options_.vision) return Judge::ask(task, sample, calls);
    RAGMETER_RETURN_IF_ERROR(check_shown_images(task, options_));
  }
  // A reply that writes nothing of its own (copied sentences, names) is asked as it is.
  const JudgeLanguage language = task.written.empty() ? JudgeLanguage{} : judge_language_of(sample);
  // A ballot of several is sampled at 0.7 with a seed of its own. Repeat r's ballots take
  // the seeds after repeat r - 1's, so no two repeats share a ballot, and repeat 1's are an
  // unrepeated run's. One judgement is at temperature 0 (a repeat's: at its temperature
  // and seed).
  const int first_seed = std::max(0, book_.draw().repeat - 1) * task.votes + 1;
  LanguageReply answer = chat_in_language(
      book_, *options_.chat, language, task.written,
      [&](const std::string& line) {
        if (vision_task) return image_request(task, options_, line);
        llm::ChatRequest request = make_judge_request(task.sections, task.prompt, task.schema,
                                                      task.schema_name, options_.max_tokens, {},
                                                      line);
        if (task.votes > 1) {
          request.temperature = 0.7;
          request.seed = first_seed + task.vote;
        }
        return request;
      },
      task.written_texts ? task.written_texts : no_texts, task.kind, calls);
  RAGMETER_ASSIGN_OR_RETURN(Json reply, std::move(answer.reply));
  TaskReply out;
  out.reply = std::move(reply);
  out.model = options_.model;
  if (answer.wrong) out.wrong_script = wrong_script_message(language, task.written, *answer.wrong);
  return out;
}

}  // namespace ragmeter
