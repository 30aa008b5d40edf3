#include "gemmtune/workspace.hpp"

#include <algorithm>

#include "gemmtune/error.hpp"

namespace gemmtune {

size_t SplitKWorkspace::tile_count(const GemmConfig& c, const Problem& p) {
  if (c.split_k <= 1) return 0;
  size_t rows = (size_t(p.m) + c.bm - 1) / c.bm, cols = (size_t(p.n) + c.bn - 1) / c.bn;
  return rows * cols * size_t(p.batch);
}

size_t SplitKWorkspace::partial_floats(const GemmConfig& c, const Problem& p) {
  return tile_count(c, p) * size_t(c.split_k) * size_t(c.bm) * size_t(c.bn);
}

SplitKWorkspace::View SplitKWorkspace::prepare(const GemmConfig& config, const Problem& p, cudaStream_t stream) {
  const size_t floats = partial_floats(config, p), tiles = tile_count(config, p);
  if (floats > partial_capacity_ || tiles > counter_capacity_) {
    // The old buffers may still be in use by this stream's earlier launches.
    GEMMTUNE_CUDA(cudaStreamSynchronize(stream));
    const size_t new_floats = std::max(floats, partial_capacity_), new_tiles = std::max(tiles, counter_capacity_);
    release();
    GEMMTUNE_CUDA(cudaGetDevice(&device_));
    GEMMTUNE_CUDA(cudaMalloc(reinterpret_cast<void**>(&partials_), new_floats * sizeof(float)));
    partial_capacity_ = new_floats;
    GEMMTUNE_CUDA(cudaMalloc(reinterpret_cast<void**>(&counters_), new_tiles * sizeof(int)));
    counter_capacity_ = new_tiles;
    GEMMTUNE_CUDA(cudaMemset(counters_, 0, new_tiles * sizeof(int)));
  }
  return View{partials_, counters_};
}

void SplitKWorkspace::release() {
  if (!partials_ && !counters_) return;
  int current = device_;
  GEMMTUNE_CUDA_NOTHROW(cudaGetDevice(&current));
  if (current != device_) GEMMTUNE_CUDA_NOTHROW(cudaSetDevice(device_));
  GEMMTUNE_CUDA_NOTHROW(cudaDeviceSynchronize());  // no launch may still use the memory
  if (partials_) GEMMTUNE_CUDA_NOTHROW(cudaFree(partials_));
  if (counters_) GEMMTUNE_CUDA_NOTHROW(cudaFree(counters_));
  if (current != device_) GEMMTUNE_CUDA_NOTHROW(cudaSetDevice(current));
  partials_ = nullptr, counters_ = nullptr;
  partial_capacity_ = 0, counter_capacity_ = 0;
}

SplitKWorkspace::~SplitKWorkspace() { release(); }

}  // namespace gemmtune
