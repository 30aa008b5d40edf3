#pragma once
// Device memory that split-K launches need: one counter per output tile. The splits of a tile
// take tickets at it; the first to finish stores C and raises the tile's flag there, the others
// wait for the flag and add to C; the last one out resets it, so counters are zero between
// launches and need no clearing.
#include <cuda_runtime_api.h>

#include <cstddef>

#include "gemmtune/config.hpp"
#include "gemmtune/problem.hpp"

namespace gemmtune {

/// Workspace for the split-K launches of one stream. Launches that share a workspace must be
/// ordered (one stream): two at once would mix up their tiles' counters. Grows to the largest
/// launch seen, never shrinks; growing waits for the stream's earlier work. Not thread-safe.
/// Needs a GPU.
class SplitKWorkspace {
 public:
  SplitKWorkspace() = default;
  /// Frees the memory after waiting for the device (like destroying a BLAS handle).
  ~SplitKWorkspace();
  SplitKWorkspace(const SplitKWorkspace&) = delete;
  SplitKWorkspace& operator=(const SplitKWorkspace&) = delete;

  /// Output tiles of a launch of `config` on `p` (one counter each; 0 without split-K).
  static size_t tile_count(const GemmConfig& config, const Problem& p);

  /// The tile counters for a launch of `config` on `p` enqueued on `stream`, allocated (and
  /// zeroed in stream order) or grown as needed. Throws Error(kCudaError) when out of memory.
  int* prepare(const GemmConfig& config, const Problem& p, cudaStream_t stream);

  /// Forgets the memory without freeing it: after a kernel hang, waiting for the device would
  /// block forever.
  void abandon() { counters_ = nullptr, capacity_ = 0; }

  /// Bytes held on the device.
  size_t bytes() const { return capacity_ * sizeof(int); }

 private:
  void release();

  int* counters_ = nullptr;
  size_t capacity_ = 0;  // counters
  int device_ = 0;       // where the memory lives
};

}  // namespace gemmtune
