// `ragmeter compare BASE NEW`: paired statistics between two runs' results files.
#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>

#include <fmt/format.h>

#include "commands.h"
#include "exit_codes.h"
#include "ragmeter/compare.h"
#include "ragmeter/gates.h"
#include "ragmeter/metric.h"
#include "ragmeter/report.h"
#include "stop_signal.h"

namespace ragmeter::cli {
namespace {

struct CompareArgs {
  std::string base, next;
  std::string id_column;
  bool json = false;
  std::string html;
  std::vector<std::string> fail_on_regression;
  int top = 3;
  std::uint64_t seed = 42;
  int resamples = 10000;
  int permutations = 20000;
  double alpha = 0.05;
};

// "METRIC=DELTA" -> (metric, delta); DELTA a number from 0 to the metric's range width.
Status parse_regression_gates(const std::vector<std::string>& specs, const RunComparison& c,
                              std::map<std::string, double>* gates) {
  for (const auto& spec : specs) {
    RAGMETER_ASSIGN_OR_RETURN(auto parsed, parse_metric_value(spec, "--fail-on-regression"));
    const std::string name = parsed.first;
    const double delta = parsed.second;
    bool compared = std::any_of(c.metrics.begin(), c.metrics.end(),
                                [&](const MetricComparison& m) { return m.metric == name; });
    if (!compared) {
      return invalid_argument("--fail-on-regression: metric '" + name + "' is not in both runs");
    }
    const MetricInfo* info = find_metric(std::string_view(name).substr(0, name.find('@')));
    double width = info ? info->max_score - info->min_score : 1.0;
    if (!(delta >= 0.0 && delta <= width)) {
      return invalid_argument(fmt::format(
          "--fail-on-regression {}: DELTA must be from 0 to {} (the metric's range), got {}",
          name, width, delta));
    }
    (*gates)[name] = delta;
  }
  return ok_status();
}

// The verdict column; a regression in capitals, to stand out in a terminal.
std::string verdict(const MetricComparison& m, double alpha) {
  ChangeVerdict v = change_verdict(m, alpha);
  return v == ChangeVerdict::kWorse ? "WORSE" : change_verdict_name(v);
}

std::string shorten(std::string text, std::size_t width) {
  for (char& ch : text) {
    if (ch == '\n' || ch == '\r' || ch == '\t') ch = ' ';
  }
  if (text.size() <= width) return text;
  std::size_t cut = width - 3;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;  // UTF-8
  return text.substr(0, cut) + "...";
}

std::string field_text(const nlohmann::ordered_json& row, std::initializer_list<const char*> names) {
  for (const char* name : names) {
    auto it = row.find(name);
    if (it != row.end() && !it->is_null()) return it->is_string() ? it->get<std::string>() : it->dump();
  }
  return "";
}

// A p-value in 7 characters: 4 decimals, or scientific notation below 0.0001.
std::string p_text(double p) { return p < 1e-4 ? fmt::format("{:.1e}", p) : fmt::format("{:.4f}", p); }

void print_table(const RunComparison& c, std::size_t base_rows, std::size_t new_rows) {
  std::cout << fmt::format("base: {} ({} rows)\nnew:  {} ({} rows)\n", c.base_path, base_rows,
                           c.new_path, new_rows);
  std::cout << fmt::format("matched: {}; only in base: {}; only in new: {}\n\n", c.matched,
                           c.only_in_base.size(), c.only_in_new.size());
  std::size_t width = 6;
  for (const auto& m : c.metrics) width = std::max(width, m.metric.size());
  std::cout << fmt::format("{:<{}}  {:>4}  {:>5}  {:>7}  {:>7}  {:>8}  {:>21}  {:>9}  {:>7}  {:>12}  {}\n",
                           "metric", width, "dir", "n", "base", "new", "diff", "95% CI of diff",
                           "p", "p Holm", "win/tie/loss", "verdict");
  for (const auto& m : c.metrics) {
    const PairedStats& s = m.stats;
    std::string dir = m.higher_is_better ? "up" : "down";
    if (s.n == 0) {
      std::cout << fmt::format("{:<{}}  {:>4}  {:>5}  (no sample scored in both runs)\n", m.metric,
                               width, dir, 0);
      continue;
    }
    std::cout << fmt::format(
        "{:<{}}  {:>4}  {:>5}  {:>7.4f}  {:>7.4f}  {:>+8.4f}  [{:>+8.4f}, {:>+8.4f}]  {:>7}{}  "
        "{:>7}  {:>12}  {}\n",
        m.metric, width, dir, s.n, s.mean_base, s.mean_new, s.mean_diff, s.ci_low, s.ci_high,
        p_text(s.p_value), s.p_exact ? " e" : " m", p_text(m.p_holm),
        fmt::format("{}/{}/{}", s.wins, s.ties, s.losses), verdict(m, c.alpha));
  }
  std::cout << fmt::format(
      "\ndir: up = higher is better, down = lower is better (the metric table). diff = new - base;\n"
      "95% CI: paired bootstrap; p: paired sign-flip test (e exact, m Monte Carlo); p Holm:\n"
      "corrected across the {} metric{} with a non-zero difference (all ties: p Holm 1); a\n"
      "verdict needs p Holm < {} and an interval clear of 0.\n",
      c.holm_family, c.holm_family == 1 ? "" : "s", c.alpha);
  for (const auto& key : c.only_in_base) std::cout << "only in base: " << key << "\n";
  for (const auto& key : c.only_in_new) std::cout << "only in new:  " << key << "\n";
  for (const auto& m : c.metrics_only_in_base) std::cout << "metric only in base: " << m << "\n";
  for (const auto& m : c.metrics_only_in_new) std::cout << "metric only in new: " << m << "\n";
  for (const auto& m : c.metrics) {
    if (m.top_changes.empty()) continue;
    std::cout << "\nchanged most in " << m.metric << ":\n";
    for (const auto& change : m.top_changes) {
      std::cout << fmt::format("  {:+.4f}  {:.4g} -> {:.4g}  {}\n", change.oriented_diff, change.base,
                               change.next, shorten(change.key, 90));
      // What differs between the two runs' rows: the response, the contexts.
      std::string base_response = field_text(*change.base_row, {"response", "answer"});
      std::string new_response = field_text(*change.new_row, {"response", "answer"});
      if (base_response == new_response) {
        std::cout << "      response (both): " << shorten(base_response, 80) << "\n";
      } else {
        std::cout << "      base response: " << shorten(base_response, 80) << "\n";
        std::cout << "      new response:  " << shorten(new_response, 80) << "\n";
      }
      auto contexts = [](const nlohmann::ordered_json& row) {
        for (const char* name : {"retrieved_contexts", "contexts"}) {
          auto it = row.find(name);
          if (it != row.end() && it->is_array()) return *it;
        }
        return nlohmann::ordered_json::array();
      };
      auto base_contexts = contexts(*change.base_row), new_contexts = contexts(*change.new_row);
      if (base_contexts != new_contexts) {
        std::cout << fmt::format("      contexts: {} in base, {} in new ({} in both)\n",
                                 base_contexts.size(), new_contexts.size(),
                                 std::count_if(new_contexts.begin(), new_contexts.end(), [&](const auto& c) {
                                   return std::find(base_contexts.begin(), base_contexts.end(), c) !=
                                          base_contexts.end();
                                 }));
      }
    }
  }
}

CommandOutcome run_compare(const CompareArgs& args) {
  install_stop_handlers(StopMode::kImmediate);  // --html is whole or not written (OutputFile)
  CompareOptions options;
  options.id_column = args.id_column;
  options.alpha = args.alpha;
  options.top_changes = args.top;
  options.test.bootstrap.seed = args.seed;
  options.test.bootstrap.resamples = args.resamples;
  options.test.permutations = args.permutations;
  options.test.permutation_seed = args.seed;
  auto base = read_run_results(args.base, options);
  auto next = base.ok() ? read_run_results(args.next, options) : StatusOr<RunResults>(base.status());
  if (!next.ok()) {
    return next.status();
  }
  auto comparison = compare_runs(*base, *next, options);
  if (!comparison.ok()) {
    return comparison.status();
  }
  std::map<std::string, double> gates;
  RAGMETER_RETURN_IF_ERROR(parse_regression_gates(args.fail_on_regression, *comparison, &gates));
  if (args.json) {
    std::cout << comparison_to_json(*comparison).dump(2, ' ', false,
                                                      nlohmann::json::error_handler_t::replace)
              << "\n";
  } else {
    print_table(*comparison, base->rows.size(), next->rows.size());
  }
  if (!args.html.empty()) {
    ReportInput input;
    input.comparison = comparison_to_json(*comparison);
    OutputFile html(args.html);
    html.stream() << render_report(input);
    RAGMETER_RETURN_IF_ERROR(html.commit());
  }
  bool regressed = false;
  for (const auto& m : comparison->metrics) {
    auto gate = gates.find(m.metric);
    if (gate == gates.end()) continue;
    const GateVerdict verdict = check_regression(m, gate->second, comparison->alpha);
    if (verdict.passed) continue;
    std::cerr << "ragmeter: "
              << (verdict.scored ? "regression: " : "--fail-on-regression not met: ")
              << verdict.message << "\n";
    regressed = true;
  }
  return regressed ? kExitBelowThreshold : kExitOk;
}

}  // namespace

CommandRun add_compare_command(CLI::App& parent) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd = parent.add_subcommand(
      "compare", "Compare two runs' results (eval --out) sample by sample, with paired statistics.");
  cmd->footer(
      "Rows are matched by --id COLUMN, else by user_input and a hash of the reference and\n"
      "reference contexts; rows in one run only are listed. Per metric: both means, the mean\n"
      "paired difference with a paired bootstrap 95% interval, a paired sign-flip p-value\n"
      "(exact up to 20 non-zero differences, else Monte Carlo), win/tie/loss, and Holm's\n"
      "correction across the metrics with a non-zero difference (docs/report.md).\n\n"
      "Examples:\n"
      "  ragmeter compare base.jsonl new.jsonl\n"
      "  ragmeter compare base.jsonl new.jsonl --fail-on-regression faithfulness=0.02\n"
      "  ragmeter compare base.jsonl new.jsonl --json > comparison.json --html comparison.html\n\n"
      "Exit codes: 0 no gated regression; 1 a --fail-on-regression metric got worse by more\n"
      "than DELTA with confidence (the upper end of its 95% interval, in the metric's good\n"
      "direction, below -DELTA, and Holm-adjusted p < --alpha), or no sample was scored for\n"
      "it in both runs (as eval --fail-under fails on a metric nothing was scored for); 2 bad\n"
      "usage or input.");
  cmd->add_option("base", args->base, "Results of the base run (ragmeter eval --out, JSONL)")
      ->required();
  cmd->add_option("new", args->next, "Results of the new run")->required();
  cmd->add_option("--id", args->id_column, "Column that identifies a sample in both runs");
  cmd->add_flag("--json", args->json, "Print the comparison as JSON instead of the table");
  cmd->add_option("--html", args->html, "Write the comparison as a self-contained HTML report");
  cmd->add_option("--fail-on-regression", args->fail_on_regression,
                  "METRIC=DELTA: exit 1 when METRIC got worse by more than DELTA with "
                  "confidence, or when no sample was scored for it in both runs; repeatable");
  cmd->add_option("--top", args->top, "Samples listed per metric as the ones that changed most")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000));
  cmd->add_option("--seed", args->seed, "Seed of the bootstrap and the Monte Carlo test")
      ->capture_default_str();
  cmd->add_option("--bootstrap-resamples", args->resamples, "Paired bootstrap resamples")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--permutations", args->permutations,
                  "Monte Carlo sign-flip draws when the test is not exact")
      ->capture_default_str()
      ->check(CLI::Range(100, 10000000));
  cmd->add_option("--alpha", args->alpha, "Family-wise error rate of the verdicts and the gate")
      ->capture_default_str()
      ->check(CLI::Range(0.0001, 0.5));
  return [args] { return run_compare(*args); };
}

}  // namespace ragmeter::cli
