// Test-set generation input: loading a folder of real documents and chunking it.
//
// The corpus is the Python 3 library reference as installed by python3-doc
// (/usr/share/doc/python3-doc/html/library, about 20 MB of Sphinx HTML in ~300 files).
// Loading is reported as MB/s of HTML read; chunking as MB/s of extracted text chunked.
//
//   build/bench/document_chunking_bench --benchmark_min_time=3
//
// Exits with a message when python3-doc is not installed (scripts/setup.sh installs it).

#include <benchmark/benchmark.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "ragmeter/chunker.h"
#include "ragmeter/documents.h"

namespace {

namespace fs = std::filesystem;

const fs::path kCorpus = "/usr/share/doc/python3-doc/html/library";

std::size_t folder_bytes(const fs::path& root) {
  std::size_t bytes = 0;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (entry.is_regular_file() && entry.path().extension() == ".html") bytes += entry.file_size();
  }
  return bytes;
}

const ragmeter::LoadResult& corpus() {
  static const ragmeter::LoadResult loaded = ragmeter::load_documents(kCorpus, {});
  return loaded;
}

std::size_t text_bytes(const ragmeter::LoadResult& loaded) {
  std::size_t bytes = 0;
  for (const auto& doc : loaded.documents) {
    for (const auto& block : doc.blocks) bytes += block.text.size();
  }
  return bytes;
}

void BM_LoadHtmlFolder(benchmark::State& state) {
  const std::size_t bytes = folder_bytes(kCorpus);
  std::size_t documents = 0;
  for (auto _ : state) {
    ragmeter::LoadResult loaded = ragmeter::load_documents(kCorpus, {});
    documents = loaded.documents.size();
    benchmark::DoNotOptimize(loaded);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["documents"] = static_cast<double>(documents);
  state.counters["input_MB"] = static_cast<double>(bytes) / 1e6;
}
BENCHMARK(BM_LoadHtmlFolder)->Unit(benchmark::kMillisecond);

void BM_ChunkText(benchmark::State& state) {
  const ragmeter::LoadResult& loaded = corpus();
  const std::size_t bytes = text_bytes(loaded);
  ragmeter::ChunkerOptions options;
  options.unit = state.range(0) == 0 ? ragmeter::ChunkUnit::kCharacters : ragmeter::ChunkUnit::kTokens;
  if (options.unit == ragmeter::ChunkUnit::kTokens) {
    options.size = 256;
    options.overlap = 32;
    options.min_size = 10;
  }
  std::size_t chunks = 0;
  for (auto _ : state) {
    chunks = 0;
    for (const auto& doc : loaded.documents) {
      auto result = ragmeter::chunk_document(doc, options);
      chunks += result.ok() ? result->size() : 0;
      benchmark::DoNotOptimize(result);
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.counters["chunks"] = static_cast<double>(chunks);
  state.counters["text_MB"] = static_cast<double>(bytes) / 1e6;
  state.SetLabel(options.unit == ragmeter::ChunkUnit::kCharacters ? "1000 chars, overlap 100"
                                                                 : "256 tokens, overlap 32");
}
BENCHMARK(BM_ChunkText)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
  if (!fs::exists(kCorpus)) {
    std::fprintf(stderr, "document_chunking_bench: %s not found (install python3-doc)\n", kCorpus.c_str());
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
