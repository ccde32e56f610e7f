// Claims extracted from the same texts by the LLM judge before and after issue 17's change
// (claims by sentence, stored by text; a prompt for full sentences; the fragment
// post-check), for bench/claim_fragments.py to count the fragments. Not a timing
// benchmark: it needs a real judge server (scripts/llm_server.sh) and sends one request at
// a time. bench/claim_fragments.sh runs the whole measurement.
//
//   claims_before_after_bench --judge-url URL --judge-model NAME --cache FILE
//                             --in texts.jsonl --out claims.jsonl
//
// Input: one JSON object per line, {"source", "question", "text"}. Output: the same with
//   "before":  the claims of the request the judge made before the change (the claims
//              prompt of commit 86b7655, quoted below, for the text as a response alone),
//   "prompt":  the claims the new request gives, per sentence, before the post-check,
//   "after":   the response claims of the judge's ledger (new request and post-check; the
//              request is the same as "prompt"'s, so it is served from the cache).
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "ragmeter/llm.h"
#include "ragmeter/llm_judge.h"
#include "ragmeter/offline_judge.h"

namespace {

using Json = nlohmann::json;
using namespace ragmeter;

// src/judge/prompts/claims.txt at commit 86b7655 (before issue 17).
constexpr const char* kClaimsPromptBefore =
    "Task: break the RESPONSE and the REFERENCE into claims.\n"
    "- Each claim states one fact from the text, in the text's own terms; add nothing, drop nothing "
    "factual.\n"
    "- Replace pronouns with what they refer to. When the text is a fragment that only answers the "
    "QUESTION (a bare name, year or number), write the claim as one full sentence that states the "
    "answer with the question's subject.\n"
    "- Take claims only from the RESPONSE and the REFERENCE, never from these instructions.\n"
    "- A text with no factual content (a refusal, \"I don't know\") has no claims: an empty list.\n"
    "Reply: {\"response_claims\": [\"...\"], \"reference_claims\": [\"...\"]}\n";

std::string section(const std::string& name, const std::string& text) {
  return name + ":\n" + (text.empty() ? std::string("(none)") : text) + "\n\n";
}

// The claims request the judge made before issue 17 for a response alone.
llm::ChatRequest request_before(const std::string& question, const std::string& text) {
  llm::ChatRequest request;
  const std::string system = llm_verdicts_request({}, "").messages[0].content;  // unchanged
  request.messages = {{"system", system},
                      {"user", section("QUESTION", question) + section("RESPONSE", text) +
                                   section("REFERENCE", "") + "\n" + kClaimsPromptBefore}};
  request.format = llm::ReplyFormat::kJsonSchema;
  request.schema = {{"type", "object"},
                    {"properties", {{"response_claims", {{"type", "array"}, {"items", {{"type", "string"}}}}}}},
                    {"required", {"response_claims"}}};
  request.schema_name = "claims";
  request.temperature = 0.0;
  request.max_tokens = 2048;
  return request;
}

// The request the judge makes now for a response alone: every sentence asked.
ClaimsPrompt prompt_after(const std::string& question, const std::string& text,
                         std::vector<std::string>* sentences) {
  ClaimsPrompt prompt;
  prompt.question = question;
  prompt.texts.emplace_back();
  for (std::string_view sentence : split_sentences(text)) {
    bool alnum = false;
    for (char c : sentence) alnum |= std::isalnum(static_cast<unsigned char>(c)) || (c & 0x80);
    if (!alnum) continue;
    sentences->emplace_back(sentence);
    prompt.texts.back().emplace_back(sentences->size(), std::string(sentence));
    prompt.asked.push_back(sentences->size());
  }
  return prompt;
}

StatusOr<Json> ask(llm::Client& client, llm::ChatRequest request) {
  auto reply = client.chat(std::move(request)).get();
  if (!reply.ok()) return reply.status();
  if (reply->choices.empty() || !reply->choices[0].json) return invalid_argument("no JSON in the reply");
  return *reply->choices[0].json;
}

}  // namespace

int main(int argc, char** argv) {
  std::string url, model, cache, in, out;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    std::string* target = flag == "--judge-url" ? &url : flag == "--judge-model" ? &model
                        : flag == "--cache" ? &cache : flag == "--in" ? &in : flag == "--out" ? &out
                        : nullptr;
    if (!target) {
      std::cerr << "unknown flag " << flag << "\n";
      return 2;
    }
    *target = argv[i + 1];
  }
  if (url.empty() || model.empty() || cache.empty() || in.empty() || out.empty()) {
    std::cerr << "usage: claims_before_after_bench --judge-url URL --judge-model NAME --cache FILE "
                 "--in texts.jsonl --out claims.jsonl\n";
    return 2;
  }
  llm::ClientOptions options;
  options.endpoint.base_url = url;
  options.endpoint.model = model;
  options.endpoint.timeout_seconds = 900;
  options.retry.deadline_seconds = 0;
  options.limits.max_in_flight = 1;
  options.cache = {cache, llm::CacheMode::kReadWrite};
  auto made = llm::make_client(options);
  if (!made.ok()) {
    std::cerr << made.status().to_string() << "\n";
    return 2;
  }
  std::shared_ptr<llm::Client> client = std::move(made).value();
  LlmJudgeOptions judge_options;
  judge_options.chat = client;
  judge_options.model = model;
  judge_options.endpoint_options = options.endpoint;
  judge_options.verdict_cache = options.cache;
  auto judge = make_llm_judge(judge_options);
  if (!judge.ok()) {
    std::cerr << judge.status().to_string() << "\n";
    return 2;
  }
  std::ifstream input(in);
  std::ofstream output(out);
  std::string line;
  int n = 0;
  while (std::getline(input, line)) {
    Json row = Json::parse(line);
    const std::string question = row["question"], text = row["text"];
    std::cerr << "text " << ++n << " (" << text.size() << " bytes): before" << std::endl;
    auto before = ask(*client, request_before(question, text));
    row["before"] = before.ok() ? (*before)["response_claims"] : Json(before.status().message());
    std::cerr << "text " << n << ": after" << std::endl;
    std::vector<std::string> sentences;
    const ClaimsPrompt asked = prompt_after(question, text, &sentences);
    auto prompt = ask(*client, llm_claims_request(asked));
    Json per_sentence = Json::array();
    for (std::size_t label = 1; prompt.ok() && label <= sentences.size(); ++label) {
      auto claims = read_llm_sentence_claims(*prompt, asked, label);
      per_sentence.push_back({{"sentence", sentences[label - 1]}, {"claims", claims ? Json(*claims) : Json()}});
    }
    row["prompt"] = prompt.ok() ? per_sentence : Json(prompt.status().message());
    Sample sample;
    sample.user_input = question;
    sample.response = text;
    auto ledger = (*judge)->claim_ledger(sample, nullptr);
    Json after = Json::array();
    if (ledger.ok()) {
      for (const Claim& claim : ledger->response_claims) after.push_back(claim.text);
    }
    row["after"] = ledger.ok() ? after : Json(ledger.status().message());
    output << row.dump() << "\n" << std::flush;
  }
  const llm::UsageTotals totals = client->totals();
  std::cerr << "requests " << totals.requests << ", cache hits " << totals.cache_hits << "\n";
  return 0;
}
