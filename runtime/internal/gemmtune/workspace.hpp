#pragma once
// Device memory that some launches need besides A, B and C:
// - split-K: one counter per output tile. The splits of a tile take tickets at it as they start;
//   the first scales C by beta and raises the tile's flag there, and every split adds its sums to
//   C once the flag is up; the last one out resets it, so counters are zero between launches and
//   need no clearing. With ordered_splits (reductions) each split stores its sums after the
//   counters instead, and the last one adds them up (families/sgemm/kernels/epilogue.cuh,
//   Epilogue::last_split_sums).
// - repack: copies of A and B whose data would narrow the kernel's accesses, each row padded to
//   a multiple of 4 floats (the padding zeroed), so that the kernel reads them at full width.
// - warpgroup configs (wgmma): A and B split into TF32 planes, K-major
//   (families/sgemm/kernels/pack.cuh, gemmtune_pack_split), except an operand read in place
//   (GemmConfig::reads_a_in_place).
#include <cuda_runtime_api.h>

#include <cstddef>

#include "gemmtune/problem.hpp"
#include "gemmtune/sgemm/config.hpp"
#include "gemmtune/workspace_allocator.hpp"

namespace gemmtune {

/// Where a packed copy of an operand lies: each row of the stored matrix padded to `ld` floats (a
/// multiple of 4), its matrices `stride` floats apart (a multiple of 4 too), from a 16-byte
/// aligned base. `data` is null when the operand is not packed.
struct PackedOperand {
  float* data = nullptr;
  long long ld = 0, stride = 0;
  long long plane = 0;  ///< split copies: floats from the big parts' plane to the small parts'
  int tile_rows = 0;    ///< split copies: rows of one tile (each tile's slices are stored whole)

  /// The layout of a packed copy of a rows x cols matrix (data left null).
  static PackedOperand layout(int rows, int cols);
  /// The layout of a split copy (warpgroup configs) of an operand of `rows` rows along K (op(A)'s
  /// rows, op(B)'s columns) for tiles of `tile_rows`: rows rounded up to whole tiles, K rounded
  /// up to 32 floats (ld), one plane (math 1) or two. Tile t's rows start at float t x tile_rows
  /// x ld of a plane, as slices of tile_rows x 32 floats (pack.cuh, gemmtune_pack_split).
  static PackedOperand split_layout(int rows, int k, int tile_rows, int planes);
  /// Floats that `batch` such matrices take.
  size_t floats(int batch) const { return size_t(stride) * size_t(batch); }
};

/// What a launch gets from its workspace; null members where the config needs none.
struct LaunchBuffers {
  int* tile_counters = nullptr;  ///< split-K: one per output tile of every batch
  PackedOperand a, b;            ///< repack, warpgroup configs: where to copy A and B
};

/// Workspace for the launches of one stream. Launches that share a workspace must be ordered
/// (one stream): two at once would mix up their tiles' counters and overwrite each other's packed
/// operands. Grows to the largest launch seen, never shrinks; growing waits for the stream's
/// earlier work. Not thread-safe. Needs a GPU. Its memory comes from cudaMalloc, or from the
// caller's allocator (WorkspaceAllocator, both callbacks set).
class LaunchWorkspace {
 public:
  explicit LaunchWorkspace(WorkspaceAllocator allocator = {}) : allocator_(allocator) {}
  /// Frees the memory after waiting for the device (like destroying a BLAS handle).
  ~LaunchWorkspace();
  LaunchWorkspace(const LaunchWorkspace&) = delete;
  LaunchWorkspace& operator=(const LaunchWorkspace&) = delete;

  /// Output tiles of a launch of `config` on `p` (one counter each; 0 without split-K).
  static size_t tile_count(const GemmConfig& config, const Problem& p);
  /// 4-byte words of the counters' buffer: the counters, then for ordered_splits, from the next
  /// multiple of kSplitSumsAlign on, split_k x bm x bn floats per tile for the splits' sums.
  static size_t counter_words(const GemmConfig& config, const Problem& p);
  /// Floats of packed operands a launch of `config` on `p` needs (0 when it packs nothing).
  static size_t packed_floats(const GemmConfig& config, const Problem& p);

  /// The buffers for a launch of `config` on `p` enqueued on `stream`, allocated (counters
  /// zeroed in stream order) or grown as needed. Throws Error(kCudaError) when out of memory.
  LaunchBuffers prepare(const GemmConfig& config, const Problem& p, cudaStream_t stream);

  /// Forgets the memory without freeing it: after a kernel hang, waiting for the device would
  /// block forever.
  void abandon() {
    counters_ = nullptr, counter_capacity_ = 0, packed_ = nullptr, packed_capacity_ = 0;
  }

  /// Whether a launch of `config` on `p` fits the memory held now (prepare() would not grow it).
  bool fits(const GemmConfig& config, const Problem& p) const {
    return counter_words(config, p) <= counter_capacity_ &&
           packed_floats(config, p) <= packed_capacity_;
  }

  /// Bytes held on the device.
  size_t bytes() const {
    return counter_capacity_ * sizeof(int) + packed_capacity_ * sizeof(float);
  }

 private:
  void release();
  void* allocate(size_t bytes, cudaStream_t stream);
  void free(void* ptr, size_t bytes);  // once no launch can use it: waits for the device

  WorkspaceAllocator allocator_;
  cudaStream_t stream_ = nullptr;  // the stream the memory was allocated for (the allocator's)
  int* counters_ = nullptr;
  size_t counter_capacity_ = 0;  // 4-byte words (counter_words)
  float* packed_ = nullptr;      // A's copy, then B's
  size_t packed_capacity_ = 0;   // floats
  int device_ = 0;               // where the memory lives
};

}  // namespace gemmtune
