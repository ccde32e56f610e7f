// ragmeter._core's parts of the Ray path (python/ragmeter/ray.py):
//   SummaryBuilder  the run's summary from per-row results merged in input order
//                   (include/ragmeter/summary_builder.h): the same numbers as one process;
//   SharedLimiter   one rate limit and cost budget for every worker (judge_hooks.h), held
//                   by the coordinator actor;
//   ReplyStore      the judge cache file served by the cache actors;
//   ClusterJudge    a worker's judge, made once by make_judge (judge_factory.h) from the
//                   same judge dict as ragmeter.evaluate's, its clients asking Python
//                   callables for permits and keeping replies through them;
//   shard_columns   a worker's results as columns for an Arrow batch.
#include <chrono>
#include <optional>

#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "bindings.h"
#include "cluster_judge.h"
#include "eval_args.h"
#include "py_json.h"
#include "ragmeter/llm_config.h"
#include "ragmeter/evaluate.h"
#include "ragmeter/judge_factory.h"
#include "ragmeter/results.h"
#include "ragmeter/summary_builder.h"
#include "run_result.h"
#include "status_errors.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace ragmeter::python {

void ClusterJudge::close() {
  if (!judge_.judge && !judge_.chat && !judge_.embedder && !judge_.local_embedder) return;
  if (PyGILState_Check()) {
    nb::gil_scoped_release unlocked;
    judge_ = ConfiguredJudge();
  } else {
    judge_ = ConfiguredJudge();
  }
}

namespace {

std::string python_error_text(nb::python_error& e) {
  std::string text = e.what();
  return text.substr(0, text.find('\n'));
}

// Permits from a Python callable acquire(tokens) -> (kind, wait_seconds, reason), kind
// "granted" | "wait" | "refused"; usage to report(prompt, completion, cached, cost).
class PyPermitSource final : public llm::PermitSource {
 public:
  PyPermitSource(nb::object acquire, nb::object report)
      : acquire_(std::move(acquire)), report_(std::move(report)) {}
  ~PyPermitSource() override {
    nb::gil_scoped_acquire gil;
    acquire_.reset();
    report_.reset();
  }

  llm::Permit acquire(double tokens) override {
    nb::gil_scoped_acquire gil;
    try {
      nb::tuple answer = nb::cast<nb::tuple>(acquire_(tokens));
      std::string kind = nb::cast<std::string>(answer[0]);
      llm::Permit permit;
      permit.wait_seconds = nb::cast<double>(answer[1]);
      permit.reason = nb::cast<std::string>(answer[2]);
      permit.kind = kind == "granted" ? llm::Permit::Kind::kGranted
                    : kind == "wait"  ? llm::Permit::Kind::kWait
                                      : llm::Permit::Kind::kRefused;
      return permit;
    } catch (nb::python_error& e) {
      return {llm::Permit::Kind::kRefused, 0.0,
              "the run's permit coordinator did not answer: " + python_error_text(e)};
    } catch (const std::exception& e) {
      return {llm::Permit::Kind::kRefused, 0.0,
              std::string("bad answer from the permit coordinator: ") + e.what()};
    }
  }

  void report(const llm::TokenUsage& usage, double cost_usd) override {
    nb::gil_scoped_acquire gil;
    try {
      report_(usage.prompt_tokens, usage.completion_tokens, usage.cached_tokens, cost_usd);
    } catch (nb::python_error& e) {
      e.discard_as_unraisable("ragmeter: reporting judge usage to the coordinator");
    }
  }

 private:
  nb::object acquire_, report_;
};

// Replies through Python callables get(key) -> str | None, put(key, kind, value) and
// put_all([(key, kind, value), ...]) (None: the entries are put one by one).
class PyReplyStore final : public llm::ReplyStore {
 public:
  PyReplyStore(nb::object get, nb::object put, nb::object put_all)
      : get_(std::move(get)), put_(std::move(put)), put_all_(std::move(put_all)),
        has_put_all_(!put_all_.is_none()) {}
  ~PyReplyStore() override {
    nb::gil_scoped_acquire gil;
    get_.reset();
    put_.reset();
    put_all_.reset();
  }

  StatusOr<std::optional<std::string>> get(const std::string& key) override {
    nb::gil_scoped_acquire gil;
    try {
      nb::object value = get_(key);
      if (value.is_none()) return std::optional<std::string>();
      if (nb::isinstance<nb::bytes>(value)) {
        nb::bytes bytes = nb::borrow<nb::bytes>(value);
        return std::optional<std::string>(std::string(bytes.c_str(), bytes.size()));
      }
      return std::optional<std::string>(nb::cast<std::string>(value));
    } catch (nb::python_error& e) {
      return unavailable("the shared judge cache did not answer: " + python_error_text(e));
    }
  }

  Status put(const std::string& key, const std::string& kind, const std::string& value) override {
    nb::gil_scoped_acquire gil;
    try {
      put_(key, kind, nb::bytes(value.data(), value.size()));  // any bytes, not only UTF-8
      return ok_status();
    } catch (nb::python_error& e) {
      return unavailable("the shared judge cache did not store a reply: " + python_error_text(e));
    }
  }

  Status put_all(const std::vector<llm::StoreEntry>& entries) override {
    if (entries.empty()) return ok_status();
    if (!has_put_all_) return llm::ReplyStore::put_all(entries);
    nb::gil_scoped_acquire gil;
    try {
      nb::list items;
      for (const llm::StoreEntry& entry : entries) {
        items.append(nb::make_tuple(entry.key, entry.kind,
                                    nb::bytes(entry.value.data(), entry.value.size())));
      }
      put_all_(items);
      return ok_status();
    } catch (nb::python_error& e) {
      return unavailable("the shared judge cache did not store " + std::to_string(entries.size()) +
                         " entries: " + python_error_text(e));
    }
  }

 private:
  nb::object get_, put_, put_all_;
  const bool has_put_all_;
};

// The judge the glue's dict describes (as ragmeter.evaluate's), made by make_judge
// with the shared permits and store the callables give (none for a None).
ConfiguredJudge make_cluster_judge(const nb::dict& fields, nb::object acquire, nb::object report,
                                   nb::object cache_get, nb::object cache_put,
                                   nb::object cache_put_all) {
  JudgeOptions options = judge_options_from(fields);
  if (!acquire.is_none()) {
    options.hooks.permits = std::make_shared<PyPermitSource>(std::move(acquire), std::move(report));
  }
  if (!cache_get.is_none()) {
    options.hooks.store = std::make_shared<PyReplyStore>(std::move(cache_get), std::move(cache_put),
                                                         std::move(cache_put_all));
  }
  StatusOr<ConfiguredJudge> made = [&] {
    nb::gil_scoped_release unlocked;  // the local model may take a moment to load
    return make_judge(options);
  }();
  return value_or_raise(std::move(made));
}

nb::dict usage_dict(const JudgeUsage& t) {
  nb::dict d;
  d["requests"] = t.requests;
  d["cache_hits"] = t.cache_hits;
  d["failed_calls"] = t.failed_calls;
  d["prompt_tokens"] = t.prompt_tokens;
  d["completion_tokens"] = t.completion_tokens;
  d["cached_tokens"] = t.cached_tokens;
  d["cost_usd"] = t.cost_usd;
  d["key_redacted_replies"] = t.key_redacted_replies;
  return d;
}

// What a judge's options resolve to (config file, environment, the fields), for the
// driver: whether the workers send requests, the coordinator's limits and budget, the
// cache actors' file and mode.
nb::dict settings_dict(const llm::JudgeSettings& s) {
  nb::dict d;
  d["makes_calls"] = s.judge != "offline" || s.embedder == "openai";  // as make_judge
  d["concurrency"] = s.concurrency;
  d["requests_per_minute"] = s.requests_per_minute;
  d["tokens_per_minute"] = s.tokens_per_minute;
  d["max_cost_usd"] = s.max_cost_usd;
  d["cache_path"] = s.cache_path;  // empty: the default path (open_reply_store's too)
  d["cache_mode"] = llm::cache_mode_name(s.cache_mode);
  return d;
}

// A worker's results as columns: {"status": {metric: [int8 code]}, "scores": {metric:
// [float or None]}, "reasons": {metric: [str or None]}, "corpus": {metric: [list or
// None]} (metrics with corpus statistics only), "row_error": [str or None], "language":
// [str or None], "evidence": [JSON text or None] (with `evidence`)}. Statuses are "ok", "skipped", "failed".
nb::dict shard_columns(const RunResult& r, bool evidence) {
  const ResultTable& table = r.run.table;
  nb::dict status, scores, reasons, corpus;
  for (std::size_t m = 0; m < table.metrics.size(); ++m) {
    nb::list status_column, score_column, reason_column, corpus_column;
    bool has_corpus = false;
    for (const RowResult& row : table.rows) {
      const MetricResult& result = row.results[m];
      const bool ok = result.outcome == Outcome::kOk;
      status_column.append(outcome_name(result.outcome));
      score_column.append(ok ? nb::object(nb::float_(result.score)) : nb::none());
      reason_column.append(ok ? nb::none() : nb::object(nb::str(result.reason.data(), result.reason.size())));
      if (!result.corpus_stats.empty()) has_corpus = true;
      corpus_column.append(result.corpus_stats.empty() ? nb::none() : nb::cast(result.corpus_stats));
    }
    const char* name = table.metrics[m].c_str();
    status[name] = status_column;
    scores[name] = score_column;
    reasons[name] = reason_column;
    if (has_corpus) corpus[name] = corpus_column;
  }
  nb::list row_error, evidence_column, language_column;
  for (const RowResult& row : table.rows) {
    row_error.append(row.error ? nb::object(nb::str(row.error->to_string().c_str())) : nb::none());
    // The language each row was scored in (its column, --language, or detected), as --out
    // writes it; None for a rejected row.
    const auto language = row.fields.is_object() ? row.fields.find("language") : row.fields.end();
    language_column.append(language != row.fields.end() && language->is_string()
                               ? nb::object(nb::str(language->get<std::string>().c_str()))
                               : nb::none());
    if (!evidence) continue;
    nlohmann::ordered_json detail = nlohmann::ordered_json::object();
    for (std::size_t m = 0; m < table.metrics.size(); ++m) {
      if (!row.results[m].evidence.is_null()) detail[table.metrics[m]] = row.results[m].evidence;
    }
    evidence_column.append(detail.empty() ? nb::none()
                                          : nb::object(nb::str(detail.dump(-1, ' ', false,
                                                nlohmann::json::error_handler_t::replace).c_str())));
  }
  nb::dict columns;
  columns["status"] = status;
  columns["scores"] = scores;
  columns["reasons"] = reasons;
  columns["corpus"] = corpus;
  columns["row_error"] = row_error;
  columns["language"] = language_column;
  if (evidence) columns["evidence"] = evidence_column;
  return columns;
}

[[noreturn]] Outcome raise_outcome(const std::string& code) {
  raise_status(invalid_argument("unknown status '" + code + "' (ok, skipped, failed)"));
}

// The summary builder with the metric and scoring options of an evaluate() call with
// `judge` (apply_judge: the same metric list as the workers').
class PySummaryBuilder {
 public:
  PySummaryBuilder(const EvalSpec& spec, const ClusterJudge& judge)
      : judge_(judge.configured()),
        options_(value_or_raise(prepare_eval(spec, judge_, SpecNaming::kKeywords)).options),
        builder_(options_),
        names_(metric_names(options_.metrics)) {}

  std::vector<std::string> metrics() const { return names_; }

  // One batch of rows in input order, as shard_columns gives them (statuses by
  // metric, scores, reasons, corpus statistics) plus which rows were rejected and, when
  // given, each row's language (the results' "language" column; None for a rejected row).
  void add(const std::vector<bool>& rejected, nb::dict status, nb::dict scores, nb::dict reasons,
           nb::dict corpus, std::optional<std::vector<std::optional<std::string>>> languages) {
    const std::size_t n = rejected.size();
    std::vector<nb::list> status_of, scores_of, reasons_of;
    std::vector<std::optional<nb::list>> corpus_of;
    for (const std::string& name : names_) {
      nb::str key(name.c_str());
      status_of.push_back(nb::cast<nb::list>(status[key]));
      scores_of.push_back(nb::cast<nb::list>(scores[key]));
      reasons_of.push_back(nb::cast<nb::list>(reasons[key]));
      if (corpus.contains(key)) {
        corpus_of.emplace_back(nb::cast<nb::list>(corpus[key]));
      } else {
        corpus_of.emplace_back();
      }
      if (nb::len(status_of.back()) != n || nb::len(scores_of.back()) != n ||
          nb::len(reasons_of.back()) != n) {
        raise_status(invalid_argument("metric " + name + ": columns of another length than the rows"));
      }
    }
    std::vector<double> stats;
    const std::string no_reason;
    for (std::size_t i = 0; i < n; ++i) {
      if (rejected[i]) {
        builder_.add_rejected();
        continue;
      }
      for (std::size_t m = 0; m < names_.size(); ++m) {
        const std::string code = nb::cast<std::string>(status_of[m][i]);
        const Outcome outcome = code == "ok"        ? Outcome::kOk
                                : code == "skipped" ? Outcome::kSkipped
                                : code == "failed"  ? Outcome::kFailed
                                                    : raise_outcome(code);
        double score = 0.0;
        std::string reason;
        stats.clear();
        if (outcome == Outcome::kOk) {
          score = nb::cast<double>(scores_of[m][i]);
          if (corpus_of[m]) {
            nb::object cell = (*corpus_of[m])[i];
            if (!cell.is_none()) stats = nb::cast<std::vector<double>>(cell);
          }
        } else {
          nb::object cell = reasons_of[m][i];
          if (!cell.is_none()) reason = nb::cast<std::string>(cell);
        }
        builder_.add_outcome(m, outcome, score, reason, stats);
      }
      builder_.count_row();
      if (languages && i < languages->size() && (*languages)[i]) {
        builder_.count_language(*(*languages)[i]);
      }
    }
  }

  void set_cancelled() { builder_.set_cancelled(); }

  // (summary JSON text, terminal table) of everything added, the summary's run block
  // naming `dataset` (a file path, or empty) and its usage the cluster's `usage`
  // (requests, cache_hits, failed_calls, prompt_tokens, completion_tokens,
  // cached_tokens, cost_usd, key_redacted_replies; the driver's judge sent nothing;
  // by_call: the workers' per-kind counts summed, as JSON text).
  nb::tuple finish(const std::string& dataset, nb::dict usage) {
    RunInfo info = [&] {
      nb::gil_scoped_release unlocked;  // hashes the dataset file
      return make_run_info(judge_, dataset);
    }();
    auto count = [&](const char* key) {
      return usage.contains(key) ? nb::cast<std::int64_t>(usage[key]) : std::int64_t{0};
    };
    info.usage.requests = count("requests");
    info.usage.cache_hits = count("cache_hits");
    info.usage.failed_calls = count("failed_calls");
    info.usage.prompt_tokens = count("prompt_tokens");
    info.usage.completion_tokens = count("completion_tokens");
    info.usage.cached_tokens = count("cached_tokens");
    info.usage.key_redacted_replies = count("key_redacted_replies");
    info.usage.cost_usd = usage.contains("cost_usd") ? nb::cast<double>(usage["cost_usd"]) : 0.0;
    // The workers' per-kind counts, summed by the driver (JSON text; absent: the judge
    // keeps none, as the offline judge). Written in a one-process run's order: the chat
    // kinds by name, then embeddings; each kind's fields in CallBook::report's order.
    info.usage_by_call = nullptr;
    if (usage.contains("by_call")) {
      const nlohmann::json merged = nlohmann::json::parse(nb::cast<std::string>(usage["by_call"]));
      nlohmann::ordered_json by_call = nlohmann::ordered_json::object();
      auto add = [&](const std::string& kind, const nlohmann::json& tally) {
        nlohmann::ordered_json& out = by_call[kind];
        for (const char* field : {"calls", "cache_hits", "failed", "prompt_tokens", "completion_tokens"}) {
          out[field] = tally.value(field, std::int64_t{0});
        }
        if (tally.value("store_hits", std::int64_t{0}) > 0) out["store_hits"] = tally["store_hits"];
      };
      for (const auto& [kind, tally] : merged.items()) {
        if (kind != "embeddings") add(kind, tally);
      }
      if (merged.contains("embeddings")) add("embeddings", merged["embeddings"]);
      info.usage_by_call = std::move(by_call);
    }
    EvalSummary summary = [&] {
      nb::gil_scoped_release unlocked;
      return std::move(builder_).finish();
    }();
    return nb::make_tuple(summary_json_text(summary, info), format_summary_table(summary));
  }

 private:
  ConfiguredJudge judge_;
  EvalOptions options_;
  SummaryBuilder builder_;
  std::vector<std::string> names_;
};

double monotonic_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

void bind_cluster(nb::module_& m) {
  nb::class_<PySummaryBuilder>(m, "SummaryBuilder",
                               "A run's summary from per-row results added in input order.")
      .def(
          "__init__",
          [](PySummaryBuilder* self, const ClusterJudge& judge, const nb::dict& spec) {
            new (self) PySummaryBuilder(eval_spec_from(spec), judge);
          },
          "judge"_a, nb::kw_only(), "spec"_a = nb::dict(),
          "The builder of a run evaluated as `spec` says (EvalSpec's fields by name, as "
          "evaluate's) with `judge`: the same metric list and options as the workers'.")
      .def_prop_ro("metrics", &PySummaryBuilder::metrics)
      .def("add", &PySummaryBuilder::add, "rejected"_a, "status"_a, "scores"_a, "reasons"_a,
           "corpus"_a, "languages"_a.none() = nb::none())
      .def("set_cancelled", &PySummaryBuilder::set_cancelled)
      .def("finish", &PySummaryBuilder::finish, "dataset"_a, "usage"_a);

  nb::class_<llm::SharedLimiter>(m, "SharedLimiter",
                                 "One rate limit and cost budget for every worker of a run.")
      .def(
          "__init__",
          [](llm::SharedLimiter* self, double rpm, double tpm, double max_cost) {
            new (self) llm::SharedLimiter(llm::SharedLimitOptions{rpm, tpm, max_cost});
          },
          nb::kw_only(), "rpm"_a = 0.0, "tpm"_a = 0.0, "max_cost"_a = 0.0)
      .def(
          "acquire",
          [](llm::SharedLimiter& self, double tokens) {
            llm::Permit p = self.acquire(tokens, monotonic_seconds());
            const char* kind = p.kind == llm::Permit::Kind::kGranted ? "granted"
                               : p.kind == llm::Permit::Kind::kWait  ? "wait"
                                                                     : "refused";
            return nb::make_tuple(kind, p.wait_seconds, p.reason);
          },
          "tokens"_a, "(\"granted\" | \"wait\" | \"refused\", wait_seconds, reason)")
      .def(
          "report",
          [](llm::SharedLimiter& self, std::int64_t prompt, std::int64_t completion,
             std::int64_t cached, double cost) {
            self.report(llm::TokenUsage{prompt, completion, cached}, cost);
          },
          "prompt_tokens"_a, "completion_tokens"_a, "cached_tokens"_a, "cost_usd"_a)
      .def("totals", [](const llm::SharedLimiter& self) {
        llm::SharedTotals t = self.totals();
        nb::dict d;
        d["requests"] = t.permits;
        d["refused"] = t.refused;
        d["waits"] = t.waits;
        d["prompt_tokens"] = t.tokens.prompt_tokens;
        d["completion_tokens"] = t.tokens.completion_tokens;
        d["cached_tokens"] = t.tokens.cached_tokens;
        d["cost_usd"] = t.cost_usd;
        return d;
      });

  nb::class_<llm::ReplyStore>(m, "ReplyStore", "A judge cache file (SQLite) served to workers.")
      .def(
          "get",
          [](llm::ReplyStore& self, const std::string& key) -> std::optional<nb::bytes> {
            StatusOr<std::optional<std::string>> value = [&] {
              nb::gil_scoped_release unlocked;
              return self.get(key);
            }();
            std::optional<std::string> found = value_or_raise(std::move(value));
            if (!found) return std::nullopt;
            return nb::bytes(found->data(), found->size());
          },
          "key"_a)
      .def(
          "put",
          [](llm::ReplyStore& self, const std::string& key, const std::string& kind,
             nb::bytes value) {
            std::string text(value.c_str(), value.size());
            Status status;
            {
              nb::gil_scoped_release unlocked;
              status = self.put(key, kind, text);
            }
            ok_or_raise(status);
          },
          "key"_a, "kind"_a, "value"_a)
      .def(
          "put_all",
          [](llm::ReplyStore& self, const std::vector<std::tuple<std::string, std::string, nb::bytes>>& items) {
            std::vector<llm::StoreEntry> entries;
            for (const auto& [key, kind, value] : items) {
              entries.push_back({key, kind, std::string(value.c_str(), value.size())});
            }
            Status status;
            {
              nb::gil_scoped_release unlocked;
              status = self.put_all(entries);
            }
            ok_or_raise(status);
          },
          "entries"_a, "Stores [(key, kind, value), ...] in one transaction: all or none.");
  m.def(
      "open_reply_store",
      [](const std::string& path, const std::string& mode) {
        llm::CacheOptions options;
        options.path = path;
        options.mode = value_or_raise(llm::parse_cache_mode(mode));
        return value_or_raise(llm::open_reply_store(options));
      },
      "path"_a, "mode"_a = "rw", "Opens the judge cache file at `path` (as --cache) to serve it.");

  nb::class_<ClusterJudge>(m, "ClusterJudge", "A Ray worker's judge (see ragmeter.ray).")
      .def(
          "__init__",
          [](ClusterJudge* self, nb::dict judge, nb::object acquire, nb::object report,
             nb::object cache_get, nb::object cache_put, nb::object cache_put_all) {
            new (self) ClusterJudge(make_cluster_judge(judge, std::move(acquire), std::move(report),
                                                       std::move(cache_get), std::move(cache_put),
                                                       std::move(cache_put_all)));
          },
          "judge"_a, nb::kw_only(), "acquire"_a = nb::none(), "report"_a = nb::none(),
          "cache_get"_a = nb::none(), "cache_put"_a = nb::none(), "cache_put_all"_a = nb::none(),
          "The judge `judge` describes (JudgeOptions fields by name, as evaluate's), made "
          "by the library's factory; with acquire/report its requests ask for permits, "
          "with cache_get/cache_put its replies, verdicts and claims are kept through them, "
          "and with cache_put_all([(key, kind, value), ...]) what one call told it is "
          "stored together, all or none (judge_hooks.h, ReplyStore::put_all).")
      .def("description", [](const ClusterJudge& j) { return j.configured().description(); })
      .def("usage", [](const ClusterJudge& j) { return usage_dict(j.configured().usage()); })
      .def("usage_by_call",
           [](const ClusterJudge& j) { return j.configured().usage_by_call().dump(); },
           "Judge::usage_by_call() as JSON text: per kind of call, its counts so far; "
           "\"null\" for a judge that keeps none.")
      .def("close", &ClusterJudge::close,
           "Stops the judge's clients (calls still running end as failed).");

  m.def(
      "judge_settings",
      [](nb::dict judge) {
        return settings_dict(value_or_raise(resolve_judge_settings(judge_options_from(judge))));
      },
      "judge"_a,
      "What the judge fields resolve to (resolve_judge_settings): makes_calls, concurrency, "
      "requests_per_minute, tokens_per_minute, max_cost_usd, cache_path, cache_mode.");

  m.def("shard_columns", &shard_columns, "run"_a, "evidence"_a = false,
        "A Run's per-row results as columns for an Arrow batch (the Ray path).");
}

}  // namespace ragmeter::python
