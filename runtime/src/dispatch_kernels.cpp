// Kernel binaries: memory -> database binary cache -> NVRTC (stored when writable).
#include <cstring>

#include "dispatch_kernels.hpp"
#include "gemmtune/compiler.hpp"
#include "gemmtune/error.hpp"

namespace gemmtune::detail {

const GemmKernel& KernelCache::get(const GemmConfig& config, KernelOrigin* origin) {
  std::lock_guard lock(mutex_);
  const std::string name = config_name(config);
  if (auto it = kernels_.find(name); it != kernels_.end()) {
    if (origin) *origin = KernelOrigin::memory;
    return *it->second;
  }
  const std::string key = binary_key(config, arch_);
  std::unique_ptr<GemmKernel> kernel;
  if (std::optional<db::Binary> cached = store_.get_binary(key)) {
    std::vector<char> cubin(cached->cubin.size());
    std::memcpy(cubin.data(), cached->cubin.data(), cubin.size());
    kernel = std::make_unique<GemmKernel>(config, cubin, cached->lowered_name);
    if (origin) *origin = KernelOrigin::database;
  } else {
    CompileResult r = compile_config(config, arch_);
    if (!r.ok) throw Error(Status::kCompileError, "compiling " + name + " for " + arch_ + " failed:\n" + r.log);
    kernel = std::make_unique<GemmKernel>(config, r.cubin, r.lowered_name);
    if (origin) *origin = KernelOrigin::compiled;
    if (store_.writable()) {
      db::Binary b;
      b.key = key;
      b.arch = arch_;
      b.nvrtc_version = nvrtc_version_string();
      b.config_name = name;
      b.lowered_name = r.lowered_name;
      b.cubin.resize(r.cubin.size());
      std::memcpy(b.cubin.data(), r.cubin.data(), r.cubin.size());
      if (r.resources.registers >= 0) b.registers = r.resources.registers;
      b.spill_bytes = r.resources.spill_stores;
      b.smem_bytes = config.smem_bytes();
      store_.put_binary(b);
    }
  }
  const GemmKernel& out = *kernel;
  kernels_.emplace(name, std::move(kernel));
  return out;
}

}  // namespace gemmtune::detail
