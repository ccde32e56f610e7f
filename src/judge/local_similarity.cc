// Batched similarity by the local sentence embedder (local_similarity.h).
#include "judge/local_similarity.h"

#include <algorithm>
#include <optional>
#include <unordered_set>

namespace ragmeter {
namespace {

double dot(const std::vector<float>& a, const std::vector<float>& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) sum += static_cast<double>(a[i]) * b[i];
  return std::clamp(sum, -1.0, 1.0);
}

}  // namespace

LocalSimilarity::LocalSimilarity(std::shared_ptr<const SentenceEmbedder> embedder)
    : embedder_(std::move(embedder)) {}

void LocalSimilarity::prepare_batch(const std::vector<const Sample*>& samples) {
  auto batch = std::make_shared<Batch>();
  std::unordered_set<std::string_view> seen;
  std::size_t piece_ids = 0;
  auto add = [&](std::optional<std::string_view> text) {
    if (!text || !seen.insert(*text).second) return;
    const std::size_t ids = embedder_->tokenizer().encode(*text, embedder_->max_tokens()).size();
    const bool full = piece_ids + ids > kPieceIds && !batch->pieces.back().texts.empty();
    if (batch->pieces.empty() || full) {
      batch->pieces.emplace_back();
      piece_ids = 0;
    }
    batch->pieces.back().texts.emplace_back(*text);
    piece_ids += ids;
  };
  for (const Sample* sample : samples) {
    add(sample->user_input);
    add(sample->response);
    add(sample->reference());
  }
  for (std::size_t p = 0; p < batch->pieces.size(); ++p) {
    const std::vector<std::string>& texts = batch->pieces[p].texts;
    for (std::size_t k = 0; k < texts.size(); ++k) {
      batch->where.emplace(texts[k], std::make_pair(p, k));
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  batch_ = std::move(batch);
}

std::vector<std::vector<float>> LocalSimilarity::vectors_of(const std::vector<std::string>& texts) {
  std::shared_ptr<Batch> batch;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    batch = batch_;
  }
  std::vector<std::vector<float>> out(texts.size());
  std::vector<std::string> missing;
  std::vector<std::size_t> missing_at;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    if (batch != nullptr) {
      if (auto found = batch->where.find(texts[i]); found != batch->where.end()) {
        Piece& piece = batch->pieces[found->second.first];
        std::call_once(piece.embedded,
                       [&piece, this] { piece.vectors = embedder_->embed(piece.texts); });
        out[i] = piece.vectors[found->second.second];
        continue;
      }
    }
    missing.push_back(texts[i]);
    missing_at.push_back(i);
  }
  if (!missing.empty()) {
    auto vectors = embedder_->embed(missing);
    for (std::size_t j = 0; j < missing.size(); ++j) out[missing_at[j]] = std::move(vectors[j]);
  }
  return out;
}

double LocalSimilarity::similarity(std::string_view a, std::string_view b) {
  const auto vectors = vectors_of({std::string(a), std::string(b)});
  return dot(vectors[0], vectors[1]);
}

std::vector<double> LocalSimilarity::similarities(std::string_view a, const std::vector<std::string>& others) {
  std::vector<std::string> texts{std::string(a)};
  texts.insert(texts.end(), others.begin(), others.end());
  const auto vectors = vectors_of(texts);
  std::vector<double> out;
  for (std::size_t i = 1; i < vectors.size(); ++i) out.push_back(dot(vectors[0], vectors[i]));
  return out;
}

}  // namespace ragmeter
