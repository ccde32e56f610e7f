// The judge's language and its check (judge_language.h).
#include "judge/llm/judge_language.h"

#include <unicode/locid.h>
#include <unicode/unistr.h>

#include "ragmeter_prompts.inc"

namespace ragmeter {
namespace {

// Below this share of the language's scripts a reply is in another script: the Chinese
// claim "PharmaCann由Theodore Scott创立。" is 28% Han by bytes; "When was the bridge built?"
// beside "大桥" 22%.
constexpr double kLeastShareInScript = 0.25;

void replace_all(std::string* text, std::string_view from, std::string_view to) {
  for (std::size_t at = text->find(from); at != std::string::npos; at = text->find(from, at + to.size())) {
    text->replace(at, from.size(), to);
  }
}

std::string joined(const std::vector<std::string>& texts) {
  std::string out;
  for (const std::string& text : texts) out += text + "\n";
  return out;
}

}  // namespace

std::string sample_language(const Sample& sample) {
  if (!sample.language.empty()) return sample.language;
  return detect_sample_languages(sample).language;
}

JudgeLanguage judge_language(std::string_view code) {
  if (code.empty() || code == "en" || code == kUndeterminedLanguage) return {};
  JudgeLanguage language{std::string(code), language_scripts(code)};
  if (language.scripts.empty()) return {};
  return language;
}

JudgeLanguage judge_language_of(const Sample& sample) { return judge_language(sample_language(sample)); }

JudgeLanguage judge_language_of_text(std::string_view text) {
  return judge_language(detect_language(text));
}

std::string language_display_name(std::string_view code) {
  const std::string english(language_name(code));
  if (english.empty()) return std::string(code);
  const icu::Locale locale(std::string(code).c_str());
  icu::UnicodeString native;
  locale.getDisplayLanguage(locale, native);
  std::string own;
  native.toUTF8String(own);
  if (own.empty() || own == english || own == code) return english;
  return english + " (" + own + ")";
}

std::string language_instruction(const JudgeLanguage& language, std::string_view what,
                                 std::optional<Script> wrong) {
  if (language.english()) return "";
  std::string line(wrong ? prompts::k_language_insist : prompts::k_language);
  replace_all(&line, "{language}", language_display_name(language.code));
  replace_all(&line, "{what}", what);
  if (wrong) replace_all(&line, "{wrong}", script_name(*wrong));
  return line;
}

std::string with_instruction(std::string user, std::string_view instruction) {
  if (instruction.empty()) return user;
  while (!user.empty() && user.back() == '\n') user.pop_back();
  return user + "\n\n" + std::string(instruction);
}

std::optional<Script> wrong_script(const JudgeLanguage& language,
                                   const std::vector<std::string>& texts) {
  if (language.english()) return std::nullopt;
  const std::string text = joined(texts);
  if (script_share(text, language.scripts) >= kLeastShareInScript) return std::nullopt;
  return dominant_script(text);
}

std::string wrong_script_message(const JudgeLanguage& language, std::string_view what,
                                 Script script) {
  return "the judge wrote " + std::string(what) + " in " + std::string(script_name(script)) +
         " script, not in " + std::string(language_name(language.code)) +
         ", also when asked again in so many words";
}

LanguageReply chat_in_language(CallBook& book, llm::Client& client, const JudgeLanguage& language,
                               std::string_view what, const LanguageRequest& request,
                               const ReplyTexts& texts, const std::string& kind, CallLog* calls) {
  LanguageReply out;
  llm::ChatRequest first = request(language_instruction(language, what));
  out.call = book.key(first);  // drawn, under a repeat (call_book.h)
  out.reply = book.chat(client, std::move(first), kind, calls);
  if (!out.reply.ok() || language.english()) return out;
  const std::optional<Script> wrong = wrong_script(language, texts(*out.reply));
  if (!wrong) return out;
  out.asked_again = true;
  llm::ChatRequest again = request(language_instruction(language, what, wrong));
  out.call = book.key(again);
  out.reply = book.chat(client, std::move(again), kind, calls);
  if (out.reply.ok()) out.wrong = wrong_script(language, texts(*out.reply));
  book.record_language(kind, out.wrong.has_value());
  return out;
}

}  // namespace ragmeter
