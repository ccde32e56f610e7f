// `ragmeter gen`: a test set (questions, reference answers, reference contexts) from a
// folder of documents, with an LLM judge.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <openssl/evp.h>

#include "commands.h"
#include "eval_flags.h"
#include "exit_codes.h"
#include "judge_flags.h"
#include "progress.h"
#include "ragmeter/chunker.h"
#include "ragmeter/documents.h"
#include "ragmeter/ocr.h"
#include "ragmeter/hashed_embedding.h"
#include "ragmeter/sentence_embedder.h"
#include "ragmeter/llm.h"
#include "ragmeter/scenarios.h"
#include "ragmeter/testset.h"
#include "ragmeter/vector_index.h"
#include "stop_signal.h"

namespace ragmeter::cli {
namespace {

struct GenArgs {
  std::string documents;
  std::string out;
  std::string summary;
  std::string chunks_out;
  std::size_t size = 10;
  std::uint64_t seed = 42;
  std::string mix = "simple=0.5,reasoning=0.25,multi_context=0.15,conditional=0.1";
  std::size_t pairs_per_context = 1;
  std::size_t neighbours = 2;
  double duplicate_similarity = 0.9;
  std::size_t max_contexts = 0;
  std::vector<std::string> include;
  std::vector<std::string> exclude;
  std::size_t chunk_size = 1000;
  std::size_t chunk_overlap = 100;
  std::string chunk_unit = "chars";
  bool no_closed_book_check = false;
  bool scenarios = false;  // --scenarios: conversation scenarios instead of questions
  bool quiet = false;
  std::string ocr_language;  // --ocr-language: Tesseract's language(s) for scanned pages
  std::string ocr_cache;     // --ocr-cache
  JudgeFlags judge;
};

// Hex SHA-256 of `text`: names the chunk set an index was built for.
std::string sha256_hex(const std::string& text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(text.data(), text.size(), digest, &length, EVP_sha256(), nullptr);
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) hex += fmt::format("{:02x}", digest[i]);
  return hex;
}

// Embeds texts with the local model, an embeddings endpoint or the offline hashed vectors,
// a batch at a time: a stop (Ctrl-C) is heard between batches (FailedPrecondition).
class Embedder {
 public:
  Embedder(std::shared_ptr<llm::Client> client, std::shared_ptr<const SentenceEmbedder> local,
           std::string identity)
      : client_(std::move(client)), local_(std::move(local)), identity_(std::move(identity)) {}

  const std::string& identity() const { return identity_; }

  StatusOr<std::vector<std::vector<float>>> embed(const std::vector<std::string>& texts) const {
    std::vector<std::vector<float>> out;
    if (!client_ && !local_) {
      for (const std::string& text : texts) out.push_back(hashed_embedding(text));
      return out;
    }
    // A request's worth for a server; about a second of work for the local model (chunks
    // are long: up to 256 ids each, 2,000 ids/s on two threads, docs/performance.md).
    const std::size_t per_batch = local_ ? 8 : 64;
    for (std::size_t start = 0; start < texts.size(); start += per_batch) {
      if (stop_requested()) return failed_precondition("stopped by a signal");
      std::vector<std::string> batch(
          texts.begin() + static_cast<std::ptrdiff_t>(start),
          texts.begin() + static_cast<std::ptrdiff_t>(std::min(texts.size(), start + per_batch)));
      RAGMETER_ASSIGN_OR_RETURN(auto vectors, embed_batch(std::move(batch)));
      for (auto& vector : vectors) out.push_back(std::move(vector));
    }
    return out;
  }

 private:
  StatusOr<std::vector<std::vector<float>>> embed_batch(std::vector<std::string> texts) const {
    if (local_) return local_->embed(texts);
    const std::size_t n = texts.size();
    llm::EmbeddingRequest request;
    request.inputs = std::move(texts);
    auto reply = client_->embed(std::move(request)).get();
    if (!reply.ok()) return reply.status();
    if (reply->vectors.size() != n) {
      return invalid_argument("the embedder returned " + std::to_string(reply->vectors.size()) +
                              " vectors for " + std::to_string(n) + " texts");
    }
    return std::move(reply->vectors);
  }

  std::shared_ptr<llm::Client> client_;
  std::shared_ptr<const SentenceEmbedder> local_;
  std::string identity_;
};

// The chunks' index: loaded from `path` when its manifest names the same embedder and
// chunks, else built (every chunk embedded) and saved with its manifest.
StatusOr<VectorIndex> chunk_index(const std::vector<DocumentChunk>& chunks, const Embedder& embedder,
                                  const std::string& path, bool* reused) {
  std::string ids;
  for (const DocumentChunk& chunk : chunks) ids += chunk.id + "\n";
  const std::string manifest_path = path + ".json";
  const nlohmann::json want = {{"embedder", embedder.identity()}, {"chunks", chunks.size()},
                               {"chunk_ids_sha256", sha256_hex(ids)}};
  std::ifstream manifest_in(manifest_path);
  if (manifest_in) {
    nlohmann::json have = nlohmann::json::parse(manifest_in, nullptr, false);
    if (!have.is_discarded() && have.contains("dimensions") && have["dimensions"].is_number_integer() &&
        have["embedder"] == want["embedder"] && have["chunks"] == want["chunks"] &&
        have["chunk_ids_sha256"] == want["chunk_ids_sha256"]) {
      auto loaded = VectorIndex::load(path, have["dimensions"].get<int>());
      if (loaded.ok() && loaded->size() == chunks.size()) {
        *reused = true;
        return std::move(loaded).value();
      }
    }
  }
  *reused = false;
  std::vector<std::string> texts;
  for (const DocumentChunk& chunk : chunks) texts.push_back(chunk.text);
  RAGMETER_ASSIGN_OR_RETURN(std::vector<std::vector<float>> vectors, embedder.embed(texts));
  if (vectors.empty() || vectors.front().empty()) return invalid_argument("the embedder returned no vector");
  const int dimensions = static_cast<int>(vectors.front().size());
  RAGMETER_ASSIGN_OR_RETURN(VectorIndex index, VectorIndex::create(dimensions));
  for (const auto& vector : vectors) RAGMETER_RETURN_IF_ERROR(index.add(vector).status());
  RAGMETER_RETURN_IF_ERROR(index.save(path));
  nlohmann::json manifest = want;
  manifest["dimensions"] = dimensions;
  std::ofstream(manifest_path) << manifest.dump(2) << "\n";
  return index;
}

// What both kinds of generation start from: the documents, their chunks, the judge and
// embedder clients, and the chunks' index.
struct GenSetup {
  LoadResult loaded;
  std::vector<DocumentChunk> chunks;
  std::unique_ptr<llm::Client> chat;
  std::shared_ptr<llm::Client> embed_client;
  std::unique_ptr<Embedder> embedder;
  std::optional<VectorIndex> index;  // none: stopped while the chunks were embedded
  bool reused = false;
  std::string index_path;
  int concurrency = 4;  // contexts generated at once
};

// What gen's report and exit code read from either kind of generation.
struct GenCounts {
  std::size_t rows = 0;
  std::size_t contexts_tried = 0;
  std::size_t proposed = 0;
  const char* proposed_what = "pairs";  // "pairs" or "scenarios"
  const std::map<std::string, std::size_t>* rejected = nullptr;
  bool cancelled = false;
};

StatusOr<std::vector<DocumentChunk>> chunks_of(const GenArgs& args, const LoadResult& loaded) {
  ChunkerOptions chunking;
  chunking.size = args.chunk_size;
  chunking.overlap = args.chunk_overlap;
  chunking.unit = args.chunk_unit == "tokens" ? ChunkUnit::kTokens : ChunkUnit::kCharacters;
  std::vector<DocumentChunk> chunks;
  for (const Document& document : loaded.documents) {
    auto pieces = chunk_document(document, chunking);
    if (!pieces.ok()) return pieces.status();
    for (DocumentChunk& chunk : *pieces) chunks.push_back(std::move(chunk));
  }
  if (chunks.empty()) {
    return invalid_argument("the documents under " + args.documents +
                            " hold no chunk of at least the minimum size");
  }
  if (!args.chunks_out.empty()) {
    OutputFile out(args.chunks_out);
    for (const DocumentChunk& chunk : chunks) {
      nlohmann::ordered_json line = testset_source_json(testset_source_of(chunk));
      line["text"] = chunk.text;
      out.stream() << line.dump() << "\n";
    }
    RAGMETER_RETURN_IF_ERROR(out.commit());
  }
  return chunks;
}

// The judge's client, and the embedder of chunks and generated texts.
Status make_gen_clients(const llm::JudgeSettings& settings, GenSetup* setup) {
  auto chat_options = llm::to_client_options(settings);
  if (!chat_options.ok()) return chat_options.status();
  chat_options->keep_traces = false;
  RAGMETER_ASSIGN_OR_RETURN(setup->chat, llm::make_client(*chat_options));
  std::string embedder_identity = "offline hashed-" + std::to_string(kHashedEmbeddingDimensions);
  // --embedder auto (the default): the local model when installed, else hashed vectors.
  auto local = load_embedder_choice(settings.embedder, settings.embedder_model_path);
  if (!local.ok()) return local.status();
  if (*local) embedder_identity = (*local)->identity();
  if (settings.embedder == "openai") {
    auto embed_options = llm::to_embedder_client_options(settings);
    if (!embed_options.ok()) return embed_options.status();
    embed_options->keep_traces = false;
    RAGMETER_ASSIGN_OR_RETURN(setup->embed_client, llm::make_client(*embed_options));
    embedder_identity =
        "openai " + embed_options->endpoint.base_url + " " + embed_options->endpoint.model;
  }
  setup->embedder = std::make_unique<Embedder>(setup->embed_client, *local, embedder_identity);
  return ok_status();
}

// Documents, chunks, clients and the index (saved beside the output).
StatusOr<GenSetup> prepare_gen(const GenArgs& args, const llm::JudgeSettings& settings) {
  GenSetup setup;
  LoadOptions load;
  if (!args.include.empty()) load.include = args.include;
  load.exclude = args.exclude;
  load.ocr = make_cli_ocr_reader(args.ocr_language, args.ocr_cache, args.judge);  // scans
  setup.loaded = load_documents(args.documents, load);
  for (const LoadProblem& problem : setup.loaded.problems) {
    std::cerr << "ragmeter gen: skipped " << problem.path << ": " << problem.reason << "\n";
  }
  if (setup.loaded.documents.empty()) {
    return invalid_argument(fmt::format(
        "no readable documents under {} ({} files seen, {} skipped; formats: .txt .md .html .pdf)",
        args.documents, setup.loaded.files_seen, setup.loaded.problems.size()));
  }
  RAGMETER_ASSIGN_OR_RETURN(setup.chunks, chunks_of(args, setup.loaded));
  RAGMETER_RETURN_IF_ERROR(make_gen_clients(settings, &setup));
  setup.concurrency = settings.concurrency > 0 ? std::min(settings.concurrency, 16) : 4;
  setup.index_path = args.out + ".index";
  if (stop_requested()) return setup;  // stopped before the chunks were embedded: no row
  auto index = chunk_index(setup.chunks, *setup.embedder, setup.index_path, &setup.reused);
  if (!index.ok() && !stop_requested()) return index.status();
  if (index.ok()) setup.index = std::move(index).value();
  return setup;
}

EmbedTexts embed_with(const Embedder& embedder) {
  return [&embedder](const std::vector<std::string>& texts) { return embedder.embed(texts); };
}

// The --summary JSON's fields before the kind's own (rows to rejections), then, with
// gen_summary_usage, its usage.
nlohmann::ordered_json gen_summary_head(const GenArgs& args, const GenSetup& setup,
                                        const GenCounts& counts) {
  nlohmann::ordered_json summary;
  summary["rows"] = counts.rows;
  summary["requested"] = args.size;
  summary["cancelled"] = counts.cancelled;
  summary["seed"] = args.seed;
  summary["documents"] = {{"loaded", setup.loaded.documents.size()},
                          {"files_seen", setup.loaded.files_seen},
                          {"skipped", setup.loaded.problems.size()}};
  nlohmann::ordered_json problems = nlohmann::ordered_json::array();
  for (const LoadProblem& problem : setup.loaded.problems) {
    problems.push_back({{"path", problem.path}, {"reason", problem.reason}});
  }
  summary["documents"]["problems"] = std::move(problems);
  summary["chunks"] = setup.chunks.size();
  summary["index"] = {{"path", setup.index_path},
                      {"reused", setup.reused},
                      {"embedder", setup.embedder->identity()}};
  summary["contexts_tried"] = counts.contexts_tried;
  summary[std::string(counts.proposed_what) + "_proposed"] = counts.proposed;
  summary["rejected"] = *counts.rejected;
  return summary;
}

void gen_summary_usage(const GenSetup& setup, std::size_t rows, nlohmann::ordered_json by_call,
                       nlohmann::ordered_json* summary) {
  const llm::UsageTotals chat_totals = setup.chat->totals();
  std::int64_t requests = chat_totals.requests;
  if (setup.embed_client) requests += setup.embed_client->totals().requests;
  (*summary)["usage"] = {{"requests", requests},
                         {"cache_hits", chat_totals.cache_hits},
                         {"failed", chat_totals.failed_calls},
                         {"prompt_tokens", chat_totals.tokens.prompt_tokens},
                         {"completion_tokens", chat_totals.tokens.completion_tokens},
                         {"cost_usd", chat_totals.cost_usd},
                         {"by_call", std::move(by_call)}};
  (*summary)["judge_calls_per_row"] =
      rows ? static_cast<double>(chat_totals.requests) / static_cast<double>(rows) : 0.0;
}

// The rows, whole (OutputFile: a stop or a second Ctrl-C leaves no half file).
template <typename Row, typename ToJson>
Status write_rows(const std::string& path, const std::vector<Row>& rows, ToJson to_json) {
  OutputFile out(path);
  for (const Row& row : rows) out.stream() << to_json(row).dump() << "\n";
  return out.commit();
}

// gen's report on stdout (`kind_line`: the kind's own line, after the rejections).
void print_gen_report(const GenArgs& args, const GenSetup& setup, const GenCounts& counts,
                      const nlohmann::ordered_json& summary, const std::string& kind_line) {
  const llm::UsageTotals chat_totals = setup.chat->totals();
  std::cout << fmt::format("{} of {} rows written to {} ({} documents, {} chunks, index {})\n",
                           counts.rows, args.size, args.out, setup.loaded.documents.size(),
                           setup.chunks.size(), setup.reused ? "reused" : "built");
  std::cout << fmt::format("contexts tried: {}; {} proposed: {}\n", counts.contexts_tried,
                           counts.proposed_what, counts.proposed);
  for (const auto& [reason, count] : *counts.rejected) {
    std::cout << fmt::format("  rejected {:>4}  {}\n", count, reason);
  }
  std::cout << kind_line;
  std::cout << fmt::format("judge calls: {} requests ({} from the cache), {:.1f} per row\n",
                           chat_totals.requests, chat_totals.cache_hits,
                           summary["judge_calls_per_row"].get<double>());
}

// Writes the summary, reports on stdout (print_gen_report) and gives gen's exit code.
CommandOutcome finish_gen(const GenArgs& args, const GenSetup& setup, const GenCounts& counts,
                          const nlohmann::ordered_json& summary, const std::string& kind_line) {
  if (!args.summary.empty()) {
    OutputFile file(args.summary);
    file.stream() << summary.dump(2) << "\n";
    if (Status s = file.commit(); !s.ok()) return s;
  }
  if (counts.cancelled) {
    std::cerr << fmt::format(
        "ragmeter gen: interrupted: the {} rows accepted before the stop are written to {}{}; "
        "exit code 130\n",
        counts.rows, args.out,
        args.summary.empty() ? "" : " and the summary says \"cancelled\": true");
    return kExitInterrupted;
  }
  if (!args.quiet) print_gen_report(args, setup, counts, summary, kind_line);
  if (counts.rows == 0 && counts.proposed == 0) {
    // Nothing to filter: the judge never answered. Not a filter's doing (exit code 4).
    for (const auto& [reason, count] : *counts.rejected) {
      if (reason.starts_with("generation failed")) {
        return unavailable(fmt::format("no row: the judge answered no generation call ({} of "
                                       "the {} contexts tried: {})",
                                       count, counts.contexts_tried, reason));
      }
    }
  }
  if (counts.rows < args.size) {
    std::cerr << fmt::format("ragmeter gen: only {} of {} rows passed the filters after {} contexts "
                             "(raise --max-contexts, or see the rejections)\n",
                             counts.rows, args.size, counts.contexts_tried);
    return kExitPartial;
  }
  return kExitOk;
}

// generate_testset's options from gen's flags.
TestsetOptions testset_options(const GenArgs& args, const GenSetup& setup, const QuestionMix& mix) {
  TestsetOptions options;
  options.size = args.size;
  options.seed = args.seed;
  options.mix = mix;
  options.pairs_per_context = args.pairs_per_context;
  options.neighbours = args.neighbours;
  options.duplicate_similarity = args.duplicate_similarity;
  options.max_contexts = args.max_contexts;
  options.closed_book_check = !args.no_closed_book_check;
  options.concurrency = setup.concurrency;
  options.cancel = &stop_flag();
  return options;
}

// The summary's rows by question type, in order of first appearance.
nlohmann::ordered_json rows_by_question_type(const std::vector<TestsetRow>& rows) {
  nlohmann::ordered_json by_type = nlohmann::ordered_json::object();
  for (const TestsetRow& row : rows) {
    auto& n = by_type[question_type_name(row.type)];
    n = n.is_null() ? 1 : n.get<int>() + 1;
  }
  return by_type;
}

// gen_questions' own report line.
std::string question_coverage_line(const TestsetCoverage& coverage) {
  std::string types;
  for (const auto& [type, share] : coverage.type_share) {
    types += fmt::format("{}{} {:.0f}%", types.empty() ? "" : ", ", type, 100 * share);
  }
  return fmt::format("question types: {}; multi-context {:.0f}%; distinct openings {} ({:.0f}%)\n",
                     types, 100 * coverage.multi_context_share, coverage.distinct_openings,
                     100 * coverage.distinct_opening_share);
}

// Questions, reference answers and reference contexts (testset.h).
CommandOutcome gen_questions(const GenArgs& args, const GenSetup& setup) {
  auto mix = parse_question_mix(args.mix);
  if (!mix.ok()) return mix.status();
  TestsetReport report;
  report.cancelled = !setup.index;  // stopped while the chunks were embedded: no row
  if (setup.index) {
    const TestsetOptions options = testset_options(args, setup, *mix);
    Progress progress(args.quiet);
    auto generated = generate_testset(
        setup.chunks, *setup.index, *setup.chat, embed_with(*setup.embedder), options,
        [&progress](std::size_t rows) { progress.update(static_cast<std::int64_t>(rows)); });
    progress.finish();
    if (!generated.ok()) return generated.status();
    report = std::move(generated).value();
  }
  if (Status s = write_rows(args.out, report.rows, testset_row_json); !s.ok()) return s;
  const GenCounts counts{report.rows.size(), report.contexts_tried, report.pairs_proposed,
                         "pairs", &report.rejected, report.cancelled};
  const TestsetCoverage coverage = testset_coverage(report.rows);
  nlohmann::ordered_json summary = gen_summary_head(args, setup, counts);
  summary["by_type"] = rows_by_question_type(report.rows);
  summary["coverage"] = testset_coverage_json(coverage);
  gen_summary_usage(setup, counts.rows, report.usage_by_call, &summary);
  return finish_gen(args, setup, counts, summary, question_coverage_line(coverage));
}

// Conversation scenarios for a simulated user (scenarios.h).
CommandOutcome gen_scenarios(const GenArgs& args, const GenSetup& setup) {
  ScenarioReport report;
  report.cancelled = !setup.index;  // stopped while the chunks were embedded: no row
  if (setup.index) {
    ScenarioOptions options;
    options.size = args.size;
    options.seed = args.seed;
    options.scenarios_per_context = args.pairs_per_context;
    options.neighbours = args.neighbours;
    options.duplicate_similarity = args.duplicate_similarity;
    options.max_contexts = args.max_contexts;
    options.concurrency = setup.concurrency;
    options.cancel = &stop_flag();
    Progress progress(args.quiet);
    auto generated = generate_scenarios(
        setup.chunks, *setup.index, *setup.chat, embed_with(*setup.embedder), options,
        [&progress](std::size_t rows) { progress.update(static_cast<std::int64_t>(rows)); });
    progress.finish();
    if (!generated.ok()) return generated.status();
    report = std::move(generated).value();
  }
  if (Status s = write_rows(args.out, report.rows, scenario_row_json); !s.ok()) return s;
  const GenCounts counts{report.rows.size(), report.contexts_tried, report.scenarios_proposed,
                         "scenarios", &report.rejected, report.cancelled};
  nlohmann::ordered_json summary = gen_summary_head(args, setup, counts);
  std::size_t multi = 0;
  for (const ScenarioRow& row : report.rows) multi += row.reference_contexts.size() >= 2 ? 1 : 0;
  summary["multi_context_rows"] = multi;
  gen_summary_usage(setup, counts.rows, report.usage_by_call, &summary);
  return finish_gen(args, setup, counts, summary,
                    fmt::format("rows with two reference contexts or more: {}\n", multi));
}

CommandOutcome run_gen(const GenArgs& args) {
  install_stop_handlers(StopMode::kGraceful);
  auto settings = judge_settings(args.judge);
  if (!settings.ok()) return settings.status();
  // No offline path: neither questions nor scenarios can be written without an LLM, and
  // nothing is written in their place.
  if (settings->judge == "offline") {
    return invalid_argument(
        args.scenarios
            ? "scenario generation needs an LLM judge: the offline judge cannot write "
              "scenarios; give --judge-url and --judge-model (or --config)"
            : "generation needs an LLM judge: give --judge-url and --judge-model (or --config)");
  }
  if (!args.scenarios) {  // a bad --types is told before any document is read
    if (auto mix = parse_question_mix(args.mix); !mix.ok()) return mix.status();
  }
  auto setup = prepare_gen(args, *settings);
  if (!setup.ok()) return setup.status();
  return args.scenarios ? gen_scenarios(args, *setup) : gen_questions(args, *setup);
}

}  // namespace

CommandRun add_gen_command(CLI::App& parent) {
  auto args = std::make_shared<GenArgs>();
  CLI::App* cmd = parent.add_subcommand(
      "gen",
      "Generate a test set from your documents: questions, reference answers and the\n"
      "reference contexts they come from, ready for `ragmeter eval`. Needs an LLM judge.\n\n"
      "  ragmeter gen docs/ --out testset.jsonl --size 50 \\\n"
      "      --judge-url http://127.0.0.1:8080/v1 --judge-model qwen2.5\n\n"
      "Reads .txt, .md, .html and .pdf files under DOCUMENTS (recursively), chunks them,\n"
      "indexes the chunks (saved as OUT.index, reused when the chunks are unchanged), then\n"
      "asks the judge for question and answer pairs over each chunk and its nearest\n"
      "neighbours and keeps those that pass the filters (docs/testset.md).\n\n"
      "With --scenarios it writes conversation scenarios instead (scenario, user\n"
      "description, expected outcome, reference contexts), for `ragmeter run` to act\n"
      "out with a simulated user (docs/testset.md, \"Conversation scenarios\").");
  cmd->add_option("documents", args->documents, "Folder (or one file) of documents")->required();
  cmd->add_option("--out,-o", args->out, "The test set, JSON lines")->required();
  cmd->add_option("--size,-n", args->size, "Rows to generate")->capture_default_str()->check(CLI::Range(1, 1000000));
  cmd->add_option("--seed", args->seed, "Seed of the chunk and type draws")->capture_default_str();
  CLI::Option* scenarios = cmd->add_flag(
      "--scenarios", args->scenarios,
      "Write conversation scenarios (DeepEval's ConversationalGolden: scenario, "
      "user_description, expected_outcome) instead of questions; one judge call per context");
  cmd->add_option("--types", args->mix, "Question types and weights")
      ->capture_default_str()
      ->excludes(scenarios);
  cmd->add_option("--per-context", args->pairs_per_context,
                  "Pairs (or scenarios) asked per generation call")
      ->capture_default_str()
      ->check(CLI::Range(1, 20));
  cmd->add_option("--neighbours", args->neighbours, "Nearest chunks joined with each root chunk")
      ->capture_default_str()
      ->check(CLI::Range(0, 10));
  cmd->add_option("--duplicate-similarity", args->duplicate_similarity,
                  "Questions (or scenarios) at least this alike (embedding cosine) to a kept one "
                  "are dropped")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1.0));
  cmd->add_option("--max-contexts", args->max_contexts, "Contexts to try at most (0: 4 x size + 10)")
      ->capture_default_str();
  cmd->add_option("--include", args->include, "Glob of files to read (repeatable; default: the known formats)");
  cmd->add_option("--exclude", args->exclude, "Glob of files or folders to skip (repeatable)");
  add_ocr_flags(cmd, &args->ocr_language, &args->ocr_cache, "eng; for scanned PDF pages");
  cmd->add_option("--chunk-size", args->chunk_size, "Chunk size")->capture_default_str()->check(CLI::Range(1, 1000000));
  cmd->add_option("--chunk-overlap", args->chunk_overlap, "Overlap of consecutive chunks")->capture_default_str();
  cmd->add_option("--chunk-unit", args->chunk_unit, "chars or tokens (words)")
      ->capture_default_str()
      ->check(CLI::IsMember({"chars", "tokens"}));
  cmd->add_flag("--no-closed-book-check", args->no_closed_book_check,
                "Keep pairs the judge answers without their passages (saves one call per pair)")
      ->excludes(scenarios);
  cmd->add_option("--summary", args->summary, "Summary JSON: counts, rejections by reason, usage");
  cmd->add_option("--chunks-out", args->chunks_out, "Also write every chunk (id, source, text) as JSON lines");
  cmd->add_flag("--quiet,-q", args->quiet, "No report and no progress display");
  add_judge_flags(cmd, &args->judge, /*run=*/false,
                  "openai (an OpenAI-compatible server: --judge-url, --judge-model); generation "
                  "has no offline judge",
                  "Embeddings of chunks and questions: auto (default: local when installed, else "
                  "offline), offline (hashed word vectors), local (all-MiniLM-L6-v2 in-process), "
                  "local-multilingual (multilingual-e5-small in-process) or openai");
  return [args] { return run_gen(*args); };
}

}  // namespace ragmeter::cli
