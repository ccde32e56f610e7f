// The vector index: unit vectors in one flat array, an exact scan for small indexes and
// an hnswlib graph, built on demand, for large ones. Behaviour and the file format are
// documented in include/ragmeter/vector_index.h.
#include "ragmeter/vector_index.h"

// hnswlib's SSE paths prefetch one neighbour id past the end of a link list, a heap
// over-read that AddressSanitizer reports on every build (nmslib/hnswlib#107, still open
// in 0.6.2). Compiling them out costs nothing measurable here: the distance function
// below is ours and the compiler vectorises it.
#define NO_MANUAL_VECTORIZATION
#include <hnswlib/hnswlib.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <limits>
#include <memory>
#include <mutex>
#include <queue>
#include <shared_mutex>
#include <string_view>
#include <system_error>

namespace ragmeter {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kMagic = "RAGMETER-VECTORS-1\n";
constexpr std::size_t kHeaderSize = kMagic.size() + 4 + 8 + 8;
constexpr std::size_t kGraphM = 16;
constexpr std::size_t kGraphEfConstruction = 200;

static_assert(std::numeric_limits<float>::is_iec559, "the file format stores IEEE-754 floats");
static_assert(std::endian::native == std::endian::little ||
              std::endian::native == std::endian::big);

double dot(const float* a, const float* b, std::size_t n) {
  // Four accumulators let the additions overlap; double keeps the sum exact enough that
  // the scan and the re-scored graph candidates rank ties identically.
  double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += double(a[i]) * b[i];
    s1 += double(a[i + 1]) * b[i + 1];
    s2 += double(a[i + 2]) * b[i + 2];
    s3 += double(a[i + 3]) * b[i + 3];
  }
  for (; i < n; ++i) s0 += double(a[i]) * b[i];
  return (s0 + s1) + (s2 + s3);
}

// hnswlib's distance for unit vectors, 1 - cosine. Eight independent float sums let the
// compiler use vector registers without reassociating any one sum.
float inner_product_distance(const void* a_data, const void* b_data, const void* dims) {
  const float* a = static_cast<const float*>(a_data);
  const float* b = static_cast<const float*>(b_data);
  const std::size_t n = *static_cast<const std::size_t*>(dims);
  float sums[8] = {};
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (std::size_t j = 0; j < 8; ++j) sums[j] += a[i + j] * b[i + j];
  }
  for (; i < n; ++i) sums[0] += a[i] * b[i];
  const float total =
      ((sums[0] + sums[1]) + (sums[2] + sums[3])) + ((sums[4] + sums[5]) + (sums[6] + sums[7]));
  return 1.0f - total;
}

class UnitVectorSpace : public hnswlib::SpaceInterface<float> {
 public:
  explicit UnitVectorSpace(std::size_t dimensions) : dimensions_(dimensions) {}
  std::size_t get_data_size() override { return dimensions_ * sizeof(float); }
  hnswlib::DISTFUNC<float> get_dist_func() override { return &inner_product_distance; }
  void* get_dist_func_param() override { return &dimensions_; }

 private:
  std::size_t dimensions_;
};

// Scales `v` to unit length in place; leaves a zero vector zero. False when an element
// is not finite.
bool normalise(std::vector<float>& v) {
  double norm = 0.0;
  for (float x : v) {
    if (!std::isfinite(x)) return false;
    norm += double(x) * x;
  }
  norm = std::sqrt(norm);
  if (norm == 0.0) return true;
  for (float& x : v) x = static_cast<float>(x / norm);
  return true;
}

bool better(const VectorHit& a, const VectorHit& b) {
  return a.similarity != b.similarity ? a.similarity > b.similarity : a.id < b.id;
}

void put_le(std::string& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

std::uint64_t get_le(const unsigned char* in, int bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= std::uint64_t(in[i]) << (8 * i);
  return value;
}

// Floats are written as little-endian bytes; a big-endian host swaps each one.
void swap_floats_if_big_endian(float* data, std::size_t n) {
  if constexpr (std::endian::native == std::endian::big) {
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t bits = std::bit_cast<std::uint32_t>(data[i]);
      bits = (bits >> 24) | ((bits >> 8) & 0xff00) | ((bits << 8) & 0xff0000) | (bits << 24);
      data[i] = std::bit_cast<float>(bits);
    }
  } else {
    (void)data;
    (void)n;
  }
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

}  // namespace

struct VectorIndex::Impl {
  Impl(int dims, std::uint64_t seed_value)
      : dimensions(dims), seed(seed_value), space(static_cast<std::size_t>(dims)) {}

  std::size_t size() const { return vectors.size() / static_cast<std::size_t>(dimensions); }
  const float* vector(std::size_t id) const {
    return vectors.data() + id * static_cast<std::size_t>(dimensions);
  }
  double similarity(const std::vector<float>& query, std::size_t id) const {
    return std::clamp(dot(query.data(), vector(id), query.size()), -1.0, 1.0);
  }

  std::vector<VectorHit> scan(const std::vector<float>& query, std::size_t k,
                              const std::vector<std::size_t>& excluded) const;
  // Empty when hnswlib failed (the caller falls back to the scan).
  std::vector<VectorHit> graph_search(const std::vector<float>& query, std::size_t k,
                                      const std::vector<std::size_t>& excluded);
  void extend_graph();  // requires graph_mutex held exclusively

  const int dimensions;
  const std::uint64_t seed;
  std::vector<float> vectors;  // size() x dimensions, each unit length or zero

  std::shared_mutex graph_mutex;  // guards everything below
  UnitVectorSpace space;          // hnswlib keeps a pointer to it: declared before graph
  std::unique_ptr<hnswlib::HierarchicalNSW<float>> graph;  // null until first needed
  std::size_t graph_count = 0;                             // ids [0, graph_count) are in it
};

std::vector<VectorHit> VectorIndex::Impl::scan(const std::vector<float>& query, std::size_t k,
                                               const std::vector<std::size_t>& excluded) const {
  std::vector<VectorHit> hits;
  hits.reserve(size());
  for (std::size_t id = 0; id < size(); ++id) {
    if (std::binary_search(excluded.begin(), excluded.end(), id)) continue;
    hits.push_back({id, static_cast<float>(similarity(query, id))});
  }
  k = std::min(k, hits.size());
  std::partial_sort(hits.begin(), hits.begin() + static_cast<std::ptrdiff_t>(k), hits.end(),
                    better);
  hits.resize(k);
  return hits;
}

void VectorIndex::Impl::extend_graph() {
  const std::size_t n = size();
  if (graph_count == n) return;
  if (!graph) {
    graph = std::make_unique<hnswlib::HierarchicalNSW<float>>(
        &space, std::max(n, 2 * kVectorIndexExactLimit), kGraphM, kGraphEfConstruction, seed);
  } else if (graph->max_elements_ < n) {
    graph->resizeIndex(std::max(n, 2 * graph->max_elements_));
  }
  // One insertion at a time, in id order: the graph depends only on the vectors and seed.
  for (; graph_count < n; ++graph_count) graph->addPoint(vector(graph_count), graph_count);
}

std::vector<VectorHit> VectorIndex::Impl::graph_search(const std::vector<float>& query,
                                                       std::size_t k,
                                                       const std::vector<std::size_t>& excluded) {
  // hnswlib 0.6 has no search filter and searchKnn(q, n) explores max(ef, n) candidates,
  // so asking for ef + |excluded| results is a search with that ef that still leaves
  // enough after dropping the excluded ids. Candidates are re-scored exactly.
  const std::size_t ef = std::max<std::size_t>(64, 4 * k);
  std::priority_queue<std::pair<float, hnswlib::labeltype>> found;
  try {
    bool complete;
    {
      std::shared_lock<std::shared_mutex> read(graph_mutex);
      complete = graph_count == size();
    }
    if (!complete) {
      std::unique_lock<std::shared_mutex> write(graph_mutex);
      extend_graph();
    }
    // hnswlib's searches may run concurrently (its counters are atomic); add() may not.
    std::shared_lock<std::shared_mutex> read(graph_mutex);
    if (!graph || graph_count != size()) return {};  // another search's build failed
    found = graph->searchKnn(query.data(), ef + excluded.size());
  } catch (const std::exception&) {
    // Out of memory or a broken graph: drop it (the next search rebuilds) and let the
    // caller answer exactly rather than wrongly.
    std::unique_lock<std::shared_mutex> write(graph_mutex);
    graph.reset();
    graph_count = 0;
    return {};
  }
  std::vector<VectorHit> hits;
  hits.reserve(found.size());
  for (; !found.empty(); found.pop()) {
    const std::size_t id = found.top().second;
    if (std::binary_search(excluded.begin(), excluded.end(), id)) continue;
    hits.push_back({id, static_cast<float>(similarity(query, id))});
  }
  k = std::min(k, hits.size());
  std::partial_sort(hits.begin(), hits.begin() + static_cast<std::ptrdiff_t>(k), hits.end(),
                    better);
  hits.resize(k);
  return hits;
}

VectorIndex::VectorIndex(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
VectorIndex::VectorIndex(VectorIndex&&) noexcept = default;
VectorIndex& VectorIndex::operator=(VectorIndex&&) noexcept = default;
VectorIndex::~VectorIndex() = default;

StatusOr<VectorIndex> VectorIndex::create(int dimensions, std::uint64_t seed) {
  if (dimensions <= 0) {
    return invalid_argument("vector index dimensions must be positive, got " +
                            std::to_string(dimensions));
  }
  return VectorIndex(std::make_unique<Impl>(dimensions, seed));
}

StatusOr<std::size_t> VectorIndex::add(const std::vector<float>& vector) {
  if (vector.size() != static_cast<std::size_t>(impl_->dimensions)) {
    return invalid_argument("vector has " + std::to_string(vector.size()) +
                            " dimensions, the index " + std::to_string(impl_->dimensions));
  }
  std::vector<float> unit = vector;
  if (!normalise(unit)) return invalid_argument("vector has an element that is not finite");
  const std::size_t id = size();
  impl_->vectors.insert(impl_->vectors.end(), unit.begin(), unit.end());
  return id;
}

std::vector<VectorHit> VectorIndex::search(const std::vector<float>& query, std::size_t k,
                                           const std::vector<std::size_t>& exclude) const {
  std::vector<float> unit = query;
  if (k == 0 || unit.size() != static_cast<std::size_t>(impl_->dimensions) || !normalise(unit)) {
    return {};
  }
  std::vector<std::size_t> excluded;
  for (std::size_t id : exclude) {
    if (id < size()) excluded.push_back(id);
  }
  std::sort(excluded.begin(), excluded.end());
  excluded.erase(std::unique(excluded.begin(), excluded.end()), excluded.end());

  const bool zero = std::all_of(unit.begin(), unit.end(), [](float x) { return x == 0.0f; });
  k = std::min(k, size() - excluded.size());
  if (size() > kVectorIndexExactLimit && !zero) {
    std::vector<VectorHit> hits = impl_->graph_search(unit, k, excluded);
    // Fewer than k means hnswlib failed or missed part of the graph: the scan is exact.
    if (hits.size() == k) return hits;
  }
  return impl_->scan(unit, k, excluded);
}

std::vector<float> VectorIndex::vector(std::size_t id) const {
  if (id >= size()) return {};
  const float* v = impl_->vector(id);
  return std::vector<float>(v, v + impl_->dimensions);
}

std::size_t VectorIndex::size() const { return impl_->size(); }

int VectorIndex::dimensions() const { return impl_->dimensions; }

Status VectorIndex::save(const std::string& path) const {
  static std::atomic<unsigned> counter{0};
  const std::string temp =
      path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1));
  auto fail = [&](const std::string& what) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    return unavailable("cannot write vector index " + path + ": " + what);
  };

  std::string header(kMagic);
  put_le(header, static_cast<std::uint64_t>(impl_->dimensions), 4);
  put_le(header, impl_->seed, 8);
  put_le(header, size(), 8);
  {
    File file(std::fopen(temp.c_str(), "wb"));
    if (!file) return fail(std::strerror(errno));
    bool written = std::fwrite(header.data(), 1, header.size(), file.get()) == header.size();
    if constexpr (std::endian::native == std::endian::little) {
      written = written && std::fwrite(impl_->vectors.data(), sizeof(float), impl_->vectors.size(),
                                       file.get()) == impl_->vectors.size();
    } else {
      std::vector<float> swapped = impl_->vectors;
      swap_floats_if_big_endian(swapped.data(), swapped.size());
      written = written && std::fwrite(swapped.data(), sizeof(float), swapped.size(), file.get()) ==
                               swapped.size();
    }
    if (!written || std::fflush(file.get()) != 0 || ::fsync(::fileno(file.get())) != 0) {
      return fail(std::strerror(errno));
    }
    if (std::fclose(file.release()) != 0) return fail(std::strerror(errno));
  }
  std::error_code error;
  fs::rename(temp, path, error);
  if (error) return fail(error.message());
  return ok_status();
}

StatusOr<VectorIndex> VectorIndex::load(const std::string& path, int dimensions) {
  if (dimensions <= 0) {
    return invalid_argument("vector index dimensions must be positive, got " +
                            std::to_string(dimensions));
  }
  std::error_code error;
  const fs::file_status status = fs::status(path, error);
  if (!fs::exists(status)) return not_found("no vector index file " + path);
  const std::uintmax_t file_size = fs::file_size(path, error);
  if (error) return unavailable("cannot read vector index " + path + ": " + error.message());
  auto not_an_index = [&](const std::string& why) {
    return invalid_argument(path + " is not a ragmeter vector index file: " + why);
  };
  File file(std::fopen(path.c_str(), "rb"));
  if (!file) return unavailable("cannot read vector index " + path + ": " + std::strerror(errno));

  unsigned char header[kHeaderSize];
  if (file_size < kHeaderSize || std::fread(header, 1, kHeaderSize, file.get()) != kHeaderSize ||
      std::memcmp(header, kMagic.data(), kMagic.size()) != 0) {
    return not_an_index("it does not start with \"RAGMETER-VECTORS-1\"");
  }
  const std::uint64_t file_dimensions = get_le(header + kMagic.size(), 4);
  const std::uint64_t seed = get_le(header + kMagic.size() + 4, 8);
  const std::uint64_t count = get_le(header + kMagic.size() + 12, 8);
  if (file_dimensions != static_cast<std::uint64_t>(dimensions)) {
    return invalid_argument("vector index " + path + " has " + std::to_string(file_dimensions) +
                            " dimensions, expected " + std::to_string(dimensions));
  }
  const std::uint64_t vector_bytes = file_dimensions * sizeof(float);
  if (count > (file_size - kHeaderSize) / vector_bytes ||
      kHeaderSize + count * vector_bytes != file_size) {
    return not_an_index("its size does not match its header (" + std::to_string(count) +
                        " vectors of " + std::to_string(file_dimensions) + ")");
  }

  auto impl = std::make_unique<Impl>(dimensions, seed);
  impl->vectors.resize(count * file_dimensions);
  if (std::fread(impl->vectors.data(), sizeof(float), impl->vectors.size(), file.get()) !=
      impl->vectors.size()) {
    return unavailable("cannot read vector index " + path + ": short read");
  }
  swap_floats_if_big_endian(impl->vectors.data(), impl->vectors.size());
  for (std::size_t id = 0; id < count; ++id) {
    const float* v = impl->vector(id);
    if (!std::all_of(v, v + dimensions, [](float x) { return std::isfinite(x); })) {
      return not_an_index("vector " + std::to_string(id) + " has an element that is not finite");
    }
    const double norm = std::sqrt(dot(v, v, static_cast<std::size_t>(dimensions)));
    if (norm != 0.0 && std::abs(norm - 1.0) > 1e-3) {
      return not_an_index("vector " + std::to_string(id) + " is not unit length");
    }
  }
  return VectorIndex(std::move(impl));
}

}  // namespace ragmeter
