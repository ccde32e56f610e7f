// Language of a text: letters counted by Unicode script (ICU's uscript), then CLD2 for
// the scripts several languages share. Behaviour: include/ragmeter/language.h; why
// script first: docs/design.md, "Language: script first, then CLD2".
#include "ragmeter/language.h"

#include <algorithm>
#include <array>
#include <cstdio>  // CLD2's public header uses FILE without including it
#include <utility>

#include <cld2/public/compact_lang_det.h>
#include <unicode/uchar.h>
#include <unicode/uscript.h>
#include <unicode/utf8.h>

#include "ragmeter/sample.h"

namespace ragmeter {
namespace {

// The most bytes of one text that detection reads (language.h).
constexpr std::size_t kDetectionBytes = 4096;

// The weight of the letters of each script (letter_weight): mostly their UTF-8 bytes, as
// CLD2 measures its shares, so a Han character (3 bytes) weighs as much as three Latin
// letters, which is about what each says; an alphabet's letter weighs one. ASCII letters are Latin, other ASCII is no script's; the rest asks ICU.
// USCRIPT_COMMON (digits, punctuation, symbols) and USCRIPT_INHERITED (combining marks)
// count as no letter.
struct ScriptCounts {
  std::array<int, USCRIPT_CODE_LIMIT> letters{};
  int total = 0;

  void add(UScriptCode script, int bytes) {
    if (script == USCRIPT_COMMON || script == USCRIPT_INHERITED || script == USCRIPT_UNKNOWN ||
        script < 0 || script >= USCRIPT_CODE_LIMIT) {
      return;
    }
    letters[script] += bytes;
    total += bytes;
  }
  int operator[](UScriptCode script) const { return letters[script]; }
};

bool is_ascii_letter(unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }

// A letter of an alphabet (Greek, Cyrillic, Armenian, Georgian, Hebrew, Arabic) weighs one,
// as a Latin letter does, although UTF-8 spends two bytes on it: weighed by its bytes, an
// English question quoting a Greek title ("Who wrote Οδύσσεια?") was read as Greek and its
// sample skipped by the offline judge. Other scripts weigh their bytes (a Han character,
// three bytes, says about what three Latin letters say).
int letter_weight(UScriptCode script, int bytes) {
  switch (script) {
    case USCRIPT_GREEK:
    case USCRIPT_CYRILLIC:
    case USCRIPT_ARMENIAN:
    case USCRIPT_GEORGIAN:
    case USCRIPT_HEBREW:
    case USCRIPT_ARABIC:
      return 1;
    default:
      return bytes;
  }
}

// The script counts of `text` (at most kDetectionBytes of it, cut at a character).
ScriptCounts count_scripts(std::string_view text) {
  ScriptCounts counts;
  const auto length = static_cast<int32_t>(std::min(text.size(), kDetectionBytes));
  for (int32_t i = 0; i < length;) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x80) {
      if (is_ascii_letter(byte)) counts.add(USCRIPT_LATIN, 1);
      ++i;
      continue;
    }
    const int32_t start = i;
    UChar32 c;
    U8_NEXT(text.data(), i, length, c);
    if (c < 0) continue;  // invalid, or a character cut by the limit
    UErrorCode status = U_ZERO_ERROR;
    const UScriptCode script = uscript_getScript(c, &status);
    if (U_SUCCESS(status)) counts.add(script, letter_weight(script, i - start));
  }
  return counts;
}

Script script_of(UScriptCode code) {
  switch (code) {
    case USCRIPT_LATIN: return Script::kLatin;
    case USCRIPT_CYRILLIC: return Script::kCyrillic;
    case USCRIPT_GREEK: return Script::kGreek;
    case USCRIPT_ARABIC: return Script::kArabic;
    case USCRIPT_HEBREW: return Script::kHebrew;
    case USCRIPT_DEVANAGARI: return Script::kDevanagari;
    case USCRIPT_HAN: return Script::kHan;
    case USCRIPT_HIRAGANA: return Script::kHiragana;
    case USCRIPT_KATAKANA: return Script::kKatakana;
    case USCRIPT_HANGUL: return Script::kHangul;
    case USCRIPT_THAI: return Script::kThai;
    case USCRIPT_LAO: return Script::kLao;
    case USCRIPT_KHMER: return Script::kKhmer;
    case USCRIPT_MYANMAR: return Script::kMyanmar;
    default: return Script::kOther;
  }
}

// The ICU script with the most letters; USCRIPT_COMMON when there is none.
UScriptCode top_script(const ScriptCounts& counts) {
  UScriptCode best = USCRIPT_COMMON;
  int best_count = 0;
  for (int s = 0; s < USCRIPT_CODE_LIMIT; ++s) {
    if (counts.letters[s] > best_count) {
      best_count = counts.letters[s];
      best = static_cast<UScriptCode>(s);
    }
  }
  return best;
}

struct LanguageEntry {
  std::string_view code;
  std::string_view name;
};

// CLD2's 83 languages (its README) that have an ISO 639-1 code, and Burmese, which its
// script tells. Sorted by code.
constexpr LanguageEntry kLanguages[] = {
    {"af", "Afrikaans"},  {"ar", "Arabic"},      {"az", "Azerbaijani"},    {"be", "Belarusian"},
    {"bg", "Bulgarian"},  {"bn", "Bengali"},     {"ca", "Catalan"},        {"cs", "Czech"},
    {"cy", "Welsh"},      {"da", "Danish"},      {"de", "German"},         {"dv", "Dhivehi"},
    {"el", "Greek"},      {"en", "English"},     {"es", "Spanish"},        {"et", "Estonian"},
    {"eu", "Basque"},     {"fa", "Persian"},     {"fi", "Finnish"},        {"fr", "French"},
    {"ga", "Irish"},      {"gd", "Scottish Gaelic"}, {"gl", "Galician"},   {"gu", "Gujarati"},
    {"he", "Hebrew"},     {"hi", "Hindi"},       {"hr", "Croatian"},       {"ht", "Haitian Creole"},
    {"hu", "Hungarian"},  {"hy", "Armenian"},    {"id", "Indonesian"},     {"is", "Icelandic"},
    {"it", "Italian"},    {"iu", "Inuktitut"},   {"ja", "Japanese"},       {"jv", "Javanese"},
    {"ka", "Georgian"},   {"km", "Khmer"},       {"kn", "Kannada"},        {"ko", "Korean"},
    {"lg", "Ganda"},      {"lo", "Lao"},         {"lt", "Lithuanian"},     {"lv", "Latvian"},
    {"mk", "Macedonian"}, {"ml", "Malayalam"},   {"mr", "Marathi"},        {"ms", "Malay"},
    {"mt", "Maltese"},    {"my", "Burmese"},     {"ne", "Nepali"},         {"nl", "Dutch"},
    {"no", "Norwegian"},  {"or", "Oriya"},       {"pa", "Punjabi"},        {"pl", "Polish"},
    {"pt", "Portuguese"}, {"ro", "Romanian"},    {"ru", "Russian"},        {"rw", "Kinyarwanda"},
    {"si", "Sinhala"},    {"sk", "Slovak"},      {"sl", "Slovenian"},      {"sq", "Albanian"},
    {"sr", "Serbian"},    {"sv", "Swedish"},     {"sw", "Swahili"},        {"ta", "Tamil"},
    {"te", "Telugu"},     {"th", "Thai"},        {"tl", "Tagalog"},        {"tr", "Turkish"},
    {"uk", "Ukrainian"},  {"ur", "Urdu"},        {"vi", "Vietnamese"},     {"yi", "Yiddish"},
    {"zh", "Chinese"},
};

const LanguageEntry* find_language(std::string_view code) {
  const auto* end = std::end(kLanguages);
  const auto* it = std::lower_bound(std::begin(kLanguages), end, code,
                                    [](const LanguageEntry& e, std::string_view c) { return e.code < c; });
  return it != end && it->code == code ? it : nullptr;
}

// Scripts that one supported language alone is written in.
std::string_view single_language_of(UScriptCode script) {
  switch (script) {
    case USCRIPT_THAI: return "th";
    case USCRIPT_LAO: return "lo";
    case USCRIPT_KHMER: return "km";
    case USCRIPT_MYANMAR: return "my";
    case USCRIPT_GREEK: return "el";
    case USCRIPT_GEORGIAN: return "ka";
    case USCRIPT_ARMENIAN: return "hy";
    case USCRIPT_HANGUL: return "ko";
    case USCRIPT_BENGALI: return "bn";
    case USCRIPT_GUJARATI: return "gu";
    case USCRIPT_GURMUKHI: return "pa";
    case USCRIPT_ORIYA: return "or";
    case USCRIPT_TAMIL: return "ta";
    case USCRIPT_TELUGU: return "te";
    case USCRIPT_KANNADA: return "kn";
    case USCRIPT_MALAYALAM: return "ml";
    case USCRIPT_SINHALA: return "si";
    case USCRIPT_THAANA: return "dv";
    case USCRIPT_CANADIAN_ABORIGINAL: return "iu";
    default: return {};
  }
}

// CLD2's code as ISO 639-1: it keeps the withdrawn "iw" (Hebrew) and "jw" (Javanese),
// and tells traditional Chinese apart ("zh-Hant"), which is Chinese here.
std::string_view iso_code(std::string_view cld2_code) {
  if (cld2_code == "iw") return "he";
  if (cld2_code == "jw") return "jv";
  if (cld2_code == "zh-Hant") return "zh";
  return cld2_code;
}

// CLD2's answer for `text` when it calls it reliable and it is a supported code, else
// "und". CLD2 reads only interchange-valid UTF-8; the text is cut at a character.
std::string cld2_language(std::string_view text) {
  std::size_t length = std::min(text.size(), kDetectionBytes);
  while (length > 0 && length < text.size() &&
         (static_cast<unsigned char>(text[length]) & 0xC0) == 0x80) {
    --length;  // do not cut a character in two
  }
  CLD2::Language top3[3];
  int percent3[3];
  int text_bytes = 0;
  bool reliable = false;
  const CLD2::Language language = CLD2::ExtDetectLanguageSummary(
      text.data(), static_cast<int>(length), /*is_plain_text=*/true, top3, percent3, &text_bytes,
      &reliable);
  if (!reliable || language == CLD2::UNKNOWN_LANGUAGE) return std::string(kUndeterminedLanguage);
  const std::string_view code = iso_code(CLD2::LanguageCode(language));
  return is_supported_language(code) ? std::string(code) : std::string(kUndeterminedLanguage);
}

// Han, kana and Hangul letters together (all 3 bytes each): Japanese when kana are at
// least 1 in 20 of them (Japanese prose is about half kana; Chinese text quotes kana rarely), Korean when
// Hangul outnumbers kana; Han alone is Chinese unless CLD2 is sure it is Japanese (a
// headline all in kanji).
std::string cjk_language(const ScriptCounts& counts, std::string_view text) {
  const int kana = counts[USCRIPT_HIRAGANA] + counts[USCRIPT_KATAKANA];
  const int hangul = counts[USCRIPT_HANGUL];
  const int cjk = kana + hangul + counts[USCRIPT_HAN];
  if (hangul > kana) return "ko";
  if (kana > 0 && kana * 20 >= cjk) return "ja";
  const std::string detected = cld2_language(text);
  return detected == "ja" ? detected : "zh";
}

}  // namespace

Script dominant_script(std::string_view text) {
  const ScriptCounts counts = count_scripts(text);
  if (counts.total == 0) return Script::kNone;
  return script_of(top_script(counts));
}

std::string_view script_name(Script script) {
  switch (script) {
    case Script::kNone: return "None";
    case Script::kLatin: return "Latin";
    case Script::kCyrillic: return "Cyrillic";
    case Script::kGreek: return "Greek";
    case Script::kArabic: return "Arabic";
    case Script::kHebrew: return "Hebrew";
    case Script::kDevanagari: return "Devanagari";
    case Script::kHan: return "Han";
    case Script::kHiragana: return "Hiragana";
    case Script::kKatakana: return "Katakana";
    case Script::kHangul: return "Hangul";
    case Script::kThai: return "Thai";
    case Script::kLao: return "Lao";
    case Script::kKhmer: return "Khmer";
    case Script::kMyanmar: return "Myanmar";
    case Script::kOther: return "Other";
  }
  return "Other";
}

bool is_unspaced_script(Script script) {
  switch (script) {
    case Script::kHan:
    case Script::kHiragana:
    case Script::kKatakana:
    case Script::kThai:
    case Script::kLao:
    case Script::kKhmer:
    case Script::kMyanmar: return true;
    default: return false;
  }
}

bool is_cjk_script(Script script) {
  return script == Script::kHan || script == Script::kHiragana || script == Script::kKatakana ||
         script == Script::kHangul;
}

bool has_unspaced_letters(std::string_view text) {
  const auto length = static_cast<int32_t>(text.size());
  for (int32_t i = 0; i < length;) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    UChar32 c;
    U8_NEXT(text.data(), i, length, c);
    if (c < 0) continue;
    UErrorCode status = U_ZERO_ERROR;
    const UScriptCode script = uscript_getScript(c, &status);
    if (U_SUCCESS(status) && is_unspaced_script(script_of(script))) return true;
  }
  return false;
}

std::string detect_language(std::string_view text) {
  const ScriptCounts counts = count_scripts(text);
  if (counts.total == 0) return std::string(kUndeterminedLanguage);
  const int cjk = counts[USCRIPT_HAN] + counts[USCRIPT_HIRAGANA] + counts[USCRIPT_KATAKANA] +
                  counts[USCRIPT_HANGUL];
  const UScriptCode top = top_script(counts);
  // CJK scripts share one text: their letters are counted together against the others.
  if (cjk > 0 && cjk >= counts[top]) return cjk_language(counts, text);
  if (const std::string_view only = single_language_of(top); !only.empty()) {
    return std::string(only);
  }
  switch (top) {
    case USCRIPT_LATIN:
    case USCRIPT_CYRILLIC:
    case USCRIPT_ARABIC:
    case USCRIPT_DEVANAGARI:
    case USCRIPT_HEBREW: return cld2_language(text);
    default: return std::string(kUndeterminedLanguage);
  }
}

bool is_supported_language(std::string_view code) { return find_language(code) != nullptr; }

const std::vector<std::string>& supported_languages() {
  static const std::vector<std::string> kCodes = [] {
    std::vector<std::string> codes;
    for (const LanguageEntry& entry : kLanguages) codes.emplace_back(entry.code);
    return codes;
  }();
  return kCodes;
}

std::string_view language_name(std::string_view code) {
  const LanguageEntry* entry = find_language(code);
  return entry != nullptr ? entry->name : std::string_view();
}

std::vector<Script> language_scripts(std::string_view code) {
  std::vector<Script> out;
  if (code.empty() || code == kUndeterminedLanguage) return out;
  UScriptCode codes[8];
  UErrorCode status = U_ZERO_ERROR;
  const int n = uscript_getCode(std::string(code).c_str(), codes, 8, &status);
  for (int i = 0; U_SUCCESS(status) && i < n; ++i) {
    const Script script = script_of(codes[i]);
    if (std::find(out.begin(), out.end(), script) == out.end()) out.push_back(script);
  }
  return out;
}

double script_share(std::string_view text, const std::vector<Script>& scripts) {
  const ScriptCounts counts = count_scripts(text);
  if (counts.total == 0) return 1.0;
  int inside = 0;
  for (int s = 0; s < USCRIPT_CODE_LIMIT; ++s) {
    if (counts.letters[s] == 0) continue;
    const Script script = script_of(static_cast<UScriptCode>(s));
    if (std::find(scripts.begin(), scripts.end(), script) != scripts.end()) inside += counts.letters[s];
  }
  return static_cast<double>(inside) / counts.total;
}

std::string unknown_language_message(std::string_view code, std::string_view what) {
  std::string message = "unknown language '" + std::string(code) + "' for " + std::string(what) +
                        "; supported (ISO 639-1): ";
  const std::vector<std::string>& codes = supported_languages();
  for (std::size_t i = 0; i < codes.size(); ++i) {
    if (i > 0) message += ", ";
    message += codes[i];
  }
  return message;
}

}  // namespace ragmeter
