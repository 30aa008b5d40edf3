#pragma once
// The sweep driver: tunes a list of problems on the GPUs of this machine, one worker thread per
// GPU, recording every outcome in the tuning database, and returns the summary.
#include <atomic>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "gemmtune/device.hpp"
#include "gemmtune/tuner/candidate_runner.hpp"
#include "gemmtune/tuner/family_sweep.hpp"
#include "gemmtune/tuner/family_tuning.hpp"
#include "gemmtune/tuner/problems.hpp"
#include "gemmtune/tuner/strategy.hpp"
#include "gemmtune/tuner/summary.hpp"

namespace gemmtune::tuner {

/// Everything a sweep is told.
struct SweepOptions {
  std::vector<ProblemSpec> problems;  ///< what to tune
  /// The kernel family tuned: "sgemm" (its space, every strategy, the compile pool), or another
  /// registered family, whose candidate_configs are measured exhaustively (family_sweep.hpp)
  std::string family = kSgemmFamily;
  std::string db_path;                   ///< the tuning database (created when missing)
  StrategyOptions strategy;              ///< strategy, budget per problem, max configs
  SpaceKind space = SpaceKind::reduced;  ///< full or reduced valid space
  std::vector<std::string>
      only_configs;  ///< when not empty: only these config names (any layout part)
  Precision precision =
      Precision::ieee;             ///< the classes tuned: every one up to this, each searched
                                   ///< on its own (ieee: FP32 FMA only)
  bool force = false;              ///< re-measure what is already in the database
  std::vector<int> devices = {0};  ///< CUDA ordinals, one worker each
  unsigned compile_threads = 0;    ///< NVRTC threads in all (0: one per core)
  std::string command_line;        ///< stored with the sweep
  std::string gemmtune_version;    ///< stored with the sweep
  RunnerOptions runner;            ///< hang timeout, test hooks
  const std::atomic<bool>* stop =
      nullptr;                  ///< set (e.g. by SIGINT): stop after the current candidate
  std::ostream* out = nullptr;  ///< progress and messages (nullptr: std::cout)
  bool is_tty = false;          ///< progress as an updating line
  std::uint64_t seed = 0;       ///< random data and sampling (0: random)
};

/// What a sweep did.
struct SweepReport {
  std::vector<SummaryRow> rows;     ///< one per (GPU, problem) reached
  std::size_t measurements = 0;     ///< candidate measurements made, all workers
  SweepTimes times;                 ///< where the workers' seconds went, all workers
  PoolStats compile_pool;           ///< what the workers' compile pools did, all workers
  bool interrupted = false;         ///< stopped by options.stop
  bool device_hung = false;         ///< a kernel hung: the process should exit without CUDA cleanup
  std::vector<std::string> errors;  ///< a worker's fatal error per line (e.g. a GPU that failed)
};

/// Runs the sweep. Throws Error(kInvalidArgument) when options.family is refused (sweep_family),
/// Error(kNoDevice) when there is no GPU or a listed device does not exist; errors of one worker are reported in SweepReport::errors while the others go on.
SweepReport run_sweep(const SweepOptions& options);

/// One problem of a dry run.
struct PlanRow {
  ProblemSpec problem;
  std::size_t candidates = 0;  ///< size of the candidate set
  std::size_t measured = 0;    ///< of those, already measured on this GPU model (resume skips them)
};

/// What a sweep would tune on a device with `device`'s limits and SM count, without a GPU:
/// the candidate set of every problem and, when the database exists, how much is measured. For
/// another family than sgemm, its candidates (family_candidates).
std::vector<PlanRow> plan_sweep(const SweepOptions& options, const DeviceInfo& device);

/// The configs a sweep draws its candidates from, per layout, each built once: the valid space,
/// only its reduced part where the options search that one and name no configs. Fitting a
/// config to a problem changes only its access widths and variants, never what
/// in_reduced_space() looks at, so the reduced part can be taken before any problem is known
/// (`sweep --preset users --dry-run`: 20.8 s with the whole space, 1.3 s so, on 2 cores).
class SearchSpaces {
 public:
  SearchSpaces(const SweepOptions& options, const DeviceLimits& limits);
  /// The space of one layout.
  const std::vector<GemmConfig>& of(Op op_a, Op op_b);

 private:
  bool reduced_;
  DeviceLimits limits_;
  std::map<std::pair<Op, Op>, std::vector<GemmConfig>> spaces_;
};

/// The candidate set of `problem` for `device` under `options` (space and config restriction),
/// from `space` = SearchSpaces(options, device.limits).of(problem's layout).
std::vector<GemmConfig> sweep_candidates(const SweepOptions& options, const DeviceInfo& device,
                                         const std::vector<GemmConfig>& space,
                                         const Problem& problem);

}  // namespace gemmtune::tuner
