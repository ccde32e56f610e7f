// The Porter stemmer exactly as NLTK's PorterStemmer in its default NLTK_EXTENSIONS mode,
// which rouge-score (tokenizers.DefaultTokenizer) uses for use_stemmer=True.
//
// Source: M. F. Porter, "An algorithm for suffix stripping", Program 14(3), 1980, with the
// departures NLTK makes (nltk/stem/porter.py): a table of irregular forms, words of one or
// two letters left alone, 'ies'/'ied' on four-letter words -> 'ie', '-ied' -> '-i',
// y -> i only after a consonant that is not the whole stem, 'alli' -> 'al' tried before the
// other step-2 rules, 'bli' -> 'ble', 'fulli' -> 'ful', 'logi' -> 'log' measured with the
// 'l', and *o also true for a two-letter vowel-consonant stem.
//
// Works on bytes: meant for the lowercase ASCII tokens rouge-score's tokenizer produces.
// ASCII capitals are lowercased (NLTK lowercases); any other byte counts as a consonant.
#include <array>
#include <span>
#include <string>
#include <string_view>

#include "ragmeter/rouge.h"

namespace ragmeter {
namespace {

bool is_vowel(char c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'; }

// Porter's consonant: not a vowel, and a 'y' only when it starts the word or follows a
// vowel. `previous_is_consonant` is the answer for the letter before (ignored at the start).
bool is_consonant_given(char c, bool at_start, bool previous_is_consonant) {
  if (is_vowel(c)) return false;
  if (c == 'y') return at_start || !previous_is_consonant;
  return true;
}

bool is_consonant_at(std::string_view word, std::size_t index) {
  bool consonant = true;
  for (std::size_t i = 0; i <= index; ++i) consonant = is_consonant_given(word[i], i == 0, consonant);
  return consonant;
}

// m in [C](VC){m}[V]: the number of vowel-to-consonant transitions.
int measure(std::string_view stem) {
  int m = 0;
  bool previous = true;
  for (std::size_t i = 0; i < stem.size(); ++i) {
    bool consonant = is_consonant_given(stem[i], i == 0, previous);
    if (consonant && i > 0 && !previous) ++m;
    previous = consonant;
  }
  return m;
}

bool contains_vowel(std::string_view stem) {
  bool previous = true;
  for (std::size_t i = 0; i < stem.size(); ++i) {
    previous = is_consonant_given(stem[i], i == 0, previous);
    if (!previous) return true;
  }
  return false;
}

// *d: the word ends with a double consonant.
bool ends_double_consonant(std::string_view word) {
  std::size_t n = word.size();
  return n >= 2 && word[n - 1] == word[n - 2] && is_consonant_at(word, n - 1);
}

// *o: the stem ends consonant-vowel-consonant, the last not w, x or y; NLTK also accepts a
// two-letter vowel-consonant stem (with no w/x/y exception).
bool ends_cvc(std::string_view word) {
  std::size_t n = word.size();
  if (n >= 3) {
    char last = word[n - 1];
    return is_consonant_at(word, n - 3) && !is_consonant_at(word, n - 2) &&
           is_consonant_at(word, n - 1) && last != 'w' && last != 'x' && last != 'y';
  }
  return n == 2 && !is_consonant_at(word, 0) && is_consonant_at(word, 1);
}

bool ends_with(std::string_view word, std::string_view suffix) {
  return word.size() >= suffix.size() && word.substr(word.size() - suffix.size()) == suffix;
}

std::string_view strip(std::string_view word, std::string_view suffix) {
  return word.substr(0, word.size() - suffix.size());
}

std::string with_suffix(std::string_view stem, std::string_view suffix) {
  std::string out(stem);
  out += suffix;
  return out;
}

bool positive_measure(std::string_view stem) { return measure(stem) > 0; }
bool measure_above_one(std::string_view stem) { return measure(stem) > 1; }
// Step 4's (m>1 and (*S or *T)) ION.
bool measure_above_one_ending_s_or_t(std::string_view stem) {
  return measure(stem) > 1 && (stem.back() == 's' || stem.back() == 't');
}
// NLTK's step-1c condition: the y follows a consonant that is not the whole stem.
bool follows_consonant_not_alone(std::string_view stem) {
  return stem.size() > 1 && is_consonant_at(stem, stem.size() - 1);
}
// NLTK measures 'logi' -> 'log' on the stem with its 'l' (so 'geo'+'logi' qualifies), and
// step 5b's 'll' -> 'l' on the word less one 'l': both are the stem followed by 'l'.
bool positive_measure_with_l(std::string_view stem) { return positive_measure(with_suffix(stem, "l")); }
bool measure_above_one_with_l(std::string_view stem) { return measure_above_one(with_suffix(stem, "l")); }

struct Rule {
  std::string_view suffix;
  std::string_view replacement;
  bool (*condition)(std::string_view stem);  // nullptr: unconditional
};

// The first rule whose suffix matches decides: it applies if its condition holds, and
// otherwise the word is returned unchanged without trying later rules (NLTK's
// _apply_rule_list).
std::string apply_rules(std::string_view word, std::span<const Rule> rules) {
  for (const Rule& rule : rules) {
    if (!ends_with(word, rule.suffix)) continue;
    std::string_view stem = strip(word, rule.suffix);
    if (rule.condition == nullptr || rule.condition(stem)) return with_suffix(stem, rule.replacement);
    return std::string(word);
  }
  return std::string(word);
}

std::string step1a(std::string_view word) {
  if (word.size() == 4 && ends_with(word, "ies")) return with_suffix(strip(word, "ies"), "ie");
  static constexpr Rule kRules[] = {
      {"sses", "ss", nullptr}, {"ies", "i", nullptr}, {"ss", "ss", nullptr}, {"s", "", nullptr}};
  return apply_rules(word, kRules);
}

// After -ed or -ing is removed: restore an 'e' or undouble the final consonant.
std::string step1b_tidy(std::string_view stem) {
  static constexpr Rule kRules[] = {{"at", "ate", nullptr}, {"bl", "ble", nullptr}, {"iz", "ize", nullptr}};
  for (const Rule& rule : kRules) {
    if (ends_with(stem, rule.suffix)) return with_suffix(strip(stem, rule.suffix), rule.replacement);
  }
  if (ends_double_consonant(stem)) {
    char last = stem.back();
    if (last == 'l' || last == 's' || last == 'z') return std::string(stem);
    return std::string(stem.substr(0, stem.size() - 1));
  }
  if (measure(stem) == 1 && ends_cvc(stem)) return with_suffix(stem, "e");
  return std::string(stem);
}

std::string step1b(std::string_view word) {
  if (ends_with(word, "ied")) return with_suffix(strip(word, "ied"), word.size() == 4 ? "ie" : "i");
  if (ends_with(word, "eed")) {
    std::string_view stem = strip(word, "eed");
    return positive_measure(stem) ? with_suffix(stem, "ee") : std::string(word);
  }
  for (std::string_view suffix : {std::string_view("ed"), std::string_view("ing")}) {
    if (ends_with(word, suffix) && contains_vowel(strip(word, suffix))) {
      return step1b_tidy(strip(word, suffix));
    }
  }
  return std::string(word);
}

std::string step1c(std::string_view word) {
  static constexpr Rule kRules[] = {{"y", "i", follows_consonant_not_alone}};
  return apply_rules(word, kRules);
}

std::string step2(std::string_view word) {
  if (ends_with(word, "alli") && positive_measure(strip(word, "alli"))) {
    return step2(with_suffix(strip(word, "alli"), "al"));
  }
  static constexpr Rule kRules[] = {
      {"ational", "ate", positive_measure}, {"tional", "tion", positive_measure},
      {"enci", "ence", positive_measure},   {"anci", "ance", positive_measure},
      {"izer", "ize", positive_measure},    {"bli", "ble", positive_measure},
      {"alli", "al", positive_measure},     {"entli", "ent", positive_measure},
      {"eli", "e", positive_measure},       {"ousli", "ous", positive_measure},
      {"ization", "ize", positive_measure}, {"ation", "ate", positive_measure},
      {"ator", "ate", positive_measure},    {"alism", "al", positive_measure},
      {"iveness", "ive", positive_measure}, {"fulness", "ful", positive_measure},
      {"ousness", "ous", positive_measure}, {"aliti", "al", positive_measure},
      {"iviti", "ive", positive_measure},   {"biliti", "ble", positive_measure},
      {"fulli", "ful", positive_measure},   {"logi", "log", positive_measure_with_l},
  };
  return apply_rules(word, kRules);
}

std::string step3(std::string_view word) {
  static constexpr Rule kRules[] = {
      {"icate", "ic", positive_measure}, {"ative", "", positive_measure},
      {"alize", "al", positive_measure}, {"iciti", "ic", positive_measure},
      {"ical", "ic", positive_measure},  {"ful", "", positive_measure},
      {"ness", "", positive_measure},
  };
  return apply_rules(word, kRules);
}

std::string step4(std::string_view word) {
  static constexpr Rule kRules[] = {
      {"al", "", measure_above_one},    {"ance", "", measure_above_one},
      {"ence", "", measure_above_one},  {"er", "", measure_above_one},
      {"ic", "", measure_above_one},    {"able", "", measure_above_one},
      {"ible", "", measure_above_one},  {"ant", "", measure_above_one},
      {"ement", "", measure_above_one}, {"ment", "", measure_above_one},
      {"ent", "", measure_above_one},   {"ion", "", measure_above_one_ending_s_or_t},
      {"ou", "", measure_above_one},    {"ism", "", measure_above_one},
      {"ate", "", measure_above_one},   {"iti", "", measure_above_one},
      {"ous", "", measure_above_one},   {"ive", "", measure_above_one},
      {"ize", "", measure_above_one},
  };
  return apply_rules(word, kRules);
}

// Unlike the other steps, both conditions on the final 'e' are tried.
std::string step5a(std::string_view word) {
  if (!ends_with(word, "e")) return std::string(word);
  std::string_view stem = strip(word, "e");
  int m = measure(stem);
  if (m > 1 || (m == 1 && !ends_cvc(stem))) return std::string(stem);
  return std::string(word);
}

std::string step5b(std::string_view word) {
  static constexpr Rule kRules[] = {{"ll", "l", measure_above_one_with_l}};
  return apply_rules(word, kRules);
}

// NLTK's table of irregular forms, looked up before any rule.
const std::string_view* irregular_stem(std::string_view word) {
  struct Irregular {
    std::string_view form;
    std::string_view stem;
  };
  static constexpr std::array<Irregular, 16> kIrregular = {{
      {"sky", "sky"}, {"skies", "sky"}, {"dying", "die"}, {"lying", "lie"},
      {"tying", "tie"}, {"news", "news"}, {"innings", "inning"}, {"inning", "inning"},
      {"outings", "outing"}, {"outing", "outing"}, {"cannings", "canning"},
      {"canning", "canning"}, {"howe", "howe"}, {"proceed", "proceed"},
      {"exceed", "exceed"}, {"succeed", "succeed"},
  }};
  for (const Irregular& entry : kIrregular) {
    if (entry.form == word) return &entry.stem;
  }
  return nullptr;
}

std::string ascii_lower(std::string_view word) {
  std::string out(word);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

}  // namespace

std::string porter_stem(std::string_view word) {
  std::string lowered = ascii_lower(word);
  if (const std::string_view* irregular = irregular_stem(lowered)) return std::string(*irregular);
  if (lowered.size() <= 2) return lowered;
  std::string stem = step1a(lowered);
  stem = step1b(stem);
  stem = step1c(stem);
  stem = step2(stem);
  stem = step3(stem);
  stem = step4(stem);
  stem = step5a(stem);
  return step5b(stem);
}

}  // namespace ragmeter
