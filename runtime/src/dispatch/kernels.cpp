// Kernel binaries: memory -> database binary cache (checked: from_binary; never with
// GEMMTUNE_NO_CACHED_BINARIES set) -> NVRTC (stored when writable).
#include "kernels.hpp"
#include "gemmtune/compiler.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/error.hpp"
#include "gemmtune/family.hpp"
#include "gemmtune/logging.hpp"

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
  std::optional<CompiledKernel> cached;
  if (!cached_binaries_disabled()) {
    if (std::optional<db::Binary> row = store_.get_binary(key)) {
      std::string why;
      cached = from_binary(config, arch_, *row, &why);
      if (!why.empty()) log(LogLevel::warning, why);
    }
  }
  if (cached) {
    kernel = std::make_unique<GemmKernel>(config, cached->cubin, cached->lowered_name);
    if (origin) *origin = KernelOrigin::database;
  } else {
    CompileResult r = compile_config(config, arch_);
    if (!r.ok)
      throw Error(Status::kCompileError,
                  "compiling " + name + " for " + arch_ + " failed:\n" + r.log);
    kernel = std::make_unique<GemmKernel>(config, r.cubin, r.lowered_name);
    if (origin) *origin = KernelOrigin::compiled;
    if (store_.writable())
      store_.put_binary(
          to_binary(config, arch_, key, {std::move(r.cubin), r.lowered_name, r.resources}));
  }
  const GemmKernel& out = *kernel;
  kernels_.emplace(name, std::move(kernel));
  return out;
}

// The same steps through the family interface. Its blocks' dynamic shared memory depends on the
// problem (launch_shape): the binary row records the static share alone.
const LoadedKernel& KernelCache::get(const std::string& name, KernelOrigin* origin) {
  std::lock_guard lock(mutex_);
  if (auto it = others_.find(name); it != others_.end()) {
    if (origin) *origin = KernelOrigin::memory;
    return *it->second;
  }
  const KernelFamily& family = family_of(name);
  const std::optional<KernelInstance> instance = family.parse(name);
  if (!instance)
    throw Error(Status::kInvalidArgument,
                "'" + name + "' is no config of kernel family " + std::string(family.name()));
  const std::string key = family.binary_key(*instance, arch_);
  std::unique_ptr<LoadedKernel> kernel;
  std::optional<CompiledKernel> cached;
  if (!cached_binaries_disabled()) {
    if (std::optional<db::Binary> row = store_.get_binary(key)) {
      std::string why;
      cached = from_binary(name, instance->name_expression, 0, arch_, *row, &why);
      if (!why.empty()) log(LogLevel::warning, why);
    }
  }
  if (cached) {
    kernel = family.load(name, cached->cubin, cached->lowered_name);
    if (origin) *origin = KernelOrigin::database;
  } else {
    CompileResult r = compile_instance(family, *instance, arch_);
    if (!r.ok)
      throw Error(Status::kCompileError,
                  "compiling " + name + " for " + arch_ + " failed:\n" + r.log);
    kernel = family.load(name, r.cubin, r.lowered_name);
    if (origin) *origin = KernelOrigin::compiled;
    if (store_.writable())
      store_.put_binary(
          to_binary(name, arch_, key, {std::move(r.cubin), r.lowered_name, r.resources}, 0));
  }
  const LoadedKernel& out = *kernel;
  others_.emplace(name, std::move(kernel));
  return out;
}

}  // namespace gemmtune::detail
