// XLM-RoBERTa's unigram tokenizer from a tokenizer.json, run by libsentencepiece
// (src/embed/sentencepiece_tokenizer.h).
#include "embed/sentencepiece_tokenizer.h"

#include <openssl/evp.h>
#include <sentencepiece_processor.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "embed/special_tokens.h"

namespace ragmeter {
namespace {

using json = nlohmann::json;

constexpr std::string_view kMetaspace = "\xE2\x96\x81";  // U+2581

// The protobuf wire format, as much of it as a SentencePiece ModelProto needs.
class ProtoWriter {
 public:
  void varint_field(int field, std::uint64_t value) {
    varint(static_cast<std::uint64_t>(field) << 3);
    varint(value);
  }
  void float_field(int field, float value) {
    varint((static_cast<std::uint64_t>(field) << 3) | 5);
    char bytes[4];
    std::memcpy(bytes, &value, 4);  // little-endian on every platform ragmeter builds for
    out_.append(bytes, 4);
  }
  void bytes_field(int field, std::string_view bytes) {
    varint((static_cast<std::uint64_t>(field) << 3) | 2);
    varint(bytes.size());
    out_.append(bytes);
  }
  const std::string& bytes() const { return out_; }

 private:
  void varint(std::uint64_t value) {
    while (value >= 0x80) {
      out_ += static_cast<char>((value & 0x7F) | 0x80);
      value >>= 7;
    }
    out_ += static_cast<char>(value);
  }
  std::string out_;
};

// sentencepiece_model.proto's SentencePiece.Type.
enum PieceType : int { kNormal = 1, kUnknown = 2, kControl = 3 };

struct Piece {
  std::string text;
  float score = 0;
  int type = kNormal;
};

struct SpecialIds {
  std::int32_t bos = 0, eos = 2, pad = -1, unknown = 3;  // -1: none
};

// An int32 field's varint: a negative value as its 64-bit two's complement, as protobuf does.
std::uint64_t int32_varint(std::int32_t value) { return static_cast<std::uint64_t>(static_cast<std::int64_t>(value)); }

// A ModelProto (field numbers of sentencepiece_model.proto): a unigram model of `pieces`
// whose normaliser applies `charsmap` (none: the text as it is) and nothing else: no
// dummy prefix, no whitespace removal, no escaping (proto2 defaults are true, so the
// false values are written).
std::string model_proto(const std::vector<Piece>& pieces, const SpecialIds& ids, std::string_view charsmap) {
  ProtoWriter model;
  for (const Piece& p : pieces) {
    ProtoWriter piece;
    piece.bytes_field(1, p.text);
    piece.float_field(2, p.score);
    piece.varint_field(3, static_cast<std::uint64_t>(p.type));
    model.bytes_field(1, piece.bytes());
  }
  ProtoWriter trainer;
  trainer.varint_field(3, 1);  // model_type UNIGRAM
  trainer.varint_field(40, int32_varint(ids.unknown));
  trainer.varint_field(41, int32_varint(ids.bos));
  trainer.varint_field(42, int32_varint(ids.eos));
  trainer.varint_field(43, int32_varint(ids.pad));
  model.bytes_field(2, trainer.bytes());
  ProtoWriter normalizer;
  normalizer.bytes_field(1, charsmap.empty() ? "identity" : "precompiled");
  if (!charsmap.empty()) normalizer.bytes_field(2, charsmap);
  normalizer.varint_field(3, 0);  // add_dummy_prefix
  normalizer.varint_field(4, 0);  // remove_extra_whitespaces
  normalizer.varint_field(5, 0);  // escape_whitespaces
  model.bytes_field(3, normalizer.bytes());
  return model.bytes();
}

std::string decode_base64(std::string_view text) {
  std::string out(text.size() / 4 * 3 + 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (n < 0) return {};
  std::size_t size = static_cast<std::size_t>(n);
  for (std::size_t i = text.size(); i > 0 && text[i - 1] == '=' && size > 0; --i) --size;  // padding
  out.resize(size);
  return out;
}

std::string read_file(const std::string& path, bool* ok) {
  std::ifstream in(path, std::ios::binary);
  *ok = static_cast<bool>(in);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

struct SentencePieceTokenizer::Impl {
  sentencepiece::SentencePieceProcessor normalizer;  // the charsmap; every character unknown
  sentencepiece::SentencePieceProcessor segmenter;   // the vocabulary; no normalisation
  embed::SpecialTokens specials;
  SpecialIds ids;
  std::size_t vocabulary_size = 0;

  // Steps 2-4 of the header on text without special tokens.
  std::string normalize(std::string_view text) const {
    std::vector<std::string> pieces;
    if (!normalizer.Encode(text, &pieces).ok()) return {};
    std::string out;
    bool space = false;
    for (const std::string& piece : pieces) {
      for (char c : piece) {
        if (c == ' ') {
          if (!space) out += kMetaspace;  // a run of spaces is one
          space = true;
          continue;
        }
        space = false;
        out += c;
      }
    }
    if (!out.empty() && out.compare(0, kMetaspace.size(), kMetaspace) != 0) out.insert(0, kMetaspace);
    return out;
  }

  void encode_text(std::string_view text, std::vector<std::int32_t>* out) const {
    const std::string normalized = normalize(text);
    if (normalized.empty()) return;
    std::vector<int> pieces;
    if (!segmenter.Encode(normalized, &pieces).ok()) return;
    out->insert(out->end(), pieces.begin(), pieces.end());
  }
};

SentencePieceTokenizer::SentencePieceTokenizer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SentencePieceTokenizer::SentencePieceTokenizer(SentencePieceTokenizer&&) noexcept = default;
SentencePieceTokenizer& SentencePieceTokenizer::operator=(SentencePieceTokenizer&&) noexcept = default;
SentencePieceTokenizer::~SentencePieceTokenizer() = default;

StatusOr<SentencePieceTokenizer> SentencePieceTokenizer::load(const std::string& path) {
  bool ok = false;
  const std::string text = read_file(path, &ok);
  if (!ok) return not_found("cannot read " + path);
  return parse(text, path);
}

namespace {

// The charsmap of a normalizer Sequence [Precompiled, Replace(" {2,}" -> " ")], the only
// shape whose steps the tokenizer reproduces.
StatusOr<std::string> read_charsmap(const json& doc, const std::string& name) {
  const json& normalizer = doc.value("normalizer", json());
  const json& steps = normalizer.is_object() ? normalizer.value("normalizers", json()) : json();
  auto bad = [&name](const std::string& what) {
    return invalid_argument(name + ": field normalizer: " + what +
                            " (only XLM-RoBERTa's Precompiled then Replace(\" {2,}\", \" \") is supported)");
  };
  if (!steps.is_array() || steps.size() != 2 || steps[0].value("type", "") != "Precompiled") {
    return bad("not a Sequence of Precompiled and Replace");
  }
  const json& replace = steps[1];
  if (replace.value("type", "") != "Replace" || replace.value("content", "") != " " ||
      !replace.contains("pattern") || replace["pattern"].value("Regex", "") != " {2,}") {
    return bad("the second step is not Replace(\" {2,}\", \" \")");
  }
  std::string charsmap = decode_base64(steps[0].value("precompiled_charsmap", std::string()));
  if (charsmap.empty()) return bad("precompiled_charsmap is missing or not base64");
  return charsmap;
}

Status check_metaspace(const json& doc, const std::string& name) {
  const json& pre = doc.value("pre_tokenizer", json());
  const bool prefix = pre.is_object() && (pre.value("add_prefix_space", false) ||
                                          pre.value("prepend_scheme", std::string()) == "always");
  if (!pre.is_object() || pre.value("type", "") != "Metaspace" ||
      pre.value("replacement", std::string()) != kMetaspace || !prefix || !pre.value("split", true)) {
    return invalid_argument(name + ": field pre_tokenizer: not a Metaspace with \"\u2581\" that splits and "
                                   "always puts one in front");
  }
  return Status();
}

StatusOr<std::vector<Piece>> read_pieces(const json& model, const std::string& name, SpecialIds* ids) {
  auto bad = [&name](const std::string& field, const std::string& what) {
    return invalid_argument(name + ": field " + field + ": " + what);
  };
  if (!model.is_object() || model.value("type", "") != "Unigram") return bad("model", "not a Unigram model");
  if (model.value("byte_fallback", false)) return bad("model.byte_fallback", "byte fallback is not supported");
  const json& vocab = model.value("vocab", json());
  if (!vocab.is_array() || vocab.empty()) return bad("model.vocab", "missing or empty");
  ids->unknown = model.value("unk_id", -1);
  if (ids->unknown < 0 || static_cast<std::size_t>(ids->unknown) >= vocab.size()) {
    return bad("model.unk_id", "missing or outside the vocabulary");
  }
  std::vector<Piece> pieces;
  pieces.reserve(vocab.size());
  for (const json& entry : vocab) {
    if (!entry.is_array() || entry.size() != 2 || !entry[0].is_string() || !entry[1].is_number()) {
      return bad("model.vocab[" + std::to_string(pieces.size()) + "]", "not a [piece, score] pair");
    }
    pieces.push_back(Piece{entry[0].get<std::string>(), entry[1].get<float>(), kNormal});
  }
  return pieces;
}

}  // namespace

StatusOr<SentencePieceTokenizer> SentencePieceTokenizer::parse(std::string_view json_text, const std::string& name) {
  const json doc = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return invalid_argument(name + ": not a JSON object");
  auto impl = std::make_unique<Impl>();
  std::vector<Piece> pieces;
  std::string charsmap;
  try {
    RAGMETER_ASSIGN_OR_RETURN(charsmap, read_charsmap(doc, name));
    RAGMETER_RETURN_IF_ERROR(check_metaspace(doc, name));
    RAGMETER_ASSIGN_OR_RETURN(pieces, read_pieces(doc.value("model", json()), name, &impl->ids));
    RAGMETER_ASSIGN_OR_RETURN(impl->specials, embed::SpecialTokens::read(doc, name));
    const json& post = doc.value("post_processor", json());
    const json& specials = post.is_object() ? post.value("special_tokens", json()) : json();
    if (!specials.is_object() || !specials.contains("<s>") || !specials.contains("</s>")) {
      return invalid_argument(name + ": field post_processor: no <s> ... </s> template");
    }
    impl->ids.bos = specials["<s>"]["ids"].at(0).get<std::int32_t>();
    impl->ids.eos = specials["</s>"]["ids"].at(0).get<std::int32_t>();
  } catch (const json::exception& e) {
    return invalid_argument(name + ": " + e.what());
  }
  // Special tokens are never produced from text (they are split off first), so they are
  // control pieces for libsentencepiece; the unknown piece is its unknown.
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (static_cast<std::int32_t>(i) == impl->ids.unknown) {
      pieces[i].type = kUnknown;
    } else if (impl->specials.content_of(static_cast<std::int32_t>(i)) != nullptr) {
      pieces[i].type = kControl;
    }
  }
  // The normaliser: the special pieces, one normal piece (libsentencepiece wants one), and
  // nothing else, so every other character is unknown and the pieces spell the text.
  std::vector<Piece> normalizer_pieces;
  SpecialIds normalizer_ids;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (pieces[i].type == kNormal) continue;
    const auto id = static_cast<std::int32_t>(i);
    const auto at = static_cast<std::int32_t>(normalizer_pieces.size());
    if (id == impl->ids.unknown) normalizer_ids.unknown = at;
    if (id == impl->ids.bos) normalizer_ids.bos = at;
    if (id == impl->ids.eos) normalizer_ids.eos = at;
    if (pieces[i].text == "<pad>") {
      impl->ids.pad = id;
      normalizer_ids.pad = at;
    }
    normalizer_pieces.push_back(pieces[i]);
  }
  normalizer_pieces.push_back(Piece{std::string(kMetaspace), 0, kNormal});
  const auto normalizer = impl->normalizer.LoadFromSerializedProto(model_proto(normalizer_pieces, normalizer_ids, charsmap));
  if (!normalizer.ok()) {
    return invalid_argument(name + ": libsentencepiece refused the normaliser built from it: " + normalizer.ToString());
  }
  const auto segmenter = impl->segmenter.LoadFromSerializedProto(model_proto(pieces, impl->ids, ""));
  if (!segmenter.ok()) {
    return invalid_argument(name + ": libsentencepiece refused the model built from it: " + segmenter.ToString());
  }
  impl->vocabulary_size = pieces.size();
  return SentencePieceTokenizer(std::move(impl));
}

std::vector<std::int32_t> SentencePieceTokenizer::encode(std::string_view text, std::size_t max_length) const {
  std::vector<std::int32_t> ids{impl_->ids.bos};
  impl_->specials.split(
      text, [&](std::string_view piece) { impl_->encode_text(piece, &ids); },
      [&](std::int32_t id) { ids.push_back(id); });
  if (max_length > 0) ids.resize(std::min(ids.size(), std::max<std::size_t>(max_length, 2) - 1));
  ids.push_back(impl_->ids.eos);
  return ids;
}

std::int32_t SentencePieceTokenizer::bos_id() const { return impl_->ids.bos; }
std::int32_t SentencePieceTokenizer::eos_id() const { return impl_->ids.eos; }
std::int32_t SentencePieceTokenizer::unknown_id() const { return impl_->ids.unknown; }
std::size_t SentencePieceTokenizer::vocabulary_size() const { return impl_->vocabulary_size; }

}  // namespace ragmeter
