// ragmeter._core.evaluate and the Run it returns: the library's evaluation with the GIL
// released, Ctrl-C and progress callbacks heard between samples, and the results as
// Python values (columns for pandas, evidence, the summary JSON, the --out file).
#include <atomic>
#include <fstream>
#include <map>

#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "bindings.h"
#include "cluster_judge.h"
#include "progress_hook.h"
#include "data_source.h"
#include "eval_args.h"
#include "py_json.h"
#include "ragmeter/gates.h"
#include "ragmeter/evaluate.h"
#include "ragmeter/judge_factory.h"
#include "ragmeter/language.h"
#include "ragmeter/llm_config.h"
#include "ragmeter/ocr.h"
#include "run_result.h"
#include "status_errors.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace ragmeter::python {
namespace {

// Set from Python (aevaluate's task cancellation) or by the progress hook (Ctrl-C).
struct CancelFlag {
  std::atomic<bool> flag{false};
};


}  // namespace

namespace {

nlohmann::json json_of(const nb::dict& fields) {
  nlohmann::ordered_json value;
  if (auto error = to_json(fields.ptr(), &value)) raise_status(invalid_argument(*error));
  return value;
}

}  // namespace

JudgeOptions judge_options_from(const nb::dict& fields) {
  return value_or_raise(judge_options_from_json(json_of(fields)));
}

EvalSpec eval_spec_from(const nb::dict& fields) { return value_or_raise(eval_spec_from_json(json_of(fields))); }

namespace {

nb::tuple run_evaluate(DataSource& data, const nb::dict& spec_fields, const ClusterJudge* made_judge,
                       nb::object progress, CancelFlag* cancel) {
  const EvalSpec spec = eval_spec_from(spec_fields);
  if (made_judge != nullptr && spec_fields.contains("judge")) {
    raise_status(invalid_argument("evaluate: give judge fields or a made judge, not both"));
  }
  // The options, judge and embedder as `ragmeter eval` makes them (the local model may
  // take a moment to load: without the GIL), or with the judge a Ray worker made once.
  StatusOr<PreparedEval> prepared = [&] {
    nb::gil_scoped_release unlocked;
    return made_judge != nullptr ? prepare_eval(spec, made_judge->configured(), SpecNaming::kKeywords)
                                 : prepare_eval(spec, SpecNaming::kKeywords);
  }();
  PreparedEval eval = value_or_raise(std::move(prepared));
  EvalOptions& options = eval.options;
  const ConfiguredJudge& judge = eval.judge;
  CancelFlag own_cancel;
  std::atomic<bool>* flag = cancel != nullptr ? &cancel->flag : &own_cancel.flag;
  options.cancel = flag;
  std::unique_ptr<RowReader> reader = data.open();
  ProgressHook hook(std::move(progress), flag);
  const std::string source = data.name();
  StatusOr<EvalRun> run = [&] {
    nb::gil_scoped_release unlocked;
    return evaluate_to_table(*reader, source, options, [&](std::int64_t rows) { hook(rows); });
  }();
  nb::object stop = hook.stop_exception();
  if (!run.ok()) {
    if (!stop.is_none()) {  // the stop came first: raise it rather than what followed
      PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(stop.ptr())), stop.ptr());
      throw nb::python_error();
    }
    raise_status(run.status());
  }
  auto result = std::make_unique<RunResult>();
  result->run = std::move(run).value();
  // Rows held in memory have no dataset path: the summary then names none. The file is
  // read again for its hash: without the GIL.
  {
    nb::gil_scoped_release unlocked;
    result->info = make_run_info(judge, data.is_file() ? source : std::string());
  }
  return nb::make_tuple(nb::cast(result.release(), nb::rv_policy::take_ownership), stop);
}

const MetricSummary* find_summary(const RunResult& r, const std::string& metric) {
  for (const MetricSummary& s : r.run.summary.metrics) {
    if (s.name == metric) return &s;
  }
  return nullptr;
}

// A repeated result's scores, one per repeat (None where not scored); None for a result
// judged once.
nb::object repeat_scores(const MetricResult& result) {
  if (result.repeat_scores.empty()) return nb::none();
  nb::list scores;
  for (const std::optional<double>& score : result.repeat_scores) {
    scores.append(score ? nb::object(nb::float_(*score)) : nb::none());
  }
  return scores;
}

// The per-row table as columns for pandas: {"fields": {name: [...]}, "scores": {metric:
// [float or None]}, "status": {metric: [...]}, "reasons": {metric: [str or None]},
// "repeats": {metric: [list of floats or None, or None]} for the repeated metrics,
// "row_error": [str or None]}. Field names in order of first appearance.
nb::dict table_columns(const RunResult& r) {
  const ResultTable& table = r.run.table;
  const std::size_t n = table.rows.size();
  std::vector<std::string> names;
  std::map<std::string, std::size_t> position;
  for (const RowResult& row : table.rows) {
    if (!row.fields.is_object()) continue;
    for (auto it = row.fields.begin(); it != row.fields.end(); ++it) {
      if (position.emplace(it.key(), names.size()).second) names.push_back(it.key());
    }
  }
  std::vector<nb::list> field_columns(names.size());
  nb::list row_error;
  for (const RowResult& row : table.rows) {
    std::vector<bool> filled(names.size(), false);
    if (row.fields.is_object()) {
      for (auto it = row.fields.begin(); it != row.fields.end(); ++it) {
        std::size_t j = position.at(it.key());
        field_columns[j].append(from_json(*it));
        filled[j] = true;
      }
    }
    for (std::size_t j = 0; j < names.size(); ++j) {
      if (!filled[j]) field_columns[j].append(nb::none());
    }
    row_error.append(row.error ? nb::object(nb::str(row.error->to_string().c_str())) : nb::none());
  }
  nb::dict fields, scores, status, reasons, repeats;
  for (std::size_t j = 0; j < names.size(); ++j) fields[names[j].c_str()] = field_columns[j];
  for (std::size_t m = 0; m < table.metrics.size(); ++m) {
    nb::list score_column, status_column, reason_column, repeat_column;
    bool repeated = false;
    for (std::size_t i = 0; i < n; ++i) {
      const MetricResult& result = table.rows[i].results[m];
      bool ok = result.outcome == Outcome::kOk;
      score_column.append(ok ? nb::object(nb::float_(result.score)) : nb::none());
      status_column.append(outcome_name(result.outcome));
      reason_column.append(ok ? nb::none() : nb::object(nb::str(result.reason.data(), result.reason.size())));
      repeat_column.append(repeat_scores(result));
      repeated = repeated || !result.repeat_scores.empty();
    }
    const char* name = table.metrics[m].c_str();
    scores[name] = score_column;
    status[name] = status_column;
    reasons[name] = reason_column;
    if (repeated) repeats[name] = repeat_column;
  }
  nb::dict columns;
  columns["fields"] = fields;
  columns["scores"] = scores;
  columns["status"] = status;
  columns["reasons"] = reasons;
  columns["repeats"] = repeats;
  columns["row_error"] = row_error;
  return columns;
}

// ragmeter.testing's gates, by the CLI's rule (gates.h): each (metric, value, at_most) is
// first checked to fit its metric (ValueError otherwise), then against the run's summary.
// Returns the failed ones as dicts {"metric", "message", "scored"}, in the order given.
nb::list check_thresholds(const RunResult& r,
                          const std::vector<std::tuple<std::string, double, bool>>& gates,
                          const std::string& at_least, const std::string& at_most,
                          const std::string& pass_k) {
  const GateSpelling spelling{at_least, at_most};
  const PassK reading = value_or_raise(parse_pass_k(pass_k));
  std::vector<std::pair<ThresholdGate, const MetricSummary*>> checked;
  for (const auto& [metric, value, maximum] : gates) {
    ThresholdGate gate{metric, value, maximum ? GateBound::kAtMost : GateBound::kAtLeast, reading};
    const MetricSummary* summary = find_summary(r, metric);
    if (summary != nullptr) {
      ok_or_raise(check_gate_fits(gate, summary->higher_is_better, summary->min_score,
                                  summary->max_score, spelling));
    }
    checked.emplace_back(std::move(gate), summary);
  }
  nb::list failed;
  for (const auto& [gate, summary] : checked) {
    const GateVerdict verdict = check_threshold(gate, summary, spelling);
    if (verdict.passed) continue;
    nb::dict entry;
    entry["metric"] = gate.metric;
    entry["message"] = verdict.message;
    entry["scored"] = verdict.scored;
    failed.append(entry);
  }
  return failed;
}

const RowResult& row_at(const RunResult& r, std::int64_t i) {
  const auto n = static_cast<std::int64_t>(r.run.table.rows.size());
  if (i < 0) i += n;
  if (i < 0 || i >= n) throw nb::index_error("row index out of range");
  return r.run.table.rows[static_cast<std::size_t>(i)];
}

void bind_run(nb::module_& m) {
  nb::class_<CancelFlag>(m, "CancelFlag", "Stops a running evaluate() when set, from any thread.")
      .def(nb::init<>())
      .def("set", [](CancelFlag& c) { c.flag.store(true); })
      .def("is_set", [](const CancelFlag& c) { return c.flag.load(); });

  nb::class_<RunResult>(m, "Run", "The results of one evaluate() call (see ragmeter.Result).")
      .def("__len__", [](const RunResult& r) { return r.run.table.rows.size(); })
      .def_prop_ro("metrics", [](const RunResult& r) { return r.run.table.metrics; },
                   "The metric names, in run order.")
      .def_prop_ro("cancelled", [](const RunResult& r) { return r.run.summary.cancelled; },
                   "True when the run was stopped before the end of the data.")
      .def("summary_json", [](const RunResult& r) { return summary_json_text(r.run.summary, r.info); },
           "The text `ragmeter eval --summary` writes for this run.")
      .def("summary_table", [](const RunResult& r) { return format_summary_table(r.run.summary); },
           "The summary table `ragmeter eval` prints.")
      .def(
          "mean",
          [](const RunResult& r, const std::string& metric) -> std::optional<double> {
            const MetricSummary* s = find_summary(r, metric);
            if (s == nullptr) {
              throw nb::key_error(("no metric '" + metric + "' in this result").c_str());
            }
            if (s->stats.n == 0) return std::nullopt;
            return s->stats.mean;
          },
          "metric"_a, "The metric's mean over its scored samples; None when none was scored.")
      .def("columns", &table_columns, "The per-row table as columns (for pandas).")
      .def("check_thresholds", &check_thresholds, "gates"_a, "at_least"_a, "at_most"_a,
           "pass_k"_a = "mean",
           "The CI gates' rule (`eval --fail-under/--fail-over --pass-k`) over this run: the "
           "failed gates as {metric, message, scored}; ValueError for a gate that does not fit "
           "its metric or an unknown pass_k.")
      .def(
          "evidence",
          [](const RunResult& r, std::int64_t i) {
            const RowResult& row = row_at(r, i);
            nb::dict evidence;
            for (std::size_t m = 0; m < r.run.table.metrics.size(); ++m) {
              if (!row.results[m].evidence.is_null()) {
                evidence[r.run.table.metrics[m].c_str()] = from_json(row.results[m].evidence);
              }
            }
            return evidence;
          },
          "i"_a, "Row i's evidence: metric -> its evidence (claims, verdicts, parts).")
      .def(
          "row",
          [](const RunResult& r, std::int64_t i) {
            const RowResult& row = row_at(r, i);
            return row.fields.is_null() ? nb::object(nb::dict()) : from_json(row.fields);
          },
          "i"_a, "Row i's own fields (empty for a rejected row).")
      .def(
          "write_jsonl",
          [](const RunResult& r, const std::string& path) {
            std::ofstream out(path, std::ios::binary);
            if (!out) raise_status(not_found("cannot write " + path));
            Status status;
            {
              nb::gil_scoped_release unlocked;
              status = write_results_jsonl(r.run.table, out);
              out.close();
            }
            ok_or_raise(status);
            if (!out) raise_status(unavailable("cannot write " + path));
          },
          "path"_a, "Writes the per-row results as `ragmeter eval --out FILE.jsonl` does.");
}

}  // namespace

void bind_evaluate(nb::module_& m) {
  bind_run(m);
  m.def(
      "plan",
      [](DataSource& data, const nb::dict& spec_fields) {
        const EvalSpec spec = eval_spec_from(spec_fields);
        std::unique_ptr<RowReader> reader = data.open();
        StatusOr<EvalPlan> planned = [&] {
          nb::gil_scoped_release unlocked;
          return plan_eval(spec, *reader, SpecNaming::kKeywords);
        }();
        const EvalPlan plan = value_or_raise(std::move(planned));
        nlohmann::ordered_json out = {{"rows", plan.rows},
                                      {"rejected", plan.rejected},
                                      {"metrics", plan.metrics},
                                      {"judge", plan.llm_judge       ? "llm"
                                                : plan.embedder_only ? "offline with an embeddings server"
                                                                     : "offline"},
                                      {"calls", plan.calls.calls},
                                      {"total_calls", plan.calls.total_calls()},
                                      {"prompt_tokens", plan.calls.prompt_tokens},
                                      {"completion_tokens", plan.calls.completion_tokens},
                                      {"cost_usd", plan.cost_usd ? nlohmann::ordered_json(*plan.cost_usd)
                                                                 : nlohmann::ordered_json(nullptr)}};
        return from_json(out);
      },
      "data"_a, nb::kw_only(), "spec"_a = nb::dict(),
      "What evaluate(data, spec) would ask of the judge, sending nothing (`ragmeter eval --dry-run`): "
      "{rows, rejected, metrics, judge, calls: {kind: n}, total_calls, prompt_tokens, "
      "completion_tokens, cost_usd (None: unknown price)}.");
  m.def(
      "evaluate",
      [](DataSource& data, const nb::dict& spec, const ClusterJudge* made_judge, nb::object progress,
         CancelFlag* cancel) { return run_evaluate(data, spec, made_judge, std::move(progress), cancel); },
      "data"_a, nb::kw_only(), "spec"_a = nb::dict(), "made_judge"_a.none() = nb::none(),
      "progress"_a = nb::none(), "cancel"_a.none() = nb::none(),
      "Scores `data` (a DataSource) as `spec` says (EvalSpec's fields by name, eval_spec.h; the judge "
      "as spec['judge'], JudgeOptions' fields; none: the offline judge; or `made_judge`, a ClusterJudge "
      "made once) and returns (Run, the exception that stopped it or None). The GIL is released while "
      "rows are scored; `progress(rows_done)` is called about every 100 ms on this thread.");
}

}  // namespace ragmeter::python
