// The special tokens of a Hugging Face tokenizer.json (its "added_tokens" marked special
// and not normalised): `tokenizers` finds them in the raw text before anything else and
// gives each its id whole; the text between them is tokenised on its own. Shared by the
// WordPiece and SentencePiece tokenizers (wordpiece_tokenizer.h, sentencepiece_tokenizer.h).
// Immutable after read(); safe to use from any number of threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/status.h"

namespace ragmeter::embed {

class SpecialTokens {
 public:
  // The added tokens of `doc` (a parsed tokenizer.json; `name` stands for the file in
  // messages). InvalidArgument naming the token when one is not special, is normalised,
  // or asks for single_word, lstrip or rstrip (not supported); nlohmann's exceptions for
  // an entry without an integer "id" propagate to the caller's handler.
  static StatusOr<SpecialTokens> read(const nlohmann::json& doc, const std::string& name);

  // Splits `text` at special tokens (leftmost, longest first): on_text(piece) for the
  // text between them, on_special(id) for each.
  template <typename OnText, typename OnSpecial>
  void split(std::string_view text, OnText on_text, OnSpecial on_special) const {
    std::size_t start = 0;
    for (std::size_t i = 0; i < text.size();) {
      const std::pair<std::string, std::int32_t>* found = nullptr;
      for (const auto& token : tokens_) {
        if (text.compare(i, token.first.size(), token.first) == 0) {
          found = &token;  // longest first
          break;
        }
      }
      if (found == nullptr) {
        ++i;
        continue;
      }
      if (i > start) on_text(text.substr(start, i - start));
      on_special(found->second);
      i += found->first.size();
      start = i;
    }
    if (start < text.size()) on_text(text.substr(start));
  }

  // The text of the special token `id`; null when `id` is not one.
  const std::string* content_of(std::int32_t id) const;

 private:
  std::vector<std::pair<std::string, std::int32_t>> tokens_;  // longest first
};

}  // namespace ragmeter::embed
