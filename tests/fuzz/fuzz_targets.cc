// The fuzz targets (see fuzz_targets.h). A broken invariant calls fail(), which prints
// what broke and aborts: libFuzzer saves the input, the replay test dies with the file.
#include "tests/fuzz/fuzz_targets.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/list_literal.h"
#include "io/readers.h"
#include "llm/openai_protocol.h"
#include "llm/reply_json.h"
#include "ragmeter/llm_config.h"
#include "ragmeter/trec.h"
#include "ragmeter/trec_eval.h"

namespace ragmeter::fuzz {
namespace {

[[noreturn]] void fail(const char* what) {
  std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
  std::abort();
}

void require(bool condition, const char* what) {
  if (!condition) fail(what);
}

std::string_view as_text(const std::uint8_t* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

using ReaderFactory = std::unique_ptr<RowReader> (*)(std::unique_ptr<std::istream>, std::string);

// Reads every row: each result is a row (a JSON object) or an error naming the file
// and a line; row indexes count every result; the reader ends, and stays ended.
void read_all(ReaderFactory make, const std::uint8_t* data, std::size_t size) {
  const std::string name = "fuzz.input";
  auto stream = std::make_unique<std::istringstream>(std::string(as_text(data, size)));
  std::unique_ptr<RowReader> reader = make(std::move(stream), name);
  // Every row or error takes at least one byte: more results than bytes is a loop.
  const std::size_t limit = size + 2;
  std::size_t results = 0;
  while (true) {
    Row row;
    RowError error;
    const RowReader::Result result = reader->next(&row, &error);
    if (result == RowReader::Result::kEnd) break;
    require(++results <= limit, "reader returns more results than the input has bytes");
    if (result == RowReader::Result::kRow) {
      require(row.fields.is_object(), "a row is not a JSON object");
      require(row.index == static_cast<std::int64_t>(results - 1), "row index skips");
      require(row.line >= 1, "row line < 1");
      (void)row.fields.dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
    } else {
      require(error.file == name, "error does not name the file");
      require(error.line >= 1, "error line < 1");
      require(!error.message.empty(), "error without a message");
    }
  }
  Row row;
  RowError error;
  require(reader->next(&row, &error) == RowReader::Result::kEnd, "reader restarts after kEnd");
}

}  // namespace

void fuzz_jsonl(const std::uint8_t* data, std::size_t size) {
  read_all(readers::make_jsonl_reader, data, size);
}

void fuzz_json_array(const std::uint8_t* data, std::size_t size) {
  read_all([](std::unique_ptr<std::istream> stream, std::string name) {
    return readers::make_json_array_reader(std::move(stream), std::move(name));
  }, data, size);
}

void fuzz_csv(const std::uint8_t* data, std::size_t size) {
  read_all(readers::make_csv_reader, data, size);
}

void fuzz_list_literal(const std::uint8_t* data, std::size_t size) {
  const StatusOr<nlohmann::ordered_json> list = parse_list_literal(as_text(data, size));
  if (!list.ok()) {
    require(list.status().code() == StatusCode::kInvalidArgument, "list error not InvalidArgument");
    return;
  }
  require(list->is_array(), "a parsed list is not an array");
  (void)list->dump(-1, ' ', false, nlohmann::json::error_handler_t::strict);
}

// The input is QRELS '\0' RUN OPTIONS: the text before the first NUL byte is read as
// qrels, the rest but the last byte as a run (without a NUL, all but the last byte is
// read as both); when both read, the run is evaluated with every measure and the
// options the last byte picks (-l 0-3, -c, -J, -M 0-15).
void fuzz_trec(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return;
  const std::uint8_t options = data[size - 1];
  const std::string_view body = as_text(data, size - 1);
  const std::size_t nul = body.find('\0');
  const std::string_view qrels_text = body.substr(0, nul);
  const std::string_view run_text = nul == std::string_view::npos ? body : body.substr(nul + 1);
  const StatusOr<Qrels> qrels = parse_qrels(qrels_text, "fuzz.qrels");
  std::string tag;
  const StatusOr<Run> run = parse_run(run_text, "fuzz.run", &tag);
  for (const Status* status : {&qrels.status(), &run.status()}) {
    require(status->ok() || status->code() == StatusCode::kInvalidArgument,
            "TREC reader error not InvalidArgument");
  }
  if (!qrels.ok() || !run.ok()) return;
  const TrecEvalOptions eval_options{.per_query = true,
                                     .measures = {"all_trec", "ndcg.1=2,2=0.5", "P.3,1"},
                                     .relevance_level = options & 3,
                                     .average_complete = (options & 4) != 0,
                                     .max_docs = options >> 4,
                                     .judged_only = (options & 8) != 0,
                                     .run_tag = tag};
  const StatusOr<std::vector<TrecMeasureValue>> lines = trec_evaluate(*qrels, *run, eval_options);
  require(lines.ok(), "trec_evaluate refused valid options");
  for (const TrecMeasureValue& line : *lines) (void)format_trec_line(line);
  // The same text as trec_eval 9, as judgment groups and as preferences (which may
  // contradict themselves: InvalidArgument, never a crash).
  TrecEvalOptions v9 = eval_options;
  v9.version = TrecEvalVersion::k9;
  require(trec_evaluate(*qrels, *run, v9).ok(), "trec_evaluate (9) refused valid options");
  if (const StatusOr<QrelsJg> jg = parse_qrels_jg(qrels_text, "fuzz.jg"); jg.ok()) {
    TrecEvalOptions jg_options = eval_options;
    jg_options.measures = {"qrels_jg"};
    require(trec_evaluate_jg(*jg, *run, jg_options).ok(), "trec_evaluate_jg refused");
  }
  if (const StatusOr<TrecPrefs> prefs = parse_qrels_prefs(qrels_text, "fuzz.prefs"); prefs.ok()) {
    TrecEvalOptions prefs_options = eval_options;
    prefs_options.measures = {"all_prefs"};
    const auto pref_lines = trec_evaluate_prefs(*prefs, *run, prefs_options);
    require(pref_lines.ok() || pref_lines.status().code() == StatusCode::kInvalidArgument,
            "trec_evaluate_prefs error not InvalidArgument");
  }
}

void fuzz_judge_reply(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = as_text(data, size);
  static const nlohmann::json schema = nlohmann::json::parse(R"({
    "type": "object", "required": ["verdicts"],
    "properties": {"verdicts": {"type": "array", "minItems": 1, "items": {
      "type": "object", "required": ["claim", "verdict"], "additionalProperties": false,
      "properties": {"claim": {"type": "integer", "minimum": 0},
                     "verdict": {"enum": ["supported", "contradicted", "neutral"]},
                     "reason": {"type": ["string", "null"]}}}}}})");
  const StatusOr<nlohmann::json> value = llm::parse_reply_json(text);
  if (value.ok()) {
    (void)llm::check_schema(*value, schema);
    (void)value->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  // A chat reply that parses goes into the cache and must come back out the same.
  const StatusOr<llm::ChatResponse> chat = llm::parse_chat_reply(text);
  if (chat.ok()) {
    const std::string cached = llm::chat_cache_value(*chat);
    const StatusOr<llm::ChatResponse> again = llm::parse_chat_cache_value(cached);
    require(again.ok(), "a parsed chat reply's cache value does not parse");
    require(again->choices.size() == chat->choices.size(), "cache round trip loses choices");
  }
  const StatusOr<llm::EmbeddingResponse> embedding = llm::parse_embedding_reply(text, 2);
  if (embedding.ok()) {
    const StatusOr<llm::EmbeddingResponse> again =
        llm::parse_embedding_cache_value(llm::embedding_cache_value(*embedding));
    require(again.ok(), "a parsed embedding reply's cache value does not parse");
    require(again->vectors.size() == 2, "embedding cache round trip loses vectors");
  }
  (void)llm::parse_chat_cache_value(text);
  (void)llm::parse_embedding_cache_value(text);
  (void)llm::server_error_message(text);
}

void fuzz_toml_config(const std::uint8_t* data, std::size_t size) {
  const StatusOr<llm::JudgeSettings> settings =
      llm::parse_judge_config(as_text(data, size), "/fuzz/judge.toml");
  if (!settings.ok()) {
    require(settings.status().code() == StatusCode::kInvalidArgument,
            "config error not InvalidArgument");
    return;
  }
  (void)llm::to_client_options(*settings);
  (void)llm::to_embedder_client_options(*settings);
}

std::span<const FuzzTargetInfo> fuzz_targets() {
  static constexpr std::array<FuzzTargetInfo, 7> kTargets = {{
      {"jsonl", fuzz_jsonl},
      {"json_array", fuzz_json_array},
      {"csv", fuzz_csv},
      {"list_literal", fuzz_list_literal},
      {"trec", fuzz_trec},
      {"judge_reply", fuzz_judge_reply},
      {"toml_config", fuzz_toml_config},
  }};
  return kTargets;
}

}  // namespace ragmeter::fuzz
