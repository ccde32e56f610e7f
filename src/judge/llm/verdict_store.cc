// Verdict cells in the judge's cache file (verdict_store.h).
#include "judge/llm/verdict_store.h"

#include <nlohmann/json.hpp>

namespace ragmeter {

namespace {
// v2: the endpoint's address left the key, as it left the request key (cache_key.cc).
constexpr const char* kCellKeyVersion = "ragmeter-verdict-cell-v2";

// The string member `name` of a stored cell, or nothing. (A const json's operator[] on a
// missing key is undefined behaviour: older cells have no language_warning.)
std::optional<std::string> string_member(const nlohmann::json& value, const char* name) {
  const auto it = value.find(name);
  if (it == value.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}
}  // namespace

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
  if (!value.is_object()) return std::nullopt;
  const std::optional<std::string> name = string_member(value, "verdict");
  std::optional<Verdict> verdict = name ? parse_verdict(*name) : std::nullopt;
  if (!verdict) return std::nullopt;
  StoredVerdict out;
  out.cell.verdict = *verdict;
  out.cell.reason = string_member(value, "reason").value_or("");
  out.call = string_member(value, "call").value_or("");
  out.language_warning = string_member(value, "language_warning").value_or("");
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
