// Request building and reply reading of the LLM judge (llm_requests.h and the request
// functions of include/ragmeter/llm_judge.h).
#include "judge/llm/llm_requests.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "judge/llm/judge_language.h"
#include "judge/llm/verdict_checks.h"
#include "judge/llm/verdict_table.h"
#include "ragmeter/claim_ledger.h"
#include "ragmeter/judge_tasks.h"
#include "ragmeter/llm_judge.h"
#include "ragmeter/offline_judge.h"
#include "ragmeter_prompts.inc"

namespace ragmeter {

using Json = nlohmann::json;

Json string_array_schema() { return {{"type", "array"}, {"items", {{"type", "string"}}}}; }

llm::ChatRequest json_schema_request(std::string system, std::string user, Json schema,
                                     std::string schema_name, int max_tokens) {
  llm::ChatRequest request;
  request.messages = {{"system", std::move(system)}, {"user", std::move(user)}};
  request.format = llm::ReplyFormat::kJsonSchema;
  request.schema = std::move(schema);
  request.schema_name = std::move(schema_name);
  request.temperature = 0.0;
  request.max_tokens = max_tokens;
  return request;
}

llm::ChatRequest make_judge_request(std::string sample_part, std::string_view task, Json schema,
                                    std::string schema_name, int max_tokens,
                                    std::string_view system, std::string_view instruction) {
  llm::ChatRequest request = json_schema_request(
      std::string(system.empty() ? prompts::k_system : system),
      with_instruction(std::string(task) + "\n\n" + std::move(sample_part), instruction),
      std::move(schema), std::move(schema_name), max_tokens);
  // Every task prompt (src/judge/prompts) ends with a "Reply:" example, and the table and
  // claims prompts list their KEYS (tests/unit/llm_judge_test.cc checks the claims, verdicts
  // and table requests).
  request.reply_form_in_prompt = true;
  return request;
}

std::vector<std::string> reply_reason(const Json& reply) {
  if (reply.is_object() && reply.contains("reason") && reply["reason"].is_string()) {
    return {reply["reason"].get<std::string>()};
  }
  return {};
}

std::string judge_section(std::string_view name, std::string_view text) {
  return std::string(name) + ":\n" + (text.empty() ? std::string("(none)") : std::string(text)) +
         "\n\n";
}

llm::ChatRequest llm_questions_request(std::string_view response, int max_tokens,
                                       std::string_view instruction) {
  Sample sample;
  sample.response = std::string(response);
  JudgeTask task = questions_task(sample);
  return make_judge_request(std::move(task.sections), task.prompt, std::move(task.schema),
                            std::move(task.schema_name), max_tokens, {}, instruction);
}

GeneratedQuestions read_llm_questions(const Json& reply) {
  GeneratedQuestions out;
  if (!reply.is_object()) return out;
  if (auto questions = reply.find("questions"); questions != reply.end()) {
    out.questions = json_strings(*questions);
  }
  auto flag = reply.find(std::string(kNoncommittalKey));
  out.noncommittal = flag != reply.end() && flag->is_boolean() && flag->get<bool>();
  return out;
}

namespace {

// "1. user: text" per message; an assistant's tool calls as "-> name({args})".
std::string conversation_text(const Conversation& conversation) {
  std::string out;
  int number = 0;
  for (const Message& m : conversation.messages) {
    out += std::to_string(++number) + ". " + role_name(m.role) + ":";
    if (!m.content.empty()) out += " " + m.content;
    for (const ToolCall& call : m.tool_calls) {
      out += "\n   -> " + call.name + "(" +
             call.args.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + ")";
    }
    out += "\n";
  }
  return out;
}

std::string conversation_sections(const Sample& sample) {
  const Conversation& conversation = *sample.conversation;
  std::string last;  // the conversation's last assistant text: where it ended
  for (const Message& m : conversation.messages) {
    if (m.role == Role::kAssistant && !m.content.empty()) last = m.content;
  }
  std::string out = judge_conversation_section(conversation);
  out += judge_section("RESPONSE", last);
  if (sample.reference() && !sample.reference()->empty()) {
    out += judge_section("DESIRED OUTCOME", *sample.reference());
  }
  return out;
}

}  // namespace

std::string judge_conversation_section(const Conversation& conversation) {
  return judge_section("CONVERSATION", conversation_text(conversation));
}

std::string judge_sample_sections(const Sample& sample) {
  if (sample.conversation) return conversation_sections(sample);
  std::string out;
  if (sample.user_input && !sample.user_input->empty()) {
    out += judge_section("QUESTION", *sample.user_input);
  }
  if (sample.retrieved_contexts && !sample.retrieved_contexts->empty()) {
    std::string contexts;
    for (std::size_t k = 0; k < sample.retrieved_contexts->size(); ++k) {
      contexts += "[" + std::to_string(k + 1) + "] " + (*sample.retrieved_contexts)[k] + "\n";
    }
    out += judge_section("CONTEXTS", contexts);
  }
  out += judge_section("RESPONSE", sample.response.value_or(""));
  if (sample.reference() && !sample.reference()->empty()) {
    out += judge_section("REFERENCE", *sample.reference());
  }
  return out;
}

std::vector<std::string> json_strings(const Json& value) {
  std::vector<std::string> out;
  if (!value.is_array()) return out;
  for (const Json& item : value) {
    if (item.is_string() && !item.get<std::string>().empty()) out.push_back(item.get<std::string>());
  }
  return out;
}

std::vector<std::string> normalised_entities(const Json& value) {
  std::vector<std::string> out;
  for (const std::string& entity : json_strings(value)) {
    std::string normal = offline_fold_case(normalize_content_text(entity));
    // A placeholder copied from the prompt ("...") names nothing.
    const bool names_something = std::any_of(normal.begin(), normal.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || (c & 0x80);
    });
    if (!names_something) continue;
    if (std::find(out.begin(), out.end(), normal) == out.end()) out.push_back(std::move(normal));
  }
  return out;
}

// ---- Claims -----------------------------------------------------------------------

namespace {
std::size_t largest_label(const ClaimsPrompt& prompt) {
  std::size_t largest = 0;
  for (const auto& text : prompt.texts) {
    for (const auto& [label, sentence] : text) largest = std::max(largest, label);
  }
  for (std::size_t label : prompt.asked) largest = std::max(largest, label);
  return largest;
}

std::string sentence_label(std::size_t number, std::size_t largest) {
  return "S" + padded_number(number, largest);
}
}  // namespace

llm::ChatRequest llm_claims_request(const ClaimsPrompt& prompt, std::string_view instruction) {
  const std::size_t largest = largest_label(prompt);
  std::string texts;
  for (std::size_t t = 0; t < prompt.texts.size(); ++t) {
    texts += "TEXT " + std::to_string(t + 1) + ":\n";
    std::string line;
    for (const auto& [label, sentence] : prompt.texts[t]) {
      if (!line.empty()) line += ' ';
      line += "[" + sentence_label(label, largest) + "] " + sentence;
    }
    texts += (line.empty() ? std::string("(none)") : line) + "\n\n";
  }
  Json properties = Json::object();
  Json required = Json::array();
  std::string keys;
  for (std::size_t label : prompt.asked) {
    const std::string key = sentence_label(label, largest);
    properties[key] = string_array_schema();
    required.push_back(key);
    keys += (keys.empty() ? "\"" : ", \"") + key + "\"";
  }
  Json schema = {{"type", "object"}, {"properties", properties}, {"required", required}};
  return make_judge_request(judge_section("QUESTION", prompt.question) + texts + "KEYS: " + keys + "\n",
                            prompts::k_claims, std::move(schema), "claims", kJudgeReplyTokens, {},
                            instruction);
}

std::optional<std::vector<std::string>> read_llm_sentence_claims(const Json& reply,
                                                                 const ClaimsPrompt& prompt,
                                                                 std::size_t label) {
  const std::string key = sentence_label(label, largest_label(prompt));
  if (!reply.is_object() || !reply.contains(key) || !reply[key].is_array()) return std::nullopt;
  return json_strings(reply[key]);
}

// ---- Verdicts ---------------------------------------------------------------------

llm::ChatRequest llm_verdicts_request(const std::vector<std::string>& claims,
                                      std::string_view premise, std::string_view instruction) {
  std::string listed;
  for (std::size_t i = 0; i < claims.size(); ++i) {
    listed += std::to_string(i + 1) + ". " + claims[i] + "\n";
  }
  // The reason is required so that a grammar writes it before the verdict: llama.cpp's
  // grammar writes the required keys first, in the schema's order, which nlohmann::json
  // sorts (claim, reason, verdict). With the reason optional the verdict came first and the
  // reason only justified it (docs/design.md, "Reasons before verdicts, by the schema").
  Json verdict = {{"type", "object"},
                  {"properties",
                   {{"claim", {{"type", "integer"}}},
                    {"verdict", {{"type", "string"}, {"enum", {"Entailment", "Neutral", "Contradiction"}}}},
                    {"reason", {{"type", "string"}}}}},
                  {"required", {"claim", "reason", "verdict"}}};
  // Exactly one entry per claim: without the bounds a grammar-constrained small model
  // wrote one entry for five claims, and again when the other four were asked once more.
  Json schema = {{"type", "object"},
                 {"properties",
                  {{"verdicts",
                    {{"type", "array"}, {"items", verdict}, {"minItems", claims.size()},
                     {"maxItems", claims.size()}}}}},
                 {"required", {"verdicts"}}};
  return make_judge_request(judge_section("PREMISE", premise) + "CLAIMS:\n" + listed + "\n",
                            prompts::k_verdicts, std::move(schema), "verdicts", kJudgeReplyTokens, {},
                            instruction);
}

namespace {
// "Pj: claim i", both numbers padded to the table's size (padded_number).
std::string verdict_table_key(std::size_t claim, std::size_t premise, std::size_t claims,
                              std::size_t premises) {
  return premise_label(premise, premises) + ": claim " + padded_number(claim + 1, claims);
}

std::string reason_key(std::size_t claim, std::size_t claims) {
  return "reason " + padded_number(claim + 1, claims);
}
}  // namespace

llm::ChatRequest llm_verdict_table_request(const std::vector<std::string>& claims,
                                           const std::vector<std::string>& premises,
                                           const std::vector<std::pair<std::size_t, std::size_t>>& pairs,
                                           std::string_view instruction) {
  std::string passages;
  for (std::size_t j = 0; j < premises.size(); ++j) {
    passages += "[" + premise_label(j, premises.size()) + "]\n" + premises[j] + "\n\n";
  }
  std::string listed;
  for (std::size_t i = 0; i < claims.size(); ++i) {
    listed += padded_number(i + 1, claims.size()) + ". " + claims[i] + "\n";
  }
  // One evidence quote per claim first (the model quotes before it judges; the quote is
  // checked in code, verdict_checks.h), then the verdicts passage by passage (the model
  // reads one passage at a time), then one reason per claim. Every key is required, so a
  // grammar-constrained reply has every cell.
  std::vector<std::pair<std::size_t, std::size_t>> cells = pairs;
  if (cells.empty()) {
    for (std::size_t j = 0; j < premises.size(); ++j) {
      for (std::size_t i = 0; i < claims.size(); ++i) cells.emplace_back(i, j);
    }
  }
  std::stable_sort(cells.begin(), cells.end(),
                   [](const auto& x, const auto& y) { return x.second < y.second; });
  const Json verdict = {{"type", "string"}, {"enum", {"Entailment", "Neutral", "Contradiction"}}};
  Json properties = Json::object();
  Json required = Json::array();
  // nlohmann::json serialises object keys sorted and llama.cpp's grammar writes them in
  // that order, so the keys are named to sort as listed here and in the prompt: "Evidence"
  // before "P", before "reason", numbers padded (padded_number).
  std::string keys;
  for (std::size_t i = 0; i < claims.size(); ++i) {
    const std::string key = evidence_key(i, claims.size());
    properties[key] = {{"type", "string"}};
    required.push_back(key);
    keys += "\"" + key + "\", ";
  }
  for (const auto& [claim, premise] : cells) {
    const std::string key = verdict_table_key(claim, premise, claims.size(), premises.size());
    properties[key] = verdict;
    required.push_back(key);
    keys += "\"" + key + "\", ";
  }
  for (std::size_t i = 0; i < claims.size(); ++i) {
    const std::string key = reason_key(i, claims.size());
    properties[key] = {{"type", "string"}};
    required.push_back(key);
    keys += "\"" + key + "\", ";
  }
  if (!keys.empty()) keys.resize(keys.size() - 2);
  Json schema = {{"type", "object"}, {"properties", properties}, {"required", required}};
  return make_judge_request("PASSAGES:\n" + passages + "CLAIMS:\n" + listed + "\nKEYS: " + keys + "\n",
                            prompts::k_verdict_table, std::move(schema), "verdicts", kJudgeReplyTokens,
                            prompts::k_verdict_table_system, instruction);
}

std::vector<std::vector<VerdictCell>> read_llm_verdict_table(const nlohmann::json& reply,
                                                             std::size_t claims,
                                                             std::size_t premises) {
  std::vector<std::vector<VerdictCell>> cells(claims, std::vector<VerdictCell>(premises));
  if (!reply.is_object()) return cells;
  for (std::size_t i = 0; i < claims; ++i) {
    const std::string reason_at = reason_key(i, claims);
    const std::string reason =
        reply.contains(reason_at) && reply[reason_at].is_string() ? reply[reason_at].get<std::string>() : "";
    for (std::size_t j = 0; j < premises; ++j) {
      const std::string key = verdict_table_key(i, j, claims, premises);
      if (!reply.contains(key) || !reply[key].is_string()) continue;
      std::optional<Verdict> verdict = parse_verdict(reply[key].get<std::string>());
      if (!verdict) continue;
      cells[i][j].verdict = *verdict;
      if (*verdict != Verdict::kEntailment) cells[i][j].reason = reason;
    }
  }
  return cells;
}

std::vector<std::string> read_table_reasons(const nlohmann::json& reply, std::size_t claims) {
  std::vector<std::string> out;
  if (!reply.is_object()) return out;
  for (std::size_t i = 0; i < claims; ++i) {
    auto it = reply.find(reason_key(i, claims));
    if (it != reply.end() && it->is_string() && !it->get<std::string>().empty()) {
      out.push_back(it->get<std::string>());
    }
  }
  return out;
}

namespace {
// "<the premise names another wife>" -> "the premise names another wife": the task's example
// shows the reason as "<what the premise states>", and a small model copies the brackets.
std::string without_placeholder_brackets(std::string reason) {
  if (reason.size() >= 2 && reason.front() == '<' && reason.back() == '>' &&
      reason.find_first_of("<>", 1) == reason.size() - 1) {
    reason = reason.substr(1, reason.size() - 2);
  }
  return reason;
}
}  // namespace

std::vector<VerdictCell> read_llm_verdicts(const nlohmann::json& reply, std::size_t claims) {
  std::vector<VerdictCell> cells(claims);
  const Json& verdicts = reply.contains("verdicts") ? reply["verdicts"] : Json();
  if (!verdicts.is_array()) return cells;
  for (std::size_t position = 0; position < verdicts.size(); ++position) {
    const Json& entry = verdicts[position];
    if (!entry.is_object() || !entry.contains("verdict") || !entry["verdict"].is_string()) continue;
    std::optional<Verdict> verdict = parse_verdict(entry["verdict"].get<std::string>());
    if (!verdict) continue;
    // The claim's number when given, else its position in the reply.
    std::size_t index = position;
    if (entry.contains("claim") && entry["claim"].is_number_integer()) {
      auto number = entry["claim"].get<std::int64_t>();
      if (number < 1 || static_cast<std::size_t>(number) > claims) continue;
      index = static_cast<std::size_t>(number - 1);
    }
    if (index >= claims || cells[index].judged()) continue;  // the first verdict counts
    cells[index].verdict = *verdict;
    if (*verdict != Verdict::kEntailment && entry.contains("reason") && entry["reason"].is_string()) {
      cells[index].reason = without_placeholder_brackets(entry["reason"].get<std::string>());
    }
  }
  return cells;
}

}  // namespace ragmeter
