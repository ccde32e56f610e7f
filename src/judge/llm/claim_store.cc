// Claims by content in the judge's cache file and in memory (claim_store.h).
#include "judge/llm/claim_store.h"

#include <nlohmann/json.hpp>

#include "ragmeter/claim_ledger.h"

namespace ragmeter {

namespace {
constexpr const char* kClaimKeyVersion = "ragmeter-sentence-claims-v1";
std::string dump(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
}  // namespace

ClaimStore::ClaimStore(std::shared_ptr<llm::ResponseCache> cache,
                       const llm::EndpointOptions& endpoint, std::string prompts,
                       const RepeatDraw& draw)
    : cache_(std::move(cache)) {
  nlohmann::json identity = {
      {"version", kClaimKeyVersion}, {"model", endpoint.model}, {"prompts", std::move(prompts)}};
  draw.add_to(&identity);
  identity_ = dump(identity);
}

std::string ClaimStore::key(std::string_view question, std::string_view before,
                            std::string_view sentence, std::string_view instruction) const {
  nlohmann::json texts = {{"question", normalize_content_text(question)},
                          {"before", normalize_content_text(before)},
                          {"sentence", normalize_content_text(sentence)}};
  if (!instruction.empty()) texts["language"] = std::string(instruction);
  return llm::content_address(identity_ + "\n" + dump(texts));
}

void ClaimStore::finish(const std::string& key, StatusOr<StoredClaims> claims, bool keep) {
  std::vector<Finished> one;
  one.push_back({key, std::move(claims), keep});
  finish_all(std::move(one));
}

void ClaimStore::finish_all(std::vector<Finished> extractions) {
  if (cache_ && cache_->mode() == llm::CacheMode::kReadWrite) {
    std::vector<llm::StoreEntry> entries;
    for (const Finished& done : extractions) {
      if (!done.keep || !done.claims.ok()) continue;
      entries.push_back(
          {done.key, "claims", dump({{"claims", done.claims->claims}, {"call", done.claims->call}})});
    }
    (void)cache_->put_all(entries);  // a write error is ignored: asked again next run
  }
  for (Finished& done : extractions) {
    const bool kept = done.keep && done.claims.ok();
    memory_.finish(done.key, std::move(done.claims), kept);
  }
}

std::optional<StoredClaims> ClaimStore::load(const std::string& key) const {
  if (!cache_ || cache_->mode() == llm::CacheMode::kOff) return std::nullopt;
  auto stored = cache_->get(key);
  if (!stored.ok() || !stored->has_value()) return std::nullopt;
  const nlohmann::json value = nlohmann::json::parse(**stored, nullptr, false);
  // find(), not operator[]: the latter is undefined on a const json without the key.
  if (!value.is_object()) return std::nullopt;
  const auto claims = value.find("claims");
  if (claims == value.end() || !claims->is_array()) return std::nullopt;
  StoredClaims out;
  for (const nlohmann::json& claim : *claims) {
    if (!claim.is_string()) return std::nullopt;
    out.claims.push_back(claim.get<std::string>());
  }
  const auto call = value.find("call");
  if (call != value.end() && call->is_string()) out.call = call->get<std::string>();
  return out;
}

}  // namespace ragmeter
