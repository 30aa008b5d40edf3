#pragma once
// A kernel family as the runtime sees it (families/README.md, "The family interface"): what the
// runtime needs to compile a config of the family, key its binary, describe it to the database,
// check it against a problem and launch it; and the registry of the families gemmtune has, found
// by the prefix of a config name.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gemmtune/compiler.hpp"
#include "gemmtune/db/family.hpp"
#include "gemmtune/db/records.hpp"
#include "gemmtune/device.hpp"
#include "gemmtune/precision.hpp"
#include "gemmtune/problem.hpp"

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

class LaunchWorkspace;

/// A compiled kernel of a family's config, loaded on the current device and ready to launch
/// (GemmKernel for the sgemm family, a single-entry kernel for a family that gives launch_shape()).
class LoadedKernel {
 public:
  virtual ~LoadedKernel() = default;
  /// The config name it was compiled from.
  virtual std::string name() const = 0;
  /// Enqueues C = alpha op(A) op(B) + beta C on `stream`; the caller has checked that the config
  /// can implement `p`. `workspace` is the sgemm family's (split-K, repack); kernels of other
  /// families need none. Throws Error(kCudaError) if a launch fails.
  virtual void launch(const Problem& p, cudaStream_t stream,
                      LaunchWorkspace* workspace = nullptr) const = 0;
};

/// How a single-entry kernel of a family is launched on a problem: its first argument is the
/// GemmArgs block of the problem (templates/include/gemmtune/kernel_args.h), by value; a family
/// whose kernels need values of their own (an epilogue's, a precomputed constant) gives them as
/// a second block, the kernel's second parameter (`const __grid_constant__ T`, as the sgemm
/// family's warpgroup kernels take their WarpgroupArgs), so that GemmArgs stays the operands and
/// scalars of the problem alone.
struct LaunchShape {
  dim3 grid{1, 1, 1};
  dim3 block{1, 1, 1};
  std::size_t smem_bytes = 0;  ///< dynamic shared memory of a block
  /// The second argument block, its bytes as the kernel's struct lays them out; none when empty.
  std::vector<std::byte> extra_args;
};

/// A kernel family: one NVRTC source whose instances are named by config names that start with
/// the family's prefix. Implemented in the family's folder (the sgemm family's:
/// families/sgemm/src/family.cpp) and listed in builtin_families(), or given to
/// register_family() (a test's: tests/support/naive_family).
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
  virtual const db::FamilySchema& db_family() const = 0;
  /// The kernel instance a config name of the family names; nullopt when it names none.
  virtual std::optional<KernelInstance> parse(std::string_view config_name) const = 0;

  // What the tuner and the dispatcher need of a config of the family (families/README.md,
  // "Adding a kernel family"). The defaults suit a family that only compiles.

  /// Why `config_name` is no valid config of the family on a GPU with `limits`; nullopt when it
  /// is one. Default: whether parse() knows it.
  virtual std::optional<std::string> validate(std::string_view config_name,
                                              const DeviceLimits& limits) const;
  /// Why the (valid) config `config_name` cannot run `p` (its layout, shape, alignment); nullopt
  /// when it can. Default: nullopt.
  virtual std::optional<std::string> can_implement(std::string_view config_name,
                                                   const Problem& p) const;
  /// The `configs` row of `config_name` (family, name, layout, a value per knob column of
  /// db_family()); nullopt when it names no config of the family. Default: nullopt.
  virtual std::optional<db::KernelConfig> db_row(std::string_view config_name) const;
  /// The config of the family that runs `p` when nothing better is known; nullopt when the family
  /// has none for it. Default: nullopt.
  virtual std::optional<std::string> default_config(const DeviceLimits& limits,
                                                    const Problem& p) const;
  /// The configs a tuner may time on `p`, for a family whose search space is its own (the sgemm
  /// family's lives in its tuning code, families/sgemm/tuning, and gives none here). Default:
  /// none.
  virtual std::vector<std::string> candidate_configs(const DeviceLimits& limits,
                                                     const Problem& p) const;
  /// The launch of `config_name`'s kernel (a single entry point taking GemmArgs) on `p`; nullopt
  /// when the family launches its kernels otherwise (and overrides load()). Default: nullopt.
  virtual std::optional<LaunchShape> launch_shape(std::string_view config_name,
                                                  const Problem& p) const;
  /// The accuracy class of `config_name`'s arithmetic, which the dispatcher's precision policy
  /// admits or not (docs/precision.md). Default: Precision::ieee (FP32 FMA).
  virtual Precision precision(std::string_view config_name) const;
  /// Whether `config_name` gives the same bits on every run (no atomic accumulation in the order
  /// blocks finish), which a deterministic dispatcher requires. Default: true.
  virtual bool deterministic(std::string_view config_name) const;
  /// The share of the GPU that `config_name`'s launch on `p` keeps busy, on a GPU of `sm_count`
  /// SMs (0: unknown): what the chooser's nearest step weighs a config's speed on a nearby tuned
  /// problem by (its efficiency here over there). nullopt when the family does not predict: the
  /// speed there is then taken as is. Default: predicted_fill() of launch_shape()'s blocks (the
  /// last wave's fill, the first's for a matrix-vector product), one block an SM at a time (1 for
  /// an unknown SM count); nullopt without a launch shape.
  virtual std::optional<double> predicted_efficiency(std::string_view config_name, const Problem& p,
                                                     int sm_count) const;
  /// Loads `cubin`, compiled from `config_name` with entry point `lowered_name`, into the current
  /// device's context. Default: a single-entry kernel launched by launch_shape(). Throws
  /// Error(kInvalidArgument) for a name of no config of the family, Error(kCudaError) when the
  /// load fails.
  virtual std::unique_ptr<LoadedKernel> load(std::string_view config_name,
                                             const std::vector<char>& cubin,
                                             const std::string& lowered_name) const;

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

/// The registry of the families: the built-in ones, added on first use, then those given to
/// register_family().
const FamilyRegistry& family_registry();

/// Adds `family` (kept by reference: it must outlive the process's use of gemmtune) to
/// family_registry(), refused as FamilyRegistry::add refuses. For a family outside
/// builtin_families(), such as a test's: call it before any dispatcher, database or tuner of the
/// process is made, and not while another thread uses gemmtune (the registry's readers take no
/// lock). template_hash() stays the built-in families'.
void register_family(const KernelFamily& family);

/// The families gemmtune has: family_registry().families().
std::span<const KernelFamily* const> families();

/// The family `config_name` belongs to, by its prefix: family_registry().of(config_name).
const KernelFamily& family_of(std::string_view config_name);

}  // namespace gemmtune
