// The offline judge's table of languages (offline_language.h). Stopword lists come from
// licensed sources, embedded at build time (src/judge/stopwords/, LICENSE.md there); the
// negation cues, copulas and elisions are short closed word classes written here.
#include "judge/offline/offline_language.h"

#include <algorithm>
#include <initializer_list>
#include <map>

#include "judge/offline/offline_text.h"
#include "ragmeter/words.h"
#include "ragmeter_stopwords.inc"

namespace ragmeter {
namespace {

using Words = std::initializer_list<std::string_view>;

std::unordered_set<std::string> keyed(Words words) {
  std::unordered_set<std::string> out;
  for (std::string_view word : words) {
    std::string key;
    append_word_key(word, &key);
    out.insert(std::move(key));
  }
  return out;
}

// A stopword file: Snowball's format (a word at the start of a line, "|" starts a
// comment) or one word a line with "#" comment lines (Lucene's Japanese list, ours for
// Chinese). Words are keyed as the tokenizer keys words (NFKC case folding).
std::unordered_set<std::string> parse_stopwords(std::string_view file) {
  std::unordered_set<std::string> out;
  std::size_t at = 0;
  while (at < file.size()) {
    std::size_t end = file.find('\n', at);
    if (end == std::string_view::npos) end = file.size();
    std::string_view line = file.substr(at, end - at);
    at = end + 1;
    if (const std::size_t bar = line.find('|'); bar != std::string_view::npos) {
      line = line.substr(0, bar);
    }
    const std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string_view::npos || line[first] == '#') continue;
    line = line.substr(first);
    line = line.substr(0, line.find_first_of(" \t\r"));
    std::string key;
    append_word_key(line, &key);
    if (!key.empty()) out.insert(std::move(key));
  }
  return out;
}

struct Row {
  std::string_view code, name, stemmer;
  std::string_view stopwords;  // the embedded file
  NameRule names;
  Words negations;
  Words verbs;
  Words elisions = {};
};

// clang-format off
// The Snowball languages: libstemmer's algorithm, Snowball's stopword list, the words
// that negate, and the copulas and auxiliaries that make a sentence more than a short
// answer.
const Row kSnowballRows[] = {
    {"da", "Danish", "danish", stopwords::k_da, NameRule::kCapitalised,
     {"ikke", "ingen", "intet", "ingenting", "aldrig", "hverken"},
     {"er", "var", "har", "havde", "bliver", "blev"}},
    {"de", "German", "german", stopwords::k_de, NameRule::kCapitalsOnly,
     {"nicht", "kein", "keine", "keinem", "keinen", "keiner", "keines", "nie", "niemals",
      "nichts", "niemand", "nirgends", "weder"},
     {"ist", "sind", "war", "waren", "wird", "werden", "wurde", "wurden", "hat", "haben",
      "hatte", "hatten"}},
    {"es", "Spanish", "spanish", stopwords::k_es, NameRule::kCapitalised,
     {"no", "nunca", "jamás", "ningún", "ninguno", "ninguna", "nada", "nadie", "ni",
      "tampoco"},
     {"es", "son", "era", "eran", "fue", "fueron", "está", "están", "estaba", "ha", "han",
      "había", "tiene", "tienen"}},
    {"fi", "Finnish", "finnish", stopwords::k_fi, NameRule::kCapitalised,
     {"ei", "en", "et", "emme", "ette", "eivät", "älä"},
     {"on", "ovat", "oli", "olivat", "olen", "olet"}},
    {"fr", "French", "french", stopwords::k_fr, NameRule::kCapitalised,
     {"ne", "n", "pas", "jamais", "aucun", "aucune", "rien", "ni", "nullement"},
     {"est", "sont", "était", "étaient", "fut", "a", "ont", "avait", "sera", "été"},
     {"l", "d", "j", "m", "n", "s", "t", "c", "qu", "jusqu", "lorsqu", "puisqu", "quoiqu"}},
    {"hu", "Hungarian", "hungarian", stopwords::k_hu, NameRule::kCapitalised,
     {"nem", "sem", "nincs", "nincsen", "nincsenek", "sincs", "soha", "senki", "semmi", "ne"},
     {"van", "vannak", "volt", "voltak"}},
    {"id", "Indonesian", "indonesian", stopwords::k_id, NameRule::kCapitalised,
     {"tidak", "tak", "bukan", "belum", "tiada", "jangan"},
     {"adalah", "ialah", "merupakan", "ada"}},
    {"it", "Italian", "italian", stopwords::k_it, NameRule::kCapitalised,
     {"non", "mai", "nessuno", "nessuna", "nessun", "niente", "né", "neppure", "nemmeno",
      "neanche"},
     {"è", "sono", "era", "erano", "fu", "ha", "hanno", "aveva", "sarà"},
     {"l", "un", "dell", "dall", "nell", "sull", "all", "coll", "pell", "gl", "agl", "dagl",
      "degl", "negl", "sugl", "c", "d", "m", "t", "s", "v", "quest", "quell"}},
    {"nl", "Dutch", "dutch", stopwords::k_nl, NameRule::kCapitalised,
     {"niet", "geen", "nooit", "niets", "niemand", "nergens", "noch"},
     {"is", "zijn", "was", "waren", "heeft", "hebben", "had", "wordt", "werd", "werden"}},
    {"no", "Norwegian", "norwegian", stopwords::k_no, NameRule::kCapitalised,
     {"ikke", "ingen", "intet", "ingenting", "aldri", "verken"},
     {"er", "var", "har", "hadde", "blir", "ble"}},
    {"pt", "Portuguese", "portuguese", stopwords::k_pt, NameRule::kCapitalised,
     {"não", "nunca", "jamais", "nenhum", "nenhuma", "nada", "ninguém", "nem"},
     {"é", "são", "era", "eram", "foi", "foram", "está", "estão", "tem", "têm", "tinha", "há"}},
    {"ru", "Russian", "russian", stopwords::k_ru, NameRule::kCapitalised,
     {"не", "нет", "ни", "никогда", "никто", "ничто", "ничего", "нельзя", "нигде"},
     {"является", "был", "была", "были", "было", "есть"}},
    {"sv", "Swedish", "swedish", stopwords::k_sv, NameRule::kCapitalised,
     {"inte", "icke", "ej", "ingen", "inget", "inga", "ingenting", "aldrig", "varken"},
     {"är", "var", "har", "hade", "blir", "blev"}},
};
// clang-format on

OfflineLanguage from_row(const Row& row) {
  OfflineLanguage language;
  language.code = row.code;
  language.name = row.name;
  language.stemmer = row.stemmer;
  language.names = row.names;
  language.clauses = ClauseRule::kSemicolon;
  language.decimal_mark = ',';  // every language of kSnowballRows writes "3,5"
  language.stopwords = parse_stopwords(row.stopwords);
  language.negations = keyed(row.negations);
  language.verbs = keyed(row.verbs);
  language.elisions = keyed(row.elisions);
  return language;
}

// Chinese and Japanese share these: ICU's dictionary words without stems, names by Latin
// letters and quotation marks, the CJK clause marks.
OfflineLanguage unspaced(std::string_view code, std::string_view name, std::string_view stopword_file,
                         Words negations, Words verbs) {
  OfflineLanguage language;
  language.code = code;
  language.name = name;
  language.unspaced = true;
  language.names = NameRule::kLatinAndQuoted;
  language.clauses = ClauseRule::kCjk;
  language.every_word_required = true;
  language.stopwords = parse_stopwords(stopword_file);
  language.negations = keyed(negations);
  language.verbs = keyed(verbs);
  return language;
}

// clang-format off
OfflineLanguage chinese() {
  OfflineLanguage zh = unspaced(
      "zh", "Chinese", stopwords::k_zh,
      {"不", "没", "沒", "没有", "沒有", "未", "未曾", "无", "無", "非", "并非", "並非", "别", "別",
       "勿", "莫", "否", "无法", "無法", "从未", "從未", "从不", "從不", "决不", "決不", "绝不",
       "絕不", "毫无", "毫無", "不是", "不能", "不会", "不會", "并不", "並不", "不再"},
      {"是", "有", "在", "为", "為"});
  // Numerals are numbers here, and dates and sizes are facts: stopwords-iso lists them.
  for (const std::string& kept : keyed({"一", "二", "三", "四", "五", "六", "七", "八", "九",
                                        "零", "年", "月", "日", "大", "小"})) {
    zh.stopwords.erase(kept);
  }
  zh.negation_prefixes = {"不", "没", "沒", "未", "无", "無"};
  zh.not_negated = keyed({"不同", "不但", "不仅", "不僅", "不过", "不過", "不管", "不论", "不論",
                          "不断", "不斷", "不久", "不少", "不如", "不得不", "不然", "不禁",
                          "不错", "不錯", "不安", "不足", "不良", "无论", "無論", "未来",
                          "未來", "无数", "無數", "无限", "無限", "没收", "沒收"});
  zh.not_numbers = keyed({"十分", "万分", "萬分", "千万", "千萬", "一一", "百般", "三三两两"});
  return zh;
}

OfflineLanguage japanese() {
  // ICU's dictionary cuts a verb's negative ending off as it pleases: "ない", "な" + "い",
  // "ませ" + "ん", "なか" + "っ" + "た", "ず".
  OfflineLanguage ja = unspaced(
      "ja", "Japanese", stopwords::k_ja,
      {"ない", "なく", "なかっ", "なか", "ず", "ぬ", "せん", "ません", "ないで", "なし", "無い",
       "無く", "無し", "いいえ"},
      {"です", "だ", "ある", "いる", "ます", "た", "でし", "まし"});
  ja.hiragana_function_word_max = 2;
  return ja;
}
// clang-format on

OfflineLanguage english() {
  OfflineLanguage en;
  en.code = "en";
  en.name = "English";
  en.stemmer = "english";
  en.english = true;
  en.clauses = ClauseRule::kEnglish;
  return en;  // word lists: claim_segmenter.cc's, unchanged since offline-v3
}

const std::map<std::string, OfflineLanguage, std::less<>>& table() {
  static const auto* const kTable = [] {
    auto* out = new std::map<std::string, OfflineLanguage, std::less<>>();
    for (const Row& row : kSnowballRows) out->emplace(std::string(row.code), from_row(row));
    out->emplace("zh", chinese());
    out->emplace("ja", japanese());
    out->emplace("en", english());
    return out;
  }();
  return *kTable;
}

}  // namespace

const OfflineLanguage& english_language() { return table().find("en")->second; }

const OfflineLanguage* find_offline_language(std::string_view code) {
  if (code.empty() || code == "und") return &english_language();
  const auto it = table().find(code);
  return it == table().end() ? nullptr : &it->second;
}

const OfflineLanguage& offline_language_or_english(std::string_view code) {
  const OfflineLanguage* language = find_offline_language(code);
  return language != nullptr ? *language : english_language();
}

std::vector<std::string> offline_language_codes() {
  std::vector<std::string> codes;
  for (const auto& [code, language] : table()) codes.push_back(code);
  return codes;  // std::map: sorted
}

}  // namespace ragmeter
