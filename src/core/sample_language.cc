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
};

std::vector<NamedText> sample_texts(const Sample& sample, std::size_t limit) {
  std::vector<NamedText> texts;
  auto add = [&](const char* field, std::string_view text) {
    if (!text.empty()) texts.push_back({field, std::string(prefix(text, limit))});
  };
  if (sample.user_input) add("user_input", *sample.user_input);
  if (sample.response) add("response", *sample.response);
  if (auto reference = sample.reference()) add("reference", *reference);
  if (sample.retrieved_contexts) {
    add("retrieved_contexts", joined(*sample.retrieved_contexts, limit));
  }
  if (sample.reference_contexts) {
    add("reference_contexts", joined(*sample.reference_contexts, limit));
  }
  return texts;
}

}  // namespace

SampleLanguages detect_sample_languages(const Sample& sample) {
  SampleLanguages out;
  std::string combined;
  std::set<std::string> distinct;
  for (const NamedText& named : sample_texts(sample, kFieldShare * 4)) {
    if (!combined.empty()) combined += '\n';
    combined += prefix(named.text, kFieldShare);
    std::string language = detect_language(named.text);
    if (language == kUndeterminedLanguage) continue;
    distinct.insert(language);
    out.fields.emplace(named.field, std::move(language));
  }
  out.language = detect_language(combined);
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
