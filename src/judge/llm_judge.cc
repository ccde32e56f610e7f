// The LLM judge of include/ragmeter/llm_judge.h: prompts from src/judge/prompts/ (embedded
// by cmake/embed_prompts.cmake), one claims call, K + 2 concurrent verdict calls.
#include "ragmeter/llm_judge.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <future>
#include <limits>
#include <map>
#include <mutex>

#include "ragmeter/offline_judge.h"
#include "ragmeter/text_vectors.h"
#include "ragmeter_prompts.inc"

namespace ragmeter {
namespace {

using Json = nlohmann::json;

Json string_array() { return {{"type", "array"}, {"items", {{"type", "string"}}}}; }

llm::ChatRequest make_request(std::string sample_part, std::string_view task, Json schema,
                              std::string schema_name, int max_tokens = 2048) {
  llm::ChatRequest request;
  request.messages = {{"system", std::string(prompts::k_system)},
                      {"user", std::move(sample_part) + "\n" + std::string(task)}};
  request.format = llm::ReplyFormat::kJsonSchema;
  request.schema = std::move(schema);
  request.schema_name = std::move(schema_name);
  request.temperature = 0.0;
  request.max_tokens = max_tokens;
  return request;
}

std::string section(std::string_view name, std::string_view text) {
  return std::string(name) + ":\n" + (text.empty() ? std::string("(none)") : std::string(text)) +
         "\n\n";
}

// Counts a judge's calls per kind and records their cache keys in the caller's CallLog.
class CallBook {
 public:
  explicit CallBook(llm::EndpointOptions endpoint) : endpoint_(std::move(endpoint)) {}

  // The chat reply's parsed JSON, or why there is none.
  StatusOr<Json> chat(llm::Client& client, llm::ChatRequest request, const std::string& kind,
                      CallLog* calls) {
    if (calls) calls->push_back(llm::chat_cache_key(endpoint_, request));
    auto response = client.chat(std::move(request)).get();
    record(kind, response.ok() ? &response->usage : nullptr,
           response.ok() && response->from_cache);
    if (!response.ok()) return response.status();
    if (response->choices.empty() || !response->choices.front().json) {
      return invalid_argument("the judge's reply holds no JSON");
    }
    return *response->choices.front().json;
  }

  void record(const std::string& kind, const llm::TokenUsage* usage, bool from_cache) {
    std::lock_guard<std::mutex> lock(mutex_);
    Tally& tally = tallies_[kind];
    ++tally.calls;
    if (usage == nullptr) {
      ++tally.failed;
      return;
    }
    if (from_cache) ++tally.cache_hits;
    tally.prompt_tokens += usage->prompt_tokens;
    tally.completion_tokens += usage->completion_tokens;
  }

  nlohmann::ordered_json report() const {
    std::lock_guard<std::mutex> lock(mutex_);
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    for (const auto& [kind, t] : tallies_) {
      out[kind] = {{"calls", t.calls},
                   {"cache_hits", t.cache_hits},
                   {"failed", t.failed},
                   {"prompt_tokens", t.prompt_tokens},
                   {"completion_tokens", t.completion_tokens}};
    }
    return out;
  }

  const llm::EndpointOptions& endpoint() const { return endpoint_; }

 private:
  struct Tally {
    std::int64_t calls = 0, cache_hits = 0, failed = 0, prompt_tokens = 0, completion_tokens = 0;
  };
  llm::EndpointOptions endpoint_;
  mutable std::mutex mutex_;
  std::map<std::string, Tally> tallies_;
};

// The sample's texts for critics and rubrics: the question, the contexts (numbered),
// the response and the reference, each only when present.
std::string sample_sections(const Sample& sample) {
  std::string out;
  if (sample.user_input && !sample.user_input->empty()) out += section("QUESTION", *sample.user_input);
  if (sample.retrieved_contexts && !sample.retrieved_contexts->empty()) {
    std::string contexts;
    for (std::size_t k = 0; k < sample.retrieved_contexts->size(); ++k) {
      contexts += "[" + std::to_string(k + 1) + "] " + (*sample.retrieved_contexts)[k] + "\n";
    }
    out += section("CONTEXTS", contexts);
  }
  out += section("RESPONSE", sample.response.value_or(""));
  if (sample.reference && !sample.reference->empty()) out += section("REFERENCE", *sample.reference);
  return out;
}

std::vector<std::string> strings_of(const Json& value) {
  std::vector<std::string> out;
  if (!value.is_array()) return out;
  for (const Json& item : value) {
    if (item.is_string() && !item.get<std::string>().empty()) out.push_back(item.get<std::string>());
  }
  return out;
}

std::vector<std::string> texts_of(const std::vector<Claim>& claims) {
  std::vector<std::string> out;
  for (const Claim& claim : claims) out.push_back(claim.text);
  return out;
}

// The cells of one verdicts call, or of its failure (every cell missing with the error as
// reason, so the metrics can say why).
std::vector<VerdictCell> verdicts_call(CallBook& book, llm::Client& client,
                                       const std::vector<std::string>& claims,
                                       std::string_view premise, CallLog* calls) {
  auto reply = book.chat(client, llm_verdicts_request(claims, premise), "verdicts", calls);
  if (reply.ok()) return read_llm_verdicts(*reply, claims.size());
  std::vector<VerdictCell> cells(claims.size());
  for (VerdictCell& cell : cells) cell.reason = "not judged: " + reply.status().message();
  return cells;
}

// Verdicts for `claims` against `premise`. Repeated claim texts are asked once. Claims
// the reply left out are asked again once, on their own; what is still missing after
// that stays missing.
std::vector<VerdictCell> judge_claims(CallBook& book, llm::Client& client,
                                      const std::vector<std::string>& claims,
                                      const std::string& premise, CallLog* calls) {
  std::vector<std::string> unique;
  std::vector<std::size_t> slot(claims.size());
  for (std::size_t i = 0; i < claims.size(); ++i) {
    auto it = std::find(unique.begin(), unique.end(), claims[i]);
    slot[i] = static_cast<std::size_t>(it - unique.begin());
    if (it == unique.end()) unique.push_back(claims[i]);
  }
  std::vector<VerdictCell> cells = verdicts_call(book, client, unique, premise, calls);
  std::vector<std::size_t> omitted;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (!cells[i].judged() && cells[i].reason.empty()) omitted.push_back(i);
  }
  if (!omitted.empty() && omitted.size() < unique.size()) {
    std::vector<std::string> again;
    for (std::size_t i : omitted) again.push_back(unique[i]);
    std::vector<VerdictCell> second = verdicts_call(book, client, again, premise, calls);
    for (std::size_t j = 0; j < omitted.size(); ++j) cells[omitted[j]] = std::move(second[j]);
  }
  std::vector<VerdictCell> out;
  out.reserve(claims.size());
  for (std::size_t i = 0; i < claims.size(); ++i) {
    out.push_back(cells[slot[i]]);
    if (!out.back().judged() && out.back().reason.empty()) {
      out.back().reason = "not judged: the judge's reply had no verdict for this claim";
    }
  }
  return out;
}

// ---- Fitting verdict calls into the judge's context window --------------------------

// A conservative token estimate: English runs about 4 bytes per token; 3 leaves room.
std::int64_t estimate_tokens(std::size_t bytes) { return static_cast<std::int64_t>(bytes) / 3 + 1; }

// `text` in pieces of at most `max_tokens` (estimated), cut between sentences, and inside
// a sentence that is too long on its own, between words. Nothing is dropped.
std::vector<std::string> split_to_fit(std::string_view text, std::int64_t max_tokens) {
  std::vector<std::string> pieces;
  std::string current;
  auto flush = [&] {
    if (!current.empty()) pieces.push_back(std::move(current));
    current.clear();
  };
  for (std::string_view sentence : split_sentences(text)) {
    while (estimate_tokens(sentence.size()) > max_tokens) {  // cut a long sentence at a space
      flush();
      std::size_t limit = static_cast<std::size_t>(std::max<std::int64_t>(1, (max_tokens - 1) * 3));
      std::size_t cut = sentence.rfind(' ', limit);
      if (cut == std::string_view::npos || cut == 0) cut = std::min(limit, sentence.size());
      pieces.emplace_back(sentence.substr(0, cut));
      sentence.remove_prefix(cut);
      while (!sentence.empty() && sentence.front() == ' ') sentence.remove_prefix(1);
    }
    if (sentence.empty()) continue;
    if (!current.empty() && estimate_tokens(current.size() + 1 + sentence.size()) > max_tokens) flush();
    if (!current.empty()) current += ' ';
    current += sentence;
  }
  flush();
  return pieces;
}

// One claim's verdict over the pieces of a premise: Entailment when a piece entails it,
// else Contradiction when one contradicts it, else Neutral when one judged it, else
// missing with the first reason.
void merge_piece_verdict(const VerdictCell& piece, VerdictCell* merged) {
  auto rank = [](Verdict v) {
    switch (v) {
      case Verdict::kEntailment: return 3;
      case Verdict::kContradiction: return 2;
      case Verdict::kNeutral: return 1;
      case Verdict::kMissing: return 0;
    }
    return 0;
  };
  if (rank(piece.verdict) > rank(merged->verdict) ||
      (!merged->judged() && merged->reason.empty())) {
    *merged = piece;
  }
}

// judge_claims within a context window of `window` tokens (0: no limit). A call that
// would not fit is split: the premise into pieces, the claims into groups, each group
// judged against each piece, the verdicts merged per claim (merge_piece_verdict).
std::vector<VerdictCell> judge_within_window(CallBook& book, llm::Client& client,
                                             const std::vector<std::string>& claims,
                                             const std::string& premise, int window,
                                             int max_tokens, CallLog* calls) {
  if (window <= 0) return judge_claims(book, client, claims, premise, calls);
  const std::int64_t reserve = std::min<std::int64_t>(max_tokens, window / 4);
  const std::int64_t room =
      window - reserve - estimate_tokens(prompts::k_system.size() + prompts::k_verdicts.size() + 64);
  std::int64_t claim_tokens = 0;
  for (const std::string& claim : claims) claim_tokens += estimate_tokens(claim.size() + 6);
  if (claim_tokens + estimate_tokens(premise.size()) <= room) {
    return judge_claims(book, client, claims, premise, calls);
  }
  std::vector<VerdictCell> cells(claims.size());
  if (room < 64) {
    for (VerdictCell& cell : cells) {
      cell.reason = "not judged: the judge's context window (" + std::to_string(window) +
                    " tokens) leaves no room for the claims and the premise";
    }
    return cells;
  }
  // Claims get up to half the room; the premise the rest.
  const std::int64_t claims_room = std::min(claim_tokens, room / 2);
  const std::vector<std::string> pieces = split_to_fit(premise, room - claims_room);
  std::size_t start = 0;
  while (start < claims.size()) {
    std::vector<std::string> group;
    std::int64_t used = 0;
    std::size_t end = start;
    while (end < claims.size() &&
           (group.empty() || used + estimate_tokens(claims[end].size() + 6) <= claims_room)) {
      used += estimate_tokens(claims[end].size() + 6);
      group.push_back(claims[end++]);
    }
    for (const std::string& piece : pieces) {
      std::vector<VerdictCell> part = judge_claims(book, client, group, piece, calls);
      for (std::size_t i = 0; i < part.size(); ++i) merge_piece_verdict(part[i], &cells[start + i]);
    }
    start = end;
  }
  return cells;
}

class LlmJudge : public Judge {
 public:
  explicit LlmJudge(LlmJudgeOptions options)
      : options_(std::move(options)), book_(options_.endpoint_options),
        embed_book_(options_.embedder_endpoint_options) {}

  std::string description() const override {
    std::string out = "llm " + options_.model;
    if (!options_.endpoint.empty()) out += " at " + options_.endpoint;
    return out + " (prompts " + std::string(kLlmPromptVersion) +
           (options_.ragas_plan ? ", ragas plan)" : ", compact plan)");
  }

  StatusOr<ClaimLedger> claim_ledger(const Sample& sample, CallLog* calls) override {
    const std::string question = sample.user_input.value_or("");
    const std::string response = sample.response.value_or("");
    const std::string reference = sample.reference.value_or("");
    // A short answer ("Arthur's Magazine") gets the offline judge's claim, which carries
    // the question (offline_judge.h): small models tend to copy the fragment instead.
    const std::string response_short = answer_premise(response, question);
    const std::string reference_short = answer_premise(reference, question);
    const bool response_is_short = !response.empty() && response_short != response;
    const bool reference_is_short = !reference.empty() && reference_short != reference;
    std::vector<std::string> response_claims;
    std::vector<std::string> reference_claims;
    if (response_is_short) response_claims = {response_short};
    if (reference_is_short) reference_claims = {reference_short};
    const bool ask_response = !response.empty() && !response_is_short;
    const bool ask_reference = !reference.empty() && !reference_is_short;
    if ((ask_response || ask_reference) &&
        fits_window(question.size() + response.size() + reference.size(), prompts::k_claims)) {
      RAGMETER_ASSIGN_OR_RETURN(
          Json claims, book_.chat(*options_.chat, llm_claims_request(question, response, reference),
                                  "claims", calls));
      if (ask_response) response_claims = strings_of(claims["response_claims"]);
      if (ask_reference) reference_claims = strings_of(claims["reference_claims"]);
    } else if (ask_response || ask_reference) {
      // Too long for the window together: each text on its own, in pieces if need be.
      if (ask_response) {
        RAGMETER_ASSIGN_OR_RETURN(response_claims,
                                  claims_in_pieces(question, response, true, calls));
      }
      if (ask_reference) {
        RAGMETER_ASSIGN_OR_RETURN(reference_claims,
                                  claims_in_pieces(question, reference, false, calls));
      }
    }
    static const std::vector<std::string> kNone;
    const auto& chunks = sample.retrieved_contexts ? *sample.retrieved_contexts : kNone;
    ClaimLedger ledger = make_claim_ledger(response_claims, reference_claims, chunks);
    if (sample.retrieved_context_ids && sample.retrieved_context_ids->size() == chunks.size()) {
      for (std::size_t k = 0; k < chunks.size(); ++k) {
        ledger.chunks[k].doc_id = (*sample.retrieved_context_ids)[k];
      }
    }
    ledger.provenance = {"llm", options_.model, std::string(kLlmPromptVersion)};

    // Every verdict call at once (one thread each waits on its reply; the client caps
    // the requests in flight), then the cells into the tables.
    const std::vector<std::string> response_texts = texts_of(ledger.response_claims);
    std::vector<std::string> both = response_texts;
    const std::vector<std::string> reference_texts = texts_of(ledger.reference_claims);
    both.insert(both.end(), reference_texts.begin(), reference_texts.end());
    llm::Client& client = *options_.chat;
    using Cells = std::vector<VerdictCell>;
    // One call log per task (they run concurrently), appended in task order afterwards.
    std::vector<CallLog> logs(chunks.size() + 2);
    CallBook& book = book_;
    const int window = options_.context_tokens;
    const int max_tokens = options_.max_tokens;
    std::vector<std::future<Cells>> per_chunk;
    if (!both.empty()) {
      for (std::size_t k = 0; k < chunks.size(); ++k) {
        per_chunk.push_back(std::async(std::launch::async, [&, k] {
          return judge_within_window(book, client, both, chunks[k], window, max_tokens, &logs[k]);
        }));
      }
    }
    std::future<Cells> against_reference;
    if (!ledger.response_claims.empty() && !reference.empty()) {
      against_reference = std::async(std::launch::async, [&] {
        return judge_within_window(book, client, response_texts, reference_short, window,
                                   max_tokens, &logs[chunks.size()]);
      });
    }
    std::future<Cells> against_response;
    if (!ledger.reference_claims.empty() && !response.empty()) {
      against_response = std::async(std::launch::async, [&] {
        return judge_within_window(book, client, reference_texts, response_short, window,
                                   max_tokens, &logs[chunks.size() + 1]);
      });
    }
    const std::size_t a = ledger.response_claims.size();
    for (std::size_t k = 0; k < per_chunk.size(); ++k) {
      Cells cells = per_chunk[k].get();
      for (std::size_t i = 0; i < cells.size(); ++i) {
        if (i < a) {
          ledger.response_vs_chunks.at(i, k) = std::move(cells[i]);
        } else {
          ledger.reference_vs_chunks.at(i - a, k) = std::move(cells[i]);
        }
      }
    }
    if (against_reference.valid()) ledger.response_vs_reference = against_reference.get();
    if (against_response.valid()) ledger.reference_vs_response = against_response.get();
    if (calls) {
      for (const CallLog& log : logs) calls->insert(calls->end(), log.begin(), log.end());
    }
    return ledger;
  }

  StatusOr<double> similarity(std::string_view a, std::string_view b, CallLog* calls) override {
    if (!options_.embedder) return offline_similarity(a, b);
    llm::EmbeddingRequest request;
    request.inputs = {std::string(a), std::string(b)};
    if (calls) calls->push_back(llm::embedding_cache_key(embed_book_.endpoint(), request));
    auto response = options_.embedder->embed(std::move(request)).get();
    embed_book_.record("embeddings", response.ok() ? &response->usage : nullptr,
                       response.ok() && response->from_cache);
    if (!response.ok()) return response.status();
    if (response->vectors.size() != 2 || response->vectors[0].size() != response->vectors[1].size()) {
      return invalid_argument("the embedder returned vectors of the wrong number or size");
    }
    double dot = 0, na = 0, nb = 0;
    for (std::size_t i = 0; i < response->vectors[0].size(); ++i) {
      double x = response->vectors[0][i];
      double y = response->vectors[1][i];
      dot += x * y;
      na += x * x;
      nb += y * y;
    }
    if (na == 0 || nb == 0) return 0.0;
    return dot / (std::sqrt(na) * std::sqrt(nb));
  }

  StatusOr<GeneratedQuestions> questions_for(const Sample& sample, CallLog* calls) override {
    Json schema = {{"type", "object"},
                   {"properties", {{"questions", string_array()}, {"noncommittal", {{"type", "boolean"}}}}},
                   {"required", {"questions", "noncommittal"}}};
    RAGMETER_ASSIGN_OR_RETURN(
        Json reply, book_.chat(*options_.chat,
                               make_request(section("RESPONSE", sample.response.value_or("")),
                                            prompts::k_questions, std::move(schema), "questions",
                                            options_.max_tokens),
                               "questions", calls));
    GeneratedQuestions out;
    out.questions = strings_of(reply["questions"]);
    out.noncommittal = reply["noncommittal"].is_boolean() && reply["noncommittal"].get<bool>();
    out.method = "llm " + options_.model + ": questions the response answers";
    return out;
  }

  StatusOr<std::vector<std::string>> entities(std::string_view text, CallLog* calls) override {
    Json schema = {{"type", "object"},
                   {"properties", {{"entities", string_array()}}},
                   {"required", {"entities"}}};
    RAGMETER_ASSIGN_OR_RETURN(
        Json reply, book_.chat(*options_.chat,
                               make_request(section("TEXT", text), prompts::k_entities,
                                            std::move(schema), "entities", options_.max_tokens),
                               "entities", calls));
    // Matched as normalised strings: case-folded, single spaces.
    std::vector<std::string> out;
    for (const std::string& entity : strings_of(reply["entities"])) {
      std::string normal = offline_fold_case(normalize_content_text(entity));
      if (std::find(out.begin(), out.end(), normal) == out.end()) out.push_back(std::move(normal));
    }
    return out;
  }

  StatusOr<CriticVerdict> critique(const Sample& sample, std::string_view name,
                                   std::string_view definition, int votes,
                                   CallLog* calls) override {
    Json schema = {{"type", "object"},
                   {"properties", {{"reason", {{"type", "string"}}},
                                   {"verdict", {{"type", "integer"}, {"enum", {0, 1}}}}}},
                   {"required", {"reason", "verdict"}}};
    llm::ChatRequest request =
        make_request(sample_sections(sample) + section("CRITERION", definition), prompts::k_critic,
                     std::move(schema), "verdict", options_.max_tokens);
    // One judgement at temperature 0; several are independent samples at 0.7, each its own
    // seed (so each is its own cache entry), asked concurrently; the majority wins.
    std::vector<llm::ChatRequest> ballots(static_cast<std::size_t>(votes), request);
    for (int i = 0; votes > 1 && i < votes; ++i) {
      ballots[i].temperature = 0.7;
      ballots[i].seed = i + 1;
    }
    const std::string kind = "critic:" + std::string(name);
    std::vector<std::future<StatusOr<Json>>> replies;
    for (llm::ChatRequest& ballot : ballots) {
      if (calls) calls->push_back(llm::chat_cache_key(book_.endpoint(), ballot));
      replies.push_back(std::async(std::launch::async, [this, &kind, ballot = std::move(ballot)] {
        return book_.chat(*options_.chat, ballot, kind, nullptr);
      }));
    }
    CriticVerdict out;
    for (auto& reply : replies) {
      StatusOr<Json> json = reply.get();
      if (!json.ok()) return json.status();
      const Json& verdict = (*json)["verdict"];
      if (!verdict.is_number_integer() || (verdict.get<int>() != 0 && verdict.get<int>() != 1)) {
        return invalid_argument("the critic's reply has no verdict 0 or 1");
      }
      ++out.votes;
      if (verdict.get<int>() == 1) ++out.votes_for;
      if (out.reason.empty() && (*json)["reason"].is_string()) out.reason = (*json)["reason"];
    }
    out.verdict = 2 * out.votes_for > out.votes;
    return out;
  }

  StatusOr<RubricScore> rubric_score(const Sample& sample,
                                     const std::map<std::string, std::string>& rubrics,
                                     CallLog* calls) override {
    std::string rubric;
    for (const auto& [key, description] : rubrics) rubric += key + ": " + description + "\n";
    Json schema = {{"type", "object"},
                   {"properties", {{"reason", {{"type", "string"}}},
                                   {"score", {{"type", "integer"}, {"minimum", 1}, {"maximum", 5}}}}},
                   {"required", {"reason", "score"}}};
    RAGMETER_ASSIGN_OR_RETURN(
        Json reply, book_.chat(*options_.chat,
                               make_request(sample_sections(sample) + section("RUBRIC", rubric),
                                            prompts::k_rubric, std::move(schema), "score",
                                            options_.max_tokens),
                               "rubric", calls));
    if (!reply["score"].is_number_integer()) return invalid_argument("the rubric reply has no score");
    RubricScore out;
    out.score = reply["score"].get<int>();
    if (reply["reason"].is_string()) out.reason = reply["reason"];
    return out;
  }

  StatusOr<RelevantSentences> relevant_sentences(const Sample& sample, CallLog* calls) override {
    RelevantSentences out;
    std::vector<std::string> sentences;
    std::string contexts;
    if (sample.retrieved_contexts) {
      for (const std::string& context : *sample.retrieved_contexts) {
        for (std::string_view sentence : split_sentences(context)) sentences.emplace_back(sentence);
        contexts += context + "\n";
      }
    }
    out.total = sentences.size();
    if (sentences.empty()) return out;
    Json schema = {{"type", "object"},
                   {"properties", {{"sentences", string_array()}}},
                   {"required", {"sentences"}}};
    RAGMETER_ASSIGN_OR_RETURN(
        Json reply,
        book_.chat(*options_.chat,
                   make_request(section("QUESTION", sample.user_input.value_or("")) +
                                    section("CONTEXTS", contexts),
                                prompts::k_relevant_sentences, std::move(schema), "sentences",
                                options_.max_tokens),
                   "relevant_sentences", calls));
    // Only real sentences of the contexts count, each once: a copied text matches the
    // first untaken sentence that contains it or that it contains (normalised), so a
    // sentence the model copied only in part (or with its neighbour) still counts.
    std::vector<std::string> normal;
    for (const std::string& sentence : sentences) normal.push_back(normalize_content_text(sentence));
    std::vector<bool> taken(sentences.size(), false);
    for (const std::string& copied : strings_of(reply["sentences"])) {
      const std::string key = normalize_content_text(copied);
      for (std::size_t i = 0; i < sentences.size(); ++i) {
        if (!taken[i] && !key.empty() &&
            (normal[i].find(key) != std::string::npos || key.find(normal[i]) != std::string::npos)) {
          taken[i] = true;
          out.relevant.push_back(sentences[i]);
          break;
        }
      }
    }
    return out;
  }

  StatusOr<KeyFactCoverage> key_fact_coverage(std::string_view text, std::string_view summary,
                                              CallLog* calls) override {
    KeyFactCoverage out;
    RAGMETER_ASSIGN_OR_RETURN(
        Json claims, book_.chat(*options_.chat, llm_claims_request("", text, ""), "claims", calls));
    out.facts = strings_of(claims["response_claims"]);
    if (out.facts.empty()) return out;
    std::vector<VerdictCell> cells =
        judge_within_window(book_, *options_.chat, out.facts, std::string(summary),
                            options_.context_tokens, options_.max_tokens, calls);
    for (const VerdictCell& cell : cells) out.covered.push_back(cell.supports());
    return out;
  }

  nlohmann::ordered_json usage_by_call() const override {
    nlohmann::ordered_json out = book_.report();
    const nlohmann::ordered_json embeddings = embed_book_.report();
    for (const auto& item : embeddings.items()) out[item.key()] = item.value();
    return out;
  }

  // ---- The ragas plan: each metric its own calls, as ragas makes them ----------------

  std::string ledger_scope(std::string_view metric) const override {
    if (!options_.ragas_plan) return {};
    if (metric == "faithfulness" || metric == "context_recall" || metric == "context_precision" ||
        metric == "context_utilization" || metric == "factual_correctness") {
      return std::string(metric);
    }
    if (metric.starts_with("noise_sensitivity")) return "noise_sensitivity";
    return {};  // the other metrics read the shared (compact) ledger
  }

  StatusOr<ClaimLedger> scoped_claim_ledger(const Sample& sample, std::string_view scope,
                                            CallLog* calls) override {
    if (scope.empty()) return claim_ledger(sample, calls);
    const std::string question = sample.user_input.value_or("");
    const std::string response = sample.response.value_or("");
    const std::string reference = sample.reference.value_or("");
    static const std::vector<std::string> kNone;
    const auto& chunks = sample.retrieved_contexts ? *sample.retrieved_contexts : kNone;
    std::string joined;
    for (const std::string& chunk : chunks) joined += (joined.empty() ? "" : "\n\n") + chunk;
    llm::Client& client = *options_.chat;
    const int window = options_.context_tokens;
    const int max_tokens = options_.max_tokens;
    auto verdicts = [&](const std::vector<std::string>& claims, const std::string& premise) {
      return judge_within_window(book_, client, claims, premise, window, max_tokens, calls);
    };
    // One statement-extraction call per text, as ragas makes (short answers: no call).
    auto claims_of = [&](const std::string& text, bool is_response) -> StatusOr<std::vector<std::string>> {
      if (text.empty()) return std::vector<std::string>{};
      const std::string short_claim = answer_premise(text, question);
      if (short_claim != text) return std::vector<std::string>{short_claim};
      return claims_in_pieces(question, text, is_response, calls);
    };
    ClaimLedger ledger;
    if (scope == "faithfulness" || scope == "context_recall") {
      // Statements, then one verdict call against every context joined.
      const bool of_response = scope == "faithfulness";
      RAGMETER_ASSIGN_OR_RETURN(std::vector<std::string> claims,
                                claims_of(of_response ? response : reference, of_response));
      std::vector<std::string> premise_list;
      if (!chunks.empty()) premise_list.push_back(joined);
      ledger = of_response ? make_claim_ledger(claims, {}, premise_list)
                           : make_claim_ledger({}, claims, premise_list);
      if (!claims.empty() && !chunks.empty()) {
        std::vector<VerdictCell> cells = verdicts(claims, joined);
        VerdictTable& table = of_response ? ledger.response_vs_chunks : ledger.reference_vs_chunks;
        for (std::size_t i = 0; i < cells.size(); ++i) table.at(i, 0) = std::move(cells[i]);
      }
    } else if (scope == "context_precision" || scope == "context_utilization") {
      // One usefulness verdict per chunk: the whole reference (or response) as the claim.
      const bool of_response = scope == "context_utilization";
      const std::string& text = of_response ? response : reference;
      std::vector<std::string> claim = {text};
      ledger = of_response ? make_claim_ledger(claim, {}, chunks) : make_claim_ledger({}, claim, chunks);
      VerdictTable& table = of_response ? ledger.response_vs_chunks : ledger.reference_vs_chunks;
      std::vector<std::future<std::vector<VerdictCell>>> per_chunk;
      for (const std::string& chunk : chunks) {
        per_chunk.push_back(std::async(std::launch::async, [&, &chunk = chunk] {
          CallLog ignored;
          return judge_within_window(book_, client, claim, chunk, window, max_tokens, &ignored);
        }));
      }
      for (std::size_t k = 0; k < per_chunk.size(); ++k) table.at(0, k) = per_chunk[k].get()[0];
      if (calls) {
        for (const std::string& chunk : chunks) {
          calls->push_back(llm::chat_cache_key(book_.endpoint(), llm_verdicts_request(claim, chunk)));
        }
      }
    } else if (scope == "noise_sensitivity" || scope == "factual_correctness") {
      RAGMETER_ASSIGN_OR_RETURN(std::vector<std::string> a, claims_of(response, true));
      RAGMETER_ASSIGN_OR_RETURN(std::vector<std::string> r, claims_of(reference, false));
      const bool noise = scope == "noise_sensitivity";
      ledger = make_claim_ledger(a, r, noise ? chunks : std::vector<std::string>{});
      if (!a.empty() && !reference.empty()) {
        ledger.response_vs_reference = verdicts(a, answer_premise(reference, question));
      }
      if (!noise && !r.empty() && !response.empty()) {
        ledger.reference_vs_response = verdicts(r, answer_premise(response, question));
      }
      // ragas's noise sensitivity: both statement lists against every chunk, 2K calls.
      for (std::size_t k = 0; noise && k < chunks.size(); ++k) {
        if (!a.empty()) {
          std::vector<VerdictCell> cells = verdicts(a, chunks[k]);
          for (std::size_t i = 0; i < cells.size(); ++i) ledger.response_vs_chunks.at(i, k) = cells[i];
        }
        if (!r.empty()) {
          std::vector<VerdictCell> cells = verdicts(r, chunks[k]);
          for (std::size_t i = 0; i < cells.size(); ++i) ledger.reference_vs_chunks.at(i, k) = cells[i];
        }
      }
    } else {
      return invalid_argument("unknown ledger scope '" + std::string(scope) + "'");
    }
    ledger.provenance = {"llm", options_.model, std::string(kLlmPromptVersion) + "+ragas-plan"};
    return ledger;
  }

 private:
  // True when a prompt with `bytes` of sample text and `task` fits the context window
  // (always, when the window is unknown), with the reply reserve of judge_within_window.
  bool fits_window(std::size_t bytes, std::string_view task) const {
    const int window = options_.context_tokens;
    if (window <= 0) return true;
    const std::int64_t reserve = std::min<std::int64_t>(options_.max_tokens, window / 4);
    return estimate_tokens(prompts::k_system.size() + task.size() + 64 + bytes) <= window - reserve;
  }

  // The claims of one text (the response, or the reference when !response), extracted
  // from pieces that each fit the window, in order.
  StatusOr<std::vector<std::string>> claims_in_pieces(const std::string& question,
                                                      const std::string& text, bool response,
                                                      CallLog* calls) {
    const int window = options_.context_tokens;
    const std::int64_t reserve = std::min<std::int64_t>(options_.max_tokens, window / 4);
    const std::int64_t room =
        window <= 0 ? std::numeric_limits<std::int64_t>::max() / 4
                    : window - reserve - estimate_tokens(prompts::k_system.size() +
                                                         prompts::k_claims.size() + 64 +
                                                         question.size());
    if (room < 32) {
      return invalid_argument("the judge's context window (" + std::to_string(window) +
                              " tokens) leaves no room to extract claims");
    }
    std::vector<std::string> out;
    for (const std::string& piece : split_to_fit(text, room)) {
      llm::ChatRequest request = response ? llm_claims_request(question, piece, "")
                                          : llm_claims_request(question, "", piece);
      RAGMETER_ASSIGN_OR_RETURN(Json claims, book_.chat(*options_.chat, std::move(request),
                                                        "claims", calls));
      for (std::string& claim :
           strings_of(claims[response ? "response_claims" : "reference_claims"])) {
        out.push_back(std::move(claim));
      }
    }
    return out;
  }

  LlmJudgeOptions options_;
  CallBook book_;
  CallBook embed_book_;
};

}  // namespace

llm::ChatRequest llm_claims_request(std::string_view question, std::string_view response,
                                    std::string_view reference) {
  Json schema = {{"type", "object"},
                 {"properties", {{"response_claims", string_array()}, {"reference_claims", string_array()}}},
                 {"required", {"response_claims", "reference_claims"}}};
  return make_request(section("QUESTION", question) + section("RESPONSE", response) +
                          section("REFERENCE", reference),
                      prompts::k_claims, std::move(schema), "claims");
}

llm::ChatRequest llm_verdicts_request(const std::vector<std::string>& claims,
                                      std::string_view premise) {
  std::string listed;
  for (std::size_t i = 0; i < claims.size(); ++i) {
    listed += std::to_string(i + 1) + ". " + claims[i] + "\n";
  }
  Json verdict = {{"type", "object"},
                  {"properties",
                   {{"claim", {{"type", "integer"}}},
                    {"verdict", {{"type", "string"}, {"enum", {"Entailment", "Neutral", "Contradiction"}}}},
                    {"reason", {{"type", "string"}}}}},
                  {"required", {"claim", "verdict"}}};
  Json schema = {{"type", "object"},
                 {"properties", {{"verdicts", {{"type", "array"}, {"items", verdict}}}}},
                 {"required", {"verdicts"}}};
  return make_request(section("PREMISE", premise) + "CLAIMS:\n" + listed + "\n",
                      prompts::k_verdicts, std::move(schema), "verdicts");
}

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
      cells[index].reason = entry["reason"].get<std::string>();
    }
  }
  return cells;
}

StatusOr<std::shared_ptr<Judge>> make_llm_judge(LlmJudgeOptions options) {
  if (!options.chat) return invalid_argument("make_llm_judge: no chat client");
  return std::shared_ptr<Judge>(std::make_shared<LlmJudge>(std::move(options)));
}

}  // namespace ragmeter
