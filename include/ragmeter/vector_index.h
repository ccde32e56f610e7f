// A cosine-similarity index over dense vectors, for `ragmeter gen` (finding chunks that
// are similar to a chunk, to build multi-hop questions and to deduplicate).
//
// Vectors are scaled to unit length when added and queries when searched, so similarity
// is their cosine, in [-1, 1]. A zero vector is allowed (a chunk with no content word):
// it is stored as zeros, its similarity to everything is 0, so it never ranks above a
// vector with positive similarity; a zero query scores 0 against every vector.
//
// Search is exact up to kVectorIndexExactLimit vectors (a scan: 2,000 x 512 dimensions
// is about 1 million multiply-adds, under a millisecond). Above that it asks an HNSW
// graph (hnswlib; distance 1 - dot product, M = 16, ef_construction = 200, ef =
// max(64, 4k)) for candidates and scores them exactly, so returned similarities are the
// same numbers the scan would give, but a true neighbour can occasionally be missed
// (recall@10 is 0.99 on random 32-dimension vectors in the tests, 0.997 on the hashed
// embeddings of the Python library reference's chunks). The graph is built lazily: the
// first search of an index above the limit inserts every vector not yet in the graph, in
// id order (on one busy core, about 0.3 ms per hashed embedding of a 1,000-character
// chunk and about 2 ms per dense random 512-dimension vector; see docs/performance.md);
// later searches insert only the vectors added since. With a fixed seed, the same
// vectors added in the same order give the same graph and the same results on every run
// (with the same C++ standard library: hnswlib draws levels from
// std::default_random_engine).
//
// Vector index file (save/load), all integers little-endian:
//   bytes 0-18   "RAGMETER-VECTORS-1\n"
//   uint32       dimensions
//   uint64       seed (hnswlib's level generator)
//   uint64       count
//   count x dimensions IEEE-754 float32, little-endian: the stored unit vectors, by id
// and nothing after them. The graph is not saved; it is rebuilt from the vectors when a
// loaded index is first searched above the limit (same seed, same order: same graph).
//
// Thread safety: add() must not run concurrently with any other call. search(),
// vector(), size(), dimensions() and save() may be called concurrently with each other:
// the lazy graph build takes a lock inside the index, searches share it.
// A moved-from index may only be destroyed or assigned to.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ragmeter/status.h"

namespace ragmeter {

// Indexes of at most this many vectors are searched exactly, by a scan.
inline constexpr std::size_t kVectorIndexExactLimit = 2000;

struct VectorHit {
  std::size_t id;    // the value add() returned for the vector
  float similarity;  // cosine with the query, in [-1, 1]
};

class VectorIndex {
 public:
  // An empty index for vectors of `dimensions` floats; capacity grows as vectors are
  // added. `seed` fixes hnswlib's random levels, so builds are reproducible.
  // InvalidArgument when `dimensions` is not positive.
  static StatusOr<VectorIndex> create(int dimensions, std::uint64_t seed = 100);

  // Loads an index written by save(). NotFound when `path` does not exist;
  // InvalidArgument naming `path` when it is not a vector index file (wrong magic,
  // truncated, trailing bytes, a value that is not finite) or its dimensions differ
  // from `dimensions`; Unavailable naming `path` when it cannot be read.
  static StatusOr<VectorIndex> load(const std::string& path, int dimensions);

  VectorIndex(VectorIndex&&) noexcept;
  VectorIndex& operator=(VectorIndex&&) noexcept;
  ~VectorIndex();

  // Adds a copy of `vector`, scaled to unit length, and returns its id: 0, 1, 2, ... in
  // insertion order. InvalidArgument when its size is not dimensions() or an element is
  // not finite (NaN, infinity); the index is unchanged then.
  StatusOr<std::size_t> add(const std::vector<float>& vector);

  // The min(k, size() - excluded) stored vectors most similar to `query`, best first,
  // ties broken by the lower id, never one whose id is in `exclude` (ids that are not
  // stored are ignored). Exact when size() <= kVectorIndexExactLimit or the query is
  // zero; approximate above (see the file comment). Returns no hits when `query` has the
  // wrong size or a non-finite element, or k is 0.
  std::vector<VectorHit> search(const std::vector<float>& query, std::size_t k,
                                const std::vector<std::size_t>& exclude = {}) const;

  // A copy of the stored vector `id` (unit length, or zero); empty when id >= size().
  // Searching with it finds the vectors most similar to a stored one.
  std::vector<float> vector(std::size_t id) const;

  std::size_t size() const;
  int dimensions() const;

  // Writes the index to `path` in the format above, atomically: a temporary file in the
  // same directory, flushed to disk, then renamed over `path`, so readers see the old
  // file or the new one, never a part. Unavailable naming `path` on failure (the
  // temporary file is removed).
  Status save(const std::string& path) const;

 private:
  struct Impl;
  explicit VectorIndex(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ragmeter
