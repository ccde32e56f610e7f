// The offline judge's answers to judge tasks (offline_tasks.h).
#include "judge/offline/offline_tasks.h"

#include <algorithm>

#include "judge/offline/text_vectors.h"
#include "ragmeter/offline_judge.h"

namespace ragmeter {

nlohmann::json offline_relevant_sentences_reply(const Sample& sample,
                                                const std::vector<std::string>& sentences) {
  nlohmann::json relevant = nlohmann::json::array();
  const std::string language = offline_sample_language(sample);
  const OfflineClaim question(sample.user_input.value_or(""), language);
  std::vector<std::string> keys;
  for (std::size_t i : question.content()) keys.push_back(question.tokens()[i].key);
  const std::size_t needed = std::max<std::size_t>(1, (keys.size() + 1) / 2);
  for (const std::string& sentence : keys.empty() ? std::vector<std::string>{} : sentences) {
    const OfflinePremise premise(sentence, language);
    std::size_t found = 0;
    for (const std::string& key : keys) found += premise.sentences_with(key).empty() ? 0 : 1;
    if (found >= needed) relevant.push_back(sentence);
  }
  return nlohmann::json{{"sentences", std::move(relevant)}};
}

StatusOr<nlohmann::json> offline_relevant_sentences_reply(const Sample& sample) {
  std::vector<std::string> sentences;
  if (sample.retrieved_contexts) {
    for (const std::string& context : *sample.retrieved_contexts) {
      for (std::string_view sentence : split_sentences(context)) sentences.emplace_back(sentence);
    }
  }
  return offline_relevant_sentences_reply(sample, sentences);
}

StatusOr<nlohmann::json> offline_entities_reply(const Sample& sample) {
  const std::optional<std::string_view> reference = sample.reference();
  std::vector<std::string> contexts;
  if (sample.retrieved_contexts) {
    for (const std::string& context : *sample.retrieved_contexts) {
      for (std::string& entity : offline_entities(context)) {
        if (std::find(contexts.begin(), contexts.end(), entity) == contexts.end()) {
          contexts.push_back(std::move(entity));
        }
      }
    }
  }
  return nlohmann::json{{"entities", offline_entities(reference.value_or(""))},
                        {"context_entities", std::move(contexts)}};
}

}  // namespace ragmeter
