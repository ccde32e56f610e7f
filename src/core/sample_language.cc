// A sample's language: the whole sample's text for its language, each field's for the
// mixed-language note (language.h).
#include <set>
#include <string>

#include "ragmeter/language.h"
#include "ragmeter/sample.h"

namespace ragmeter {
namespace {

// How much of each field goes into the sample's combined text: enough for a detector,
// and a long context cannot crowd out a short answer.
constexpr std::size_t kFieldShare = 1024;

// Below this many bytes a field in a script that several languages share is not given a
// language of its own: CLD2 is built for text of 200 characters or more, and on a short
// answer of names it is sure of the wrong language ("Steyr Mannlicher": German, "Province
// of Buenos Aires": Kinyarwanda, in HaluEval's English rows).
constexpr std::size_t kFieldDetectionBytes = 200;

bool shared_script(Script script) {
  return script == Script::kLatin || script == Script::kCyrillic || script == Script::kArabic ||
         script == Script::kHebrew || script == Script::kDevanagari;
}

// The field's own language for the mixed-language note, or "und" when it is too short for
// its script's detector to be trusted.
std::string field_language(std::string_view text) {
  if (text.size() < kFieldDetectionBytes && shared_script(dominant_script(text))) {
    return std::string(kUndeterminedLanguage);
  }
  return detect_language(text);
}

// The first `limit` bytes of `text`, not cutting a UTF-8 character.
std::string_view prefix(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return text;
  std::size_t length = limit;
  while (length > 0 && (static_cast<unsigned char>(text[length]) & 0xC0) == 0x80) --length;
  return text.substr(0, length);
}

// The texts of a list field joined by newlines, up to `limit` bytes.
std::string joined(const std::vector<std::string>& texts, std::size_t limit) {
  std::string out;
  for (const std::string& text : texts) {
    if (out.size() >= limit) break;
    if (!out.empty()) out += '\n';
    out += prefix(text, limit - out.size());
  }
  return out;
}

struct NamedText {
  const char* field;
  std::string text;
  bool context;  // retrieved or reference contexts: what the sample is about, not in
};

std::vector<NamedText> sample_texts(const Sample& sample, std::size_t limit) {
  std::vector<NamedText> texts;
  auto add = [&](const char* field, std::string_view text, bool context) {
    if (!text.empty()) texts.push_back({field, std::string(prefix(text, limit)), context});
  };
  if (sample.user_input) add("user_input", *sample.user_input, false);
  if (sample.response) add("response", *sample.response, false);
  if (auto reference = sample.reference()) add("reference", *reference, false);
  if (sample.retrieved_contexts) {
    add("retrieved_contexts", joined(*sample.retrieved_contexts, limit), true);
  }
  if (sample.reference_contexts) {
    add("reference_contexts", joined(*sample.reference_contexts, limit), true);
  }
  if (sample.conversation) {  // what the user and the assistant said; tool output aside
    std::vector<std::string> said;
    for (const Message& message : sample.conversation->messages) {
      if (message.role == Role::kUser || message.role == Role::kAssistant) said.push_back(message.content);
    }
    add("conversation", joined(said, limit), false);
  }
  return texts;
}

}  // namespace

SampleLanguages detect_sample_languages(const Sample& sample) {
  SampleLanguages out;
  const std::vector<NamedText> texts = sample_texts(sample, kFieldShare * 4);
  std::string asked;  // question, response and reference: the language the sample is in
  std::string all;    // and the contexts, for a sample whose own texts do not tell
  for (const NamedText& named : texts) {
    const std::string_view share = prefix(named.text, kFieldShare);
    if (!named.context) {
      if (!asked.empty()) asked += '\n';
      asked += share;
    }
    if (!all.empty()) all += '\n';
    all += share;
  }
  out.language = detect_language(asked);
  if (out.language == kUndeterminedLanguage) out.language = detect_language(all);
  // A field in the sample's own script is taken to be in its language: telling English
  // from German in one sample would cost a CLD2 call per field, several times what the
  // token metrics cost, for a mix that is rare and that CLD2 misreads on short fields.
  const Script sample_script = dominant_script(asked.empty() ? all : asked);
  std::set<std::string> distinct;
  for (const NamedText& named : texts) {
    const Script script = dominant_script(named.text);
    std::string language = script == sample_script ? out.language : field_language(named.text);
    if (language == kUndeterminedLanguage) continue;
    distinct.insert(language);
    out.fields.emplace(named.field, std::move(language));
  }
  if (distinct.size() < 2) out.fields.clear();
  return out;
}

void assign_sample_language(Sample* sample, std::string_view forced) {
  if (!forced.empty()) {
    sample->language = std::string(forced);
    sample->field_languages.clear();
    return;
  }
  if (!sample->language.empty()) return;
  SampleLanguages detected = detect_sample_languages(*sample);
  sample->language = std::move(detected.language);
  sample->field_languages = std::move(detected.fields);
}

}  // namespace ragmeter
