// The offline judge's rules per language: one row of a table for each language it
// covers (docs/design.md, "The offline judge's rules per language"). Internal to
// src/judge/; the public face is offline_judge.h (offline_judge_languages,
// offline_judge_gap and the `language` arguments).
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

namespace ragmeter {

// Which words of a claim are names: words a premise must contain for Entailment, as
// numbers must.
enum class NameRule {
  // Capitalised content words (not a sentence's first word alone) and words in capitals:
  // English, French, Spanish, ... where a capital marks a name.
  kCapitalised,
  // Only words in capitals ("NASA", "BMW"): German, where every noun is capitalised.
  kCapitalsOnly,
  // Chinese and Japanese, which have no capitals: Latin-script words ("iPhone", "NASA")
  // and the text between quotation marks 「」『』“”《》.
  kLatinAndQuoted,
};

// How a sentence longer than OfflineLanguage::clause_min_words words is cut into clauses.
enum class ClauseRule {
  kEnglish,    // the English connectors with a verb on each side (offline-v3's rule)
  kSemicolon,  // at "; " only, each side at least 3 words
  kCjk,        // at the CJK clause marks ，、；and the ASCII , ; each side at least 3 words
};

struct OfflineLanguage {
  std::string_view code;       // ISO 639-1, as language.h names it
  std::string_view name;       // English name, for reasons ("German")
  std::string_view stemmer;    // libstemmer algorithm ("german"); empty: no stemming
  bool english = false;        // offline-v3's tokenizer and word lists, unchanged
  bool unspaced = false;       // written without spaces: ICU dictionary words, no stems
  NameRule names = NameRule::kCapitalised;
  ClauseRule clauses = ClauseRule::kSemicolon;
  // Words compared after NFKC case folding (words.h's append_word_key).
  std::unordered_set<std::string> stopwords;
  // Whole words that negate ("nicht", "没有", "ない").
  std::unordered_set<std::string> negations;
  // Unspaced languages: characters that negate the rest of a dictionary word they start
  // ("不去" is 不 + 去), unless the word is in not_negated ("不同", "非常").
  std::vector<std::string> negation_prefixes;
  std::unordered_set<std::string> not_negated;
  // Coverage: a claim's every content word must be in the premise window (Chinese and
  // Japanese, where a missing dictionary word is most often a changed fact: chosen on the
  // dev halves of OCNLI and JNLI, docs/languages.md), instead of English's tolerance of
  // about 40% of a long claim's words.
  bool every_word_required = false;
  // Numbers: the decimal mark ('.' reads "1,000.5" as English does; ',' reads "1.000,5").
  char decimal_mark = '.';
  // Unspaced languages: words made of numerals that are not numbers ("十分", very).
  std::unordered_set<std::string> not_numbers;
  // Words that make a sentence more than a short answer (copulas, auxiliaries): a
  // one-sentence answer of at most 5 words with none of them carries its question.
  std::unordered_set<std::string> verbs;
  // Japanese: a word of at most this many hiragana and nothing else is a function word
  // (a particle, or the piece of a verb ending ICU's dictionary cut off: "てい", "って");
  // 0: no such rule.
  std::size_t hiragana_function_word_max = 0;
  // Elided articles and pronouns written before an apostrophe ("l'", "qu'"), split off
  // the word they are attached to (French, Italian).
  std::unordered_set<std::string> elisions;
};

// The rules for `code`, or nullptr when the offline judge does not cover it. "en", "und"
// (undetermined) and "" (not set) get the English rules, as every text did before
// languages were told apart. Thread-safe (the table is built once, then read only).
const OfflineLanguage* find_offline_language(std::string_view code);

// The English rules (never null).
const OfflineLanguage& english_language();

// The codes of the covered languages, sorted, "en" included.
std::vector<std::string> offline_language_codes();

}  // namespace ragmeter
