// Conversation scenarios from documents (`ragmeter gen --scenarios`): rows like DeepEval's
// ConversationalGolden, for a simulated user to act out against the user's assistant
// (`ragmeter run`, docs/run.md) and a judge to score.
//
// A row: a scenario (what the user wants and their situation), a user description (who
// they are), the expected outcome (what a successful conversation gives them, from the
// documents), and the chunks that outcome comes from. The recipe, per context
// (docs/testset.md, "Conversation scenarios"):
//   1. a root chunk and its nearest chunks are drawn as for questions (testset.h: the
//      same seeded shuffle, `neighbours` nearest at least `min_neighbour_similarity`
//      alike);
//   2. one generation call asks for `scenarios_per_context` scenarios over the numbered
//      passages, each naming the passages its expected outcome needs (those become the
//      row's reference_contexts), in the passages' language;
//   3. every proposed scenario goes through the checks, in this order, each rejection
//      counted with its reason: an empty scenario, user description or expected outcome;
//      length limits; a scenario that points at its source ("the passage", "P1": the
//      simulated user has never seen the passages); passages named that do not exist, or
//      none; a near-duplicate of an accepted scenario (embedding cosine at or above
//      `duplicate_similarity`). There is no critic call: one judge call per context.
// Contexts are generated `concurrency` at a time and their scenarios accepted in draw
// order, so the same seed and the same judge replies (a cached judge) give the same set.
// Generation stops at exactly `size` rows, or when `max_contexts` contexts were tried.
//
// Thread-safety: generate_scenarios may be called from several threads on different
// options; the client and the embedder must be thread-safe (llm::Client is).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "ragmeter/chunker.h"
#include "ragmeter/llm.h"
#include "ragmeter/status.h"
#include "ragmeter/testset.h"
#include "ragmeter/vector_index.h"

namespace ragmeter {

struct ScenarioOptions {
  std::size_t size = 10;                  // rows wanted
  std::uint64_t seed = 42;                // root chunks
  std::size_t neighbours = 2;             // nearest chunks joined with the root
  double min_neighbour_similarity = 0.2;  // a neighbour less alike is left out
  std::size_t scenarios_per_context = 1;  // scenarios asked per generation call
  double duplicate_similarity = 0.9;      // near-duplicate scenarios at or above this
  std::size_t min_scenario_chars = 20;    // shorter: too thin to act out
  std::size_t max_scenario_chars = 1000;
  std::size_t max_user_description_chars = 600;
  std::size_t max_expected_outcome_chars = 1500;
  std::size_t max_contexts = 0;  // 0: 4 * size + 10
  int concurrency = 4;           // contexts generated at once
  int max_tokens = 1024;         // per reply
  // As TestsetOptions::cancel: no context is drawn after it is set, the calls in flight
  // are cancelled, the scenarios of the wave in flight are dropped (uncounted), and the
  // rows accepted so far are returned with ScenarioReport::cancelled. Null: no stop.
  const std::atomic<bool>* cancel = nullptr;
};

struct ScenarioRow {
  std::string id;                               // "scenario-N", N from 1 in accepted order
  std::string scenario;                         // what the user wants, their situation
  std::string expected_outcome;                 // what a successful conversation gives
  std::string user_description;                 // who the user is
  std::vector<std::string> reference_contexts;  // the chunk texts the outcome uses
  std::vector<TestsetSource> sources;           // one per reference context
};

struct ScenarioReport {
  std::vector<ScenarioRow> rows;
  std::size_t contexts_tried = 0;
  std::size_t scenarios_proposed = 0;
  std::map<std::string, std::size_t> rejected;  // reason -> count
  nlohmann::ordered_json usage_by_call;         // per kind of call: calls, tokens, cache hits
  bool cancelled = false;                       // ScenarioOptions::cancel stopped generation
};

// Generates up to options.size scenario rows from `chunks`, whose vectors `index` holds
// under the chunk's position as id; `embed` embeds scenarios for the near-duplicate check
// (the index's embedder). `progress` (may be empty) is called with the rows so far.
// InvalidArgument for no chunks, an index of another size, size 0 or 0 scenarios per
// context. A failed generation call (no reply, no JSON, no "scenarios" list, or the
// scenarios in another script than the passages, also when asked again) counts as a
// rejection ("generation failed: ...") and the run goes on; fewer rows than asked is not
// an error (the report says how many). An embedder failure is returned as it is.
StatusOr<ScenarioReport> generate_scenarios(const std::vector<DocumentChunk>& chunks,
                                            const VectorIndex& index, llm::Client& chat,
                                            const EmbedTexts& embed, const ScenarioOptions& options,
                                            const std::function<void(std::size_t)>& progress = {});

// The generation call, exposed for tests: `count` scenarios over `passages` (numbered "P1",
// ...), reply {"scenarios": [{"expected_outcome", "passages", "scenario",
// "user_description"}]} with exactly `count` items. `instruction`: the LANGUAGE line
// asking for the passages' language, last; empty for English.
llm::ChatRequest scenario_generation_request(const std::vector<std::string>& passages,
                                             std::size_t count, int max_tokens,
                                             std::string_view instruction = {});

// The row as a dataset line for `ragmeter run` with a simulated user: {"id", "scenario",
// "expected_outcome", "user_description", "reference_contexts", "sources": [{"chunk_id",
// "path", "title", "page" (when > 0), "headings"}]}.
nlohmann::ordered_json scenario_row_json(const ScenarioRow& row);

}  // namespace ragmeter
