// Per-sample CSV results (RFC 4180 quoting), for spreadsheets.
#include <set>

#include "eval/result_json.h"
#include "ragmeter/results.h"

namespace ragmeter {
namespace {

using Json = nlohmann::ordered_json;

std::string csv_quote(const std::string& cell) {
  if (cell.find_first_of(",\"\r\n") == std::string::npos) return cell;
  std::string out = "\"";
  for (char c : cell) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string cell_text(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return {};
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string score_text(double score) {
  return Json(score).dump();  // shortest round-trip form
}

class CsvResultWriter : public ResultSink {
 public:
  CsvResultWriter(std::ostream& out, std::vector<MetricRequest> metrics)
      : out_(out), metrics_(std::move(metrics)) {}

  Status on_row(const Row& row, const std::vector<MetricResult>& results) override {
    RAGMETER_RETURN_IF_ERROR(result_json::check_row_scores(row, metrics_, results));
    if (!header_written_) {
      write_header(row.fields);
      RAGMETER_RETURN_IF_ERROR(write_held_rows());
    }
    std::vector<std::string> cells;
    Json extra = Json::object();
    for (const auto& column : columns_) {
      auto it = row.fields.find(column);
      cells.push_back(it == row.fields.end() ? std::string() : cell_text(*it));
    }
    for (const auto& [key, value] : row.fields.items()) {
      if (!column_set_.contains(key)) extra[key] = value;
    }
    for (const MetricResult& result : results) {
      cells.push_back(result.outcome == Outcome::kOk ? score_text(result.score) : std::string());
      cells.push_back(outcome_name(result.outcome));
      cells.push_back(result.reason);
    }
    cells.push_back(extra.empty() ? std::string() : cell_text(extra));
    write_line(cells);
    if (!out_) return unavailable("cannot write the CSV results");
    return ok_status();
  }

  // A rejected row keeps its place: empty field cells, every metric failed with the error.
  // The header's field columns come from the first good row, so rejected rows before it
  // are held until it comes (or the input ends): a rejected first row must not leave the
  // header without columns and every other row's fields in extra_fields. Past
  // kMaxHeldRows of them the header is written without field columns.
  Status on_rejected(const RowError& error) override {
    if (!header_written_ && held_.size() < kMaxHeldRows) {
      held_.push_back(error);
      return ok_status();
    }
    if (!header_written_) {
      write_header(Json::object());
      RAGMETER_RETURN_IF_ERROR(write_held_rows());
    }
    return write_rejected(error);
  }

  Status finish() override {
    if (header_written_) return ok_status();
    write_header(Json::object());
    return write_held_rows();
  }

 private:
  static constexpr std::size_t kMaxHeldRows = 4096;

  Status write_held_rows() {
    for (const RowError& error : held_) RAGMETER_RETURN_IF_ERROR(write_rejected(error));
    held_.clear();
    return ok_status();
  }

  Status write_rejected(const RowError& error) {
    std::vector<std::string> cells(columns_.size());
    for (std::size_t m = 0; m < metrics_.size(); ++m) {
      cells.push_back(std::string());
      cells.push_back(outcome_name(Outcome::kFailed));
      cells.push_back("row rejected: " + error.to_string());
    }
    cells.push_back(std::string());
    write_line(cells);
    if (!out_) return unavailable("cannot write the CSV results");
    return ok_status();
  }

  void write_header(const Json& fields) {
    std::vector<std::string> header;
    for (const auto& [key, value] : fields.items()) {
      columns_.push_back(key);
      column_set_.insert(key);
      header.push_back(key);
    }
    for (const auto& metric : metrics_) {
      header.push_back(metric.name);
      header.push_back(metric.name + "_status");
      header.push_back(metric.name + "_reason");
    }
    header.push_back("extra_fields");
    write_line(header);
    header_written_ = true;
  }

  void write_line(const std::vector<std::string>& cells) {
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (i > 0) out_ << ',';
      out_ << csv_quote(cells[i]);
    }
    out_ << "\r\n";
  }

  std::ostream& out_;
  std::vector<MetricRequest> metrics_;
  std::vector<std::string> columns_;
  std::set<std::string> column_set_;
  bool header_written_ = false;
  std::vector<RowError> held_;  // rejected rows before the first good one
};

}  // namespace

std::unique_ptr<ResultSink> make_csv_result_writer(std::ostream& out,
                                                   std::vector<MetricRequest> metrics) {
  return std::make_unique<CsvResultWriter>(out, std::move(metrics));
}

}  // namespace ragmeter
