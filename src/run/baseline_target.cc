// The built-in baseline RAG system: `gen`'s loader, chunker and hashed-embedding vector
// index over a folder of documents, and a chat model that answers from the top K chunks.
// Deliberately plain (no reranker, no query rewriting): a floor to hold a real system
// against, and an end-to-end path that needs only a local model.
#include <fmt/format.h>

#include <string>
#include <vector>

#include "llm/response_cache.h"
#include "ragmeter/chunker.h"
#include "ragmeter/documents.h"
#include "ragmeter/hashed_embedding.h"
#include "ragmeter/sentence_embedder.h"
#include "ragmeter/run.h"
#include "ragmeter/vector_index.h"

namespace ragmeter {
namespace {

constexpr const char* kBaselineSystem =
    "You answer questions using only the numbered context passages you are given. Answer in "
    "one to three sentences. If the passages do not contain the answer, say that you do not know.";

// The query and chunk vectors: the local sentence embedder when given, else hashed.
std::vector<float> embed(const BaselineTargetOptions& options, std::string_view text) {
  return options.embedder ? options.embedder->embed(text) : hashed_embedding(text);
}

std::string embedder_identity(const BaselineTargetOptions& options) {
  return options.embedder ? options.embedder->identity()
                          : "offline hashed-" + std::to_string(kHashedEmbeddingDimensions);
}

class BaselineTarget final : public BlockingTarget {
 public:
  BaselineTarget(BaselineTargetOptions options, std::vector<DocumentChunk> chunks, VectorIndex index)
      : options_(std::move(options)), chunks_(std::move(chunks)), index_(std::move(index)) {
    std::string ids;
    for (const DocumentChunk& chunk : chunks_) ids += chunk.id + "\n";
    chunks_address_ = llm::content_address(ids);
  }

  TargetOutcome answer(const TargetRequest& request, int) override {
    std::vector<VectorHit> hits = index_.search(embed(options_, request.question), options_.top_k);
    TargetAnswer answer;
    answer.contexts.emplace();
    answer.context_ids.emplace();
    std::string passages;
    for (std::size_t i = 0; i < hits.size(); ++i) {
      const DocumentChunk& chunk = chunks_[hits[i].id];
      answer.contexts->push_back(chunk.text);
      answer.context_ids->push_back(chunk.id);
      passages += fmt::format("[{}] {}\n\n", i + 1, chunk.text);
    }
    llm::ChatRequest chat;
    chat.messages = {{"system", kBaselineSystem},
                     {"user", "Context passages:\n\n" + passages + "Question: " + request.question}};
    chat.max_tokens = options_.max_tokens;
    auto reply = options_.chat->chat(std::move(chat)).get();
    if (!reply.ok()) {
      return target_failure("llm_error", "the baseline's chat model failed: " + reply.status().message());
    }
    if (reply->choices.empty()) return target_failure("llm_error", "the baseline's chat model sent no choice");
    answer.response = reply->choices.front().content;
    answer.prompt_tokens = reply->usage.prompt_tokens;
    answer.completion_tokens = reply->usage.completion_tokens;
    TargetOutcome outcome;
    outcome.answer = std::move(answer);
    return outcome;
  }

  std::string identity() const override {
    return nlohmann::ordered_json({{"kind", "baseline"},
                                   {"chunks", chunks_address_},
                                   {"chunk_size", options_.chunk_size},
                                   {"chunk_overlap", options_.chunk_overlap},
                                   {"top_k", options_.top_k},
                                   {"embedder", embedder_identity(options_)},
                                   {"endpoint", options_.endpoint},
                                   {"model", options_.model},
                                   {"max_tokens", options_.max_tokens},
                                   {"system", kBaselineSystem}})
        .dump();
  }

  // The chat calls in flight fail at once (llm_error), so the pool's threads are free.
  void cancel() override { options_.chat->cancel(); }

  nlohmann::ordered_json diagnostics() const override {
    return {{"baseline", {{"docs", options_.docs}, {"chunks", chunks_.size()},
                          {"top_k", options_.top_k}, {"model", options_.model}}}};
  }

 private:
  BaselineTargetOptions options_;
  std::vector<DocumentChunk> chunks_;
  VectorIndex index_;
  std::string chunks_address_;  // names the chunk set: new documents, new identity
};

}  // namespace

StatusOr<std::unique_ptr<Target>> make_baseline_target(const BaselineTargetOptions& options) {
  if (!options.chat) return invalid_argument("the baseline needs a chat model (--llm-url, --llm-model)");
  if (options.top_k == 0) return invalid_argument("the baseline's top_k must be at least 1");
  LoadResult loaded = load_documents(options.docs);
  ChunkerOptions chunking;
  chunking.size = options.chunk_size;
  chunking.overlap = options.chunk_overlap;
  std::vector<DocumentChunk> chunks;
  for (const Document& document : loaded.documents) {
    RAGMETER_ASSIGN_OR_RETURN(std::vector<DocumentChunk> pieces, chunk_document(document, chunking));
    for (DocumentChunk& piece : pieces) chunks.push_back(std::move(piece));
  }
  if (chunks.empty()) {
    return invalid_argument(fmt::format("the baseline found no text to index under {} ({} files seen, "
                                        "{} could not be read)",
                                        options.docs, loaded.files_seen, loaded.problems.size()));
  }
  const int dimensions = options.embedder ? options.embedder->dimensions() : kHashedEmbeddingDimensions;
  RAGMETER_ASSIGN_OR_RETURN(VectorIndex index, VectorIndex::create(dimensions));
  if (options.embedder) {  // every chunk in one pass
    std::vector<std::string> texts;
    for (const DocumentChunk& chunk : chunks) texts.push_back(chunk.text);
    for (const std::vector<float>& vector : options.embedder->embed(texts)) {
      RAGMETER_RETURN_IF_ERROR(index.add(vector).status());
    }
  } else {
    for (const DocumentChunk& chunk : chunks) {
      RAGMETER_RETURN_IF_ERROR(index.add(hashed_embedding(chunk.text)).status());
    }
  }
  auto target = std::make_shared<BaselineTarget>(options, std::move(chunks), std::move(index));
  return make_pooled_target(std::move(target), options.workers);
}

}  // namespace ragmeter
