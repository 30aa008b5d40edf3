#pragma once
// DeviceBuffer<T>: device memory owned by a scope (cudaMalloc / cudaFree), with copies to and from
// the host. For the tools, the tuner's measurements and the tests; needs a GPU.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <random>
#include <vector>

#include "gemmtune/error.hpp"

namespace gemmtune {

template <typename T>
class DeviceBuffer {
 public:
  /// Allocates `count` elements (at least one, so that the pointer is never null).
  explicit DeviceBuffer(size_t count) : count_(count) {
    GEMMTUNE_CUDA(
        cudaMalloc(reinterpret_cast<void**>(&ptr_), std::max<size_t>(1, count) * sizeof(T)));
  }
  ~DeviceBuffer() { GEMMTUNE_CUDA_NOTHROW(cudaFree(ptr_)); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  /// The device pointer.
  T* get() const { return ptr_; }
  /// Number of elements.
  size_t size() const { return count_; }
  /// Copies `host` (at most size() elements) to the start of the buffer.
  void upload(const std::vector<T>& host) {
    GEMMTUNE_CUDA(cudaMemcpy(ptr_, host.data(), std::min(host.size(), count_) * sizeof(T),
                             cudaMemcpyHostToDevice));
  }
  /// The whole buffer, copied to the host.
  std::vector<T> download() const {
    std::vector<T> host(count_);
    GEMMTUNE_CUDA(cudaMemcpy(host.data(), ptr_, count_ * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }

 private:
  T* ptr_ = nullptr;
  size_t count_;
};

/// `n` uniform random numbers in [-1, 1]: test and tuning data is never zeros (zeros hide
/// unwritten outputs and can run faster than real data).
inline std::vector<float> random_floats(size_t n, std::mt19937_64& rng) {
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

}  // namespace gemmtune
