// Test-set generation input: loading a folder of real documents and chunking it.
//
// The corpus is the Python 3 library reference as installed by python3-doc
// (/usr/share/doc/python3-doc/html/library, about 20 MB of Sphinx HTML in ~300 files).
// Loading is reported as MB/s of HTML read; chunking as MB/s of extracted text chunked;
// embedding and indexing (hashed_embedding + VectorIndex, graph built) as MB/s of chunk
// text and chunks/s; searching the chunk index as queries/s, with recall@10 against the
// exact scan.
//
//   build/bench/document_chunking_bench --benchmark_min_time=3
//
// Exits with a message when python3-doc is not installed (scripts/setup.sh installs it).

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "ragmeter/chunker.h"
#include "ragmeter/documents.h"
#include "ragmeter/hashed_embedding.h"
#include "ragmeter/vector_index.h"

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

// The corpus's 1,000-character chunks (the default ChunkerOptions), chunked once.
const std::vector<ragmeter::DocumentChunk>& corpus_chunks() {
  static const std::vector<ragmeter::DocumentChunk> chunks = [] {
    std::vector<ragmeter::DocumentChunk> out;
    for (const auto& doc : corpus().documents) {
      auto result = ragmeter::chunk_document(doc, {});
      if (result.ok()) out.insert(out.end(), result->begin(), result->end());
    }
    return out;
  }();
  return chunks;
}

ragmeter::VectorIndex embed_and_index(const std::vector<ragmeter::DocumentChunk>& chunks) {
  ragmeter::VectorIndex index =
      ragmeter::VectorIndex::create(ragmeter::kHashedEmbeddingDimensions).value();
  for (const auto& chunk : chunks) (void)index.add(ragmeter::hashed_embedding(chunk.text));
  // The first search above the exact limit builds the hnswlib graph: part of indexing.
  benchmark::DoNotOptimize(index.search(index.vector(0), 1));
  return index;
}

void BM_EmbedAndIndexChunks(benchmark::State& state) {
  const auto& chunks = corpus_chunks();
  std::size_t bytes = 0;
  for (const auto& chunk : chunks) bytes += chunk.text.size();
  for (auto _ : state) {
    ragmeter::VectorIndex index = embed_and_index(chunks);
    benchmark::DoNotOptimize(index);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * chunks.size()));
  state.counters["chunks"] = static_cast<double>(chunks.size());
  state.counters["chunk_text_MB"] = static_cast<double>(bytes) / 1e6;
  state.SetLabel("hashed 512-d, hnsw M=16 efC=200");
}
BENCHMARK(BM_EmbedAndIndexChunks)->Unit(benchmark::kMillisecond);

// Embedding alone, to split the indexing figure.
void BM_EmbedChunks(benchmark::State& state) {
  const auto& chunks = corpus_chunks();
  std::size_t bytes = 0;
  for (const auto& chunk : chunks) bytes += chunk.text.size();
  for (auto _ : state) {
    for (const auto& chunk : chunks) {
      benchmark::DoNotOptimize(ragmeter::hashed_embedding(chunk.text));
    }
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * chunks.size()));
}
BENCHMARK(BM_EmbedChunks)->Unit(benchmark::kMillisecond);

// Each chunk's 10 nearest other chunks, as the generator asks for neighbours. Recall is
// measured once, outside the timing, on every 10th chunk against a brute-force ranking.
void BM_SearchChunkNeighbours(benchmark::State& state) {
  static const ragmeter::VectorIndex index = embed_and_index(corpus_chunks());
  const std::size_t k = 10;
  std::size_t found = 0, wanted = 0;
  for (std::size_t id = 0; id < index.size(); id += 10) {
    const std::vector<float> query = index.vector(id);
    std::vector<std::pair<float, std::size_t>> exact;
    for (std::size_t other = 0; other < index.size(); ++other) {
      if (other == id) continue;
      const std::vector<float> v = index.vector(other);
      double dot = 0;
      for (std::size_t d = 0; d < v.size(); ++d) dot += double(v[d]) * query[d];
      exact.emplace_back(static_cast<float>(-dot), other);
    }
    std::partial_sort(exact.begin(), exact.begin() + k, exact.end());
    for (const auto& hit : index.search(query, k, {id})) {
      // A hit counts when it scores at least the 10th exact neighbour (ties are equal).
      found += hit.similarity >= -exact[k - 1].first - 1e-6f ? 1 : 0;
    }
    wanted += k;
  }
  std::size_t queries = 0;
  for (auto _ : state) {
    for (std::size_t id = 0; id < index.size(); ++id) {
      benchmark::DoNotOptimize(index.search(index.vector(id), k, {id}));
    }
    queries += index.size();
  }
  state.SetItemsProcessed(static_cast<int64_t>(queries));
  state.counters["recall_at_10"] = static_cast<double>(found) / static_cast<double>(wanted);
  state.counters["chunks"] = static_cast<double>(index.size());
}
BENCHMARK(BM_SearchChunkNeighbours)->Unit(benchmark::kMillisecond);

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
