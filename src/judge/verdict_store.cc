// Verdict cells in the judge's cache file (verdict_store.h).
#include "judge/verdict_store.h"

#include <nlohmann/json.hpp>

namespace ragmeter {

namespace {
// v2: the endpoint's address left the key, as it left the request key (cache_key.cc).
constexpr const char* kCellKeyVersion = "ragmeter-verdict-cell-v2";
}

VerdictStore::VerdictStore(std::shared_ptr<llm::ResponseCache> cache,
                           const llm::EndpointOptions& endpoint, std::string prompts,
                           const RepeatDraw& draw)
    : cache_(std::move(cache)) {
  nlohmann::json identity = {
      {"version", kCellKeyVersion}, {"model", endpoint.model}, {"prompts", std::move(prompts)}};
  draw.add_to(&identity);
  identity_ = identity.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string VerdictStore::key(const std::string& claim, const std::string& premise,
                              std::string_view instruction) const {
  nlohmann::json pair = {{"claim", claim}, {"premise", premise}};
  if (!instruction.empty()) pair["language"] = std::string(instruction);
  return llm::content_address(identity_ + "\n" +
                              pair.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

std::optional<StoredVerdict> VerdictStore::find(const std::string& claim,
                                                const std::string& premise,
                                                std::string_view instruction) const {
  if (!enabled()) return std::nullopt;
  auto stored = cache_->get(key(claim, premise, instruction));
  if (!stored.ok() || !stored->has_value()) return std::nullopt;
  const nlohmann::json value = nlohmann::json::parse(**stored, nullptr, false);
  if (!value.is_object() || !value["verdict"].is_string()) return std::nullopt;
  std::optional<Verdict> verdict = parse_verdict(value["verdict"].get<std::string>());
  if (!verdict) return std::nullopt;
  StoredVerdict out;
  out.cell.verdict = *verdict;
  if (value["reason"].is_string()) out.cell.reason = value["reason"].get<std::string>();
  if (value["call"].is_string()) out.call = value["call"].get<std::string>();
  if (value["language_warning"].is_string()) {
    out.language_warning = value["language_warning"].get<std::string>();
  }
  return out;
}

namespace {
std::string stored_value(const StoredVerdict& verdict) {
  nlohmann::json value = {{"verdict", verdict_name(verdict.cell.verdict)},
                          {"reason", verdict.cell.reason},
                          {"call", verdict.call}};
  if (!verdict.language_warning.empty()) value["language_warning"] = verdict.language_warning;
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}
}  // namespace

void VerdictStore::remember(const std::string& key, StoredVerdict verdict) {
  const bool judged = verdict.cell.judged();  // an unjudged cell is asked again
  memory_.finish(key, std::move(verdict), judged);
}

void VerdictStore::finish_all(std::vector<std::pair<std::string, StoredVerdict>> verdicts) {
  if (enabled() && cache_->mode() == llm::CacheMode::kReadWrite) {
    std::vector<llm::StoreEntry> entries;
    for (const auto& [key, verdict] : verdicts) {
      if (verdict.cell.judged()) entries.push_back({key, "verdict", stored_value(verdict)});
    }
    (void)cache_->put_all(entries);  // a write error is ignored
  }
  for (auto& [key, verdict] : verdicts) remember(key, std::move(verdict));
}

}  // namespace ragmeter
