#pragma once
// The kernels of one dispatcher, by config: in memory once loaded, else from the database's
// binary cache (hash-checked), else compiled by NVRTC and stored when the database is writable.
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "gemmtune/gemmtune.hpp"
#include "gemmtune/kernel.hpp"
#include "store.hpp"

namespace gemmtune::detail {

/// Loaded kernels, owned for the dispatcher's lifetime. Thread-safe (one mutex: the slow path).
class KernelCache {
 public:
  KernelCache(TuningStore& store, std::string arch) : store_(store), arch_(std::move(arch)) {}

  /// The loaded kernel of `config` on the current device; `origin` says where it came from.
  /// Throws Error(kCompileError) when NVRTC fails, Error(kCudaError) when loading fails.
  const GemmKernel& get(const GemmConfig& config, KernelOrigin* origin);

  /// The same for `config_name`, a config of another registered family than sgemm, loaded
  /// through its family (KernelFamily::parse, binary_key, load). Throws Error(kInvalidArgument)
  /// for a name no registered family parses.
  const LoadedKernel& get(const std::string& config_name, KernelOrigin* origin);

 private:
  TuningStore& store_;
  std::string arch_;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<GemmKernel>> kernels_;   // by config name
  std::map<std::string, std::unique_ptr<LoadedKernel>> others_;  // other families', by name
};

}  // namespace gemmtune::detail
