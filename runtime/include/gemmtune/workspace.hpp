#pragma once
// Device memory that split-K launches need: one partial tile per split and an arrival counter per
// output tile. The last split of a tile to finish sums the partials and writes C, then resets its
// counter, so the counters are zero between launches and need no clearing.
#include <cuda_runtime_api.h>

#include <cstddef>

#include "gemmtune/config.hpp"
#include "gemmtune/problem.hpp"

namespace gemmtune {

/// Workspace for the split-K launches of one stream. Launches that share a workspace must be
/// ordered (one stream): two at once would mix their partials. Grows to the largest launch seen,
/// never shrinks; growing waits for the stream's earlier work. Not thread-safe. Needs a GPU.
class SplitKWorkspace {
 public:
  /// Pointers a launch passes to its kernel.
  struct View {
    float* partials = nullptr;
    int* tile_counters = nullptr;
  };

  SplitKWorkspace() = default;
  /// Frees the memory after waiting for the device (like destroying a BLAS handle).
  ~SplitKWorkspace();
  SplitKWorkspace(const SplitKWorkspace&) = delete;
  SplitKWorkspace& operator=(const SplitKWorkspace&) = delete;

  /// Floats of partial tiles a launch of `config` on `p` needs (0 without split-K).
  static size_t partial_floats(const GemmConfig& config, const Problem& p);
  /// Output tiles of the launch (one counter each; 0 without split-K).
  static size_t tile_count(const GemmConfig& config, const Problem& p);

  /// Room for a launch of `config` on `p` enqueued on `stream`, allocated or grown as needed.
  /// Throws Error(kCudaError) when the device is out of memory.
  View prepare(const GemmConfig& config, const Problem& p, cudaStream_t stream);

  /// Forgets the memory without freeing it: after a kernel hang, waiting for the device would
  /// block forever.
  void abandon() { partials_ = nullptr, counters_ = nullptr, partial_capacity_ = 0, counter_capacity_ = 0; }

  /// Bytes held on the device.
  size_t bytes() const { return partial_capacity_ * sizeof(float) + counter_capacity_ * sizeof(int); }

 private:
  void release();

  float* partials_ = nullptr;
  int* counters_ = nullptr;
  size_t partial_capacity_ = 0;
  size_t counter_capacity_ = 0;
  int device_ = 0;  // where the memory lives
};

}  // namespace gemmtune
