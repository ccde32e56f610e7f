// The loop both of gen's generators run (generation_waves.h).
#include "gen/generation_waves.h"

namespace ragmeter {

Status check_generation_inputs(const std::vector<DocumentChunk>& chunks, const VectorIndex& index,
                               std::size_t size, std::size_t per_context, std::string_view what,
                               std::string_view per_context_what) {
  if (chunks.empty())
    return invalid_argument("no chunks to generate " + std::string(what) + " from");
  if (index.size() != chunks.size()) {
    return invalid_argument("the index holds " + std::to_string(index.size()) + " vectors for " +
                            std::to_string(chunks.size()) + " chunks");
  }
  if (size == 0) return invalid_argument("--size must be at least 1");
  if (per_context == 0) {
    return invalid_argument(std::string(per_context_what) + " per context must be at least 1");
  }
  return ok_status();
}

ShownPassages shown_passages(const std::vector<DocumentChunk>& chunks,
                             const std::vector<std::size_t>& context) {
  ShownPassages shown;
  std::string text;
  for (std::size_t c : context) {
    shown.texts.push_back(chunks[c].text);
    text += chunks[c].text + "\n";
  }
  shown.language = judge_language_of_text(text);
  return shown;
}

GenerationReply ask_for_generation(CallBook& book, llm::Client& chat, const JudgeLanguage& language,
                                   const GenerationAsk& ask) {
  LanguageReply answer =
      chat_in_language(book, chat, language, ask.what, ask.request, ask.texts, ask.kind, nullptr);
  GenerationReply out;
  const std::string list(ask.list_key);
  if (!answer.reply.ok()) {
    out.failure = "generation failed: " + answer.reply.status().message();
  } else if (answer.wrong) {
    // Items in another language than their passages would be a set in the wrong
    // language: the context is rejected with the reason.
    out.failure =
        "generation failed: " + wrong_script_message(language, "the " + list, *answer.wrong);
  } else if (const nlohmann::json& items = reply_member(*answer.reply, list.c_str());
             !items.is_array()) {
    out.failure = "generation failed: the reply has no " + list;
  } else {
    out.items = items;
  }
  return out;
}

StatusOr<std::vector<std::vector<float>>> embed_each(const EmbedTexts& embed,
                                                     const std::vector<std::string>& texts,
                                                     std::string_view what) {
  RAGMETER_ASSIGN_OR_RETURN(std::vector<std::vector<float>> vectors, embed(texts));
  if (vectors.size() != texts.size()) {
    return internal_error("the embedder returned " + std::to_string(vectors.size()) +
                          " vectors for " + std::to_string(texts.size()) + " " + std::string(what));
  }
  return vectors;
}

}  // namespace ragmeter
