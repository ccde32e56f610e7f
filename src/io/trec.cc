// TREC qrels and run readers, and trec_eval-compatible evaluation (trec_eval 9.x).
#include "ragmeter/trec.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <span>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

namespace ragmeter {
namespace {

// trec_eval's default cutoffs.
constexpr std::array<int, 9> kRankCutoffs = {5, 10, 15, 20, 30, 100, 200, 500, 1000};
constexpr std::array<int, 3> kSuccessCutoffs = {1, 5, 10};

constexpr std::size_t kQrelsColumns = 4;  // qid iter docid rel
constexpr std::size_t kRunColumns = 6;    // qid Q0 docid rank score tag

// ---------------------------------------------------------------------------------
// Reading.

// Splits a line on ASCII whitespace, as trec_eval does (isspace: also \r, so CRLF
// files read the same).
std::vector<std::string_view> split_fields(std::string_view line) {
  constexpr std::string_view kSpace = " \t\r\n\v\f";
  std::vector<std::string_view> fields;
  std::size_t start = line.find_first_not_of(kSpace);
  while (start != std::string_view::npos) {
    const std::size_t end = std::min(line.find_first_of(kSpace, start), line.size());
    fields.push_back(line.substr(start, end - start));
    start = line.find_first_not_of(kSpace, end);
  }
  return fields;
}

// A location in an input file, for error messages: "qrels.txt:12".
struct FilePosition {
  const std::string& path;
  long line = 0;

  Status error(std::string_view what) const {
    return invalid_argument(fmt::format("{}:{}: {}", path, line, what));
  }
};

// Calls `on_line(fields, position)` for every line that is neither blank nor a
// comment ('#' first, which trec_eval skips too). Stops at the first error.
template <typename OnLine>
Status for_each_record(const std::string& path, std::string_view kind, OnLine on_line) {
  std::ifstream in(path);
  if (!in) {
    return not_found(fmt::format("cannot open {} file '{}': {}", kind, path, std::strerror(errno)));
  }
  FilePosition position{path};
  std::string line;
  while (std::getline(in, line)) {
    ++position.line;
    const std::vector<std::string_view> fields = split_fields(line);
    if (fields.empty() || fields.front().starts_with('#')) continue;
    RAGMETER_RETURN_IF_ERROR(on_line(fields, position));
  }
  if (in.bad()) {
    return unavailable(fmt::format("error reading {} file '{}'", kind, path));
  }
  return ok_status();
}

// Parses the whole of `text` as a T (int or double); nullopt otherwise.
template <typename T>
std::optional<T> parse_number(std::string_view text) {
  if (text.starts_with('+')) text.remove_prefix(1);  // atof/atol accept it, from_chars not
  T value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (end != text.data() + text.size()) return std::nullopt;
  if (error == std::errc::result_out_of_range && std::is_floating_point_v<T>) {
    // Beyond double's range: what trec_eval's atof makes of it (+-HUGE_VAL or 0).
    return static_cast<T>(std::strtod(std::string(text).c_str(), nullptr));
  }
  if (error != std::errc()) return std::nullopt;
  return value;
}

// trec_eval keeps scores as C float: scores that differ only beyond single precision
// tie, and are then ordered by document id. Rounds to nearest as the C conversion
// does; from 2^128 - 2^103 (FLT_MAX and half a unit) on that is infinity, which is
// spelled out because C++ leaves a conversion out of float's range undefined.
float as_trec_score(double score) {
  constexpr double kOverflow = 0x1.ffffffp+127;
  if (score >= kOverflow) return std::numeric_limits<float>::infinity();
  if (score <= -kOverflow) return -std::numeric_limits<float>::infinity();
  return static_cast<float>(score);
}

// trec_eval's order: score descending, ties by document id descending (strcmp; the
// comparison of std::string is also by unsigned bytes).
bool trec_order(const RunEntry& a, const RunEntry& b) {
  const float score_a = as_trec_score(a.score);
  const float score_b = as_trec_score(b.score);
  if (score_a != score_b) return score_a > score_b;
  return a.doc_id > b.doc_id;
}

Ranking ranked_ids(std::vector<RunEntry>& entries) {
  std::sort(entries.begin(), entries.end(), trec_order);
  Ranking ranking;
  ranking.reserve(entries.size());
  for (RunEntry& entry : entries) ranking.push_back(std::move(entry.doc_id));
  return ranking;
}

// ---------------------------------------------------------------------------------
// Evaluation.

// One output measure: its trec_eval name, its family (what -m selects) and how to
// compute it for one query.
struct Measure {
  std::string family;
  std::string name;
  std::function<double(const Ranking&, const Judgements&)> compute;
};

using RankedMetric = double (*)(const Ranking&, const Judgements&, int);

Measure at_cutoff(const std::string& family, const std::string& name, RankedMetric metric, int k) {
  return {family, name,
          [metric, k](const Ranking& r, const Judgements& q) { return metric(r, q, k); }};
}

// `family` over the whole ranking, named as the family.
void add_whole(std::vector<Measure>& measures, const std::string& family, RankedMetric metric) {
  measures.push_back(at_cutoff(family, family, metric, 0));
}

// `family` at every cutoff, named "<family>_<k>".
void add_cut(std::vector<Measure>& measures, const std::string& family,
             std::span<const int> cutoffs, RankedMetric metric) {
  for (const int k : cutoffs) {
    measures.push_back(at_cutoff(family, fmt::format("{}_{}", family, k), metric, k));
  }
}

double graded_ndcg(const Ranking& ranking, const Judgements& qrels, int k) {
  return ndcg_at_k(ranking, qrels, k, /*graded=*/true);
}

// Every supported measure, in the order trec_eval prints them (its measures.c table).
const std::vector<Measure>& all_measures() {
  static const std::vector<Measure>* const measures = new std::vector<Measure>([] {
    std::vector<Measure> list;
    add_whole(list, "map", average_precision);
    list.push_back({"Rprec", "Rprec", r_precision});
    add_whole(list, "recip_rank", reciprocal_rank);
    add_cut(list, "P", kRankCutoffs, precision_at_k);
    add_cut(list, "recall", kRankCutoffs, recall_at_k);
    add_whole(list, "ndcg", graded_ndcg);
    add_cut(list, "ndcg_cut", kRankCutoffs, graded_ndcg);
    add_cut(list, "success", kSuccessCutoffs, hit_rate_at_k);
    return list;
  }());
  return *measures;
}

std::vector<const Measure*> selected_measures(const TrecEvalOptions& options) {
  std::vector<const Measure*> selected;
  for (const Measure& measure : all_measures()) {
    const bool wanted =
        options.measures.empty() || std::find(options.measures.begin(), options.measures.end(),
                                              measure.family) != options.measures.end();
    if (wanted) selected.push_back(&measure);
  }
  return selected;
}

}  // namespace

StatusOr<Qrels> read_qrels(const std::string& path) {
  Qrels qrels;
  const Status status = for_each_record(
      path, "qrels", [&](const std::vector<std::string_view>& fields, const FilePosition& at) {
        if (fields.size() != kQrelsColumns) {
          return at.error(
              fmt::format("expected {} columns (query iteration document relevance), "
                          "got {}",
                          kQrelsColumns, fields.size()));
        }
        const std::optional<int> level = parse_number<int>(fields[3]);
        if (!level) {
          return at.error(fmt::format("relevance '{}' is not an integer", fields[3]));
        }
        const auto [it, inserted] = qrels[std::string(fields[0])].emplace(fields[2], *level);
        if (!inserted) {
          // trec_eval refuses such a file too ("duplicate docs").
          return at.error(
              fmt::format("document '{}' is judged twice for query '{}'", fields[2], fields[0]));
        }
        return ok_status();
      });
  RAGMETER_RETURN_IF_ERROR(status);
  return qrels;
}

StatusOr<Run> read_run(const std::string& path) {
  std::map<std::string, std::vector<RunEntry>> entries;
  const Status status = for_each_record(
      path, "run", [&](const std::vector<std::string_view>& fields, const FilePosition& at) {
        if (fields.size() < kRunColumns) {
          return at.error(
              fmt::format("expected {} columns (query Q0 document rank score tag), "
                          "got {}",
                          kRunColumns, fields.size()));
        }
        const std::optional<double> score = parse_number<double>(fields[4]);
        if (!score || std::isnan(*score)) {
          return at.error(fmt::format("score '{}' is not a number", fields[4]));
        }
        entries[std::string(fields[0])].push_back({std::string(fields[2]), *score});
        return ok_status();
      });
  RAGMETER_RETURN_IF_ERROR(status);
  Run run;
  for (auto& [query, query_entries] : entries) run.emplace(query, ranked_ids(query_entries));
  return run;
}

std::vector<TrecMeasureValue> trec_evaluate(const Qrels& qrels, const Run& run,
                                            const TrecEvalOptions& options) {
  const std::vector<const Measure*> measures = selected_measures(options);
  std::vector<TrecMeasureValue> lines;
  std::vector<double> sums(measures.size(), 0.0);
  long evaluated = 0;
  // Run order is qid order (std::map, byte-wise like strcmp), which is trec_eval's.
  for (const auto& [query, ranking] : run) {
    const auto judged = qrels.find(query);
    if (judged == qrels.end()) continue;  // no judgements: trec_eval ignores the query
    for (std::size_t m = 0; m < measures.size(); ++m) {
      const double value = measures[m]->compute(ranking, judged->second);
      sums[m] += value;
      if (options.per_query) lines.push_back({measures[m]->name, query, value});
    }
    ++evaluated;
  }
  if (evaluated == 0) return lines;
  for (std::size_t m = 0; m < measures.size(); ++m) {
    lines.push_back({measures[m]->name, "all", sums[m] / static_cast<double>(evaluated)});
  }
  return lines;
}

std::string format_trec_line(const TrecMeasureValue& value) {
  return fmt::format("{:<22}\t{}\t{:.4f}", value.measure, value.query, value.value);
}

}  // namespace ragmeter
