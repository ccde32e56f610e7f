// BERT WordPiece tokenizer read from tokenizer.json (src/embed/wordpiece_tokenizer.h).
// The rules are those of Hugging Face tokenizers' BertNormalizer, BertPreTokenizer and
// WordPiece model; the oracle test compares ids with that package.
#include "embed/wordpiece_tokenizer.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>

#include <nlohmann/json.hpp>
#include <unicode/normalizer2.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/ustring.h>
#include <unicode/utf8.h>

#include "embed/special_tokens.h"

namespace ragmeter {
namespace {

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using Vocabulary = std::unordered_map<std::string, std::int32_t, StringHash, std::equal_to<>>;

// tokenizers takes the categories it tests (marks, punctuation, control and format
// characters) from the unicode_categories crate, whose tables predate Unicode 9.0: a code
// point assigned later has none of them there. Its White_Space, case mappings and NFD
// come from Rust's and unicode-normalization's current tables, as ICU's do. Compared with
// tokenizers 0.23.3 over every code point (tests/oracle/test_wordpiece_tokenizer.py),
// six older code points differ besides: their category changed after Unicode 8.0.
bool in_old_category_tables(UChar32 c) {
  UVersionInfo age;
  u_charAge(c, age);
  return age[0] < 9;
}

// Unicode 8.0's category where it differs from today's for a code point assigned then.
UCharCategory category(UChar32 c) {
  switch (c) {
    case 0x166D:   // CANADIAN SYLLABICS CHI SIGN, So today
    case 0x111C9:  // SHARADA SANDHI MARK, Mn today
      return U_OTHER_PUNCTUATION;
    case 0x1734:  // HANUNOO SIGN PAMUDPOD, Mc today
      return U_NON_SPACING_MARK;
    case 0x1885:  // MONGOLIAN LETTER ALI GALI BALUDA, Mn today
    case 0x1886:  // MONGOLIAN LETTER ALI GALI THREE BALUDA, Mn today
      return U_OTHER_LETTER;
    case 0xA9BD:  // JAVANESE CONSONANT SIGN KERET, Mn today
      return U_COMBINING_SPACING_MARK;
    default:
      return static_cast<UCharCategory>(u_charType(c));
  }
}

bool is_bert_whitespace(UChar32 c) {
  return c == '\t' || c == '\n' || c == '\r' || u_isUWhiteSpace(c);
}

// Cc, Cf, Co and Cs (unassigned code points are kept), tab, newline and CR excepted.
bool is_bert_control(UChar32 c) {
  if (c == '\t' || c == '\n' || c == '\r') return false;
  switch (category(c)) {
    case U_CONTROL_CHAR:
    case U_FORMAT_CHAR:
    case U_PRIVATE_USE_CHAR:
    case U_SURROGATE:
      return in_old_category_tables(c);
    default:
      return false;
  }
}

// The CJK Unified Ideographs blocks BERT's original tokenizer lists (Hangul, kana and
// CJK punctuation are not among them).
bool is_chinese_char(UChar32 c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
         (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

bool is_bert_punctuation(UChar32 c) {
  if (c < 0x80) {
    return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
           (c >= 123 && c <= 126);
  }
  switch (category(c)) {
    case U_CONNECTOR_PUNCTUATION:
    case U_DASH_PUNCTUATION:
    case U_START_PUNCTUATION:
    case U_END_PUNCTUATION:
    case U_INITIAL_PUNCTUATION:
    case U_FINAL_PUNCTUATION:
    case U_OTHER_PUNCTUATION:
      return in_old_category_tables(c);
    default:
      return false;
  }
}

void append_utf8(UChar32 c, std::string* out) {
  char buffer[U8_MAX_LENGTH];
  int32_t length = 0;
  UBool error = false;
  U8_APPEND(buffer, length, U8_MAX_LENGTH, c, error);
  if (!error) out->append(buffer, static_cast<std::size_t>(length));
}

// Code points of UTF-8 `text`; an invalid sequence reads as U+FFFD.
std::vector<UChar32> decode_utf8(std::string_view text) {
  std::vector<UChar32> out;
  out.reserve(text.size());
  const auto* s = reinterpret_cast<const uint8_t*>(text.data());
  const auto length = static_cast<int32_t>(text.size());
  for (int32_t i = 0; i < length;) {
    UChar32 c;
    U8_NEXT(s, i, length, c);
    out.push_back(c < 0 ? 0xFFFD : c);
  }
  return out;
}

struct NormalizerOptions {
  bool clean_text = true;
  bool handle_chinese_chars = true;
  bool strip_accents = true;
  bool lowercase = true;
};

std::vector<UChar32> strip_accents(const std::vector<UChar32>& in) {
  UErrorCode error = U_ZERO_ERROR;
  const icu::Normalizer2* nfd = icu::Normalizer2::getNFDInstance(error);
  if (U_FAILURE(error)) return in;
  icu::UnicodeString text;
  for (UChar32 c : in) text.append(c);
  const icu::UnicodeString decomposed = nfd->normalize(text, error);
  if (U_FAILURE(error)) return in;
  std::vector<UChar32> out;
  out.reserve(in.size());
  for (int32_t i = 0; i < decomposed.length();) {
    const UChar32 c = decomposed.char32At(i);
    i += U16_LENGTH(c);
    if (category(c) != U_NON_SPACING_MARK || !in_old_category_tables(c)) out.push_back(c);
  }
  return out;
}

// Each code point's full lowercase mapping on its own, as Rust's char::to_lowercase.
std::vector<UChar32> lowercase(const std::vector<UChar32>& in) {
  std::vector<UChar32> out;
  out.reserve(in.size());
  for (UChar32 c : in) {
    if (c < 0x80) {
      out.push_back(c >= 'A' && c <= 'Z' ? c + 32 : c);
      continue;
    }
    UChar source[2];
    int32_t source_length = 0;
    U16_APPEND_UNSAFE(source, source_length, c);
    UChar lowered[8];
    UErrorCode error = U_ZERO_ERROR;
    const int32_t length = u_strToLower(lowered, 8, source, source_length, "", &error);
    if (U_FAILURE(error)) {
      out.push_back(c);
      continue;
    }
    for (int32_t i = 0; i < length;) {
      UChar32 l;
      U16_NEXT(lowered, i, length, l);
      out.push_back(l);
    }
  }
  return out;
}

std::vector<UChar32> normalize(const std::vector<UChar32>& in, const NormalizerOptions& options) {
  std::vector<UChar32> text;
  text.reserve(in.size());
  bool ascii = true;
  for (UChar32 c : in) {
    if (options.clean_text) {
      if (c == 0 || c == 0xFFFD || is_bert_control(c)) continue;
      if (is_bert_whitespace(c)) c = ' ';
    }
    if (options.handle_chinese_chars && is_chinese_char(c)) {
      text.push_back(' ');
      text.push_back(c);
      text.push_back(' ');
    } else {
      text.push_back(c);
    }
    ascii = ascii && c < 0x80;
  }
  if (options.strip_accents && !ascii) text = strip_accents(text);
  if (options.lowercase) text = lowercase(text);
  return text;
}

// BertPreTokenizer: words between white space, each punctuation character alone.
void split_words(const std::vector<UChar32>& text, std::vector<std::string>* words) {
  std::string word;
  auto flush = [&] {
    if (!word.empty()) words->push_back(std::move(word));
    word.clear();
  };
  for (UChar32 c : text) {
    if (is_bert_whitespace(c)) {
      flush();
    } else if (is_bert_punctuation(c)) {
      flush();
      append_utf8(c, &word);
      flush();
    } else {
      append_utf8(c, &word);
    }
  }
  flush();
}

StatusOr<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

struct WordPieceTokenizer::Impl {
  NormalizerOptions normalizer;
  Vocabulary vocabulary;
  std::string prefix = "##";
  std::size_t max_input_chars_per_word = 100;
  std::int32_t unknown = 0;
  std::int32_t cls = 0;
  std::int32_t sep = 0;
  embed::SpecialTokens specials;

  void word_pieces(const std::string& word, std::vector<std::int32_t>* ids) const {
    const auto* s = reinterpret_cast<const uint8_t*>(word.data());
    const auto length = static_cast<int32_t>(word.size());
    // Code point boundaries, as byte offsets.
    std::vector<int32_t> bounds;
    for (int32_t i = 0; i < length;) {
      bounds.push_back(i);
      U8_FWD_1(s, i, length);
    }
    if (bounds.size() > max_input_chars_per_word) {
      ids->push_back(unknown);
      return;
    }
    bounds.push_back(length);
    const std::size_t before = ids->size();
    std::string key;
    for (std::size_t start = 0; start + 1 < bounds.size();) {
      std::size_t end = bounds.size() - 1;
      std::int32_t id = -1;
      for (; end > start; --end) {
        key.assign(start > 0 ? prefix : std::string());
        key.append(word, static_cast<std::size_t>(bounds[start]),
                   static_cast<std::size_t>(bounds[end] - bounds[start]));
        auto it = vocabulary.find(key);
        if (it != vocabulary.end()) {
          id = it->second;
          break;
        }
      }
      if (id < 0) {
        ids->resize(before);
        ids->push_back(unknown);
        return;
      }
      ids->push_back(id);
      start = end;
    }
  }

  void encode_piece(std::string_view piece, std::vector<std::int32_t>* ids) const {
    std::vector<std::string> words;
    split_words(normalize(decode_utf8(piece), normalizer), &words);
    for (const std::string& word : words) word_pieces(word, ids);
  }
};

WordPieceTokenizer::WordPieceTokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
WordPieceTokenizer::WordPieceTokenizer(WordPieceTokenizer&&) noexcept = default;
WordPieceTokenizer& WordPieceTokenizer::operator=(WordPieceTokenizer&&) noexcept = default;
WordPieceTokenizer::~WordPieceTokenizer() = default;

StatusOr<WordPieceTokenizer> WordPieceTokenizer::load(const std::string& path) {
  RAGMETER_ASSIGN_OR_RETURN(std::string text, read_file(path));
  return parse(text, path);
}

StatusOr<WordPieceTokenizer> WordPieceTokenizer::parse(std::string_view json_text,
                                                       const std::string& name) {
  using nlohmann::json;
  const json doc = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return invalid_argument(name + ": not a JSON object");
  auto bad = [&name](const std::string& field, const std::string& what) {
    return invalid_argument(name + ": field " + field + ": " + what);
  };
  auto impl = std::make_unique<Impl>();
  try {
    const json& normalizer = doc.value("normalizer", json());
    if (!normalizer.is_object() || normalizer.value("type", "") != "BertNormalizer") {
      return bad("normalizer", "not a BertNormalizer (only BERT WordPiece tokenizers are supported)");
    }
    impl->normalizer.clean_text = normalizer.value("clean_text", true);
    impl->normalizer.handle_chinese_chars = normalizer.value("handle_chinese_chars", true);
    impl->normalizer.lowercase = normalizer.value("lowercase", true);
    const json& strip = normalizer.value("strip_accents", json());
    impl->normalizer.strip_accents = strip.is_boolean() ? strip.get<bool>() : impl->normalizer.lowercase;

    const json& pre = doc.value("pre_tokenizer", json());
    if (!pre.is_object() || pre.value("type", "") != "BertPreTokenizer") {
      return bad("pre_tokenizer", "not a BertPreTokenizer");
    }
    const json& model = doc.value("model", json());
    if (!model.is_object() || model.value("type", "") != "WordPiece") {
      return bad("model", "not a WordPiece model");
    }
    const json& vocab = model.value("vocab", json());
    if (!vocab.is_object() || vocab.empty()) return bad("model.vocab", "missing or empty");
    for (const auto& [token, id] : vocab.items()) {
      if (!id.is_number_integer()) return bad("model.vocab." + token, "not an integer id");
      impl->vocabulary.emplace(token, id.get<std::int32_t>());
    }
    impl->prefix = model.value("continuing_subword_prefix", std::string("##"));
    impl->max_input_chars_per_word = model.value("max_input_chars_per_word", std::size_t{100});
    const std::string unknown = model.value("unk_token", std::string("[UNK]"));
    auto id_of = [&](const std::string& token) -> std::int32_t {
      auto it = impl->vocabulary.find(token);
      return it == impl->vocabulary.end() ? -1 : it->second;
    };
    impl->unknown = id_of(unknown);
    if (impl->unknown < 0) return bad("model.unk_token", "\"" + unknown + "\" is not in the vocabulary");
    impl->cls = id_of("[CLS]");
    impl->sep = id_of("[SEP]");
    const json& post = doc.value("post_processor", json());
    if (post.is_object() && post.contains("special_tokens")) {
      const json& specials = post["special_tokens"];
      if (specials.contains("[CLS]")) impl->cls = specials["[CLS]"]["ids"].at(0).get<std::int32_t>();
      if (specials.contains("[SEP]")) impl->sep = specials["[SEP]"]["ids"].at(0).get<std::int32_t>();
    }
    if (impl->cls < 0 || impl->sep < 0) return bad("model.vocab", "no [CLS] or [SEP] token");

    auto specials = embed::SpecialTokens::read(doc, name);
    if (!specials.ok()) return specials.status();
    impl->specials = std::move(specials).value();
  } catch (const json::exception& e) {
    return invalid_argument(name + ": " + e.what());
  }
  return WordPieceTokenizer(std::move(impl));
}

std::vector<std::int32_t> WordPieceTokenizer::encode(std::string_view text,
                                                     std::size_t max_length) const {
  std::vector<std::int32_t> ids{impl_->cls};
  impl_->specials.split(
      text, [&](std::string_view piece) { impl_->encode_piece(piece, &ids); },
      [&](std::int32_t id) { ids.push_back(id); });
  if (max_length > 0) ids.resize(std::min(ids.size(), std::max<std::size_t>(max_length, 2) - 1));
  ids.push_back(impl_->sep);
  return ids;
}

std::vector<std::string> WordPieceTokenizer::pre_tokenize(std::string_view text) const {
  std::vector<std::string> words;
  impl_->specials.split(
      text, [&](std::string_view piece) { split_words(normalize(decode_utf8(piece), impl_->normalizer), &words); },
      [&](std::int32_t id) {
        if (const std::string* content = impl_->specials.content_of(id)) words.push_back(*content);
      });
  return words;
}

std::int32_t WordPieceTokenizer::cls_id() const { return impl_->cls; }
std::int32_t WordPieceTokenizer::sep_id() const { return impl_->sep; }
std::int32_t WordPieceTokenizer::unknown_id() const { return impl_->unknown; }
std::size_t WordPieceTokenizer::vocabulary_size() const { return impl_->vocabulary.size(); }

}  // namespace ragmeter
