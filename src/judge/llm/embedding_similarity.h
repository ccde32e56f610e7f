// Similarities from an embeddings server, shared by the LLM judge and the offline judge
// with an embedder (embedding_judge.cc). Internal to src/judge/.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "judge/llm/call_book.h"
#include "ragmeter/judge.h"
#include "ragmeter/llm.h"

namespace ragmeter {

// Cosine similarities of `a` to each of `others` from one embeddings request through
// `embedder`, counted in `book` as "embeddings" and named in `calls` by cache key.
StatusOr<std::vector<double>> embedding_similarities(llm::Client& embedder, CallBook& book,
                                                     std::string_view a,
                                                     const std::vector<std::string>& others,
                                                     CallLog* calls);

// embedding_similarities of `a` to `b` alone.
StatusOr<double> embedding_similarity(llm::Client& embedder, CallBook& book, std::string_view a,
                                      std::string_view b, CallLog* calls);

}  // namespace ragmeter
