#include "gemmtune/workspace.hpp"

#include "gemmtune/error.hpp"

namespace gemmtune {

size_t SplitKWorkspace::tile_count(const GemmConfig& c, const Problem& p) {
  if (c.split_k <= 1) return 0;
  size_t rows = (size_t(p.m) + c.bm - 1) / c.bm, cols = (size_t(p.n) + c.bn - 1) / c.bn;
  return rows * cols * size_t(p.batch);
}

int* SplitKWorkspace::prepare(const GemmConfig& config, const Problem& p, cudaStream_t stream) {
  const size_t tiles = tile_count(config, p);
  if (tiles > capacity_) {
    GEMMTUNE_CUDA(cudaStreamSynchronize(stream));  // earlier launches may still use the old counters
    release();
    GEMMTUNE_CUDA(cudaGetDevice(&device_));
    GEMMTUNE_CUDA(cudaMalloc(reinterpret_cast<void**>(&counters_), tiles * sizeof(int)));
    capacity_ = tiles;
    // In stream order: a plain cudaMemset may still be running when a kernel on a non-blocking
    // stream starts.
    GEMMTUNE_CUDA(cudaMemsetAsync(counters_, 0, tiles * sizeof(int), stream));
  }
  return counters_;
}

void SplitKWorkspace::release() {
  if (!counters_) return;
  int current = device_;
  GEMMTUNE_CUDA_NOTHROW(cudaGetDevice(&current));
  if (current != device_) GEMMTUNE_CUDA_NOTHROW(cudaSetDevice(device_));
  GEMMTUNE_CUDA_NOTHROW(cudaDeviceSynchronize());  // no launch may still use the memory
  GEMMTUNE_CUDA_NOTHROW(cudaFree(counters_));
  if (current != device_) GEMMTUNE_CUDA_NOTHROW(cudaSetDevice(current));
  counters_ = nullptr, capacity_ = 0;
}

SplitKWorkspace::~SplitKWorkspace() { release(); }

}  // namespace gemmtune
