#pragma once
// C = beta C without A and B: what a GEMM with K = 0 or alpha = 0 does (BLAS semantics). A small
// kernel of its own, compiled by NVRTC like the GEMM family, so that such calls never read A or B.
#include <cuda_runtime_api.h>

#include <string>
#include <string_view>

#include "gemmtune/compiler.hpp"
#include "gemmtune/problem.hpp"

namespace gemmtune {

/// The kernel's CUDA source and entry point (extern "C", so its name needs no lowering).
std::string_view scale_kernel_source();
inline constexpr const char* kScaleKernelName = "gemmtune_scale_c";

/// Compiles the kernel for `arch` (e.g. "sm_90"); needs no GPU. Failures come back as data.
CompileResult compile_scale_kernel(const std::string& arch);

/// The loaded kernel. Non-copyable; unloads on destruction. Needs a GPU.
class ScaleKernel {
 public:
  /// Compiles the kernel for `arch` and loads it on the current device; throws
  /// Error(kCompileError) when NVRTC fails.
  explicit ScaleKernel(const std::string& arch);
  ~ScaleKernel();
  ScaleKernel(const ScaleKernel&) = delete;
  ScaleKernel& operator=(const ScaleKernel&) = delete;

  /// Enqueues C = beta C over the (row-major, batched) C of `p`; beta 0 stores zeros without
  /// reading C. Throws Error(kCudaError) if the launch fails.
  void launch(const Problem& p, cudaStream_t stream) const;

 private:
  cudaLibrary_t library_ = nullptr;
  cudaKernel_t kernel_ = nullptr;
};

}  // namespace gemmtune
