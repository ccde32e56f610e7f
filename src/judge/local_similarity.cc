// Batched similarity by the local sentence embedders (local_similarity.h).
#include "judge/local_similarity.h"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

namespace ragmeter {
namespace {

double dot(const std::vector<float>& a, const std::vector<float>& b) {
  double sum = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) sum += static_cast<double>(a[i]) * b[i];
  return std::clamp(sum, -1.0, 1.0);
}

}  // namespace

LocalSimilarity::LocalSimilarity(LocalEmbedders embedders)
    : embedders_(std::move(embedders)), identity_(embedders_.identity()) {}

void LocalSimilarity::prepare_batch(const std::vector<const Sample*>& samples) {
  auto batch = std::make_shared<Batch>();
  std::set<std::pair<const SentenceEmbedder*, std::string_view>> seen;
  std::map<const SentenceEmbedder*, std::size_t> piece_ids;  // ids in each model's last piece
  auto add = [&](std::optional<std::string_view> a, std::optional<std::string_view> b) {
    if (!a || !b) return;
    const auto chosen = embedders_.choose({*a, *b});
    if (!chosen.ok() || *chosen == nullptr) return;
    const SentenceEmbedder* model = *chosen;
    ModelBatch& texts = (*batch)[model];
    for (std::string_view text : {*a, *b}) {
      if (!seen.emplace(model, text).second) continue;
      const std::size_t ids = model->token_ids(text).size();
      std::size_t& filled = piece_ids[model];
      if (texts.pieces.empty() || (filled + ids > kPieceIds && !texts.pieces.back().texts.empty())) {
        texts.pieces.emplace_back();
        filled = 0;
      }
      texts.pieces.back().texts.emplace_back(text);
      filled += ids;
    }
  };
  for (const Sample* sample : samples) {
    add(sample->user_input, sample->response);
    add(sample->response, sample->reference());
  }
  for (auto& [model, texts] : *batch) {
    for (std::size_t p = 0; p < texts.pieces.size(); ++p) {
      const std::vector<std::string>& piece = texts.pieces[p].texts;
      for (std::size_t k = 0; k < piece.size(); ++k) texts.where.emplace(piece[k], std::make_pair(p, k));
    }
  }
  std::lock_guard<std::mutex> lock(mutex_);
  batch_ = std::move(batch);
}

std::vector<std::vector<float>> LocalSimilarity::vectors_of(const SentenceEmbedder& model,
                                                            const std::vector<std::string>& texts) {
  std::shared_ptr<Batch> batch;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    batch = batch_;
  }
  ModelBatch* mine = nullptr;
  if (batch != nullptr) {
    if (auto it = batch->find(&model); it != batch->end()) mine = &it->second;
  }
  std::vector<std::vector<float>> out(texts.size());
  std::vector<std::string> missing;
  std::vector<std::size_t> missing_at;
  for (std::size_t i = 0; i < texts.size(); ++i) {
    if (mine != nullptr) {
      if (auto found = mine->where.find(texts[i]); found != mine->where.end()) {
        Piece& piece = mine->pieces[found->second.first];
        std::call_once(piece.embedded, [&piece, &model] { piece.vectors = model.embed(piece.texts); });
        out[i] = piece.vectors[found->second.second];
        continue;
      }
    }
    missing.push_back(texts[i]);
    missing_at.push_back(i);
  }
  if (!missing.empty()) {
    auto vectors = model.embed(missing);
    for (std::size_t j = 0; j < missing.size(); ++j) out[missing_at[j]] = std::move(vectors[j]);
  }
  return out;
}

StatusOr<double> LocalSimilarity::similarity(std::string_view a, std::string_view b) {
  RAGMETER_ASSIGN_OR_RETURN(const SentenceEmbedder* model, embedders_.choose({a, b}));
  const auto vectors = vectors_of(*model, {std::string(a), std::string(b)});
  return dot(vectors[0], vectors[1]);
}

StatusOr<std::vector<double>> LocalSimilarity::similarities(std::string_view a,
                                                            const std::vector<std::string>& others) {
  RAGMETER_ASSIGN_OR_RETURN(const SentenceEmbedder* model, embedders_.choose({a}));
  for (const std::string& other : others) {
    RAGMETER_ASSIGN_OR_RETURN(const SentenceEmbedder* pair_model, embedders_.choose({a, other}));
    if (pair_model != model) {  // one of `others` is not English
      RAGMETER_ASSIGN_OR_RETURN(model, embedders_.multilingual_model());
      break;
    }
  }
  std::vector<std::string> texts{std::string(a)};
  texts.insert(texts.end(), others.begin(), others.end());
  const auto vectors = vectors_of(*model, texts);
  std::vector<double> out;
  for (std::size_t i = 1; i < vectors.size(); ++i) out.push_back(dot(vectors[0], vectors[i]));
  return out;
}

}  // namespace ragmeter
