#include "judge/llm/row_sharing.h"

#include <algorithm>
#include <string>
#include <vector>

#include "ragmeter/offline_judge.h"

namespace ragmeter {
namespace {

// Every text of `sample` a claims key or a verdict premise can hold.
std::vector<std::string> shareable_texts(const Sample& sample) {
  std::vector<std::string> texts;
  const std::string question = sample.user_input.value_or("");
  if (!question.empty()) texts.push_back(question);
  for (const std::optional<std::string_view> answer :
       {std::optional<std::string_view>(sample.response), sample.reference()}) {
    if (!answer || answer->empty()) continue;
    texts.emplace_back(*answer);
    std::string premise = answer_premise(*answer, question);
    if (premise != *answer) texts.push_back(std::move(premise));
  }
  if (sample.retrieved_contexts) {
    texts.insert(texts.end(), sample.retrieved_contexts->begin(), sample.retrieved_contexts->end());
  }
  return texts;
}

}  // namespace

bool compact_rows_may_share(const Sample& row, const Sample& earlier) {
  if (row.conversation || earlier.conversation || !row.retrieved_images.empty() ||
      !earlier.retrieved_images.empty()) {
    return true;
  }
  const std::vector<std::string> mine = shareable_texts(row);
  const std::vector<std::string> theirs = shareable_texts(earlier);
  return std::any_of(mine.begin(), mine.end(), [&](const std::string& text) {
    return std::find(theirs.begin(), theirs.end(), text) != theirs.end();
  });
}

}  // namespace ragmeter
