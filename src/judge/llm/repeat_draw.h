// How one repeat of a repeated run (EvalOptions::repeat, Judge::for_repeat) draws its
// replies: every request sampled at the repeat's temperature with the repeat's seed, and
// the claims and verdicts it stores keyed apart from the other repeats'. Internal to
// src/judge/.
#pragma once

#include <nlohmann/json.hpp>

#include "ragmeter/llm.h"

namespace ragmeter {

struct RepeatDraw {
  int repeat = 0;  // 1, 2, ...; 0: not a repeat (requests as built: temperature 0, no seed)
  double temperature = 0.0;

  bool active() const { return repeat > 0; }

  // Sets the seed and the temperature of a request that has no seed of its own (a critic's
  // ballots have theirs: LlmJudge::ask numbers them per repeat). Nothing when inactive.
  void apply(llm::ChatRequest* request) const {
    if (!active() || request->seed) return;
    request->seed = repeat;
    request->temperature = temperature;
  }

  // Adds {"draw": {"repeat", "temperature"}} to a store's key identity when active, so a
  // repeat's stored claims and verdicts are its own; an inactive draw leaves the identity,
  // and so every key of an unrepeated run, as it was.
  void add_to(nlohmann::json* identity) const {
    if (active()) (*identity)["draw"] = {{"repeat", repeat}, {"temperature", temperature}};
  }
};

}  // namespace ragmeter
