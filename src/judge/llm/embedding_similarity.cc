// embedding_similarities (embedding_similarity.h).
#include "judge/llm/embedding_similarity.h"

#include <algorithm>
#include <cmath>

namespace ragmeter {

StatusOr<std::vector<double>> embedding_similarities(llm::Client& embedder, CallBook& book,
                                                     std::string_view a,
                                                     const std::vector<std::string>& others,
                                                     CallLog* calls) {
  llm::EmbeddingRequest request;
  request.inputs.push_back(std::string(a));
  request.inputs.insert(request.inputs.end(), others.begin(), others.end());
  if (calls) calls->push_back(llm::embedding_cache_key(book.endpoint(), request));
  request.purpose = "embeddings";
  auto response = embedder.embed(std::move(request)).get();
  book.record("embeddings", response.ok() ? &response->usage : nullptr,
              response.ok() && response->from_cache);
  if (!response.ok()) return response.status();
  const auto& vectors = response->vectors;
  if (vectors.size() != others.size() + 1) {
    return invalid_argument("the embedder returned " + std::to_string(vectors.size()) +
                            " vectors for " + std::to_string(others.size() + 1) + " texts");
  }
  std::vector<double> out;
  for (std::size_t n = 1; n < vectors.size(); ++n) {
    if (vectors[n].size() != vectors[0].size()) {
      return invalid_argument("the embedder returned vectors of different sizes");
    }
    double dot = 0, na = 0, nb = 0;
    for (std::size_t i = 0; i < vectors[0].size(); ++i) {
      dot += vectors[0][i] * vectors[n][i];
      na += vectors[0][i] * vectors[0][i];
      nb += vectors[n][i] * vectors[n][i];
    }
    // Clamped: rounding takes the cosine of a text with itself to 1.0000000000000002,
    // outside semantic_similarity's declared range.
    out.push_back(na == 0 || nb == 0 ? 0.0
                                     : std::clamp(dot / (std::sqrt(na) * std::sqrt(nb)), -1.0, 1.0));
  }
  return out;
}

StatusOr<double> embedding_similarity(llm::Client& embedder, CallBook& book, std::string_view a,
                                      std::string_view b, CallLog* calls) {
  RAGMETER_ASSIGN_OR_RETURN(std::vector<double> values,
                            embedding_similarities(embedder, book, a, {std::string(b)}, calls));
  return values.front();
}

}  // namespace ragmeter
