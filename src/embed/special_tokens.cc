// Special tokens of a tokenizer.json (special_tokens.h).
#include "embed/special_tokens.h"

#include <algorithm>

namespace ragmeter::embed {

StatusOr<SpecialTokens> SpecialTokens::read(const nlohmann::json& doc, const std::string& name) {
  SpecialTokens out;
  for (const nlohmann::json& added : doc.value("added_tokens", nlohmann::json::array())) {
    const std::string content = added.value("content", std::string());
    if (content.empty()) continue;
    if (!added.value("special", false) || added.value("normalized", true) || added.value("single_word", false) ||
        added.value("lstrip", false) || added.value("rstrip", false)) {
      return invalid_argument(name + ": field added_tokens: \"" + content +
                              "\": only special, unnormalised tokens are supported");
    }
    out.tokens_.emplace_back(content, added.at("id").get<std::int32_t>());
  }
  std::stable_sort(out.tokens_.begin(), out.tokens_.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  return out;
}

const std::string* SpecialTokens::content_of(std::int32_t id) const {
  for (const auto& token : tokens_) {
    if (token.second == id) return &token.first;
  }
  return nullptr;
}

}  // namespace ragmeter::embed
