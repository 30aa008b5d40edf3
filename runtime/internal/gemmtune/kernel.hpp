#pragma once
// A compiled kernel of the family, loaded on the current device and ready to launch.
#include <cuda_runtime_api.h>

#include <memory>
#include <string>
#include <vector>

#include "gemmtune/compiler.hpp"
#include "gemmtune/family.hpp"
#include "gemmtune/problem.hpp"
#include "gemmtune/sgemm/config.hpp"
#include "gemmtune/workspace.hpp"

namespace gemmtune {

/// Compiles one config of the family for `arch` (e.g. "sm_90"); failures come back as data.
CompileResult compile_config(const GemmConfig& config, const std::string& arch);

/// Version of the kernel templates this build compiles (hash of the built-in families' sources):
/// sweeps record it, `gemmtune db prune --stale-templates` drops results of other versions.
std::string template_hash();

/// The binary-cache key of a config: hash of template source, options, arch and NVRTC version.
std::string binary_key(const GemmConfig& config, const std::string& arch);

/// What binary_key() hashes besides the template source, in clear: the name expression, arch,
/// NVRTC version and defines. Configs with the same identity compile to the same binary; cheap
/// to compute, for keeping binaries apart within one process.
std::string binary_identity(const GemmConfig& config, const std::string& arch);

/// A loaded cubin holding one config's GEMM kernel and the kernels its launches run first (a
/// repack config's copy, gemmtune_pack_operand; families/sgemm/kernels/pack.cuh). Non-copyable;
/// unloads on destruction. Loading and launching need a GPU.
class GemmKernel final : public LoadedKernel {
 public:
  /// Loads `cubin`, whose GEMM entry point is `lowered_name`, into the current device's context.
  GemmKernel(const GemmConfig& config, const std::vector<char>& cubin,
             const std::string& lowered_name);
  ~GemmKernel() override;
  GemmKernel(const GemmKernel&) = delete;
  GemmKernel& operator=(const GemmKernel&) = delete;

  /// Enqueues C = alpha op(A) op(B) + beta C on `stream`. The caller has checked
  /// config().can_implement(p). A config that needs_workspace() (split-K, repack) needs
  /// `workspace` (one per stream; it grows to fit p): Error(kInvalidArgument) without one. A
  /// repack config first copies the operands it packs for p into the workspace, on `stream`.
  /// Throws Error(kCudaError) if a launch fails.
  void launch(const Problem& p, cudaStream_t stream,
              LaunchWorkspace* workspace = nullptr) const override;
  /// config_name(config()).
  std::string name() const override { return config_name(config_); }
  /// The config this kernel was compiled from.
  const GemmConfig& config() const { return config_; }

 private:
  GemmConfig config_;
  cudaLibrary_t library_ = nullptr;
  cudaKernel_t gemm_ = nullptr;
  cudaKernel_t pack_ = nullptr;      // repack and warpgroup configs: the copy a launch runs first
  cudaKernel_t prescale_ = nullptr;  // prescale_c configs: C = beta C, run first
  long long sms_ = 0;                // split_tail configs: the device's SMs
  bool overlaps_ = false;            // programmatic dependent launch (sm_90 and newer)
};

/// Compiles (NVRTC) and loads a config; throws Error(kCompileError) with the log if it fails.
std::unique_ptr<GemmKernel> build_kernel(const GemmConfig& config, const std::string& arch);

}  // namespace gemmtune
