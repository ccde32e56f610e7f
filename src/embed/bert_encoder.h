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

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "embed/safetensors.h"
#include "ragmeter/status.h"

namespace ragmeter::embed {

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

// Reads a Hugging Face BERT config.json. InvalidArgument naming the file and the field
// for an unsupported model (hidden_act other than "gelu", relative position embeddings,
// hidden size not divisible by the heads).
StatusOr<BertConfig> read_bert_config(const std::string& path);

class BertEncoder {
 public:
  // The weights of a BertModel (names as transformers writes them, without the "bert."
  // prefix, which is also accepted) from a safetensors file. InvalidArgument naming the
  // file and the tensor when one is missing or of another shape.
  static StatusOr<std::unique_ptr<const BertEncoder>> load(std::shared_ptr<const SafetensorsFile> file,
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
  std::shared_ptr<const SafetensorsFile> file_;  // keeps the mapped weights alive
  const float* word_embeddings_ = nullptr;
  const float* position_embeddings_ = nullptr;
  const float* token_type_embeddings_ = nullptr;
  const float* embedding_norm_weight_ = nullptr;
  const float* embedding_norm_bias_ = nullptr;
  std::vector<Layer> layers_;
};

}  // namespace ragmeter::embed
