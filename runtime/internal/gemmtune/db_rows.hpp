#pragma once
// The one place where the runtime's types become database rows and back: the tuner and the
// dispatcher both read and write the database through these.
#include <optional>
#include <string>
#include <vector>

#include "gemmtune/compiler.hpp"
#include "gemmtune/config.hpp"
#include "gemmtune/db/records.hpp"
#include "gemmtune/device.hpp"
#include "gemmtune/problem.hpp"

namespace gemmtune {

/// The database row of a config (family "sgemm", its procedural name, every knob).
db::KernelConfig to_db(const GemmConfig& config);

/// The config a database row describes; nullopt when the row is not of the sgemm family or its
/// layout characters are not 'n'/'t'.
std::optional<GemmConfig> from_db(const db::KernelConfig& row);

/// The database key of a problem: dtype f32, layout, shape, batch and alignment class.
db::ProblemKey to_db(const Problem& problem);

/// The database description of a GPU (its key is name, compute capability, SM count).
db::GpuModel to_db(const DeviceInfo& device);

/// A compiled kernel as the binary cache holds it.
struct CompiledKernel {
  std::vector<char> cubin;
  std::string lowered_name;   ///< the mangled kernel name to look up in the module
  KernelResources resources;  ///< registers, spills, static shared memory
};

/// The binary-cache row of `kernel`, compiled from `config` for `arch` under cache key `key`.
/// Its smem_bytes is all the shared memory a block uses: the config's dynamic share plus the
/// kernel's static share.
db::Binary to_binary(const GemmConfig& config, const std::string& arch, const std::string& key,
                     const CompiledKernel& kernel);

/// The compiled kernel a binary-cache row holds (the inverse of to_binary).
CompiledKernel from_binary(const GemmConfig& config, const db::Binary& row);

}  // namespace gemmtune
