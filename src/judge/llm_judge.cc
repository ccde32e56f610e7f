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

#include "judge/call_book.h"
#include "judge/embedding_similarity.h"
#include "judge/local_similarity.h"
#include "judge/verdict_store.h"
#include "judge/verdict_table.h"
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
  if (sample.reference() && !sample.reference()->empty()) out += section("REFERENCE", *sample.reference());
  return out;
}

std::vector<std::string> strings_of(const Json& value);

// Entities are matched as normalised strings: case-folded, single spaces, each once.
std::vector<std::string> normalised_entities(const Json& value) {
  std::vector<std::string> out;
  for (const std::string& entity : strings_of(value)) {
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

std::vector<std::string> strings_of(const Json& value) {
  std::vector<std::string> out;
  if (!value.is_array()) return out;
  for (const Json& item : value) {
    if (item.is_string() && !item.get<std::string>().empty()) out.push_back(item.get<std::string>());
  }
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
  LlmJudge(LlmJudgeOptions options, std::shared_ptr<llm::ResponseCache> verdict_cache)
      : options_(std::move(options)), book_(options_.endpoint_options),
        embed_book_(options_.embedder_endpoint_options),
        store_(std::move(verdict_cache), options_.endpoint_options,
               std::string(prompts::k_system) + "\n" + std::string(prompts::k_verdict_table)) {
    if (!options_.embedder && options_.local_embedder) local_.emplace(options_.local_embedder);
  }

  std::string description() const override {
    std::string out = "llm " + options_.model;
    if (!options_.endpoint.empty()) out += " at " + options_.endpoint;
    return out + " (" + (local_ ? "similarity: " + local_->identity() + "; " : std::string()) + "prompts " +
           std::string(kLlmPromptVersion) + (options_.ragas_plan ? ", ragas plan)" : ", compact plan)");
  }

  StatusOr<ClaimLedger> claim_ledger(const Sample& sample, CallLog* calls) override {
    const std::string question = sample.user_input.value_or("");
    const std::string response = sample.response.value_or("");
    const std::string reference(sample.reference().value_or(""));
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
      // A text that needs no call (a short answer) is left out of the request, so a small
      // model cannot put its claims on the other side.
      RAGMETER_ASSIGN_OR_RETURN(
          Json claims, book_.chat(*options_.chat,
                                  llm_claims_request(question, ask_response ? response : "",
                                                     ask_reference ? reference : ""),
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

    fill_verdicts(&ledger, chunks, reference.empty() ? std::nullopt : std::optional(reference_short),
                  response.empty() ? std::nullopt : std::optional(response_short), calls);
    return ledger;
  }

  void prepare_batch(const std::vector<const Sample*>& samples) override {
    if (local_) local_->prepare_batch(samples);
  }

  StatusOr<double> similarity(std::string_view a, std::string_view b, CallLog* calls) override {
    if (!options_.embedder && local_) return local_->similarity(a, b);
    if (!options_.embedder) return offline_similarity(a, b);
    return embedding_similarity(*options_.embedder, embed_book_, a, b, calls);
  }

  // One embeddings request for `a` and every text of `others`.
  StatusOr<std::vector<double>> similarities(std::string_view a,
                                             const std::vector<std::string>& others,
                                             CallLog* calls) override {
    if (!options_.embedder && local_) return local_->similarities(a, others);
    if (!options_.embedder) return Judge::similarities(a, others, calls);
    return embedding_similarities(*options_.embedder, embed_book_, a, others, calls);
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
    return normalised_entities(reply["entities"]);
  }

  // Both lists in one call when the texts fit the window together; else one call per text.
  StatusOr<EntityLists> reference_and_context_entities(std::string_view reference,
                                                       const std::vector<std::string>& contexts,
                                                       CallLog* calls) override {
    std::string numbered;
    for (std::size_t k = 0; k < contexts.size(); ++k) {
      numbered += "[" + std::to_string(k + 1) + "] " + contexts[k] + "\n";
    }
    if (!fits_window(reference.size() + numbered.size(), prompts::k_entity_lists)) {
      return Judge::reference_and_context_entities(reference, contexts, calls);
    }
    Json schema = {{"type", "object"},
                   {"properties", {{"reference_entities", string_array()},
                                   {"context_entities", string_array()}}},
                   {"required", {"reference_entities", "context_entities"}}};
    RAGMETER_ASSIGN_OR_RETURN(
        Json reply,
        book_.chat(*options_.chat,
                   make_request(section("REFERENCE", reference) + section("CONTEXTS", numbered),
                                prompts::k_entity_lists, std::move(schema), "entities",
                                options_.max_tokens),
                   "entities", calls));
    EntityLists out;
    out.reference = normalised_entities(reply["reference_entities"]);
    out.contexts = normalised_entities(reply["context_entities"]);
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

  // The metric table says which ledger each metric reads under ragas's plan; metrics
  // without a scope read the shared (compact) ledger.
  std::string ledger_scope(std::string_view ragas_scope) const override {
    return options_.ragas_plan ? std::string(ragas_scope) : std::string();
  }

  StatusOr<ClaimLedger> scoped_claim_ledger(const Sample& sample, std::string_view scope,
                                            CallLog* calls) override {
    if (scope.empty()) return claim_ledger(sample, calls);
    const std::string question = sample.user_input.value_or("");
    const std::string response = sample.response.value_or("");
    const std::string reference(sample.reference().value_or(""));
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
  // The compact plan's verdicts: every response claim against every chunk and the
  // reference, every reference claim against every chunk and the response. Each (claim,
  // premise) pair already in the verdict store is taken from it; the others are asked in
  // as few table calls as the window allows (verdict_table.h), run concurrently. A premise
  // too long to share a call with the claims is judged on its own, split if need be
  // (judge_within_window).
  void fill_verdicts(ClaimLedger* ledger, const std::vector<std::string>& chunks,
                     std::optional<std::string> reference, std::optional<std::string> response,
                     CallLog* calls) {
    // Distinct premise and claim texts: duplicate chunks or claims are asked once.
    std::vector<std::string> premises, claims;
    auto index_of = [](std::vector<std::string>& list, const std::string& text) {
      auto it = std::find(list.begin(), list.end(), text);
      if (it != list.end()) return static_cast<std::size_t>(it - list.begin());
      list.push_back(text);
      return list.size() - 1;
    };
    std::vector<std::size_t> chunk_premise;
    for (const std::string& chunk : chunks) chunk_premise.push_back(index_of(premises, chunk));
    const std::size_t a = ledger->response_claims.size(), r = ledger->reference_claims.size();
    std::optional<std::size_t> reference_premise, response_premise;
    if (reference && a > 0) reference_premise = index_of(premises, *reference);
    if (response && r > 0) response_premise = index_of(premises, *response);
    std::vector<std::size_t> response_claim, reference_claim;
    for (const Claim& claim : ledger->response_claims) response_claim.push_back(index_of(claims, claim.text));
    for (const Claim& claim : ledger->reference_claims) reference_claim.push_back(index_of(claims, claim.text));

    // The pairs the tables need, in table order.
    using Pair = std::pair<std::size_t, std::size_t>;  // (claim, premise)
    std::vector<Pair> needed;
    auto need = [&](std::size_t claim, std::size_t premise) {
      if (std::find(needed.begin(), needed.end(), Pair{claim, premise}) == needed.end()) {
        needed.emplace_back(claim, premise);
      }
    };
    for (std::size_t c : response_claim) {
      for (std::size_t p : chunk_premise) need(c, p);
      if (reference_premise) need(c, *reference_premise);
    }
    for (std::size_t c : reference_claim) {
      for (std::size_t p : chunk_premise) need(c, p);
      if (response_premise) need(c, *response_premise);
    }
    if (needed.empty()) return;

    std::map<Pair, StoredVerdict> found;
    std::vector<Pair> missing;
    bool from_store = false;
    std::vector<std::string> folded_premises;
    for (const std::string& premise : premises) {
      folded_premises.push_back(offline_fold_case(normalize_content_text(premise)));
    }
    for (const Pair& pair : needed) {
      // A premise that holds the claim's very words states it: no call. (A small model
      // judging a claim against its own text in a table was seen to answer Contradiction.)
      const std::string claim = offline_fold_case(normalize_content_text(claims[pair.first]));
      if (!claim.empty() && folded_premises[pair.second].find(claim) != std::string::npos) {
        found[pair].cell.verdict = Verdict::kEntailment;
        continue;
      }
      if (auto stored = store_.find(claims[pair.first], premises[pair.second])) {
        found[pair] = std::move(*stored);
        from_store = true;
      } else {
        missing.push_back(pair);
      }
    }
    if (missing.empty() && from_store) {
      book_.record_store_hit("verdicts");  // a call the store made unnecessary
    } else if (!missing.empty()) {
      ask_missing(claims, premises, missing, &found);
    }

    auto cell_of = [&](std::size_t claim, std::size_t premise) {
      auto it = found.find(Pair{claim, premise});
      return it == found.end() ? VerdictCell{} : it->second.cell;
    };
    for (std::size_t i = 0; i < a; ++i) {
      for (std::size_t k = 0; k < chunks.size(); ++k) {
        ledger->response_vs_chunks.at(i, k) = cell_of(response_claim[i], chunk_premise[k]);
      }
    }
    for (std::size_t j = 0; j < r; ++j) {
      for (std::size_t k = 0; k < chunks.size(); ++k) {
        ledger->reference_vs_chunks.at(j, k) = cell_of(reference_claim[j], chunk_premise[k]);
      }
    }
    if (reference_premise) {
      ledger->response_vs_reference.clear();
      for (std::size_t i = 0; i < a; ++i) {
        ledger->response_vs_reference.push_back(cell_of(response_claim[i], *reference_premise));
      }
    }
    if (response_premise) {
      ledger->reference_vs_response.clear();
      for (std::size_t j = 0; j < r; ++j) {
        ledger->reference_vs_response.push_back(cell_of(reference_claim[j], *response_premise));
      }
    }
    if (calls) {
      for (const Pair& pair : needed) {
        const std::string& call = found[pair].call;
        if (!call.empty() && std::find(calls->begin(), calls->end(), call) == calls->end()) {
          calls->push_back(call);
        }
      }
    }
  }

  // Asks the judge for the `missing` (claim, premise) pairs and puts their cells in
  // `found` (and the judged ones in the store).
  void ask_missing(const std::vector<std::string>& claims, const std::vector<std::string>& premises,
                   const std::vector<std::pair<std::size_t, std::size_t>>& missing,
                   std::map<std::pair<std::size_t, std::size_t>, StoredVerdict>* found) {
    std::vector<std::size_t> missing_premises, missing_claims;
    for (const auto& [c, p] : missing) {
      if (std::find(missing_premises.begin(), missing_premises.end(), p) == missing_premises.end()) missing_premises.push_back(p);
      if (std::find(missing_claims.begin(), missing_claims.end(), c) == missing_claims.end()) missing_claims.push_back(c);
    }
    std::size_t claim_bytes = 0;
    for (std::size_t c : missing_claims) claim_bytes += claims[c].size() + 6;
    std::vector<std::size_t> premise_bytes;
    for (std::size_t p : missing_premises) premise_bytes.push_back(premises[p].size());
    const std::size_t fixed = prompts::k_system.size() + prompts::k_verdict_table.size() + 64;
    const int window = options_.context_tokens;
    const int max_tokens = options_.max_tokens;
    const auto groups = group_premises(claim_bytes, premise_bytes, fixed, window, max_tokens);

    // One task per group; each returns its pairs' cells with the key of the call behind them.
    using Cells = std::vector<std::pair<std::pair<std::size_t, std::size_t>, StoredVerdict>>;
    std::vector<std::future<Cells>> tasks;
    for (const auto& group : groups) {
      std::vector<std::size_t> group_premises_;
      for (std::size_t g : group) group_premises_.push_back(missing_premises[g]);
      std::vector<std::size_t> group_claims;  // claims with a missing pair in this group
      for (std::size_t c : missing_claims) {
        for (std::size_t p : group_premises_) {
          if (std::find(missing.begin(), missing.end(), std::pair{c, p}) != missing.end()) {
            group_claims.push_back(c);
            break;
          }
        }
      }
      tasks.push_back(std::async(std::launch::async, [&, group_premises_, group_claims] {
        return ask_group(claims, premises, group_claims, group_premises_, missing);
      }));
    }
    for (auto& task : tasks) {
      for (auto& [pair, verdict] : task.get()) {
        store_.store(claims[pair.first], premises[pair.second], verdict);
        (*found)[pair] = std::move(verdict);
      }
    }
  }

  // One group of ask_missing: a table call of the group's claims against its premises
  // (claims the reply leaves out asked once more), or, for one premise too long to share
  // a call, judge_within_window. Returns the cells of the group's missing pairs.
  std::vector<std::pair<std::pair<std::size_t, std::size_t>, StoredVerdict>> ask_group(
      const std::vector<std::string>& claims, const std::vector<std::string>& premises,
      const std::vector<std::size_t>& group_claims, const std::vector<std::size_t>& group_premises_,
      const std::vector<std::pair<std::size_t, std::size_t>>& missing) {
    std::vector<std::string> claim_texts, premise_texts;
    std::size_t claim_bytes = 0, premise_bytes = 0;
    for (std::size_t c : group_claims) {
      claim_texts.push_back(claims[c]);
      claim_bytes += claims[c].size() + 6;
    }
    for (std::size_t p : group_premises_) {
      premise_texts.push_back(premises[p]);
      premise_bytes += premises[p].size() + 8;
    }
    // cells[i][j]: claim i against premise j, with the call that judged it.
    std::vector<std::vector<StoredVerdict>> cells(claim_texts.size(),
                                                  std::vector<StoredVerdict>(premise_texts.size()));
    const std::size_t fixed = prompts::k_system.size() + prompts::k_verdict_table.size() + 64;
    if (premise_texts.size() == 1 &&
        !ragmeter::fits_window(claim_bytes, premise_bytes, fixed, options_.context_tokens, options_.max_tokens)) {
      CallLog log;
      std::vector<VerdictCell> column =
          judge_within_window(book_, *options_.chat, claim_texts, premise_texts[0],
                              options_.context_tokens, options_.max_tokens, &log);
      for (std::size_t i = 0; i < column.size(); ++i) {
        cells[i][0].cell = std::move(column[i]);
        cells[i][0].call = log.empty() ? "" : log.front();
      }
    } else {
      // The cells this call must fill, in its own numbering.
      std::vector<std::pair<std::size_t, std::size_t>> asked;
      for (std::size_t i = 0; i < group_claims.size(); ++i) {
        for (std::size_t j = 0; j < group_premises_.size(); ++j) {
          if (std::find(missing.begin(), missing.end(),
                        std::pair{group_claims[i], group_premises_[j]}) != missing.end()) {
            asked.emplace_back(i, j);
          }
        }
      }
      table_call(claim_texts, premise_texts, asked, &cells);
      // Cells the reply left out (not a failed call: that leaves a reason) are asked
      // once more, in one call.
      std::vector<std::pair<std::size_t, std::size_t>> again;
      for (const auto& [i, j] : asked) {
        if (!cells[i][j].cell.judged() && cells[i][j].cell.reason.empty()) again.emplace_back(i, j);
      }
      if (!again.empty() && again.size() < asked.size()) {
        std::vector<std::vector<StoredVerdict>> second(
            claim_texts.size(), std::vector<StoredVerdict>(premise_texts.size()));
        table_call(claim_texts, premise_texts, again, &second);
        for (const auto& [i, j] : again) cells[i][j] = std::move(second[i][j]);
      }
    }
    std::vector<std::pair<std::pair<std::size_t, std::size_t>, StoredVerdict>> out;
    for (std::size_t i = 0; i < group_claims.size(); ++i) {
      for (std::size_t j = 0; j < group_premises_.size(); ++j) {
        const std::pair<std::size_t, std::size_t> pair{group_claims[i], group_premises_[j]};
        if (std::find(missing.begin(), missing.end(), pair) == missing.end()) continue;
        StoredVerdict verdict = std::move(cells[i][j]);
        if (!verdict.cell.judged() && verdict.cell.reason.empty()) {
          verdict.cell.reason = "not judged: the judge's reply had no verdict for this claim";
        }
        out.emplace_back(pair, std::move(verdict));
      }
    }
    return out;
  }

  // One verdict table call for `pairs` (claim, premise); a failed call leaves every
  // cell missing with its error.
  void table_call(const std::vector<std::string>& claims, const std::vector<std::string>& premises,
                  const std::vector<std::pair<std::size_t, std::size_t>>& pairs,
                  std::vector<std::vector<StoredVerdict>>* cells) {
    llm::ChatRequest request = llm_verdict_table_request(claims, premises, pairs);
    const std::string key = llm::chat_cache_key(book_.endpoint(), request);
    auto reply = book_.chat(*options_.chat, std::move(request), "verdicts", nullptr);
    std::vector<std::vector<VerdictCell>> table;
    if (reply.ok()) table = read_llm_verdict_table(*reply, claims.size(), premises.size());
    for (const auto& [i, j] : pairs) {
      {
        StoredVerdict& verdict = (*cells)[i][j];
        verdict.call = key;
        if (reply.ok()) {
          verdict.cell = std::move(table[i][j]);
        } else {
          verdict.cell = VerdictCell{};
          verdict.cell.reason = "not judged: " + reply.status().message();
        }
      }
    }
  }

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
  VerdictStore store_;
  std::optional<LocalSimilarity> local_;
};

}  // namespace

llm::ChatRequest llm_claims_request(std::string_view question, std::string_view response,
                                    std::string_view reference) {
  // Only the keys of the texts given: a schema's keys are sent sorted (reference before
  // response), and a small model under that grammar otherwise files a lone response's
  // claims under reference_claims.
  Json properties = Json::object();
  Json required = Json::array();
  if (!response.empty() || reference.empty()) {
    properties["response_claims"] = string_array();
    required.push_back("response_claims");
  }
  if (!reference.empty()) {
    properties["reference_claims"] = string_array();
    required.push_back("reference_claims");
  }
  Json schema = {{"type", "object"}, {"properties", properties}, {"required", required}};
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

std::string verdict_table_key(std::size_t claim, std::size_t premise) {
  return premise_label(premise) + ": claim " + std::to_string(claim + 1);
}

llm::ChatRequest llm_verdict_table_request(const std::vector<std::string>& claims,
                                           const std::vector<std::string>& premises,
                                           const std::vector<std::pair<std::size_t, std::size_t>>& pairs) {
  std::string passages;
  for (std::size_t j = 0; j < premises.size(); ++j) {
    passages += "[" + premise_label(j) + "]\n" + premises[j] + "\n\n";
  }
  std::string listed;
  for (std::size_t i = 0; i < claims.size(); ++i) {
    listed += std::to_string(i + 1) + ". " + claims[i] + "\n";
  }
  // Keys passage by passage (the model reads one passage at a time), then one reason
  // per claim. Every key is required, so a grammar-constrained reply has every cell.
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
  // nlohmann::json sorts object keys; the order the model sees is the order of
  // "required" and of the keys listed in the prompt.
  std::string keys;
  for (const auto& [claim, premise] : cells) {
    const std::string key = verdict_table_key(claim, premise);
    properties[key] = verdict;
    required.push_back(key);
    keys += "\"" + key + "\", ";
  }
  for (std::size_t i = 0; i < claims.size(); ++i) {
    const std::string key = "reason " + std::to_string(i + 1);
    properties[key] = {{"type", "string"}};
    required.push_back(key);
    keys += "\"" + key + "\", ";
  }
  if (!keys.empty()) keys.resize(keys.size() - 2);
  Json schema = {{"type", "object"}, {"properties", properties}, {"required", required}};
  return make_request("PASSAGES:\n" + passages + "CLAIMS:\n" + listed + "\nKEYS: " + keys + "\n",
                      prompts::k_verdict_table, std::move(schema), "verdicts");
}

std::vector<std::vector<VerdictCell>> read_llm_verdict_table(const nlohmann::json& reply,
                                                             std::size_t claims,
                                                             std::size_t premises) {
  std::vector<std::vector<VerdictCell>> cells(claims, std::vector<VerdictCell>(premises));
  if (!reply.is_object()) return cells;
  for (std::size_t i = 0; i < claims; ++i) {
    const std::string reason_key = "reason " + std::to_string(i + 1);
    const std::string reason =
        reply.contains(reason_key) && reply[reason_key].is_string() ? reply[reason_key].get<std::string>() : "";
    for (std::size_t j = 0; j < premises; ++j) {
      const std::string key = verdict_table_key(i, j);
      if (!reply.contains(key) || !reply[key].is_string()) continue;
      std::optional<Verdict> verdict = parse_verdict(reply[key].get<std::string>());
      if (!verdict) continue;
      cells[i][j].verdict = *verdict;
      if (*verdict != Verdict::kEntailment) cells[i][j].reason = reason;
    }
  }
  return cells;
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
  std::shared_ptr<llm::ResponseCache> verdict_cache;
  if (options.verdict_cache) {
    RAGMETER_ASSIGN_OR_RETURN(std::unique_ptr<llm::ResponseCache> opened,
                              llm::open_response_cache(*options.verdict_cache));
    verdict_cache = std::move(opened);
  }
  return std::shared_ptr<Judge>(std::make_shared<LlmJudge>(std::move(options), std::move(verdict_cache)));
}

}  // namespace ragmeter
