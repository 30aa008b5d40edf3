#pragma once
// cuBLAS SGEMM (TF32 off, pedantic FP32) on a gemmtune Problem: the baseline every result is
// compared against, in the same process on the same buffers.
#include <cuda_runtime_api.h>

#include "gemmtune/problem.hpp"

namespace gemmtune::tuner {

/// Owns a cuBLAS handle set to plain FP32 math. Non-copyable; needs a GPU.
class CublasSgemm {
 public:
  /// Pedantic FP32 (TF32 off), or with `tf32` cuBLAS's TF32 tensor-core math (the second
  /// baseline of `gemmtune bench`).
  explicit CublasSgemm(bool tf32 = false);
  ~CublasSgemm();
  CublasSgemm(const CublasSgemm&) = delete;
  CublasSgemm& operator=(const CublasSgemm&) = delete;

  /// Enqueues the row-major problem `p` on `stream` (as the column-major C^T = op(B)^T op(A)^T).
  void run(const Problem& p, cudaStream_t stream) const;

 private:
  void* handle_ = nullptr;
};

}  // namespace gemmtune::tuner
