// BERT encoder forward pass, mean pooling and normalisation (bert_encoder.h).
#include "embed/bert_encoder.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "embed/gemm.h"
#include "embed/safetensors.h"

namespace ragmeter::embed {
namespace {

// out[r] = bias for each of `rows` rows of `cols`: the C of an sgemm with beta = 1.
void fill_rows(const float* bias, int rows, int cols, float* out) {
  for (int r = 0; r < rows; ++r) std::memcpy(out + static_cast<std::size_t>(r) * cols, bias, sizeof(float) * cols);
}

// C[rows x out] += A[rows x in] * W^T, W row-major [out x in] (PyTorch's Linear layout).
void add_linear(const float* a, int rows, int in, const float* weight, int out, float* c) {
  sgemm(true, rows, out, in, 1.0f, a, in, weight, in, 1.0f, c, out);
}

// x = LayerNorm(x + residual) row by row (residual may be null).
void add_layer_norm(float* x, const float* residual, int rows, int cols, const float* gamma,
                    const float* beta, float eps) {
  for (int r = 0; r < rows; ++r) {
    float* row = x + static_cast<std::size_t>(r) * cols;
    if (residual != nullptr) {
      const float* add = residual + static_cast<std::size_t>(r) * cols;
      for (int i = 0; i < cols; ++i) row[i] += add[i];
    }
    double mean = 0;
    for (int i = 0; i < cols; ++i) mean += row[i];
    mean /= cols;
    double variance = 0;
    for (int i = 0; i < cols; ++i) variance += (row[i] - mean) * (row[i] - mean);
    variance /= cols;
    const auto scale = static_cast<float>(1.0 / std::sqrt(variance + eps));
    const auto m = static_cast<float>(mean);
    for (int i = 0; i < cols; ++i) row[i] = (row[i] - m) * scale * gamma[i] + beta[i];
  }
}

// BERT's exact GELU: x/2 (1 + erf(x / sqrt(2))).
void gelu(float* x, std::size_t n) {
  constexpr float kInvSqrt2 = 0.70710678118654752f;
  for (std::size_t i = 0; i < n; ++i) x[i] = 0.5f * x[i] * (1.0f + std::erf(x[i] * kInvSqrt2));
}

void softmax_rows(float* x, int rows, int cols) {
  for (int r = 0; r < rows; ++r) {
    float* row = x + static_cast<std::size_t>(r) * cols;
    const float top = *std::max_element(row, row + cols);
    float sum = 0;
    for (int i = 0; i < cols; ++i) {
      row[i] = std::exp(row[i] - top);
      sum += row[i];
    }
    const float inv = 1.0f / sum;
    for (int i = 0; i < cols; ++i) row[i] *= inv;
  }
}

// Writes the 32 weights of one Q4_0 block.
void dequantize_block(const std::byte* block, float* out) {
  const auto half = static_cast<std::uint16_t>(std::to_integer<unsigned>(block[0]) |
                                               (std::to_integer<unsigned>(block[1]) << 8));
  const float d = half_to_float(half);
  for (int j = 0; j < 16; ++j) {
    const unsigned byte = std::to_integer<unsigned>(block[2 + j]);
    out[j] = static_cast<float>(static_cast<int>(byte & 15) - 8) * d;
    out[j + 16] = static_cast<float>(static_cast<int>(byte >> 4) - 8) * d;
  }
}

class SafetensorsTensors : public BertTensors {
 public:
  explicit SafetensorsTensors(std::shared_ptr<const SafetensorsFile> file) : file_(std::move(file)) {}

  StatusOr<const float*> f32(const std::string& name, const std::vector<std::int64_t>& shape) override {
    if (file_->tensors().count(name) == 0 && file_->tensors().count("bert." + name) != 0) {
      return file_->f32("bert." + name, shape);
    }
    return file_->f32(name, shape);
  }

  StatusOr<WordEmbeddings> word_embeddings(std::int64_t vocabulary, std::int64_t hidden) override {
    RAGMETER_ASSIGN_OR_RETURN(const float* rows, f32("embeddings.word_embeddings.weight", {vocabulary, hidden}));
    return WordEmbeddings::f32(rows, static_cast<int>(hidden));
  }

 private:
  std::shared_ptr<const SafetensorsFile> file_;
};

}  // namespace

float half_to_float(std::uint16_t half) {
  const std::uint32_t sign = static_cast<std::uint32_t>(half & 0x8000u) << 16;
  std::uint32_t exponent = (half >> 10) & 0x1Fu;
  std::uint32_t mantissa = half & 0x3FFu;
  std::uint32_t bits = 0;
  if (exponent == 0x1F) {
    bits = sign | 0x7F800000u | (mantissa << 13);  // infinity, NaN
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);  // 127 - 15 = 112
  } else if (mantissa != 0) {
    // Subnormal: shift the mantissa up to normal form.
    exponent = 113;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      --exponent;
    }
    bits = sign | (exponent << 23) | ((mantissa & 0x3FFu) << 13);
  } else {
    bits = sign;  // zero
  }
  float out;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

std::vector<float> dequantize_q4_0(const std::byte* blocks, std::int64_t rows, std::int64_t columns) {
  std::vector<float> out(static_cast<std::size_t>(rows * columns));
  const std::size_t count = out.size() / kQ4BlockWeights;
  for (std::size_t b = 0; b < count; ++b) dequantize_block(blocks + b * kQ4BlockBytes, out.data() + b * kQ4BlockWeights);
  return out;
}

WordEmbeddings WordEmbeddings::f32(const float* rows, int hidden) {
  WordEmbeddings out;
  out.f32_ = rows;
  out.hidden_ = hidden;
  return out;
}

WordEmbeddings WordEmbeddings::q4_0(const std::byte* blocks, int hidden) {
  WordEmbeddings out;
  out.q4_0_ = blocks;
  out.hidden_ = hidden;
  return out;
}

void WordEmbeddings::row(std::int32_t id, float* out) const {
  const auto h = static_cast<std::size_t>(hidden_);
  if (f32_ != nullptr) {
    std::memcpy(out, f32_ + static_cast<std::size_t>(id) * h, h * sizeof(float));
    return;
  }
  const std::size_t blocks = h / kQ4BlockWeights;
  const std::byte* row = q4_0_ + static_cast<std::size_t>(id) * blocks * kQ4BlockBytes;
  for (std::size_t b = 0; b < blocks; ++b) dequantize_block(row + b * kQ4BlockBytes, out + b * kQ4BlockWeights);
}

std::shared_ptr<BertTensors> safetensors_bert_tensors(std::shared_ptr<const SafetensorsFile> file) {
  return std::make_shared<SafetensorsTensors>(std::move(file));
}

StatusOr<BertConfig> read_bert_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) return not_found("cannot read " + path);
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return invalid_argument(path + ": not a JSON object");
  BertConfig config;
  auto bad = [&path](const std::string& field, const std::string& what) {
    return invalid_argument(path + ": field " + field + ": " + what);
  };
  try {
    config.vocabulary = doc.at("vocab_size").get<int>();
    config.hidden = doc.at("hidden_size").get<int>();
    config.layers = doc.at("num_hidden_layers").get<int>();
    config.heads = doc.at("num_attention_heads").get<int>();
    config.intermediate = doc.at("intermediate_size").get<int>();
    config.max_positions = doc.at("max_position_embeddings").get<int>();
    config.token_types = doc.value("type_vocab_size", 2);
    config.layer_norm_eps = doc.value("layer_norm_eps", 1e-12f);
    if (doc.value("hidden_act", std::string("gelu")) != "gelu") {
      return bad("hidden_act", "only \"gelu\" (BERT's exact erf form) is supported");
    }
    if (doc.value("position_embedding_type", std::string("absolute")) != "absolute") {
      return bad("position_embedding_type", "only \"absolute\" is supported");
    }
  } catch (const nlohmann::json::exception& e) {
    return invalid_argument(path + ": " + e.what());
  }
  if (config.hidden <= 0 || config.heads <= 0 || config.hidden % config.heads != 0) {
    return bad("num_attention_heads", "must divide hidden_size");
  }
  if (config.layers <= 0 || config.intermediate <= 0 || config.vocabulary <= 0 ||
      config.max_positions <= 2 || config.token_types <= 0) {
    return bad("num_hidden_layers", "sizes must be positive");
  }
  return config;
}

StatusOr<std::unique_ptr<const BertEncoder>> BertEncoder::load(std::shared_ptr<BertTensors> tensors,
                                                               const BertConfig& config) {
  sgemm_on_calling_thread_only();

  std::unique_ptr<BertEncoder> encoder(new BertEncoder());
  encoder->config_ = config;
  const std::int64_t h = config.hidden;
  const std::int64_t i = config.intermediate;
  BertTensors& file = *tensors;
  auto tensor = [&file](const std::string& name, std::vector<std::int64_t> shape) { return file.f32(name, shape); };
  RAGMETER_ASSIGN_OR_RETURN(encoder->word_embeddings_, file.word_embeddings(config.vocabulary, h));
  RAGMETER_ASSIGN_OR_RETURN(encoder->position_embeddings_,
                            tensor("embeddings.position_embeddings.weight", {config.max_positions, h}));
  RAGMETER_ASSIGN_OR_RETURN(encoder->token_type_embeddings_,
                            tensor("embeddings.token_type_embeddings.weight", {config.token_types, h}));
  RAGMETER_ASSIGN_OR_RETURN(encoder->embedding_norm_weight_, tensor("embeddings.LayerNorm.weight", {h}));
  RAGMETER_ASSIGN_OR_RETURN(encoder->embedding_norm_bias_, tensor("embeddings.LayerNorm.bias", {h}));
  for (int l = 0; l < config.layers; ++l) {
    const std::string p = "encoder.layer." + std::to_string(l) + ".";
    Layer layer{};
    layer.qkv_weight.resize(static_cast<std::size_t>(3 * h * h));
    layer.qkv_bias.resize(static_cast<std::size_t>(3 * h));
    int part = 0;
    for (const char* name : {"query", "key", "value"}) {
      RAGMETER_ASSIGN_OR_RETURN(const float* w, tensor(p + "attention.self." + name + ".weight", {h, h}));
      RAGMETER_ASSIGN_OR_RETURN(const float* b, tensor(p + "attention.self." + name + ".bias", {h}));
      std::copy(w, w + h * h, layer.qkv_weight.begin() + part * h * h);
      std::copy(b, b + h, layer.qkv_bias.begin() + part * h);
      ++part;
    }
    RAGMETER_ASSIGN_OR_RETURN(layer.attention_out_weight, tensor(p + "attention.output.dense.weight", {h, h}));
    RAGMETER_ASSIGN_OR_RETURN(layer.attention_out_bias, tensor(p + "attention.output.dense.bias", {h}));
    RAGMETER_ASSIGN_OR_RETURN(layer.attention_norm_weight, tensor(p + "attention.output.LayerNorm.weight", {h}));
    RAGMETER_ASSIGN_OR_RETURN(layer.attention_norm_bias, tensor(p + "attention.output.LayerNorm.bias", {h}));
    RAGMETER_ASSIGN_OR_RETURN(layer.intermediate_weight, tensor(p + "intermediate.dense.weight", {i, h}));
    RAGMETER_ASSIGN_OR_RETURN(layer.intermediate_bias, tensor(p + "intermediate.dense.bias", {i}));
    RAGMETER_ASSIGN_OR_RETURN(layer.output_weight, tensor(p + "output.dense.weight", {h, i}));
    RAGMETER_ASSIGN_OR_RETURN(layer.output_bias, tensor(p + "output.dense.bias", {h}));
    RAGMETER_ASSIGN_OR_RETURN(layer.output_norm_weight, tensor(p + "output.LayerNorm.weight", {h}));
    RAGMETER_ASSIGN_OR_RETURN(layer.output_norm_bias, tensor(p + "output.LayerNorm.bias", {h}));
    encoder->layers_.push_back(std::move(layer));
  }
  encoder->tensors_ = std::move(tensors);
  return std::unique_ptr<const BertEncoder>(std::move(encoder));
}

struct BertEncoder::Workspace {
  std::vector<float> hidden, qkv, context, scratch, intermediate, scores;
};

void BertEncoder::forward(const std::vector<std::span<const std::int32_t>>& sequences, Workspace* w) const {
  const int h = config_.hidden;
  const int heads = config_.heads;
  const int head_size = h / heads;
  const int inter = config_.intermediate;
  std::size_t total = 0, longest = 0;
  for (const auto& ids : sequences) {
    total += ids.size();
    longest = std::max(longest, ids.size());
  }
  const int t = static_cast<int>(total);
  w->hidden.resize(total * h);
  w->qkv.resize(total * 3 * h);
  w->context.resize(total * h);
  w->scratch.resize(total * h);
  w->intermediate.resize(total * inter);
  w->scores.resize(longest * longest);

  // Embeddings.
  float* x = w->hidden.data();
  std::size_t row = 0;
  for (const auto& ids : sequences) {
    for (std::size_t p = 0; p < ids.size(); ++p, ++row) {
      float* out = x + row * h;
      word_embeddings_.row(ids[p], out);
      const float* position = position_embeddings_ + p * h;
      for (int k = 0; k < h; ++k) out[k] += position[k] + token_type_embeddings_[k];
    }
  }
  add_layer_norm(x, nullptr, t, h, embedding_norm_weight_, embedding_norm_bias_, config_.layer_norm_eps);

  const float scale = 1.0f / std::sqrt(static_cast<float>(head_size));
  for (const Layer& layer : layers_) {
    float* qkv = w->qkv.data();
    fill_rows(layer.qkv_bias.data(), t, 3 * h, qkv);
    add_linear(x, t, h, layer.qkv_weight.data(), 3 * h, qkv);
    std::size_t start = 0;
    for (const auto& ids : sequences) {
      const int n = static_cast<int>(ids.size());
      for (int head = 0; head < heads; ++head) {
        const float* q = qkv + start * 3 * h + head * head_size;
        const float* k = q + h;
        const float* v = q + 2 * h;
        float* s = w->scores.data();
        sgemm(true, n, n, head_size, scale, q, 3 * h, k, 3 * h, 0.0f, s, n);
        softmax_rows(s, n, n);
        sgemm(false, n, head_size, n, 1.0f, s, n, v, 3 * h, 0.0f,
                    w->context.data() + start * h + head * head_size, h);
      }
      start += ids.size();
    }
    float* scratch = w->scratch.data();
    fill_rows(layer.attention_out_bias, t, h, scratch);
    add_linear(w->context.data(), t, h, layer.attention_out_weight, h, scratch);
    add_layer_norm(x, scratch, t, h, layer.attention_norm_weight, layer.attention_norm_bias, config_.layer_norm_eps);

    float* mid = w->intermediate.data();
    fill_rows(layer.intermediate_bias, t, inter, mid);
    add_linear(x, t, h, layer.intermediate_weight, inter, mid);
    gelu(mid, total * inter);
    fill_rows(layer.output_bias, t, h, scratch);
    add_linear(mid, t, inter, layer.output_weight, h, scratch);
    add_layer_norm(x, scratch, t, h, layer.output_norm_weight, layer.output_norm_bias, config_.layer_norm_eps);
  }
}

void BertEncoder::embed(const std::vector<std::span<const std::int32_t>>& sequences, float* out) const {
  const int h = config_.hidden;
  std::vector<std::span<const std::int32_t>> nonempty;
  for (const auto& ids : sequences) {
    if (!ids.empty()) nonempty.push_back(ids);
  }
  Workspace w;
  if (!nonempty.empty()) forward(nonempty, &w);
  std::size_t row = 0;
  for (std::size_t s = 0; s < sequences.size(); ++s) {
    float* target = out + s * h;
    std::fill(target, target + h, 0.0f);
    const std::size_t n = sequences[s].size();
    if (n == 0) continue;
    std::vector<double> sum(h, 0.0);
    for (std::size_t r = 0; r < n; ++r, ++row) {
      const float* x = w.hidden.data() + row * h;
      for (int k = 0; k < h; ++k) sum[k] += x[k];
    }
    double norm = 0;
    for (int k = 0; k < h; ++k) {
      sum[k] /= static_cast<double>(n);
      norm += sum[k] * sum[k];
    }
    norm = std::max(std::sqrt(norm), 1e-12);
    for (int k = 0; k < h; ++k) target[k] = static_cast<float>(sum[k] / norm);
  }
}

}  // namespace ragmeter::embed
