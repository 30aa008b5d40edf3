// Kernel binaries: memory -> database binary cache -> NVRTC (stored when writable).
#include "kernels.hpp"
#include "gemmtune/compiler.hpp"
#include "gemmtune/db_rows.hpp"
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
    CompiledKernel k = from_binary(config, *cached);
    kernel = std::make_unique<GemmKernel>(config, k.cubin, k.lowered_name);
    if (origin) *origin = KernelOrigin::database;
  } else {
    CompileResult r = compile_config(config, arch_);
    if (!r.ok) throw Error(Status::kCompileError, "compiling " + name + " for " + arch_ + " failed:\n" + r.log);
    kernel = std::make_unique<GemmKernel>(config, r.cubin, r.lowered_name);
    if (origin) *origin = KernelOrigin::compiled;
    if (store_.writable())
      store_.put_binary(to_binary(config, arch_, key, {std::move(r.cubin), r.lowered_name, r.resources}));
  }
  const GemmKernel& out = *kernel;
  kernels_.emplace(name, std::move(kernel));
  return out;
}

}  // namespace gemmtune::detail
