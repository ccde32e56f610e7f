// The loop both of gen's generators run (questions: testset_generator.cc; conversation
// scenarios: scenario_generator.cc): contexts drawn a wave at a time, one generation call
// per context in the passages' language, all of a wave's calls at once, the proposals
// embedded for the duplicate check. Internal to src/gen/.
#pragma once

#include <algorithm>
#include <functional>
#include <future>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gen/context_draws.h"
#include "judge/llm/call_book.h"
#include "judge/llm/judge_language.h"
#include "ragmeter/chunker.h"
#include "ragmeter/status.h"
#include "ragmeter/testset.h"
#include "ragmeter/vector_index.h"

namespace ragmeter {

// InvalidArgument for no chunks, an index of another size than the chunks, `size` 0 or
// `per_context` 0; `what` names the rows ("questions", "scenarios") and `per_context_what`
// the items of a call ("pairs", "scenarios").
Status check_generation_inputs(const std::vector<DocumentChunk>& chunks, const VectorIndex& index,
                               std::size_t size, std::size_t per_context, std::string_view what,
                               std::string_view per_context_what);

// How far the loop goes: until `size` rows, or `max_contexts` contexts tried (0: 4 * size
// + 10). A wave has `concurrency` contexts at most, and no more than the rows still
// missing need at `per_context` rows a call: a set of 2 asks 2 calls, not 16 (on a local
// one-slot server the 14 spare calls were most of gen's time); rejections are made up by
// the next wave.
struct WaveLimits {
  std::size_t size = 0;
  std::size_t max_contexts = 0;
  int concurrency = 1;
  std::size_t per_context = 1;
};

// Draws contexts (`draw`: nullopt for one rejected as drawn, still counted as tried) and
// hands each wave to `wave` until `rows()` reaches the size, the contexts run out or
// `watch` hears a stop; `progress` (may be empty) gets rows() after each wave. Returns
// whether a stop cut the set short, or the first error of `wave`.
template <typename Context>
StatusOr<bool> run_waves(const WaveLimits& limits, const std::function<std::size_t()>& rows,
                         std::size_t* contexts_tried,
                         const std::function<std::optional<Context>()>& draw,
                         const std::function<Status(const std::vector<Context>&)>& wave,
                         const std::function<void(std::size_t)>& progress, const StopWatch& watch) {
  const std::size_t max_contexts = limits.max_contexts ? limits.max_contexts : 4 * limits.size + 10;
  const std::size_t most_per_wave = static_cast<std::size_t>(std::max(1, limits.concurrency));
  const std::size_t per_call = std::max<std::size_t>(1, limits.per_context);
  while (rows() < limits.size && *contexts_tried < max_contexts && !watch.stopped()) {
    const std::size_t needed = (limits.size - rows() + per_call - 1) / per_call;
    const std::size_t per_wave = std::min(most_per_wave, needed);
    std::vector<Context> contexts;
    while (contexts.size() < per_wave && *contexts_tried < max_contexts) {
      ++*contexts_tried;
      if (std::optional<Context> context = draw()) contexts.push_back(std::move(*context));
    }
    RAGMETER_RETURN_IF_ERROR(wave(contexts));
    if (progress) progress(rows());
  }
  return watch.stopped() && rows() < limits.size;
}

// Runs `generate` on every context at once; the results in draw order, or nullopt when a
// stop came while they ran (some may be calls the stop cancelled: the wave is dropped).
template <typename Result, typename Context>
std::optional<std::vector<Result>> generate_wave(
    const std::vector<Context>& contexts, const std::function<Result(const Context&)>& generate,
    StopWatch& watch) {
  std::vector<std::future<Result>> calls;
  for (const Context& context : contexts) {
    calls.push_back(
        std::async(std::launch::async, [&generate, &context] { return generate(context); }));
  }
  std::vector<Result> results;
  for (auto& call : calls) results.push_back(watch.await(call));
  if (watch.stopped()) return std::nullopt;
  return results;
}

// What one generation call yields: its proposals, or the reason it failed.
template <typename Proposal>
struct Generated {
  std::vector<Proposal> proposals;
  std::string failure;
};

// The proposals of a wave's calls that `check` passes (its reason is ""), in draw order.
// Each failed call and each rejection is counted in `rejected` under its reason, and each
// proposal in `proposed`.
template <typename Proposal>
std::vector<Proposal> screen_proposals(std::vector<Generated<Proposal>>& generations,
                                       const std::function<std::string(const Proposal&)>& check,
                                       std::size_t* proposed,
                                       std::map<std::string, std::size_t>* rejected) {
  std::vector<Proposal> passed;
  for (Generated<Proposal>& generated : generations) {
    if (!generated.failure.empty()) {
      ++(*rejected)[generated.failure];
      continue;
    }
    for (Proposal& proposal : generated.proposals) {
      ++*proposed;
      const std::string reason = check(proposal);
      if (reason.empty()) {
        passed.push_back(std::move(proposal));
      } else {
        ++(*rejected)[reason];
      }
    }
  }
  return passed;
}

// The texts of a context's chunks, and the language the judge is asked to write in
// (detected from them).
struct ShownPassages {
  std::vector<std::string> texts;
  JudgeLanguage language;
};
ShownPassages shown_passages(const std::vector<DocumentChunk>& chunks,
                             const std::vector<std::size_t>& context);

// One generation call: the request with a LANGUAGE line, the written texts of its reply,
// what they are ("every question and reference"), the reply's list ("pairs") and the kind
// of call in the usage book ("generate").
struct GenerationAsk {
  LanguageRequest request;
  ReplyTexts texts;
  std::string_view what;
  std::string_view list_key;
  std::string kind;
};

// The reply's list of items, or why the context yields none: "generation failed: " and the
// call's error, the script its texts are still in when asked again, or "the reply has no
// <list_key>".
struct GenerationReply {
  nlohmann::json items;
  std::string failure;
};
GenerationReply ask_for_generation(CallBook& book, llm::Client& chat, const JudgeLanguage& language,
                                   const GenerationAsk& ask);

// One vector per text, by `embed`; Internal when it returns another count (`what` names
// the texts).
StatusOr<std::vector<std::vector<float>>> embed_each(const EmbedTexts& embed,
                                                     const std::vector<std::string>& texts,
                                                     std::string_view what);

}  // namespace ragmeter
