// The judge calls an evaluation would make, planned without sending any (eval_spec.h).
#include <algorithm>

#include "ragmeter/eval_spec.h"
#include "ragmeter/llm.h"
#include "ragmeter/llm_config.h"

namespace ragmeter {
namespace {

// Adds the calls of each sample `reader` gives to `plan`.
void plan_rows(const EvalSpec& spec, const EvalOptions& options, RowReader& reader, EvalPlan* plan) {
  CallPlanOptions call_options;
  call_options.with_embedder = plan->settings.embedder == "openai";
  call_options.context_tokens = spec.judge.context_tokens;
  call_options.max_tokens = LlmJudgeOptions().max_tokens;
  call_options.critic_votes = spec.critic_votes;
  call_options.ragas_plan = spec.judge.plan == "ragas";
  // Each repeat makes the sample's calls again, with its own seed (--repeat).
  const int repeats = plan->llm_judge ? std::max(1, options.repeat) : 1;
  Row row;
  RowError error;
  for (RowReader::Result r; (r = reader.next(&row, &error)) != RowReader::Result::kEnd;) {
    if (options.limit > 0 && plan->rows >= options.limit) break;
    auto sample = r == RowReader::Result::kRow ? sample_from_json(row.fields, options.column_map)
                                               : StatusOr<Sample>(invalid_argument("bad row"));
    if (!sample.ok()) {
      ++plan->rejected;
      continue;
    }
    ++plan->rows;
    if (!plan->llm_judge && !plan->embedder_only) continue;
    const PlannedCalls calls = plan_llm_calls(*sample, options.metrics, call_options);
    for (int k = 0; k < repeats; ++k) plan->calls += calls;
  }
}

// The cost of the planned tokens at the model's price, when the price is known.
std::optional<double> planned_cost(const EvalPlan& plan) {
  if (!plan.llm_judge) return std::nullopt;
  auto client = llm::to_client_options(plan.settings);
  if (!client.ok()) return std::nullopt;
  auto price = llm::find_price(client->endpoint.model, client->prices);
  if (!price) return std::nullopt;
  return llm::cost_usd(llm::TokenUsage{plan.calls.prompt_tokens, plan.calls.completion_tokens, 0}, *price);
}

}  // namespace

StatusOr<EvalPlan> plan_eval(const EvalSpec& spec, RowReader& reader, SpecNaming naming) {
  RAGMETER_ASSIGN_OR_RETURN(EvalOptions options, make_eval_options(spec, naming));
  EvalPlan plan;
  plan.metrics = options.metrics.size();
  auto settings = resolve_judge_settings(spec.judge);
  if (!settings.ok()) return Status(settings.status().code(), "judge: " + settings.status().message());
  plan.settings = *settings;
  plan.llm_judge = plan.settings.judge != "offline";
  plan.embedder_only = !plan.llm_judge && plan.settings.embedder == "openai";
  plan_rows(spec, options, reader, &plan);
  plan.cost_usd = planned_cost(plan);
  return plan;
}

}  // namespace ragmeter
