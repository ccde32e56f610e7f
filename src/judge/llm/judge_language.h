// The language the LLM judge writes in, and the check that it did (docs/design.md, "The
// judge writes in the sample's language"). Internal to src/judge/ and src/gen/.
//
// A sample in English (or of no language that can be told) gets the prompts as they are,
// byte for byte. Any other language appends one LANGUAGE line (prompts/language.txt) to
// the user message of every request whose reply holds written text: claims, verdict
// reasons, answer_relevancy's questions, critic and rubric reasons, and `gen`'s questions,
// references and closed-book answers. Texts the model copies (evidence quotes, entities,
// relevant sentences) and fixed values (verdict labels, flags) need none.
//
// The reply's written text is then checked by script: when less than a quarter of its
// letters (weighed by UTF-8 bytes) are in the scripts of the language (language_scripts),
// the request is asked once more with prompts/language_insist.txt, which names the script
// the reply was in. What a reply still in another script means is the caller's to decide
// (LanguageReply::wrong).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "judge/llm/call_book.h"
#include "ragmeter/language.h"
#include "ragmeter/llm.h"
#include "ragmeter/sample.h"

namespace ragmeter {

struct JudgeLanguage {
  std::string code;              // ISO 639-1 ("zh"); empty: English, the prompts as they are
  std::vector<Script> scripts;   // language_scripts(code)
  bool english() const { return code.empty(); }
};

// The sample's language: Sample::language, or, when the reader left it empty, detected
// here from the sample's texts (detect_sample_languages).
std::string sample_language(const Sample& sample);

// The judge's language for an ISO 639-1 code: English for "en", "und", "" and codes that
// ICU gives no script for; any other code as it is.
JudgeLanguage judge_language(std::string_view code);
// The judge's language for a sample (sample_language) and for a text (detect_language).
JudgeLanguage judge_language_of(const Sample& sample);
JudgeLanguage judge_language_of_text(std::string_view text);

// "Chinese (中文)": the English name and, when it differs, the name in the language
// itself (ICU's display name); the code itself for a code with no English name.
std::string language_display_name(std::string_view code);

// The LANGUAGE line for a request whose reply writes `what` ("every claim", "the
// questions"): empty for English; with `wrong`, the stronger line of the second asking,
// naming that script. Ends with a newline.
std::string language_instruction(const JudgeLanguage& language, std::string_view what,
                                 std::optional<Script> wrong = std::nullopt);

// `user` with `instruction` after one blank line; `user` itself when it is empty.
std::string with_instruction(std::string user, std::string_view instruction);

// The script `texts` are mostly in, when fewer than a quarter of their letters are in the
// language's scripts; nullopt when they are (or have no letter), and always for English.
std::optional<Script> wrong_script(const JudgeLanguage& language,
                                   const std::vector<std::string>& texts);

// "the judge wrote the questions in Latin script, not in Chinese, also when asked again"
std::string wrong_script_message(const JudgeLanguage& language, std::string_view what, Script script);

// A reply asked for in a language.
struct LanguageReply {
  StatusOr<nlohmann::json> reply = nlohmann::json();
  std::string call;                // the cache key of the request `reply` answers
  bool asked_again = false;        // the first reply was in another script
  std::optional<Script> wrong;     // still mostly in this script after asking again
};

// Builds the request with a LANGUAGE line ("" for English).
using LanguageRequest = std::function<llm::ChatRequest(const std::string& instruction)>;
// The written text of a reply (what the language check reads).
using ReplyTexts = std::function<std::vector<std::string>(const nlohmann::json& reply)>;

// Asks `request(language_instruction(language, what))` through `book` as call `kind`
// (`calls` gets each request's key); when the reply's texts are in the wrong script,
// asks once more with the stronger line and keeps that reply. A failed call ends it.
// English: one request, unchecked.
LanguageReply chat_in_language(CallBook& book, llm::Client& client, const JudgeLanguage& language,
                               std::string_view what, const LanguageRequest& request,
                               const ReplyTexts& texts, const std::string& kind, CallLog* calls);

}  // namespace ragmeter
