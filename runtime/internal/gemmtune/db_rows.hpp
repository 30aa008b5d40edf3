#pragma once
// The one place where the runtime's types become database rows and back: the tuner and the
// dispatcher both read and write the database through these.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gemmtune/compiler.hpp"
#include "gemmtune/db/family.hpp"
#include "gemmtune/db/records.hpp"
#include "gemmtune/device.hpp"
#include "gemmtune/problem.hpp"
#include "gemmtune/sgemm/config.hpp"

namespace gemmtune {

/// The sgemm family as the database knows it: its name and a knob column per value knob of
/// kSgemmTable, with the knob's default.
const db::FamilySchema& sgemm_family();

/// Every kernel family gemmtune has (the registry's: the built-in ones, then those given to
/// register_family()): what a tuning database is opened with, so that a file of an older gemmtune
/// gets the columns of knobs added since.
std::span<const db::FamilySchema> kernel_families();

/// The database row of a config (family "sgemm", its procedural name, every knob).
db::KernelConfig to_db(const GemmConfig& config);

/// The config a database row describes; nullopt when the row is not of the sgemm family or its
/// layout characters are not 'n'/'t'. A knob the row has no value for (a file read without that
/// knob's column) takes its default, which the config ran with.
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

/// The same for a kernel of any family: compiled from `config_name`, whose blocks take
/// `dynamic_smem` bytes of dynamic shared memory (0 when that depends on the problem).
db::Binary to_binary(const std::string& config_name, const std::string& arch,
                     const std::string& key, const CompiledKernel& kernel, int dynamic_smem);

/// Whether the environment variable GEMMTUNE_NO_CACHED_BINARIES is set (to anything but "" or
/// "0"): then no cached binary is loaded, every kernel is compiled (docs/database.md, "Trust").
bool cached_binaries_disabled();

/// The start of the mangled name (Itanium C++ ABI) of `config`'s kernel instance: its qualified
/// name and the template arguments its name expression gives, e.g.
/// "_ZN8gemmtune5sgemmILi128E...Lb1E".
std::string entry_name_prefix(const GemmConfig& config);

/// Whether `lowered_name` is the mangled name of `config`'s kernel instance: entry_name_prefix,
/// then only defaulted (false) flags, then the end of the name. Derived from the config, never
/// taken on a row's word.
bool is_entry_of(const GemmConfig& config, std::string_view lowered_name);

/// The same for the kernel instance `name_expression` names (KernelInstance::name_expression),
/// of any family.
bool is_entry_of(std::string_view name_expression, std::string_view lowered_name);

/// The compiled kernel a binary-cache row holds (the inverse of to_binary), once checked: the
/// row is `config`'s, compiled for `arch` by this NVRTC, its entry point is the config's kernel
/// (is_entry_of) and is in the cubin, whose registers and stack frame are read from it (spills
/// are the row's figure bounded by that frame).
/// Otherwise nullopt, with `why` saying why (left empty when cached_binaries_disabled()). The
/// bytes' SHA-256 was checked when the row was read (Database::get_binary).
std::optional<CompiledKernel> from_binary(const GemmConfig& config, const std::string& arch,
                                          const db::Binary& row, std::string* why = nullptr);

/// The same for a kernel of any family: `name`, its instance's `name_expression` and the
/// dynamic shared memory of its blocks (to_binary's `dynamic_smem`).
std::optional<CompiledKernel> from_binary(const std::string& name, std::string_view name_expression,
                                          int dynamic_smem, const std::string& arch,
                                          const db::Binary& row, std::string* why = nullptr);

}  // namespace gemmtune
