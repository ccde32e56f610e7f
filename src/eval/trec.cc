// TREC qrels, qrels_jg, run and z-score readers (trec_eval's file formats).
#include "ragmeter/trec.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <limits>
#include <map>
#include <optional>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

namespace ragmeter {
namespace {

constexpr std::size_t kQrelsColumns = 4;  // qid iter docid rel
constexpr std::size_t kRunColumns = 6;    // qid Q0 docid rank score tag
constexpr std::size_t kZscoreColumns = 4; // qid measure mean stddev

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

// Calls `on_line(fields, position)` for every line of `text` that is neither blank
// nor a comment ('#' first, which trec_eval skips too). Stops at the first error.
template <typename OnLine>
Status for_each_record(std::string_view text, const std::string& name, OnLine on_line) {
  FilePosition position{name};
  while (!text.empty()) {
    const std::size_t end = text.find('\n');
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++position.line;
    const std::vector<std::string_view> fields = split_fields(line);
    if (fields.empty() || fields.front().starts_with('#')) continue;
    RAGMETER_RETURN_IF_ERROR(on_line(fields, position));
  }
  return ok_status();
}

// The whole of file `path` ("-": standard input); NotFound when it cannot be opened.
StatusOr<std::string> read_file(const std::string& path, std::string_view kind) {
  if (path == "-") {
    std::ostringstream text;
    text << std::cin.rdbuf();
    if (std::cin.bad()) return unavailable(fmt::format("error reading {} from standard input", kind));
    return text.str();
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return not_found(fmt::format("cannot open {} file '{}': {}", kind, path, std::strerror(errno)));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return unavailable(fmt::format("error reading {} file '{}'", kind, path));
  return text.str();
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
// comparison of std::string is also by unsigned bytes). trec_eval 9 keeps scores as
// floats, trec_eval 10 as doubles.
template <typename Score>
bool trec_order(const RunEntry& a, const RunEntry& b) {
  const Score score_a = std::is_same_v<Score, float> ? as_trec_score(a.score) : a.score;
  const Score score_b = std::is_same_v<Score, float> ? as_trec_score(b.score) : b.score;
  if (score_a != score_b) return score_a > score_b;
  return a.doc_id > b.doc_id;
}

Ranking ranked_ids(std::vector<RunEntry>& entries, TrecEvalVersion version,
                   bool ties_by_id_ascending) {
  if (version == TrecEvalVersion::k9) {
    std::sort(entries.begin(), entries.end(), trec_order<float>);
  } else {
    std::sort(entries.begin(), entries.end(), trec_order<double>);
  }
  if (ties_by_id_ascending) {
    // Runs of equal scores (as the sort compared them) turn to ascending ids.
    for (auto start = entries.begin(); start != entries.end();) {
      auto end = std::find_if(start, entries.end(), [&](const RunEntry& e) {
        return version == TrecEvalVersion::k9 ? as_trec_score(e.score) != as_trec_score(start->score)
                                              : e.score != start->score;
      });
      std::reverse(start, end);
      start = end;
    }
  }
  Ranking ranking;
  ranking.reserve(entries.size());
  for (RunEntry& entry : entries) ranking.push_back(std::move(entry.doc_id));
  return ranking;
}

}  // namespace

StatusOr<Qrels> parse_qrels(std::string_view text, const std::string& name) {
  Qrels qrels;
  const Status status = for_each_record(
      text, name, [&](const std::vector<std::string_view>& fields, const FilePosition& at) {
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

StatusOr<Run> parse_run(std::string_view text, const std::string& name, std::string* run_tag,
                        TrecEvalVersion version, bool ties_by_id_ascending) {
  std::map<std::string, std::vector<RunEntry>> entries;
  const Status status = for_each_record(
      text, name, [&](const std::vector<std::string_view>& fields, const FilePosition& at) {
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
        // trec_eval keeps the tag of the last line it reads.
        if (run_tag != nullptr) *run_tag = std::string(fields[5]);
        entries[std::string(fields[0])].push_back({std::string(fields[2]), *score});
        return ok_status();
      });
  RAGMETER_RETURN_IF_ERROR(status);
  Run run;
  for (auto& [query, query_entries] : entries) {
    run.emplace(query, ranked_ids(query_entries, version, ties_by_id_ascending));
  }
  return run;
}

StatusOr<QrelsJg> parse_qrels_jg(std::string_view text, const std::string& name) {
  QrelsJg qrels;
  const Status status = for_each_record(
      text, name, [&](const std::vector<std::string_view>& fields, const FilePosition& at) {
        if (fields.size() != kQrelsColumns) {
          return at.error(fmt::format(
              "expected {} columns (query group document relevance), got {}", kQrelsColumns,
              fields.size()));
        }
        const std::optional<int> level = parse_number<int>(fields[3]);
        if (!level) return at.error(fmt::format("relevance '{}' is not an integer", fields[3]));
        Judgements& group = qrels[std::string(fields[0])][std::string(fields[1])];
        if (!group.emplace(fields[2], *level).second) {
          return at.error(fmt::format("document '{}' is judged twice for query '{}' in group '{}'",
                                      fields[2], fields[0], fields[1]));
        }
        return ok_status();
      });
  RAGMETER_RETURN_IF_ERROR(status);
  return qrels;
}

namespace {

// Reads preference lines of `columns` columns: (qid, group, [subgroup,] doc, level).
StatusOr<TrecPrefs> parse_prefs_lines(std::string_view text, const std::string& name,
                                      std::size_t columns) {
  TrecPrefs prefs;
  const bool has_subgroup = columns == 5;
  const Status status = for_each_record(
      text, name, [&](const std::vector<std::string_view>& fields, const FilePosition& at) {
        if (fields.size() != columns) {
          return at.error(fmt::format("expected {} columns ({}), got {}", columns,
                                      has_subgroup ? "query group subgroup document level"
                                                   : "query group document level",
                                      fields.size()));
        }
        const std::optional<double> level = parse_number<double>(fields.back());
        if (!level || !std::isfinite(*level)) {
          return at.error(fmt::format("level '{}' is not a number", fields.back()));
        }
        prefs[std::string(fields[0])].push_back(
            {std::string(fields[1]), has_subgroup ? std::string(fields[2]) : "0",
             std::string(fields[has_subgroup ? 3 : 2]), *level});
        return ok_status();
      });
  RAGMETER_RETURN_IF_ERROR(status);
  return prefs;
}

}  // namespace

StatusOr<TrecPrefs> parse_trec_prefs(std::string_view text, const std::string& name) {
  return parse_prefs_lines(text, name, 5);
}

StatusOr<TrecPrefs> parse_qrels_prefs(std::string_view text, const std::string& name) {
  return parse_prefs_lines(text, name, 4);
}

StatusOr<TrecZscores> parse_trec_zscores(std::string_view text, const std::string& name) {
  TrecZscores zscores;
  const Status status = for_each_record(
      text, name, [&](const std::vector<std::string_view>& fields, const FilePosition& at) {
        if (fields.size() != kZscoreColumns) {
          return at.error(fmt::format("expected {} columns (query measure mean stddev), got {}",
                                      kZscoreColumns, fields.size()));
        }
        const std::optional<double> mean = parse_number<double>(fields[2]);
        const std::optional<double> stddev = parse_number<double>(fields[3]);
        if (!mean || !std::isfinite(*mean)) {
          return at.error(fmt::format("mean '{}' is not a number", fields[2]));
        }
        if (!stddev || !std::isfinite(*stddev)) {
          return at.error(fmt::format("stddev '{}' is not a number", fields[3]));
        }
        auto& query = zscores[std::string(fields[0])];
        if (!query.emplace(std::string(fields[1]), TrecZscore{*mean, *stddev}).second) {
          return at.error(fmt::format("measure '{}' is given twice for query '{}'", fields[1],
                                      fields[0]));
        }
        return ok_status();
      });
  RAGMETER_RETURN_IF_ERROR(status);
  return zscores;
}

StatusOr<Qrels> read_qrels(const std::string& path) {
  RAGMETER_ASSIGN_OR_RETURN(const std::string text, read_file(path, "qrels"));
  return parse_qrels(text, path);
}

StatusOr<Run> read_run(const std::string& path, std::string* run_tag, TrecEvalVersion version,
                       bool ties_by_id_ascending) {
  RAGMETER_ASSIGN_OR_RETURN(const std::string text, read_file(path, "run"));
  return parse_run(text, path == "-" ? "<stdin>" : path, run_tag, version, ties_by_id_ascending);
}

StatusOr<TrecPrefs> read_trec_prefs(const std::string& path) {
  RAGMETER_ASSIGN_OR_RETURN(const std::string text, read_file(path, "prefs"));
  return parse_trec_prefs(text, path);
}

StatusOr<TrecPrefs> read_qrels_prefs(const std::string& path) {
  RAGMETER_ASSIGN_OR_RETURN(const std::string text, read_file(path, "qrels_prefs"));
  return parse_qrels_prefs(text, path);
}

StatusOr<QrelsJg> read_qrels_jg(const std::string& path) {
  RAGMETER_ASSIGN_OR_RETURN(const std::string text, read_file(path, "qrels_jg"));
  return parse_qrels_jg(text, path);
}

StatusOr<TrecZscores> read_trec_zscores(const std::string& path) {
  RAGMETER_ASSIGN_OR_RETURN(const std::string text, read_file(path, "z-score"));
  return parse_trec_zscores(text, path);
}

}  // namespace ragmeter
