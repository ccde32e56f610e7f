// The single-file HTML report: the page template (src/report/report.{html,css,js},
// embedded at build time by ragmeter_embed_report in cmake/embed_prompts.cmake) with the
// data inlined as JSON.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <map>

#include "ragmeter/dataset.h"
#include "ragmeter/metric.h"
#include "ragmeter/report.h"
#include "report/report_answer.h"
#include "ragmeter/stats.h"
#include "ragmeter_report_assets.inc"
#include "report/results_csv.h"
#include "report/answer_data.h"
#include "report/conversation_view.h"

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
  std::int64_t rejected = 0;  // of `failed`: rejected rows (row_error), failed for every metric
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
    if (status == row.end() || !status->is_object()) continue;
    const Json* scores = row.contains("scores") ? &row["scores"] : nullptr;
    const Json* reasons = row.contains("reasons") ? &row["reasons"] : nullptr;
    const bool rejected = row.contains("row_error");
    for (const auto& [metric, value] : status->items()) {
      auto [it, inserted] = tallies.try_emplace(metric);
      if (inserted) order.push_back(metric);
      MetricTally& t = it->second;
      if (rejected) {  // failed, as its status says; its reason is the row's error
        ++t.failed;
        ++t.rejected;
        continue;
      }
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
    m["rejected"] = t.rejected;
    m["top_failure"] = most_common(t.failure_reasons);
    m["top_skip"] = most_common(t.skip_reasons);
    m["part"] = rag_part_name(rag_part_of(name));
    m["histogram"] = report_internal::histogram_json(t.scores, info ? info->min_score : 0.0,
                                                     info ? info->max_score : 1.0);
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
  identity["rejected"] = std::count_if(input.rows.begin(), input.rows.end(),
                                       [](const Json& row) { return row.contains("row_error"); });
  return identity;
}

void replace_all(std::string* text, std::string_view from, std::string_view to) {
  for (std::size_t at = text->find(from); at != std::string::npos; at = text->find(from, at + to.size())) {
    text->replace(at, from.size(), to);
  }
}

}  // namespace

Status read_results_rows(const std::string& path, std::vector<Json>* rows) {
  std::string extension = std::filesystem::path(path).extension().string();
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const bool csv = extension == ".csv";
  RAGMETER_ASSIGN_OR_RETURN(auto reader,
                            open_dataset(path, csv ? DatasetFormat::kCsv : DatasetFormat::kJsonl));
  std::optional<report_csv::ResultsCsvLayout> layout;
  Row row;
  RowError error;
  for (RowReader::Result r; (r = reader->next(&row, &error)) != RowReader::Result::kEnd;) {
    if (r == RowReader::Result::kError) return invalid_argument(error.to_string());
    if (!csv) {
      rows->push_back(std::move(row.fields));
      continue;
    }
    if (!layout) {
      std::vector<std::string> columns;
      for (auto it = row.fields.begin(); it != row.fields.end(); ++it) columns.push_back(it.key());
      auto read = report_csv::results_csv_layout(columns);
      if (!read.ok()) return invalid_argument(path + ": " + read.status().message());
      layout = std::move(read).value();
    }
    auto object = report_csv::results_object(row.fields, *layout);
    if (!object.ok()) {
      return invalid_argument(path + ":" + std::to_string(row.line) + ": " +
                              object.status().message());
    }
    rows->push_back(std::move(object).value());
  }
  return ok_status();
}

namespace {

// The sample table's data, by column: ids and questions, then per metric its scores (null
// unless ok), its statuses as one string ('o' ok, 's' skipped, 'f' failed) and its reasons
// as distinct texts plus an index per row (-1: none). Columns keep the first render of a
// large run to one small JSON.parse; the rows themselves are parsed one at a time.
Json table_of(const ReportInput& input, const Json& metrics) {
  Json ids = Json::array(), questions = Json::array();
  Json scores = Json::object(), status = Json::object(), reasons = Json::object();
  std::vector<std::string> names;
  std::vector<std::map<std::string, int>> reason_index(metrics.size());
  for (const Json& m : metrics) {
    names.push_back(m["name"].get<std::string>());
    scores[names.back()] = Json::array();
    status[names.back()] = "";
    reasons[names.back()] = {{"values", Json::array()}, {"rows", Json::array()}};
  }
  for (const Json& row : input.rows) {
    auto id = row.find("id");
    ids.push_back(id != row.end() ? *id : Json(nullptr));
    auto question = row.find("user_input");
    if (question == row.end()) question = row.find("question");
    if (question != row.end() && question->is_string()) {
      questions.push_back(*question);
    } else {  // a conversation: its first user message
      questions.push_back(report_internal::conversation_opening(report_internal::conversation_view(row)));
    }
    for (std::size_t k = 0; k < names.size(); ++k) {
      const std::string& name = names[k];
      std::string s;
      if (row.contains("status") && row["status"].is_object() && row["status"].contains(name) &&
          row["status"][name].is_string()) {
        s = row["status"][name].get<std::string>();
      }
      bool ok = s == "ok" && row.contains("scores") && row["scores"].is_object() &&
                row["scores"].contains(name) && row["scores"][name].is_number();
      scores[name].push_back(ok ? row["scores"][name] : Json(nullptr));
      status[name].get_ref<std::string&>() += ok ? 'o' : s == "skipped" ? 's' : 'f';
      int index = -1;
      if (row.contains("reasons") && row["reasons"].is_object() && row["reasons"].contains(name) &&
          row["reasons"][name].is_string()) {
        const std::string& reason = row["reasons"][name].get_ref<const std::string&>();
        auto [it, inserted] = reason_index[k].try_emplace(reason, static_cast<int>(reason_index[k].size()));
        if (inserted) reasons[name]["values"].push_back(reason);
        index = it->second;
      }
      reasons[name]["rows"].push_back(index);
    }
  }
  return {{"ids", std::move(ids)}, {"questions", std::move(questions)}, {"scores", std::move(scores)},
          {"status", std::move(status)}, {"reasons", std::move(reasons)}};
}

bool is_content_id(const Json& value) {
  if (!value.is_string()) return false;
  const std::string& text = value.get_ref<const std::string&>();
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

// Claim and chunk ids (64 hex digits, for the judge cache) mean nothing to a reader and
// were a sixth of a report's size: they are left out of the evidence the page shows.
void drop_content_ids(Json* value) {
  if (value->is_object()) {
    auto id = value->find("id");
    if (id != value->end() && is_content_id(*id)) value->erase(id);
    for (auto& [key, child] : value->items()) drop_content_ids(&child);
  } else if (value->is_array()) {
    for (auto& child : *value) drop_content_ids(&child);
  }
}

// Writes the page: the template with its style and script, the data block and the rows
// block (one row's JSON per line, so the page can parse a single row when it is opened).
void write_page(std::ostream& out, const ReportInput& input) {
  std::string page(report_assets::k_report_html);
  replace_all(&page, "/*RAGMETER_CSS*/", report_assets::k_report_css);
  replace_all(&page, "/*RAGMETER_CHARTS_JS*/", report_assets::k_charts_js);
  replace_all(&page, "/*RAGMETER_JS*/", report_assets::k_report_js);
  const std::string_view kData = "/*RAGMETER_DATA*/", kRows = "/*RAGMETER_ROWS*/";
  std::size_t data_at = page.find(kData), rows_at = page.find(kRows);
  out << std::string_view(page).substr(0, data_at);
  out << json_for_script(report_data(input));
  out << std::string_view(page).substr(data_at + kData.size(), rows_at - data_at - kData.size());
  if (input.comparison.is_null()) {
    for (const Json& row : input.rows) {
      Json view = report_internal::conversation_view(row);
      if (row.contains("evidence") || !view.is_null()) {
        Json copy = row;
        if (copy.contains("evidence")) drop_content_ids(&copy["evidence"]);
        if (!view.is_null()) copy["conversation_view"] = std::move(view);
        out << json_for_script(copy) << '\n';
      } else {
        out << json_for_script(row) << '\n';
      }
    }
  }
  out << std::string_view(page).substr(rows_at + kRows.size());
}

}  // namespace

Json report_data(const ReportInput& input) {
  if (!input.comparison.is_null()) {
    return {{"kind", "compare"},
            {"comparison", input.comparison},
            {"answer", {{"changes", report_internal::changes_summary(input.comparison)}}}};
  }
  Json data;
  data["kind"] = "run";
  data["identity"] = identity_of(input);
  data["metrics"] = metrics_of(input);
  data["usage"] = input.summary.is_object() && input.summary.contains("usage") ? input.summary["usage"]
                                                                              : Json(nullptr);
  data["answer"] = report_internal::run_answer(input, data["metrics"]);
  data["changes"] = input.changes;
  data["agreement"] = input.agreement;
  data["table"] = table_of(input, data["metrics"]);
  return data;
}

std::string json_for_script(const Json& value) {
  // ASCII only (\u escapes for the rest): U+2028 and U+2029 come out escaped, and an ASCII
  // page lets the browser keep the text in one byte per character.
  std::string text = value.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  for (char c : text) {
    if (c == '<') {
      out += "\\u003c";
    } else if (c == '>') {
      out += "\\u003e";
    } else if (c == '&') {
      out += "\\u0026";
    } else {
      out += c;
    }
  }
  return out;
}

std::string render_report(const ReportInput& input) {
  std::ostringstream out;
  write_page(out, input);
  return out.str();
}

Status write_report(const std::string& path, const ReportInput& input) {
  std::ofstream out(path, std::ios::binary);
  if (!out.is_open()) return invalid_argument("cannot write the report " + path);
  write_page(out, input);
  out.close();
  if (!out) return unavailable("could not write the report " + path);  // a full disk
  return ok_status();
}

}  // namespace ragmeter
