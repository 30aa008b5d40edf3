#pragma once
// A kernel family as the runtime sees it (families/README.md, "The family interface"): what the
// runtime needs to compile a config of the family, key its binary and describe it to the
// database; and the registry of the families gemmtune has, found by the prefix of a config name.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gemmtune/compiler.hpp"
#include "gemmtune/db/family.hpp"

namespace gemmtune {

/// One kernel instance of a family as NVRTC compiles it: with the arch and NVRTC's version, what
/// the binary-cache key covers besides the family's source.
struct KernelInstance {
  std::string name_expression;       ///< the instance, e.g. "gemmtune::sgemm<128,128,...>"
  std::vector<std::string> defines;  ///< NVRTC options it adds, e.g. "-DGEMMTUNE_PACK_OPERAND"
  /// Whether it needs the arch-specific target: compiled for "sm_90a" when asked for "sm_90"
  /// (the warpgroup instruction is in sm_90a's instruction set only).
  bool arch_specific = false;

  bool operator==(const KernelInstance&) const = default;
};

/// A kernel family: one NVRTC source whose instances are named by config names that start with
/// the family's prefix. Implemented in the family's folder (the sgemm family's:
/// families/sgemm/src/family.cpp) and listed in builtin_families().
class KernelFamily {
 public:
  virtual ~KernelFamily() = default;

  /// The family's name ("sgemm"): configs.family in the database; db_family().name is the same.
  virtual std::string_view name() const = 0;
  /// The prefix of its config names ("sgemm": "sgemm_nn_128x128x8_..."): a name is the family's
  /// when it starts with the prefix and '_'.
  virtual std::string_view prefix() const = 0;
  /// The CUDA C++ source NVRTC compiles its instances from (embedded at build time).
  virtual std::string_view source() const = 0;
  /// The name NVRTC gives that source in diagnostics ("gemmtune_sgemm.cu").
  virtual std::string_view source_name() const = 0;
  /// The family as the database knows it: its name, knob columns and precision classes.
  virtual const db::KernelFamily& db_family() const = 0;
  /// The kernel instance a config name of the family names; nullopt when it names none.
  virtual std::optional<KernelInstance> parse(std::string_view config_name) const = 0;

  /// Whether `config_name` starts with prefix() and '_'.
  bool owns(std::string_view config_name) const;
  /// The hash of source(): the version of the family's kernels, which sweeps record
  /// (template_hash()) and every binary-cache key of the family covers.
  std::string source_hash() const;
  /// The binary-cache key of `instance` compiled for `arch`: the hash of source(), a newline and
  /// binary_identity(instance, arch).
  std::string binary_key(const KernelInstance& instance, const std::string& arch) const;
};

/// What a binary-cache key hashes besides the source, in clear, one a line: the name
/// expression, `arch` (as asked for), "nvrtc " and NVRTC's version, then the defines.
std::string binary_identity(const KernelInstance& instance, const std::string& arch);

/// The target NVRTC compiles `instance` for when asked for `arch`: "sm_90a" for an
/// arch-specific instance asked for "sm_90", otherwise `arch`.
std::string compile_arch(const KernelInstance& instance, const std::string& arch);

/// Compiles `instance` of `family` for `arch`; failures come back as data.
CompileResult compile_instance(const KernelFamily& family, const KernelInstance& instance,
                               const std::string& arch);

/// A set of kernel families with prefixes and names that do not clash.
class FamilyRegistry {
 public:
  /// Adds `family` (kept by reference: it outlives the registry). Error(kInvalidArgument) when
  /// its prefix is empty, when its name and its db_family().name differ, when another family has
  /// its name, or when the prefixes clash: one family's config names could be another's (equal
  /// prefixes, or "sgemm" and "sgemm_x").
  void add(const KernelFamily& family);
  /// The registered families, in the order they were added.
  std::span<const KernelFamily* const> families() const { return families_; }
  /// The family whose config names `config_name` is one of; nullptr when none.
  const KernelFamily* find(std::string_view config_name) const;
  /// The family whose config names `config_name` is one of. Error(kInvalidArgument) naming the
  /// known prefixes when none is.
  const KernelFamily& of(std::string_view config_name) const;
  /// The known prefixes, ", " between them ("sgemm").
  std::string prefixes() const;
  /// The version of the kernels of all the families: the one family's source_hash(), or with
  /// more than one the hash of a "name source_hash" line per family.
  std::string source_hash() const;

 private:
  std::vector<const KernelFamily*> families_;
};

/// The families built into gemmtune, in registration order: a plain list, one entry per family
/// (families/builtin.cpp).
std::span<const KernelFamily* const> builtin_families();

/// The registry of the built-in families, made on first use.
const FamilyRegistry& family_registry();

/// The families gemmtune has: family_registry().families().
std::span<const KernelFamily* const> families();

/// The family `config_name` belongs to, by its prefix: family_registry().of(config_name).
const KernelFamily& family_of(std::string_view config_name);

}  // namespace gemmtune
