#pragma once
// Choosing a kernel for a problem from what the tuning database knows about a GPU model, and
// keeping the reason. The chooser is a pure function of (device limits, tuned bests, problem):
// it needs no GPU, so `gemmtune explain --arch` and the unit tests use it directly.
//
// The snapshot holds the user's database's data and, behind it, a shipped database's (shipped.hpp):
// a shipped row of a problem the user tuned is dropped, so the user's result of a problem always
// wins. The fallback chain, in order (a row whose config no longer validates, or cannot run the
// problem, is skipped with its reason noted):
//   exact          the tuned best of this exact problem (layout, M, N, K, batch, alignment class):
//                  the user's, else the shipped one
//   nearest        the best of a nearby tuned problem of the same layout and alignment class, the
//                  user's and the shipped problems together (the user's first at equal distance;
//                  log-space distance over M, N, K and batch, at most detail::kNearestReach;
//                  problems of the same regime first): of the nearest few, the nearest whose
//                  config keeps its predicted efficiency (predicted_efficiency() here / there)
//                  within 15% of the best of them
//   builtin        the built-in config of the problem's shape class (dot, matrix-vector, deep K,
//                  tiny, skinny, medium, large; detail::shape_class_config)
//   model_default  where no class config can run: the config that is best for the most tuned
//                  problems of this layout on the GPU model, a problem's best being its fastest
//                  config of the classes the precision policy admits; counted over the user's
//                  problems when the user tuned any of the layout, else over the shipped ones.
//                  Under the fp32 and tf32 policies it comes before the class config, which is
//                  an FP32 FMA kernel
//   builtin        else default_config(), which runs anything of the layout on any supported
//                  architecture
// A deterministic chooser skips every split-K config (split_k > 1): its splits add their partial
// sums to C atomically in the order they finish, so the last bits may differ from run to run.
// When the data allows a narrower vector than the chosen config's `vec`, the same config runs
// with `vec` lowered (and validated again). A repack config (GemmConfig::repack) instead copies
// such operands by batch stride; matrices in pointer arrays cannot be copied that way, so for
// them it runs narrowed like any other (GemmConfig::packs_a, fitted_to; a plan of its own).
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gemmtune/device.hpp"
#include "gemmtune/explanation.hpp"
#include "gemmtune/problem.hpp"
#include "gemmtune/sgemm/config.hpp"

namespace gemmtune {

/// Shape classes that tend to want different kernels; nearest-shape lookup prefers the same one.
enum class Regime {
  vector,   ///< min(M, N) <= 8: matrix-vector products, dot products and a few rows or columns
  large_k,  ///< K >= 8 * max(M, N): few output tiles, long dot products (split-K territory)
  skinny,   ///< min(M, N) <= 64 (and not large_k)
  square,   ///< everything else
};

/// The regime of an M x N x K problem.
Regime regime_of(long long m, long long n, long long k);

/// Whether a config tuned on a problem of regime `tuned` may serve one of regime `wanted`: not
/// across the matrix-vector boundary, whose kernels (thin tiles, K shared by lanes) and the
/// others' (wide tiles) each run the other's problems at a few percent of their speed.
bool may_lend(Regime tuned, Regime wanted);

/// "large-K", "skinny" or "square".
const char* regime_name(Regime r);

/// The fraction of a GPU with `sm_count` SMs that `c` keeps busy on an M x N x K (x batch)
/// problem, as a simple model: the share of the tiles' area inside the problem (edge tiles
/// compute padding) times predicted_fill() of its blocks (`occupancy` per SM: the last wave's
/// fill, the first's for a matrix-vector product); for a split_tail config (not of a
/// matrix-vector product), the balance of its work over the SMs in split-sized units. With
/// sm_count 0 the wave term is left out.
double predicted_efficiency(const GemmConfig& c, long long m, long long n, long long batch,
                            int sm_count);

/// How many of each tuned problem's fastest configs (of each precision class) a snapshot reads:
/// what the nearest-shape step weighs, and what `gemmtune db prune --keep-top` keeps.
inline constexpr int kTopConfigsPerProblem = 16;

/// A tuned problem as the database keys it.
struct TunedProblem {
  Op op_a = Op::N, op_b = Op::N;
  long long m = 0, n = 0, k = 0;
  long long batch = 1;
  int alignment = 4;  ///< alignment class: 4, 2 or 1 floats
  /// problem_label(): e.g. "4096x4096x4096 nn".
  std::string to_string() const;
  /// The same layout, shape, batch and alignment class.
  bool operator==(const TunedProblem&) const = default;
};

/// The best result the database holds for one tuned problem on one GPU model.
struct TunedBest {
  TunedProblem problem;
  std::string config_name;                 ///< as stored (may no longer parse or validate)
  long long config_id = 0;                 ///< database id: ties go to the lowest
  long long sweep_id = 0;                  ///< the sweep that measured it
  double median_ms = 0;                    ///< median time of the best config
  std::optional<double> tflops;            ///< its throughput
  std::optional<double> cublas_median_ms;  ///< cuBLAS on the same problem in the same sweep
  std::optional<double> rel_error;         ///< its verification's relative error (random inputs)
  std::optional<double> wide_error;        ///< the same on wide-range inputs, when measured
  bool shipped = false;  ///< read from the shipped database (TuningSnapshot::shipped_database)
};

/// Which GPU model to look up: the database's key is (name, compute capability, SM count).
/// An empty name matches the only model of that compute capability; sm_count 0 matches any.
struct GpuIdentity {
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
};

/// What a tuning database knows about one GPU model, read once. Empty `bests` is normal (no
/// database, model not tuned): the chooser then falls back to the built-in default.
struct TuningSnapshot {
  std::string database;  ///< path read, empty when none
  std::string
      gpu_model;     ///< the model matched, e.g. "NVIDIA H200 (sm_90, 132 SMs)"; empty when none
  int sm_count = 0;  ///< the model's multiprocessors; 0 when unknown
  std::vector<TunedBest> bests;        ///< the best config of every tuned problem of that model
  std::vector<TunedBest> top_configs;  ///< the fastest few configs of every tuned problem (bests
                                       ///< first), for the nearest-shape step
  std::vector<std::string> notes;  ///< why something is missing (unreadable file, unknown model)
  /// The shipped database whose rows (TunedBest::shipped) follow the user's; empty when none.
  std::string shipped_database;
  /// Its GPU model, as gpu_model describes one.
  std::string shipped_gpu_model;
  /// Whether it was tuned on another GPU model of the same compute capability.
  bool shipped_other_model = false;
};

/// Reads what the database at `path` knows about `gpu`, opening it read-only. Never throws for
/// database problems (missing, unreadable, wrong schema): they become notes and an empty snapshot.
TuningSnapshot load_tuning_snapshot(const std::string& path, const GpuIdentity& gpu);

/// One decision of the chooser, with everything behind it.
struct Choice {
  GemmConfig config;  ///< the kernel that runs (fitted to the data's alignment)
  /// Instead of `config`: the stored config of another kernel family than sgemm that runs (the
  /// exact, nearest or model-default step's, as stored); empty when `config` runs.
  std::string family_config;
  ChoiceSource source = ChoiceSource::builtin;
  std::string tuned_config;  ///< the config name as stored; empty for builtin
  std::optional<TunedBest>
      tuned;                ///< exact, nearest: the tuned result chosen (problem, config, figures)
  double distance = 0;      ///< nearest: log-space distance to the tuned problem
  bool same_regime = true;  ///< nearest: the tuned problem has the problem's regime
  int wins = 0;             ///< model_default: tuned problems this config is best for
  int tuned_problems = 0;   ///< model_default: tuned problems of the layout
  bool narrowed = false;    ///< the data's alignment narrowed the stored config's accesses
  bool deterministic_only = false;  ///< chosen in deterministic mode (split-K configs skipped)
  Precision precision = Precision::ieee;  ///< the precision policy it was chosen under
  std::string gpu_model;                  ///< the GPU model whose data was used; empty when none
  std::string database;                   ///< the file the tuned data came from; empty for builtin
  bool shipped = false;                   ///< that file is a shipped database
  bool shipped_other_model = false;       ///< shipped for another GPU model of the architecture
  std::string runs_as;             ///< Dispatcher::explain: the label of kernel_form(p) where
                                   ///< that differs from p (a transposed matrix-vector product)
  std::vector<std::string> trail;  ///< each step passed over and why, in order
  /// explanation_of(*this).to_string().
  std::string to_string() const;
};

/// The public form of a choice (what Dispatcher::explain returns): the config by name, the
/// tuned figures without the database's keys.
Explanation explanation_of(const Choice& choice);

/// The config an explanation names (Explanation::config parsed). Throws Error(kInternal) when it
/// does not parse, which a name the library wrote always does.
GemmConfig explained_config(const Explanation& e);

/// The 3xTF32 (precision class fp32) configs of a snapshot that the fp32 policy may run. A config
/// is as accurate on a tuned problem when its relative errors there on both inputs (random and
/// wide-range) are no larger than that problem's fastest FP32 FMA config's; an error not
/// measured on either side (NULL: a database of schema version 2, or a fastest FMA config no fp32
/// sweep has verified on wide-range inputs yet) shows nothing, as a larger error does.
struct Fp32Qualified {
  /// (TunedProblem::to_string(), config name): as accurate on that tuned problem. The exact
  /// choice of a tuned problem runs these.
  std::set<std::pair<std::string, std::string>> on_problem;
  /// Config names as accurate on every tuned problem that measured them. Problems without
  /// tuning data of their own (nearest shape, model default) run only these.
  std::set<std::string> everywhere;
};

/// What the fp32 policy may run of snapshot `s` (Fp32Qualified).
Fp32Qualified fp32_qualified_configs(const TuningSnapshot& s);

/// The fallback chain over a snapshot. Immutable after construction, so safe to share between
/// threads.
class Chooser {
 public:
  /// `limits` validate configs; `snapshot` holds the tuned bests of one GPU model;
  /// `deterministic` skips the configs whose results may differ from run to run (split-K);
  /// `precision` the configs its policy does not admit (Precision; for fp32, a 3xTF32 config
  /// qualifies where every problem it was measured on found its relative errors, on the random
  /// and on the wide-range inputs, no larger than that problem's fastest FP32 FMA config's).
  Chooser(const DeviceLimits& limits, TuningSnapshot snapshot, bool deterministic = false,
          Precision precision = Precision::ieee);
  /// The kernel for `p` (its shape, layout, batch and alignment class; the chooser never reads
  /// the data). `p` must have M, N, K and batch >= 1.
  Choice choose(const Problem& p) const;
  /// The snapshot chosen from.
  const TuningSnapshot& snapshot() const { return snapshot_; }
  /// The limits configs are validated against.
  const DeviceLimits& limits() const { return limits_; }
  /// Whether only deterministic configs are chosen.
  bool deterministic() const { return deterministic_; }
  /// The precision policy.
  Precision precision() const { return precision_; }

 private:
  DeviceLimits limits_;
  bool deterministic_ = false;
  Precision precision_ = Precision::ieee;
  TuningSnapshot snapshot_;
  Fp32Qualified fp32_qualified_;  // the 3xTF32 configs the fp32 policy may run, and where
};

}  // namespace gemmtune
