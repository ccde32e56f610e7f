// The single-file HTML report: the page template (src/report/report.{html,css,js},
// embedded at build time by ragmeter_embed_report in cmake/embed_prompts.cmake) with the
// data inlined as JSON.
#include <fstream>
#include <map>

#include "ragmeter/dataset.h"
#include "ragmeter/metric.h"
#include "ragmeter/report.h"
#include "ragmeter/stats.h"
#include "ragmeter_report_assets.inc"

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

const MetricInfo* table_entry(const std::string& metric) {
  return find_metric(std::string_view(metric).substr(0, metric.find('@')));
}

// Per metric: scores, counts and the most common failure reason, read off the rows.
struct MetricTally {
  std::vector<double> scores;
  std::int64_t skipped = 0, failed = 0;
  std::map<std::string, std::int64_t> failure_reasons, skip_reasons;
};

std::string most_common(const std::map<std::string, std::int64_t>& counts) {
  std::string best;
  std::int64_t best_n = 0;
  for (const auto& [reason, n] : counts) {
    if (n > best_n) best = reason, best_n = n;
  }
  return best;
}

Json metrics_of(const ReportInput& input) {
  std::vector<std::string> order;
  std::map<std::string, MetricTally> tallies;
  for (const Json& row : input.rows) {
    auto status = row.find("status");
    if (status == row.end() || !status->is_object() || row.contains("row_error")) continue;
    const Json* scores = row.contains("scores") ? &row["scores"] : nullptr;
    const Json* reasons = row.contains("reasons") ? &row["reasons"] : nullptr;
    for (const auto& [metric, value] : status->items()) {
      auto [it, inserted] = tallies.try_emplace(metric);
      if (inserted) order.push_back(metric);
      MetricTally& t = it->second;
      std::string s = value.is_string() ? value.get<std::string>() : "";
      std::string reason;
      if (reasons && reasons->is_object() && reasons->contains(metric) && (*reasons)[metric].is_string()) {
        reason = (*reasons)[metric].get<std::string>();
      }
      if (s == "ok" && scores && scores->is_object() && (*scores)[metric].is_number()) {
        t.scores.push_back((*scores)[metric].get<double>());
      } else if (s == "skipped") {
        ++t.skipped;
        ++t.skip_reasons[reason];
      } else {
        ++t.failed;
        ++t.failure_reasons[reason];
      }
    }
  }
  const Json* summary_metrics =
      input.summary.is_object() && input.summary.contains("metrics") ? &input.summary["metrics"] : nullptr;
  Json out = Json::array();
  for (const auto& name : order) {
    const MetricTally& t = tallies[name];
    const MetricInfo* info = table_entry(name);
    Json m;
    m["name"] = name;
    m["higher_is_better"] = info ? info->higher_is_better : true;
    m["min"] = info ? info->min_score : 0.0;
    m["max"] = info ? info->max_score : 1.0;
    SummaryStats s = summarize(t.scores);
    bool any = s.n > 0;
    m["mean"] = any ? Json(s.mean) : Json(nullptr);
    m["ci95"] = any ? Json::array({s.ci_low, s.ci_high}) : Json(nullptr);
    if (summary_metrics && summary_metrics->contains(name)) {
      const Json& given = (*summary_metrics)[name];
      for (const char* key : {"mean", "ci95", "corpus"}) {
        if (given.contains(key)) m[key] = given[key];
      }
    }
    m["n"] = s.n;
    m["skipped"] = t.skipped;
    m["failed"] = t.failed;
    m["top_failure"] = most_common(t.failure_reasons);
    m["top_skip"] = most_common(t.skip_reasons);
    out.push_back(std::move(m));
  }
  return out;
}

Json identity_of(const ReportInput& input) {
  Json identity;
  const Json& s = input.summary;
  if (s.is_object() && s.contains("run") && s["run"].is_object()) identity = s["run"];
  if (s.is_object() && s.contains("dataset") && !identity.contains("dataset")) {
    identity["dataset"] = s["dataset"];
  }
  if (s.is_object() && s.contains("judge") && s["judge"].is_object() && s["judge"].contains("name")) {
    identity["judge"] = s["judge"]["name"];
  }
  identity["results"] = input.results_path;
  identity["rows"] = input.rows.size();
  return identity;
}

void replace_all(std::string* text, std::string_view from, std::string_view to) {
  for (std::size_t at = text->find(from); at != std::string::npos; at = text->find(from, at + to.size())) {
    text->replace(at, from.size(), to);
  }
}

}  // namespace

Status read_results_rows(const std::string& path, std::vector<Json>* rows) {
  RAGMETER_ASSIGN_OR_RETURN(auto reader, open_dataset(path, DatasetFormat::kJsonl));
  Row row;
  RowError error;
  for (RowReader::Result r; (r = reader->next(&row, &error)) != RowReader::Result::kEnd;) {
    if (r == RowReader::Result::kError) return invalid_argument(error.to_string());
    rows->push_back(std::move(row.fields));
  }
  return ok_status();
}

Json report_data(const ReportInput& input) {
  if (!input.comparison.is_null()) return {{"kind", "compare"}, {"comparison", input.comparison}};
  Json data;
  data["kind"] = "run";
  data["identity"] = identity_of(input);
  data["metrics"] = metrics_of(input);
  data["usage"] = input.summary.is_object() && input.summary.contains("usage") ? input.summary["usage"]
                                                                              : Json(nullptr);
  data["rows"] = input.rows;
  return data;
}

std::string json_for_script(const Json& value) {
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else if (c == '\xE2' && i + 2 < text.size() && text[i + 1] == '\x80' &&
               (text[i + 2] == '\xA8' || text[i + 2] == '\xA9')) {
      out += text[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

std::string render_report(const ReportInput& input) {
  std::string page(report_assets::k_report_html);
  // The data goes in last, so no template marker inside the data can be replaced.
  replace_all(&page, "/*RAGMETER_CSS*/", report_assets::k_report_css);
  replace_all(&page, "/*RAGMETER_JS*/", report_assets::k_report_js);
  std::size_t at = page.find("/*RAGMETER_DATA*/");
  if (at != std::string::npos) page.replace(at, 17, json_for_script(report_data(input)));
  return page;
}

Status write_report(const std::string& path, const ReportInput& input) {
  std::ofstream out(path, std::ios::binary);
  out << render_report(input);
  out.close();
  if (!out) return invalid_argument("cannot write the report " + path);
  return ok_status();
}

}  // namespace ragmeter
