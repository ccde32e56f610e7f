// explain_score: a score's evidence said in one line, for the report's worst samples.
#include <string>

#include <fmt/format.h>

#include "report/report_answer.h"

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::size_t kQuoteBytes = 120;

std::string quoted(std::string text) {
  if (text.size() > kQuoteBytes) {
    std::size_t cut = kQuoteBytes;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // UTF-8
    text = text.substr(0, cut) + "…";
  }
  return "“" + text + "”";
}

bool has_number(const Json& e, const char* key) { return e.contains(key) && e[key].is_number(); }
bool has_array(const Json& e, const char* key) { return e.contains(key) && e[key].is_array(); }

std::int64_t integer(const Json& e, const char* key) { return e[key].get<std::int64_t>(); }

// The first claim of `claims` for which `pick` holds, quoted; empty when none.
template <typename Pick>
std::string first_claim(const Json& e, Pick pick) {
  if (!has_array(e, "claims")) return "";
  for (const Json& claim : e["claims"]) {
    if (claim.is_object() && claim.contains("claim") && claim["claim"].is_string() && pick(claim)) {
      return quoted(claim["claim"].get<std::string>());
    }
  }
  return "";
}

bool verdict_is(const Json& claim, const char* verdict) {
  return claim.contains("verdict") && claim["verdict"].is_string() &&
         claim["verdict"].get<std::string>() == verdict;
}

std::string with_example(std::string text, const std::string& label, const std::string& example) {
  if (!example.empty()) text += "; " + label + ": " + example;
  return text;
}

std::string entities(const Json& e) {
  std::size_t total = has_array(e, "reference_entities") ? e["reference_entities"].size() : 0;
  std::vector<std::string> missing;
  for (const Json& m : e["missing"]) {
    if (m.is_string()) missing.push_back(m.get<std::string>());
  }
  std::string text =
      fmt::format("{} of {} reference entities found", total - missing.size(), total);
  if (missing.empty()) return text;
  return text + "; missing: " + quoted(fmt::format("{}", fmt::join(missing, ", ")));
}

}  // namespace

std::string explain_score(const Json& e) {
  if (!e.is_object()) return "";
  if (e.contains("noncommittal") && e["noncommittal"].is_boolean() &&
      e["noncommittal"].get<bool>()) {
    return "the response is noncommittal";
  }
  if (has_array(e, "missing")) return entities(e);
  if (has_number(e, "useful") && has_array(e, "chunks")) {
    return fmt::format("{} of {} contexts useful", integer(e, "useful"), e["chunks"].size());
  }
  if (has_number(e, "supported") && has_number(e, "total")) {
    return with_example(
        fmt::format("{} of {} claims supported", integer(e, "supported"), integer(e, "total")),
        "not supported",
        first_claim(e, [](const Json& c) { return !verdict_is(c, "Entailment"); }));
  }
  if (has_number(e, "counted") && has_number(e, "total")) {
    return with_example(fmt::format("{} of {} claims counted against it", integer(e, "counted"),
                                    integer(e, "total")),
                        "for instance", first_claim(e, [](const Json& c) {
                          return c.contains("counted") && c["counted"].is_boolean() &&
                                 c["counted"].get<bool>();
                        }));
  }
  if (has_number(e, "tp") && has_number(e, "fp") && has_number(e, "fn")) {
    return fmt::format("{} claims shared with the reference, {} not in it, {} of it missing",
                       integer(e, "tp"), integer(e, "fp"), integer(e, "fn"));
  }
  if (has_number(e, "recalled") && has_number(e, "used")) {
    return fmt::format("{} of {} retrieved reference claims used", integer(e, "used"),
                       integer(e, "recalled"));
  }
  if (has_number(e, "sentences") && has_array(e, "relevant")) {
    return fmt::format("{} of {} context sentences relevant", e["relevant"].size(),
                       integer(e, "sentences"));
  }
  return "";
}

}  // namespace ragmeter
