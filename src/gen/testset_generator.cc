// Test-set generation (include/ragmeter/testset.h): draw contexts, ask the judge for
// question and answer pairs, filter them, accept in draw order.
#include "ragmeter/testset.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <future>
#include <random>

#include "gen/context_draws.h"
#include "gen/generation_waves.h"
#include "judge/llm/call_book.h"
#include "judge/llm/judge_language.h"
#include "judge/llm/llm_requests.h"
#include "ragmeter/offline_judge.h"
#include "ragmeter_prompts.inc"

namespace ragmeter {
namespace {

using Json = nlohmann::json;

constexpr QuestionType kTypes[] = {QuestionType::kSimple, QuestionType::kReasoning,
                                   QuestionType::kMultiContext, QuestionType::kConditional};

std::string_view type_instruction(QuestionType type) {
  switch (type) {
    case QuestionType::kSimple: return prompts::k_gen_type_simple;
    case QuestionType::kReasoning: return prompts::k_gen_type_reasoning;
    case QuestionType::kMultiContext: return prompts::k_gen_type_multi_context;
    case QuestionType::kConditional: return prompts::k_gen_type_conditional;
  }
  return prompts::k_gen_type_simple;
}

llm::ChatRequest json_request(std::string user, Json schema, std::string name, int max_tokens) {
  return json_schema_request(std::string(prompts::k_gen_system), std::move(user), std::move(schema),
                             std::move(name), max_tokens);
}

// One drawn context: the root chunk and its neighbours (chunk positions), the type.
struct Context {
  QuestionType type;
  std::vector<std::size_t> chunks;
};

// A pair proposed by a generation call, with the chunk positions it names.
struct Proposal {
  QuestionType type;
  std::string question;
  std::string answer;
  std::vector<std::size_t> chunks;
};

using GeneratedPairs = Generated<Proposal>;

// What the generation and closed-book calls write in the passages' language.
constexpr std::string_view kPairsWhat = "every question and reference";
constexpr std::string_view kAnswerWhat = "the answer";

// The questions and references of a generation reply (what the language check reads).
std::vector<std::string> pair_texts(const Json& reply) {
  std::vector<std::string> out;
  const Json& pairs = reply.is_object() && reply.contains("pairs") ? reply["pairs"] : Json();
  if (!pairs.is_array()) return out;
  for (const Json& pair : pairs) {
    for (const char* key : {"question", "reference"}) {
      if (pair.is_object() && pair.contains(key) && pair[key].is_string()) out.push_back(pair[key]);
    }
  }
  return out;
}

// A closed-book answer, but "unknown", which the prompt asks for in English.
std::vector<std::string> closed_book_texts(const Json& reply) {
  if (!reply.is_object() || !reply.contains("answer") || !reply["answer"].is_string()) return {};
  const std::string answer = reply["answer"];
  if (offline_fold_case(trimmed(answer)) == "unknown") return {};
  return {answer};
}

class Generator {
 public:
  Generator(const std::vector<DocumentChunk>& chunks, const VectorIndex& index, llm::Client& chat,
            const EmbedTexts& embed, const TestsetOptions& options)
      : chunks_(chunks), chat_(chat), embed_(embed), options_(options),
        book_(llm::EndpointOptions{}), contexts_(chunks, index, options.seed),
        duplicates_(options.duplicate_similarity), watch_(chat, options.cancel) {
    for (const auto& [type, weight] : options.mix) total_weight_ += std::max(0.0, weight);
  }

  StatusOr<TestsetReport> run(const std::function<void(std::size_t)>& progress) {
    RAGMETER_ASSIGN_OR_RETURN(
        report_.cancelled,
        run_waves<Context>(
            {options_.size, options_.max_contexts, options_.concurrency, options_.pairs_per_context},
            [this] { return report_.rows.size(); }, &report_.contexts_tried,
            [this] { return draw_context(); },
            [this](const std::vector<Context>& contexts) { return run_wave(contexts); }, progress,
            watch_));
    report_.usage_by_call = book_.report();
    return std::move(report_);
  }

 private:
  void reject(const std::string& reason) { ++report_.rejected[reason]; }

  bool stopped() const { return watch_.stopped(); }

  QuestionType draw_type() {
    double x = contexts_.draws().unit() * total_weight_;
    QuestionType last = QuestionType::kSimple;
    for (QuestionType type : kTypes) {
      auto it = options_.mix.find(type);
      if (it == options_.mix.end() || it->second <= 0) continue;
      last = type;
      if (x < it->second) return type;
      x -= it->second;
    }
    return last;
  }

  std::optional<Context> draw_context() {
    Context context;
    context.type = draw_type();
    context.chunks = contexts_.next(options_.neighbours, options_.min_neighbour_similarity);
    if (context.type == QuestionType::kMultiContext && context.chunks.size() < 2) {
      reject("multi_context: no chunk alike enough to the root");
      return std::nullopt;
    }
    return context;
  }

  GeneratedPairs generate(const Context& context) {
    const ShownPassages shown = shown_passages(chunks_, context.chunks);
    const GenerationAsk ask{[&](const std::string& line) {
                              return testset_generation_request(context.type, shown.texts,
                                                                options_.pairs_per_context,
                                                                options_.max_tokens, line);
                            },
                            pair_texts, kPairsWhat, "pairs", "generate"};
    GenerationReply reply = ask_for_generation(book_, chat_, shown.language, ask);
    GeneratedPairs out;
    out.failure = std::move(reply.failure);
    for (const Json& pair : reply.items) {
      if (!pair.is_object()) continue;
      Proposal proposal;
      proposal.type = context.type;
      proposal.question = reply_text(pair, "question");
      proposal.answer = reply_text(pair, "reference");
      // Naming a passage not shown clears the list: rejected below for it.
      proposal.chunks = named_chunks(reply_member(pair, "passages"), context.chunks);
      out.proposals.push_back(std::move(proposal));
    }
    return out;
  }

  // The reason the cheap filters reject `p`, or "" when it passes them.
  std::string cheap_rejection(const Proposal& p) const {
    if (p.question.size() < options_.min_question_chars) return "question too short";
    if (p.question.size() > options_.max_question_chars) return "question too long";
    if (p.answer.empty()) return "empty answer";
    if (p.answer.size() > options_.max_answer_chars) return "answer too long";
    if (points_at_source(p.question)) return "question points at its source";
    if (answer_in_question(p.question, p.answer)) return "answer contained in the question";
    if (p.chunks.empty()) return "names no passage, or one that does not exist";
    if (p.type == QuestionType::kMultiContext && p.chunks.size() < 2) {
      return "multi_context: uses fewer than two passages";
    }
    return "";
  }

  // The critic's verdict on `p`, then the closed-book check: "" when accepted, else the
  // rejection reason.
  std::string critique(const Proposal& p) {
    std::vector<std::string> passages;
    for (std::size_t c : p.chunks) passages.push_back(chunks_[c].text);
    auto reply = book_.chat(chat_, testset_critic_request(passages, p.question, p.answer,
                                                          options_.max_tokens),
                            "critic", nullptr);
    if (!reply.ok()) return "critic failed: " + reply.status().message();
    auto flag = [&](const char* key) {
      const Json& value = reply_member(*reply, key);
      return value.is_boolean() && value.get<bool>();
    };
    if (!flag("standalone")) return "critic: not standalone";
    if (!flag("answerable")) return "critic: not answerable from its passages";
    if (!flag("grounded")) return "critic: answer not grounded in its passages";
    return options_.closed_book_check ? closed_book(p) : "";
  }

  // "" unless the judge answers `p`'s question right with no passage at all.
  std::string closed_book(const Proposal& p) {
    const JudgeLanguage language = judge_language_of_text(p.question);
    LanguageReply answer = chat_in_language(
        book_, chat_, language, kAnswerWhat,
        [&](const std::string& line) {
          return testset_closed_book_request(p.question, options_.max_tokens, line);
        },
        closed_book_texts, "closed_book", nullptr);
    StatusOr<Json> reply = std::move(answer.reply);
    if (!reply.ok()) return "closed-book check failed: " + reply.status().message();
    // An answer in another language cannot be compared with the reference's words: the
    // check did not run, and the pair is not accepted on it.
    if (answer.wrong) {
      return "closed-book check failed: " + wrong_script_message(language, kAnswerWhat, *answer.wrong);
    }
    const Json& said = reply_member(*reply, "answer");
    const bool answered =
        said.is_string() && closed_book_match(said.get<std::string>(), p.question, p.answer);
    return answered ? "answerable without its passages" : "";
  }

  Status run_wave(const std::vector<Context>& contexts) {
    // Generation calls at once; their pairs in draw order.
    std::optional<std::vector<GeneratedPairs>> generations = generate_wave<GeneratedPairs, Context>(
        contexts, [this](const Context& context) { return generate(context); }, watch_);
    if (!generations) return ok_status();  // no pair of this wave was checked: dropped, uncounted
    std::vector<Proposal> candidates = screen_proposals<Proposal>(
        *generations, [this](const Proposal& p) { return cheap_rejection(p); },
        &report_.pairs_proposed, &report_.rejected);
    if (candidates.empty()) return ok_status();
    std::vector<std::string> questions;
    for (const Proposal& p : candidates) questions.push_back(p.question);
    RAGMETER_ASSIGN_OR_RETURN(std::vector<std::vector<float>> vectors,
                              embed_each(embed_, questions, "questions"));
    // Duplicates of rows already accepted need no critic call.
    std::vector<std::size_t> to_check;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      if (duplicates_.near_duplicate(vectors[i])) {
        reject("near-duplicate question");
      } else {
        to_check.push_back(i);
      }
    }
    std::vector<std::future<std::string>> verdicts;
    for (std::size_t i : to_check) {
      verdicts.push_back(std::async(std::launch::async, [this, &candidates, i] {
        return critique(candidates[i]);
      }));
    }
    std::vector<std::string> answered;
    for (auto& verdict : verdicts) answered.push_back(watch_.await(verdict));
    const bool cut_short = stopped();  // failures may be calls cancelled by the stop
    for (std::size_t n = 0; n < to_check.size(); ++n) {
      const std::string& verdict = answered[n];
      const std::size_t i = to_check[n];
      if (!verdict.empty()) {
        if (!cut_short) reject(verdict);
      } else if (duplicates_.near_duplicate(vectors[i])) {  // of one accepted earlier in this wave
        reject("near-duplicate question");
      } else if (report_.rows.size() >= options_.size) {
        reject("not needed: the set was full");
      } else {
        accept(candidates[i]);
        duplicates_.keep(vectors[i]);
      }
    }
    return ok_status();
  }

  void accept(const Proposal& p) {
    TestsetRow row;
    row.user_input = p.question;
    row.reference = p.answer;
    row.type = p.type;
    for (std::size_t c : p.chunks) {
      const DocumentChunk& chunk = chunks_[c];
      row.reference_contexts.push_back(chunk.text);
      row.sources.push_back(testset_source_of(chunk));
    }
    report_.rows.push_back(std::move(row));
  }

  const std::vector<DocumentChunk>& chunks_;
  llm::Client& chat_;
  const EmbedTexts& embed_;
  const TestsetOptions& options_;
  CallBook book_;
  ContextDraws contexts_;
  double total_weight_ = 0.0;
  DuplicateFilter duplicates_;
  TestsetReport report_;
  StopWatch watch_;
};

}  // namespace

const char* question_type_name(QuestionType type) {
  switch (type) {
    case QuestionType::kSimple: return "simple";
    case QuestionType::kReasoning: return "reasoning";
    case QuestionType::kMultiContext: return "multi_context";
    case QuestionType::kConditional: return "conditional";
  }
  return "simple";
}

std::optional<QuestionType> parse_question_type(std::string_view name) {
  for (QuestionType type : kTypes) {
    if (name == question_type_name(type)) return type;
  }
  return std::nullopt;
}

StatusOr<QuestionMix> parse_question_mix(std::string_view spec) {
  QuestionMix mix;
  double total = 0.0;
  std::size_t start = 0;
  while (start <= spec.size()) {
    std::size_t comma = spec.find(',', start);
    if (comma == std::string_view::npos) comma = spec.size();
    const std::string part(spec.substr(start, comma - start));
    start = comma + 1;
    if (part.empty()) continue;
    const std::size_t eq = part.find('=');
    if (eq == std::string::npos) return invalid_argument("question mix: '" + part + "' is not TYPE=WEIGHT");
    auto type = parse_question_type(part.substr(0, eq));
    if (!type) {
      return invalid_argument("question mix: unknown type '" + part.substr(0, eq) +
                              "' (simple, reasoning, multi_context, conditional)");
    }
    double weight = 0;
    try {
      std::size_t used = 0;
      weight = std::stod(part.substr(eq + 1), &used);
      if (used != part.size() - eq - 1) throw std::invalid_argument("trailing text");
    } catch (const std::exception&) {
      return invalid_argument("question mix: '" + part.substr(eq + 1) + "' is not a number");
    }
    if (!(weight >= 0) || !std::isfinite(weight)) {
      return invalid_argument("question mix: the weight of " + part.substr(0, eq) + " is negative");
    }
    mix[*type] = weight;
    total += weight;
  }
  if (total <= 0) return invalid_argument("question mix: every weight is zero");
  return mix;
}

llm::ChatRequest testset_generation_request(QuestionType type,
                                            const std::vector<std::string>& passages,
                                            std::size_t pairs, int max_tokens,
                                            std::string_view instruction) {
  const Json labels = passage_labels(passages.size());
  const Json pair = {
      {"type", "object"},
      {"properties",
       {{"passages", {{"type", "array"}, {"items", {{"type", "string"}, {"enum", labels}}}}},
        {"question", {{"type", "string"}}},
        {"reference", {{"type", "string"}}}}},
      {"required", {"passages", "question", "reference"}}};
  const Json schema = {
      {"type", "object"},
      {"properties", {{"pairs", {{"type", "array"}, {"items", pair}, {"minItems", pairs}, {"maxItems", pairs}}}}},
      {"required", {"pairs"}}};
  const std::string task = std::string(prompts::k_gen_questions) + std::string(type_instruction(type)) +
                           "Pairs to write: " + std::to_string(pairs) + "\n" +
                           "Reply: {\"pairs\": [{\"passages\": [\"P1\"], \"question\": \"...\", "
                           "\"reference\": \"...\"}]}\n";
  return json_request(with_instruction(passages_section(passages) + task, instruction), schema,
                      "pairs", max_tokens);
}

llm::ChatRequest testset_critic_request(const std::vector<std::string>& passages,
                                        std::string_view question, std::string_view answer,
                                        int max_tokens) {
  const Json schema = {{"type", "object"},
                       {"properties",
                        {{"answerable", {{"type", "boolean"}}},
                         {"grounded", {{"type", "boolean"}}},
                         {"standalone", {{"type", "boolean"}}},
                         {"why_not", {{"type", "string"}}}}},
                       {"required", {"answerable", "grounded", "standalone", "why_not"}}};
  return json_request(passages_section(passages) + "QUESTION:\n" + std::string(question) +
                          "\n\nANSWER:\n" + std::string(answer) + "\n\n" +
                          std::string(prompts::k_gen_critic),
                      schema, "check", max_tokens);
}

TestsetSource testset_source_of(const DocumentChunk& chunk) {
  return {chunk.id, chunk.source_path, chunk.title, chunk.page, chunk.headings};
}

nlohmann::ordered_json testset_source_json(const TestsetSource& source) {
  nlohmann::ordered_json out;
  out["chunk_id"] = source.chunk_id;
  out["path"] = source.path;
  out["title"] = source.title;
  if (source.page > 0) out["page"] = source.page;
  out["headings"] = source.headings;
  return out;
}

nlohmann::ordered_json testset_sources_json(const std::vector<TestsetSource>& sources) {
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (const TestsetSource& source : sources) out.push_back(testset_source_json(source));
  return out;
}

nlohmann::ordered_json testset_row_json(const TestsetRow& row) {
  nlohmann::ordered_json out;
  out["user_input"] = row.user_input;
  out["reference"] = row.reference;
  out["reference_contexts"] = row.reference_contexts;
  out["question_type"] = question_type_name(row.type);
  out["sources"] = testset_sources_json(row.sources);
  return out;
}

StatusOr<TestsetReport> generate_testset(const std::vector<DocumentChunk>& chunks,
                                         const VectorIndex& index, llm::Client& chat,
                                         const EmbedTexts& embed, const TestsetOptions& options,
                                         const std::function<void(std::size_t)>& progress) {
  RAGMETER_RETURN_IF_ERROR(check_generation_inputs(chunks, index, options.size,
                                                   options.pairs_per_context, "questions", "pairs"));
  double total = 0;
  for (const auto& [type, weight] : options.mix) total += std::max(0.0, weight);
  if (total <= 0) return invalid_argument("the question mix has no positive weight");
  Generator generator(chunks, index, chat, embed, options);
  return generator.run(progress);
}

}  // namespace ragmeter
