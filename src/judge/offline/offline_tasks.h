// The offline judge's answers to the judge tasks it has rules for (judge_tasks.h), each
// written as the reply a model would give, so that one reading serves both: the task's
// JudgeTask::offline. Deterministic, thread-safe, no I/O.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ragmeter/sample.h"
#include "ragmeter/status.h"

namespace ragmeter {

// {"sentences": [...]}: the sentences of the retrieved contexts (split_sentences), in
// order, that hold at least half of the question's content words (stemmed, in
// offline_sample_language; at least one).
StatusOr<nlohmann::json> offline_relevant_sentences_reply(const Sample& sample);
// The same over `sentences`, the contexts' sentences already split.
nlohmann::json offline_relevant_sentences_reply(const Sample& sample,
                                                const std::vector<std::string>& sentences);

// {"entities": [...], "context_entities": [...]}: offline_entities of the reference, and of
// the retrieved contexts together (each once, in order of first occurrence).
StatusOr<nlohmann::json> offline_entities_reply(const Sample& sample);

}  // namespace ragmeter
