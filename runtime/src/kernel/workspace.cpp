#include "gemmtune/workspace.hpp"

#include <cstdint>
#include <string>

#include "gemmtune/error.hpp"
#include "gemmtune/kernel_args.h"

namespace gemmtune {

namespace {
long long round_up_4(long long v) { return (v + 3) / 4 * 4; }

// Runs `f` with `device` current, once no launch on it can still use the memory it frees.
template <typename F>
void after_device_work(int device, F f) {
  int current = device;
  GEMMTUNE_CUDA_NOTHROW(cudaGetDevice(&current));
  if (current != device) GEMMTUNE_CUDA_NOTHROW(cudaSetDevice(device));
  GEMMTUNE_CUDA_NOTHROW(cudaDeviceSynchronize());
  f();
  if (current != device) GEMMTUNE_CUDA_NOTHROW(cudaSetDevice(current));
}
}  // namespace

PackedOperand PackedOperand::layout(int rows, int cols) {
  PackedOperand out;
  out.ld = round_up_4(cols);
  out.stride = out.ld * rows;  // a multiple of 4 as ld is
  return out;
}

PackedOperand PackedOperand::split_layout(int rows, int k, int tile_rows, int planes) {
  PackedOperand out;
  out.ld = (k + 31LL) / 32 * 32;
  out.plane = (rows + tile_rows - 1LL) / tile_rows * tile_rows * out.ld;
  out.stride = out.plane * planes;
  out.tile_rows = tile_rows;
  return out;
}

// Where a launch of `c` on `p` copies A (B), data left null; an empty layout (no floats) where it
// reads the operand as it is. A warpgroup config's split copies hold op(A) as m rows and op(B) as
// n rows along K, except where it reads them in place.
static PackedOperand packed_a(const GemmConfig& c, const Problem& p) {
  if (c.wgmma)
    return c.reads_a_in_place(p)
               ? PackedOperand{}
               : PackedOperand::split_layout(p.m, p.k, c.bm, warpgroup_planes(c.math));
  return c.packs_a(p) ? PackedOperand::layout(p.a_rows(), p.a_cols()) : PackedOperand{};
}
static PackedOperand packed_b(const GemmConfig& c, const Problem& p) {
  if (c.wgmma)
    return c.reads_b_in_place(p)
               ? PackedOperand{}
               : PackedOperand::split_layout(p.n, p.k, c.bn, warpgroup_planes(c.math));
  return c.packs_b(p) ? PackedOperand::layout(p.b_rows(), p.b_cols()) : PackedOperand{};
}

size_t LaunchWorkspace::tile_count(const GemmConfig& c, const Problem& p) {
  if (c.split_k <= 1 || c.cluster_splits) return 0;
  size_t rows = (size_t(p.m) + c.bm - 1) / c.bm, cols = (size_t(p.n) + c.bn - 1) / c.bn;
  return rows * cols * size_t(p.batch);
}

size_t LaunchWorkspace::counter_words(const GemmConfig& c, const Problem& p) {
  const size_t tiles = tile_count(c, p);
  if (tiles == 0 || !c.ordered_splits) return tiles;
  const size_t align = kSplitSumsAlign;
  return (tiles + align - 1) / align * align +
         tiles * size_t(c.split_k) * size_t(c.bm) * size_t(c.bn);
}

size_t LaunchWorkspace::packed_floats(const GemmConfig& c, const Problem& p) {
  return packed_a(c, p).floats(p.batch) + packed_b(c, p).floats(p.batch);
}

LaunchBuffers LaunchWorkspace::prepare(const GemmConfig& config, const Problem& p,
                                       cudaStream_t stream) {
  const size_t words = counter_words(config, p), floats = packed_floats(config, p);
  if (words > counter_capacity_ || floats > packed_capacity_) {
    GEMMTUNE_CUDA(cudaStreamSynchronize(stream));  // earlier launches may still use the old memory
    GEMMTUNE_CUDA(cudaGetDevice(&device_));
  }
  if (words > counter_capacity_) {
    free(counters_, counter_capacity_ * sizeof(int));
    counters_ = nullptr, counter_capacity_ = 0;
    counters_ = static_cast<int*>(allocate(words * sizeof(int), stream));
    counter_capacity_ = words;
    // In stream order: a plain cudaMemset may still be running when a kernel on a non-blocking
    // stream starts. (Ordered splits zero their sums as they read them, so the whole buffer is
    // zeros between launches, whichever config used which part of it.)
    GEMMTUNE_CUDA(cudaMemsetAsync(counters_, 0, words * sizeof(int), stream));
  }
  if (floats > packed_capacity_) {
    free(packed_, packed_capacity_ * sizeof(float));
    packed_ = nullptr, packed_capacity_ = 0;
    packed_ = static_cast<float*>(allocate(floats * sizeof(float), stream));
    packed_capacity_ = floats;  // written whole by every launch that packs: no clearing
  }
  LaunchBuffers out;
  if (words > 0) out.tile_counters = counters_;
  // cudaMalloc's base is 256-byte aligned; each copy's size a multiple of 4 floats.
  out.a = packed_a(config, p), out.b = packed_b(config, p);
  if (out.a.stride > 0) out.a.data = packed_;
  if (out.b.stride > 0) out.b.data = packed_ + out.a.floats(p.batch);
  return out;
}

void* LaunchWorkspace::allocate(size_t bytes, cudaStream_t stream) {
  void* ptr = nullptr;
  if (!allocator_.allocate) {
    GEMMTUNE_CUDA(cudaMalloc(&ptr, bytes));
    return ptr;
  }
  stream_ = stream;
  ptr = allocator_.allocate(bytes, stream, allocator_.user_data);
  if (!ptr)
    throw Error(Status::kCudaError, "the workspace allocator returned no memory for " +
                                        std::to_string(bytes) + " bytes of launch workspace");
  if (reinterpret_cast<std::uintptr_t>(ptr) % 256 != 0) {
    allocator_.free(ptr, bytes, stream, allocator_.user_data);
    throw Error(Status::kInvalidArgument,
                "the workspace allocator returned memory not aligned to 256 bytes");
  }
  return ptr;
}

void LaunchWorkspace::free(void* ptr, size_t bytes) {
  if (!ptr) return;
  after_device_work(device_, [&] {
    if (allocator_.free) {
      allocator_.free(ptr, bytes, stream_, allocator_.user_data);
    } else {
      GEMMTUNE_CUDA_NOTHROW(cudaFree(ptr));
    }
  });
}

void LaunchWorkspace::release() {
  free(counters_, counter_capacity_ * sizeof(int));
  free(packed_, packed_capacity_ * sizeof(float));
  counters_ = nullptr, counter_capacity_ = 0, packed_ = nullptr, packed_capacity_ = 0;
}

LaunchWorkspace::~LaunchWorkspace() { release(); }

}  // namespace gemmtune
