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
  auto add = [&](std::optional<std::string_view> a, std::optional<std::string_view> b) {
    if (!a || !b) return;
    const SentenceEmbedder* model = embedders_.choose({*a, *b});
    if (model == nullptr) return;
    std::shared_ptr<Texts>& texts = (*batch)[model];
    if (texts == nullptr) texts = std::make_shared<Texts>();
    for (std::string_view text : {*a, *b}) {
      if (seen.emplace(model, text).second) texts->texts.emplace_back(text);
    }
  };
  for (const Sample* sample : samples) {
    add(sample->user_input, sample->response);
    add(sample->response, sample->reference());
  }
  std::lock_guard<std::mutex> lock(mutex_);
  batch_ = std::move(batch);
}

std::vector<std::vector<float>> LocalSimilarity::vectors_of(const SentenceEmbedder& model,
                                                            const std::vector<std::string>& texts) {
  std::shared_ptr<Texts> batch;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (batch_ != nullptr) {
      auto it = batch_->find(&model);
      if (it != batch_->end()) batch = it->second;
    }
  }
  std::vector<std::vector<float>> out(texts.size());
  std::vector<std::string> missing;
  std::vector<std::size_t> missing_at;
  if (batch != nullptr) {
    std::call_once(batch->embedded, [&batch, &model] {
      auto vectors = model.embed(batch->texts);
      for (std::size_t i = 0; i < vectors.size(); ++i) batch->vectors.emplace(batch->texts[i], std::move(vectors[i]));
    });
  }
  for (std::size_t i = 0; i < texts.size(); ++i) {
    if (batch != nullptr) {
      auto it = batch->vectors.find(texts[i]);
      if (it != batch->vectors.end()) {
        out[i] = it->second;
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

double LocalSimilarity::similarity(std::string_view a, std::string_view b) {
  const SentenceEmbedder* model = embedders_.choose({a, b});
  const auto vectors = vectors_of(*model, {std::string(a), std::string(b)});
  return dot(vectors[0], vectors[1]);
}

std::vector<double> LocalSimilarity::similarities(std::string_view a, const std::vector<std::string>& others) {
  const SentenceEmbedder* model = embedders_.choose({a});
  for (const std::string& other : others) {
    if (embedders_.choose({a, other}) != model) {
      model = embedders_.multilingual.get();  // one of `others` is not English
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
