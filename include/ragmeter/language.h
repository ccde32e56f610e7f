// The language of a text and of a sample: script first, then a statistical detector.
//
// detect_language reads the Unicode script of each letter (ICU's uscript) and decides by
// script alone where a script belongs to one language (Thai, Hangul, Greek, kana with Han
// for Japanese, Han alone for Chinese, ...); for scripts that several languages share
// (Latin, Cyrillic, Arabic, Devanagari) it asks CLD2 (Debian's libcld2), and keeps its
// answer only when CLD2 calls it reliable. Why in that order: docs/design.md, "Language:
// script first, then CLD2". The codes are ISO 639-1 ("en", "zh", "ja"), or "und"
// (undetermined) when a text has no letter or the detector is not sure.
//
// Thread-safety: every function here is thread-safe; ICU and CLD2 keep no state between
// calls that another thread could see. Text is expected as valid UTF-8 (the dataset
// readers reject anything else); an invalid sequence counts as no letter.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ragmeter {

class Sample;

// "und": the code for a text whose language cannot be told.
inline constexpr std::string_view kUndeterminedLanguage = "und";

// The writing systems ragmeter tells apart. kOther is any script not listed; kNone a
// text without letters (digits, punctuation and symbols belong to no script).
enum class Script {
  kNone,
  kLatin,
  kCyrillic,
  kGreek,
  kArabic,
  kHebrew,
  kDevanagari,
  kHan,       // Chinese characters (also in Japanese and, rarely, Korean text)
  kHiragana,
  kKatakana,
  kHangul,
  kThai,
  kLao,
  kKhmer,
  kMyanmar,
  kOther,
};

// The script most of `text`'s letters are written in, weighing each letter by its UTF-8
// bytes as CLD2 does (a Han character, 3 bytes, says about as much as three Latin
// letters; ties go to the lower ICU script code); kNone when it has no letter. Cost: one pass over the
// text, ASCII at a byte-table's speed. Never fails.
Script dominant_script(std::string_view text);

// The script's name in Unicode's spelling ("Latin", "Han", "Hiragana"), "None" or "Other".
std::string_view script_name(Script script);

// Scripts written without spaces between words, which need ICU's dictionary word
// break (Han, Hiragana, Katakana, Thai, Lao, Khmer, Myanmar). Korean (Hangul) is written
// with spaces and is not among them.
bool is_unspaced_script(Script script);

// Han, Hiragana, Katakana or Hangul: the scripts of Chinese, Japanese and Korean.
bool is_cjk_script(Script script);

// True when `text` holds at least one letter of an unspaced script (is_unspaced_script).
// Stops at the first such letter; pure ASCII text costs a byte scan. Never fails.
bool has_unspaced_letters(std::string_view text);

// The ISO 639-1 code of `text`'s language, or "und". The dominant script decides first,
// Han, kana and Hangul counted together against the others: Han with kana is "ja"
// (kana at least 1 in 20 of them), more Hangul than kana "ko", Han alone "zh"
// (simplified and traditional alike) unless CLD2 is sure it is Japanese; scripts of one
// language give that language; Latin, Cyrillic, Arabic, Hebrew and Devanagari text is
// CLD2's answer when it says the answer is reliable, else "und" (very short text,
// names, numbers). Looks at the
// first 4 KiB of text at most (a detector's answer does not change past that, and a
// long context would cost time for nothing). The result is always either "und" or a code
// for which is_supported_language is true. Never fails.
std::string detect_language(std::string_view text);

// True when `code` is one of supported_languages() (exact, lowercase: "zh", not "ZH"
// or "zh-CN"). "und" is not a language and is not supported as a value to force.
bool is_supported_language(std::string_view code);

// Every code detect_language can return but "und", sorted (77): the 76 of CLD2's languages
// with an ISO 639-1 code (its two Chinese are one), and Burmese ("my"), told by its script.
const std::vector<std::string>& supported_languages();

// The English name of a supported code ("zh" -> "Chinese"); empty for any other code.
std::string_view language_name(std::string_view code);

// The scripts `code`'s language is written in, by ICU's uscript_getCode (CLDR's likely
// script): {kHan} for "zh", {kKatakana, kHiragana, kHan} for "ja", {kHangul, kHan} for
// "ko", {kLatin} for "de", {kCyrillic} for "ru", {kOther} for "ta" (a script this enum
// does not name). Empty for "und" and codes ICU does not know. Thread-safe.
std::vector<Script> language_scripts(std::string_view code);

// The share, from 0 to 1, of `text`'s letters written in one of `scripts`, the letters
// weighed by their UTF-8 bytes as dominant_script weighs them (kOther stands for every
// script the enum does not name); 1 for a text without letters. Reads the first 4 KiB,
// as detect_language does. Never fails.
double script_share(std::string_view text, const std::vector<Script>& scripts);

// The language of each text field of a sample, as told by detect_language.
struct SampleLanguages {
  // The sample's language: detect_language over its question, response and reference at
  // once (each field's first KiB), so a short answer is read with its question; when
  // they do not tell ("und"), over them and the contexts. A Chinese answer to a Chinese
  // question over English passages is "zh": the language the sample is asked and answered in.
  std::string language;
  // Per field ("user_input", "response", "reference", "retrieved_contexts",
  // "reference_contexts"), the language of each field that has one other than "und": a
  // field whose dominant script is the sample's is taken to be in the sample's language
  // (an English question over German passages is not told apart: that would cost a CLD2
  // call per field); another script's field is detected on its own, unless it has fewer
  // than 200 bytes in a script several languages share (Latin, Cyrillic, Arabic,
  // Hebrew, Devanagari: CLD2 misreads short names). Empty unless two fields differ: a
  // sample in one language lists nothing here.
  std::map<std::string, std::string> fields;
};

// Detects a sample's languages (see SampleLanguages). Never fails; a sample without
// text is "und".
SampleLanguages detect_sample_languages(const Sample& sample);

// Sets sample->language and sample->field_languages: to `forced` when it is not empty
// (the caller has checked it with is_supported_language; fields then are not detected),
// else to the row's own `language` column when it had one, else detected. Idempotent.
void assign_sample_language(Sample* sample, std::string_view forced = {});

// The message of an unknown language code given as `what` (a flag or a column name):
// "unknown language 'xx' for --language; supported: af, ar, ..." .
std::string unknown_language_message(std::string_view code, std::string_view what);

}  // namespace ragmeter
