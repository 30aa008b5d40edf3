#pragma once
// The candidate pipeline on the GPU thread: take a config's cubin from the compile pool, prune
// it on its resource report, load it, verify it, time it, and record every outcome in the
// database (one transaction per result, so a killed sweep loses at most the one in flight).
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "gemmtune/db/database.hpp"
#include "gemmtune/device.hpp"
#include "gemmtune/family.hpp"
#include "gemmtune/tuner/bench.hpp"
#include "gemmtune/tuner/compile_pool.hpp"

namespace gemmtune::tuner {

/// Knobs of the candidate pipeline, including test hooks.
struct RunnerOptions {
  double hang_timeout_s = 10;  ///< a verification run longer than this is a hung kernel
  /// Test hook: when it returns true for a config, that config's output is overwritten after its
  /// verification run, so the real verification path must catch it as wrong_result.
  std::function<bool(const GemmConfig&)> corrupt_output;
  /// When set, a new compile that cannot be stored in the target's binary cache is reported here
  /// and the runner stores no more binaries (the cache only saves compiles); unset, the error
  /// propagates.
  std::function<void(const std::exception&)> binary_store_failed;
};

/// Where the results of one problem go.
struct RecordTarget {
  db::Database* database = nullptr;
  db::Id sweep_id = 0;
  db::Id problem_id = 0;
  std::string arch;  ///< binary-cache architecture, e.g. "sm_90"
};

/// Why the resource report prunes a compiled config (spills, or more registers than the block
/// size allows), or nullopt when it may run.
std::optional<std::string> prune_reason(const KernelResources& resources, const GemmConfig& config,
                                        const DeviceLimits& limits);

/// Where a sweep's seconds went, summed over candidates (and problems): what to shorten first.
struct SweepTimes {
  double setup_s = 0;         ///< per problem: data, float64 reference, cuBLAS baseline, ranking
  double compile_wait_s = 0;  ///< waiting for the compile pool (NVRTC or the binary cache)
  double verify_s = 0;        ///< loading, the poisoned verification run and its error check
  double timing_s = 0;        ///< timed runs
  double record_s = 0;        ///< database writes of results and binaries
  CompileCounts compiles;     ///< where the binaries of the measured candidates came from
  SweepTimes& operator+=(const SweepTimes& o);
  /// "compile wait 12.0 s (40 compiled, 3 cached, 2 reused), verification 3.1 s, ..." for the
  /// sweep's summary line.
  std::string describe() const;
};

/// What trying one compiled config on a problem gave (CandidateRunner::trial).
struct Trial {
  /// ok or wrong_result: it ran, and `timing` holds its times; launch_failed: it could not be
  /// loaded or run (`verification.error` says why).
  Verification verification;
  std::optional<Timing> timing;
};

/// Measures candidates of one problem; keeps loaded kernels of verified candidates for re-timing.
class CandidateRunner {
 public:
  /// All references must outlive the runner. measure() records into the target's database;
  /// compile() and trial() need none (compile() stores new compiles in its binary cache where
  /// there is one).
  CandidateRunner(RecordTarget target, const DeviceInfo& device, ProblemBench& bench,
                  CompilePool& pool, const GpuTimer& timer, const RunnerOptions& options);

  /// Measures `config` at `effort` and records the outcome: the median in ms when it ran and was
  /// right, nullopt when it failed (compile_failed, pruned, launch_failed, wrong_result). The
  /// first measurement of a config in this sweep verifies it first. Throws DeviceUnusable after
  /// a hung kernel (recorded as timeout) or a sticky CUDA error.
  std::optional<double> measure(const GemmConfig& config, Effort effort);

  /// The same for a config of any registered family, by name: an sgemm name as measure() above,
  /// one of another family through its family (KernelFamily: parse, compile_instance, load,
  /// db_row), compiled on the calling thread (not ahead in the pool), its binary stored, verified
  /// at fp32_tolerance() and pruned on spills. Error(kInvalidArgument) when no family parses it
  /// or its family gives no database row of it.
  std::optional<double> measure(const std::string& config_name, Effort effort);

  /// The relative error of `config`, measured ok on this problem before, on the bench's
  /// wide-range inputs; records nothing. nullopt, with `why_not`, when it cannot be loaded or
  /// run. Throws DeviceUnusable as measure() does.
  std::optional<double> wide_range_error(const GemmConfig& config, std::string& why_not);

  /// `config`'s compile from the pool (waited for; counted in times().compiles), a failed one
  /// too; one NVRTC compiled afresh is stored in the target database's binary cache, where the
  /// target has a database. measure() compiles through it; `gemmtune try` calls it for each config
  /// before timing any and hands the result to trial().
  std::shared_ptr<CompiledCandidate> compile(const GemmConfig& config);

  /// Loads `compiled` (`config`'s compile; a failed one comes back as launch_failed), verifies it
  /// as measure() does and times it with `timing`, a wrong result too: `gemmtune try`, which
  /// shows every config's time and error. Unlike measure() it prunes nothing on the resource
  /// report, keeps nothing loaded and records nothing (compile() stored a new compile); the
  /// target's database may be null. Throws DeviceUnusable as measure() does, and Error when a
  /// timed run fails.
  Trial trial(const GemmConfig& config, const CompiledCandidate& compiled,
              const TimerOptions& timing);

  /// Seconds spent so far, by stage.
  const SweepTimes& times() const { return times_; }

 private:
  // An ok result of timing `t`, with the random-input error its verification measured.
  db::Result timed_result(const Timing& t, double rel_error) const;
  // After a failed timing run: throws DeviceUnusable when the CUDA context is lost (`name`: the
  // config timed).
  static void stop_if_timing_broke_the_context(const std::string& name);
  // `config`'s compile from the pool, its wait and origin counted.
  std::shared_ptr<CompiledCandidate> take(const GemmConfig& config);
  // Stores a new compile in the target database's binary cache, if it has one (and storing has
  // not failed before, with RunnerOptions::binary_store_failed set).
  void store_binary(const db::Binary& binary);
  db::Id config_id(const GemmConfig& config);
  void record(const GemmConfig& config, db::Result result);
  std::optional<double> fail(const GemmConfig& config, db::Status status, const std::string& error,
                             std::optional<double> rel_error = std::nullopt,
                             std::optional<double> wide_error = std::nullopt);
  const GemmKernel* load_verified(const GemmConfig& config);
  // Loads a compiled config's cubin; nullptr with `why_not` when that fails.
  static std::unique_ptr<GemmKernel> load(const GemmConfig& config,
                                          const CompiledCandidate& compiled, std::string& why_not);
  // After a verification that hung (`kernel` and every loaded module are leaked) or left a sticky
  // error, throws DeviceUnusable; clears a launch error that is not sticky. `recorded`: the
  // failure is in the database, so a resumed sweep skips the config.
  void stop_if_context_lost(const GemmConfig& config, const Verification& v,
                            std::unique_ptr<GemmKernel>& kernel, bool recorded);
  void stop_if_context_lost(const std::string& name, const Verification& v, bool recorded);
  // measure(name) of a config of another family than sgemm: loads (compiles) and verifies it
  // once, records its outcome (`fail_other`, `record_other`).
  const LoadedKernel* load_verified_other(const KernelFamily& family, const std::string& name);
  void record_other(const KernelFamily& family, const std::string& name, db::Result result);
  std::optional<double> fail_other(const KernelFamily& family, const std::string& name,
                                   db::Status status, const std::string& error,
                                   std::optional<double> rel_error = std::nullopt);

  // A verified config's errors, for its ok results.
  struct Errors {
    double random = 0;
    std::optional<double> wide;  // tensor-core configs
  };

  RecordTarget target_;
  const DeviceInfo& device_;
  ProblemBench& bench_;
  CompilePool& pool_;
  const GpuTimer& timer_;
  const RunnerOptions& options_;
  std::map<std::string, db::Id> config_ids_;
  std::map<std::string, std::unique_ptr<GemmKernel>> kernels_;   // verified, by name
  std::map<std::string, std::unique_ptr<LoadedKernel>> others_;  // other families', verified
  std::map<std::string, Errors> errors_;
  std::map<std::string, KernelResources> resources_;
  bool store_binaries_ = true;  // false once a store failed with binary_store_failed set
  SweepTimes times_;
};

}  // namespace gemmtune::tuner
