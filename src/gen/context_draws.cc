// What gen's generators share (context_draws.h).
#include "gen/context_draws.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include "ragmeter/offline_judge.h"

namespace ragmeter {

std::size_t Draws::below(std::size_t n) {
  // Rejection sampling: no modulo bias.
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  std::uint64_t x;
  do x = engine_();
  while (x >= limit);
  return static_cast<std::size_t>(x % n);
}

void Draws::shuffle(std::vector<std::size_t>* items) {
  for (std::size_t i = items->size(); i > 1; --i) std::swap((*items)[i - 1], (*items)[below(i)]);
}

ContextDraws::ContextDraws(const std::vector<DocumentChunk>& chunks, const VectorIndex& index,
                           std::uint64_t seed)
    : chunks_(chunks), index_(index), draws_(seed) {
  for (std::size_t i = 0; i < chunks.size(); ++i) order_.push_back(i);
  draws_.shuffle(&order_);
}

std::size_t ContextDraws::next_root() {
  if (cursor_ == order_.size()) {  // every chunk was a root: a new pass, a new order
    draws_.shuffle(&order_);
    cursor_ = 0;
  }
  return order_[cursor_++];
}

std::vector<std::size_t> ContextDraws::next(std::size_t neighbours, double min_similarity) {
  const std::size_t root = next_root();
  std::vector<std::size_t> context = {root};
  if (neighbours > 0 && chunks_.size() > 1) {
    for (const VectorHit& hit : index_.search(index_.vector(root), neighbours, {root})) {
      if (hit.similarity >= min_similarity) context.push_back(hit.id);
    }
  }
  return context;
}

std::string passage_label(std::size_t i) { return "P" + std::to_string(i + 1); }

std::string passages_section(const std::vector<std::string>& passages) {
  std::string out = "PASSAGES:\n";
  for (std::size_t i = 0; i < passages.size(); ++i) {
    out += "[" + passage_label(i) + "]\n" + passages[i] + "\n\n";
  }
  return out;
}

nlohmann::json passage_labels(std::size_t n) {
  nlohmann::json labels = nlohmann::json::array();
  for (std::size_t i = 0; i < n; ++i) labels.push_back(passage_label(i));
  return labels;
}

std::vector<std::size_t> named_chunks(const nlohmann::json& labels,
                                      const std::vector<std::size_t>& context) {
  std::vector<std::size_t> out;
  if (!labels.is_array()) return out;
  for (const nlohmann::json& label : labels) {
    std::size_t n = 0;
    const std::string text = label.is_string() ? label.get<std::string>() : "";
    if (text.size() >= 2 && text[0] == 'P') n = std::strtoul(text.c_str() + 1, nullptr, 10);
    if (n < 1 || n > context.size()) return {};
    const std::size_t chunk = context[n - 1];
    if (std::find(out.begin(), out.end(), chunk) == out.end()) out.push_back(chunk);
  }
  return out;
}

std::string trimmed(std::string text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

std::string reply_text(const nlohmann::json& object, const char* key) {
  const nlohmann::json& value = reply_member(object, key);
  return value.is_string() ? trimmed(value.get<std::string>()) : std::string();
}

const nlohmann::json& reply_member(const nlohmann::json& object, const char* key) {
  static const nlohmann::json kNull;
  if (!object.is_object()) return kNull;
  const auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

bool points_at_source(const std::string& text) {
  static const char* kPhrases[] = {"the passage",
                                   "the passages",
                                   "the text",
                                   "the context",
                                   "this passage",
                                   "this text",
                                   "this document",
                                   "the document",
                                   "the above",
                                   "according to the",
                                   "mentioned above",
                                   "p1",
                                   "p2"};
  const std::string folded = offline_fold_case(text);
  for (const char* phrase : kPhrases) {
    const std::string p = phrase;
    std::size_t at = folded.find(p);
    while (at != std::string::npos) {
      const bool starts = at == 0 || !std::isalnum(static_cast<unsigned char>(folded[at - 1]));
      const std::size_t end = at + p.size();
      const bool ends =
          end == folded.size() || !std::isalnum(static_cast<unsigned char>(folded[end]));
      if (starts && ends) return true;
      at = folded.find(p, at + 1);
    }
  }
  return false;
}

namespace {

double cosine(const std::vector<float>& a, const std::vector<float>& b) {
  double dot = 0, na = 0, nb = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    dot += static_cast<double>(a[i]) * b[i];
    na += static_cast<double>(a[i]) * a[i];
    nb += static_cast<double>(b[i]) * b[i];
  }
  return na == 0 || nb == 0 ? 0.0 : dot / (std::sqrt(na) * std::sqrt(nb));
}

}  // namespace

bool DuplicateFilter::near_duplicate(const std::vector<float>& vector) const {
  for (const auto& kept : kept_) {
    if (cosine(vector, kept) >= threshold_) return true;
  }
  return false;
}

}  // namespace ragmeter
