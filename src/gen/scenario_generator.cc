// Conversation scenarios from documents (include/ragmeter/scenarios.h): draw contexts as
// question generation does, ask the judge for scenarios, check them, accept in draw order.
#include <optional>

#include "gen/context_draws.h"
#include "gen/generation_waves.h"
#include "judge/llm/call_book.h"
#include "judge/llm/judge_language.h"
#include "judge/llm/llm_requests.h"
#include "ragmeter/scenarios.h"
#include "ragmeter_prompts.inc"

namespace ragmeter {
namespace {

using Json = nlohmann::json;

// What the generation call writes in the passages' language.
constexpr std::string_view kScenariosWhat = "every scenario, user description and expected outcome";
constexpr const char* kScenarioFields[] = {"scenario", "user_description", "expected_outcome"};

// A scenario proposed by a generation call, with the chunk positions it names.
struct Proposal {
  std::string scenario;
  std::string user_description;
  std::string expected_outcome;
  std::vector<std::size_t> chunks;
};

using GeneratedScenarios = Generated<Proposal>;

// The written texts of a generation reply (what the language check reads).
std::vector<std::string> scenario_texts(const Json& reply) {
  std::vector<std::string> out;
  const Json& scenarios = reply_member(reply, "scenarios");
  if (!scenarios.is_array()) return out;
  for (const Json& item : scenarios) {
    for (const char* key : kScenarioFields) {
      std::string text = reply_text(item, key);
      if (!text.empty()) out.push_back(std::move(text));
    }
  }
  return out;
}

class ScenarioGenerator {
 public:
  ScenarioGenerator(const std::vector<DocumentChunk>& chunks, const VectorIndex& index,
                    llm::Client& chat, const EmbedTexts& embed, const ScenarioOptions& options)
      : chunks_(chunks),
        chat_(chat),
        embed_(embed),
        options_(options),
        book_(llm::EndpointOptions{}),
        contexts_(chunks, index, options.seed),
        duplicates_(options.duplicate_similarity),
        watch_(chat, options.cancel) {}

  StatusOr<ScenarioReport> run(const std::function<void(std::size_t)>& progress) {
    using Context = std::vector<std::size_t>;
    RAGMETER_ASSIGN_OR_RETURN(
        report_.cancelled,
        run_waves<Context>(
            {options_.size, options_.max_contexts, options_.concurrency, options_.scenarios_per_context},
            [this] { return report_.rows.size(); }, &report_.contexts_tried,
            [this]() -> std::optional<Context> {
              return contexts_.next(options_.neighbours, options_.min_neighbour_similarity);
            },
            [this](const std::vector<Context>& contexts) { return run_wave(contexts); }, progress,
            watch_));
    report_.usage_by_call = book_.report();
    return std::move(report_);
  }

 private:
  void reject(const std::string& reason) { ++report_.rejected[reason]; }

  GeneratedScenarios generate(const std::vector<std::size_t>& context) {
    const ShownPassages shown = shown_passages(chunks_, context);
    const GenerationAsk ask{[&](const std::string& line) {
                              return scenario_generation_request(shown.texts,
                                                                 options_.scenarios_per_context,
                                                                 options_.max_tokens, line);
                            },
                            scenario_texts, kScenariosWhat, "scenarios", "scenarios"};
    GenerationReply reply = ask_for_generation(book_, chat_, shown.language, ask);
    GeneratedScenarios out;
    out.failure = std::move(reply.failure);
    for (const Json& item : reply.items) {
      Proposal proposal;
      proposal.scenario = reply_text(item, "scenario");
      proposal.user_description = reply_text(item, "user_description");
      proposal.expected_outcome = reply_text(item, "expected_outcome");
      // Naming a passage not shown clears the list: rejected below for it.
      proposal.chunks = named_chunks(reply_member(item, "passages"), context);
      out.proposals.push_back(std::move(proposal));
    }
    return out;
  }

  // The reason the checks before the duplicate check reject `p`, or "" when it passes.
  std::string cheap_rejection(const Proposal& p) const {
    if (p.scenario.empty()) return "empty scenario";
    if (p.user_description.empty()) return "empty user description";
    if (p.expected_outcome.empty()) return "empty expected outcome";
    if (p.scenario.size() < options_.min_scenario_chars) return "scenario too short";
    if (p.scenario.size() > options_.max_scenario_chars) return "scenario too long";
    if (p.user_description.size() > options_.max_user_description_chars) {
      return "user description too long";
    }
    if (p.expected_outcome.size() > options_.max_expected_outcome_chars) {
      return "expected outcome too long";
    }
    if (points_at_source(p.scenario) || points_at_source(p.user_description)) {
      return "scenario points at its source";
    }
    if (p.chunks.empty()) return "names no passage, or one that does not exist";
    return "";
  }

  Status run_wave(const std::vector<std::vector<std::size_t>>& contexts) {
    std::optional<std::vector<GeneratedScenarios>> generations =
        generate_wave<GeneratedScenarios, std::vector<std::size_t>>(
            contexts, [this](const std::vector<std::size_t>& context) { return generate(context); },
            watch_);
    if (!generations) return ok_status();  // stopped: the wave is dropped, uncounted
    std::vector<Proposal> candidates = screen_proposals<Proposal>(
        *generations, [this](const Proposal& p) { return cheap_rejection(p); },
        &report_.scenarios_proposed, &report_.rejected);
    if (candidates.empty()) return ok_status();
    std::vector<std::string> texts;
    for (const Proposal& p : candidates) texts.push_back(p.scenario);
    RAGMETER_ASSIGN_OR_RETURN(std::vector<std::vector<float>> vectors,
                              embed_each(embed_, texts, "scenarios"));
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      if (duplicates_.near_duplicate(vectors[i])) {  // of a row kept, this wave's included
        reject("near-duplicate scenario");
      } else if (report_.rows.size() >= options_.size) {
        reject("not needed: the set was full");
      } else {
        accept(candidates[i]);
        duplicates_.keep(std::move(vectors[i]));
      }
    }
    return ok_status();
  }

  void accept(const Proposal& p) {
    ScenarioRow row;
    row.id = "scenario-" + std::to_string(report_.rows.size() + 1);
    row.scenario = p.scenario;
    row.expected_outcome = p.expected_outcome;
    row.user_description = p.user_description;
    for (std::size_t c : p.chunks) {
      row.reference_contexts.push_back(chunks_[c].text);
      row.sources.push_back(testset_source_of(chunks_[c]));
    }
    report_.rows.push_back(std::move(row));
  }

  const std::vector<DocumentChunk>& chunks_;
  llm::Client& chat_;
  const EmbedTexts& embed_;
  const ScenarioOptions& options_;
  CallBook book_;
  ContextDraws contexts_;
  DuplicateFilter duplicates_;
  StopWatch watch_;
  ScenarioReport report_;
};

}  // namespace

llm::ChatRequest scenario_generation_request(const std::vector<std::string>& passages,
                                             std::size_t count, int max_tokens,
                                             std::string_view instruction) {
  const Json item = {
      {"type", "object"},
      {"properties",
       {{"passages",
         {{"type", "array"},
          {"items", {{"type", "string"}, {"enum", passage_labels(passages.size())}}}}},
        {"scenario", {{"type", "string"}}},
        {"user_description", {{"type", "string"}}},
        {"expected_outcome", {{"type", "string"}}}}},
      {"required", {"passages", "scenario", "user_description", "expected_outcome"}}};
  const Json schema = {
      {"type", "object"},
      {"properties",
       {{"scenarios",
         {{"type", "array"}, {"items", item}, {"minItems", count}, {"maxItems", count}}}}},
      {"required", {"scenarios"}}};
  const std::string task =
      std::string(prompts::k_gen_scenarios) + "Scenarios to write: " + std::to_string(count) +
      "\nReply: {\"scenarios\": [{\"expected_outcome\": \"...\", \"passages\": [\"P1\"], "
      "\"scenario\": \"...\", \"user_description\": \"...\"}]}\n";
  return json_schema_request(std::string(prompts::k_gen_scenarios_system),
                             with_instruction(passages_section(passages) + task, instruction),
                             schema, "scenarios", max_tokens);
}

nlohmann::ordered_json scenario_row_json(const ScenarioRow& row) {
  nlohmann::ordered_json out;
  out["id"] = row.id;
  out["scenario"] = row.scenario;
  out["expected_outcome"] = row.expected_outcome;
  out["user_description"] = row.user_description;
  out["reference_contexts"] = row.reference_contexts;
  out["sources"] = testset_sources_json(row.sources);
  return out;
}

StatusOr<ScenarioReport> generate_scenarios(const std::vector<DocumentChunk>& chunks,
                                            const VectorIndex& index, llm::Client& chat,
                                            const EmbedTexts& embed, const ScenarioOptions& options,
                                            const std::function<void(std::size_t)>& progress) {
  RAGMETER_RETURN_IF_ERROR(check_generation_inputs(
      chunks, index, options.size, options.scenarios_per_context, "scenarios", "scenarios"));
  ScenarioGenerator generator(chunks, index, chat, embed, options);
  return generator.run(progress);
}

}  // namespace ragmeter
