// The run's output: a row as a dataset line, the summary as JSON.
#include <cmath>

#include "ragmeter/run.h"

namespace ragmeter {

nlohmann::ordered_json retrieved_contexts_json(const TargetAnswer& answer) {
  nlohmann::ordered_json list = *answer.contexts;
  for (std::size_t index : answer.image_contexts) {
    if (index >= list.size()) continue;
    auto item = nlohmann::ordered_json::parse(list[index].get<std::string>(), nullptr, false);
    if (item.is_object()) list[index] = std::move(item);
  }
  return list;
}

nlohmann::ordered_json run_row_json(const RunRow& row) {
  nlohmann::ordered_json line = row.fields.is_object() ? row.fields : nlohmann::ordered_json::object();
  // An input that is itself a run's output must not keep its old answer (canonical names
  // win over the legacy "answer" and "contexts" when a dataset is read).
  for (const char* stale : {"response", "retrieved_contexts", "retrieved_context_ids", "latency_ms",
                            "prompt_tokens", "completion_tokens", "run_error"}) {
    line.erase(stale);
  }
  if (row.outcome.ok() && row.outcome.answer->conversation) {
    const TargetAnswer& answer = *row.outcome.answer;
    // The run's conversation replaces the row's own, whichever shape that had.
    line.erase("turns");
    line.erase("simulation");
    if (line.contains("user_input") && line["user_input"].is_array()) line.erase("user_input");
    line["messages"] = *answer.conversation;
    if (!answer.simulation.is_null()) line["simulation"] = answer.simulation;
    line["latency_ms"] = std::round(row.latency_ms * 1000.0) / 1000.0;
    if (answer.prompt_tokens) line["prompt_tokens"] = *answer.prompt_tokens;
    if (answer.completion_tokens) line["completion_tokens"] = *answer.completion_tokens;
  } else if (row.outcome.ok()) {
    const TargetAnswer& answer = *row.outcome.answer;
    line["response"] = answer.response;
    if (answer.contexts) line["retrieved_contexts"] = retrieved_contexts_json(answer);
    if (answer.context_ids) line["retrieved_context_ids"] = *answer.context_ids;
    line["latency_ms"] = std::round(row.latency_ms * 1000.0) / 1000.0;
    if (answer.prompt_tokens) line["prompt_tokens"] = *answer.prompt_tokens;
    if (answer.completion_tokens) line["completion_tokens"] = *answer.completion_tokens;
  } else {
    line["run_error"] = {{"kind", row.outcome.failure.kind},
                         {"message", row.outcome.failure.message},
                         {"attempts", row.attempts}};
    if (!row.partial_conversation.is_null()) {
      int answered = 0;
      for (const auto& message : row.partial_conversation) answered += message.value("role", "") == "assistant";
      line["run_error"]["turns_answered"] = answered;
      line["run_error"]["messages"] = row.partial_conversation;
    }
  }
  return line;
}

nlohmann::ordered_json run_summary_json(const RunSummary& s) {
  nlohmann::ordered_json errors = nlohmann::ordered_json::object();
  for (const auto& [kind, n] : s.errors_by_kind) errors[kind] = n;
  nlohmann::ordered_json out = {
      {"rows", s.rows},
      {"answered", s.answered},
      {"from_record", s.from_record},
      {"failed", s.failed},
      {"requests", s.requests},
      {"retries", s.retries},
      {"errors", errors},
      {"latency_ms",
       {{"p50", s.latency_p50_ms}, {"p95", s.latency_p95_ms}, {"max", s.latency_max_ms},
        {"mean", s.latency_mean_ms}, {"n", s.latency_n}}},
      {"tokens", {{"prompt", s.prompt_tokens}, {"completion", s.completion_tokens}}},
      {"wall_seconds", s.wall_seconds},
      {"stopped_early", s.stopped_early},
      {"cancelled", s.cancelled}};
  if (s.conversations > 0) {
    out["conversations"] = {{"rows", s.conversations},
                            {"turns", s.conversation_turns},
                            {"turns_from_record", s.conversation_turns_from_record},
                            {"simulated_user",
                             {{"calls", s.simulated_user_calls},
                              {"prompt_tokens", s.simulated_user_prompt_tokens},
                              {"completion_tokens", s.simulated_user_completion_tokens}}}};
  }
  if (s.stopped_early) out["stop_reason"] = s.stop_reason;
  if (!s.target.is_null()) out["target"] = s.target;
  return out;
}

}  // namespace ragmeter
