#pragma once
// A sweep of a kernel family whose search space is its own (SweepOptions::family other than
// "sgemm"; families/README.md, "The family interface"): each problem's candidates are the
// family's candidate_configs, each measured by name (CandidateRunner::measure: compiled on the
// worker's thread, verified at the family's precision tolerance, timed, recorded) by the
// exhaustive strategy. The sgemm family's sweep (its space, strategies, compile pool and model
// ranking) is sweep.cpp's, untouched by this path.
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gemmtune/db/database.hpp"
#include "gemmtune/device.hpp"
#include "gemmtune/family.hpp"
#include "gemmtune/problem.hpp"
#include "gemmtune/tuner/candidate_runner.hpp"
#include "gemmtune/tuner/problems.hpp"
#include "gemmtune/tuner/progress.hpp"
#include "gemmtune/tuner/resume.hpp"
#include "gemmtune/tuner/strategy.hpp"
#include "gemmtune/tuner/summary.hpp"

namespace gemmtune::tuner {

struct SweepOptions;

/// The family whose own tuning code the sweep runs: SweepOptions::family's default.
inline constexpr const char* kSgemmFamily = "sgemm";

/// The family a sweep of `options` tunes by its candidate_configs: nullptr for "sgemm" (the
/// sweep's own space, strategies, compile pool and ranking), else the registered family named
/// options.family. Error(kInvalidArgument) when no registered family has that name (the message
/// lists those that do), and, for another family than sgemm, when the options ask for what only
/// the sgemm family's sweep does: a strategy other than exhaustive, or named configs
/// (only_configs).
const KernelFamily* sweep_family(const SweepOptions& options);

/// The names of the registered families, ", " between them ("sgemm, naive").
std::string family_names();

/// The candidates of `problem` in a sweep of `family` on a GPU with `limits`: the family's
/// candidate_configs, each once and in its order, less those the GPU or the problem rules out
/// (validate, can_implement) and those of a precision class above options.precision.
std::vector<std::string> family_candidates(const SweepOptions& options, const KernelFamily& family,
                                           const DeviceLimits& limits, const Problem& problem);

/// A family's candidates of a problem as a resumed sweep sees them (ResumeState by config name).
using FamilyResumeState = Resumed<std::string>;

/// `candidates` split by the earlier results of `problem` on GPU model `gpu_model_id` in `db`,
/// as load_resume_state() splits sgemm configs; with `force` nothing counts as measured.
FamilyResumeState load_family_resume_state(const db::Database& db, db::Id gpu_model_id,
                                           const Problem& problem,
                                           const std::vector<std::string>& candidates, bool force);

/// The summary row of `spec` in a sweep of `family`: the family's fastest ok result of the problem
/// on GPU model `gpu_model_id` over all sweeps (another family's results do not count), with
/// `note`, and cuBLAS's time `cublas_ms` (else the one recorded beside that result, when it is
/// the problem's overall best).
SummaryRow family_summary_row(const db::Database& db, db::Id gpu_model_id, const DeviceInfo& device,
                              const KernelFamily& family, const ProblemSpec& spec,
                              std::optional<double> cublas_ms, const std::string& note);

/// Measures the candidates of `rs` through `runner` (measure() by name) with `strategy` (the
/// exhaustive strategy: each new candidate, then the leaders re-timed carefully), its progress on
/// `progress`; stops early when `stop` says so or the strategy's budget is spent. `problem` gives
/// the progress its TFLOP/s.
StrategyResult measure_family_candidates(CandidateRunner& runner, const FamilyResumeState& rs,
                                         const StrategyOptions& strategy, const Problem& problem,
                                         ProgressReporter& progress,
                                         const std::function<bool()>& stop);

/// Why a search ended before it measured every candidate: "interrupted", "budget spent" or "".
std::string family_search_note(const StrategyResult& result);

}  // namespace gemmtune::tuner
