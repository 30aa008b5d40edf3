#pragma once
// Why a Dispatcher runs the kernel it runs for a problem: what Dispatcher::explain returns.
//
// Tuned data comes from two files: the user's tuning database, and behind it the tuning database
// shipped with gemmtune for the GPU model (or, when none is shipped for the model, the one of a
// model of the same compute capability; none for an architecture no shipped file covers; none
// with DispatcherOptions::use_shipped false or GEMMTUNE_NO_SHIPPED=1). The user's result of a
// problem always replaces a shipped one. The fallback chain, in order (a tuned config that no
// longer validates, or cannot run the problem, is passed over with its reason in `trail`):
//   exact          the tuned best of this exact problem (layout, M, N, K, batch, alignment
//                  class): the user's, else the shipped one (which beats any guess from the
//                  user's other problems)
//   nearest        one of the fastest configs of the nearest tuned problem of the same layout
//                  and alignment class (log-space distance over M, N, K and batch), the user's
//                  and the shipped problems together; at equal distance the user's first
//   model_default  the config that is best for the most tuned problems of this layout on the GPU:
//                  the user's problems when there are any of the layout, else the shipped ones
//   builtin        the built-in default: runs anything of the layout on any supported GPU
#include <optional>
#include <string>
#include <vector>

#include "gemmtune/precision.hpp"

namespace gemmtune {

/// Where a choice came from; the order of the fallback chain.
enum class ChoiceSource { exact, nearest, model_default, builtin };

/// "exact", "nearest", "model_default" or "builtin".
const char* choice_source_name(ChoiceSource source);

/// The measurement a choice was taken from: the best result the tuning database holds for one
/// tuned problem on the GPU model.
struct TunedResult {
  /// The tuned problem's label, e.g. "4096x4096x4096 nn".
  std::string problem;
  /// The sweep that measured it.
  long long sweep_id = 0;
  /// Median time of the chosen config on that problem, milliseconds.
  double median_ms = 0;
  /// Its throughput, TFLOP/s.
  std::optional<double> tflops;
  /// cuBLAS's median time on the same problem in the same sweep, milliseconds.
  std::optional<double> cublas_median_ms;
  /// The relative error of its verification on random inputs.
  std::optional<double> rel_error;
  /// The same on wide-range inputs, when measured.
  std::optional<double> wide_error;
};

/// One choice of a Dispatcher, with the reasons behind it.
struct Explanation {
  /// The kernel that runs: its procedural name, fitted to the data's alignment, e.g.
  /// "sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8".
  std::string config;
  /// Which step of the fallback chain chose it.
  ChoiceSource source = ChoiceSource::builtin;
  /// The config name as the database stores it (before fitting); empty for builtin.
  std::string tuned_config;
  /// exact, nearest: the tuned result chosen.
  std::optional<TunedResult> tuned;
  /// nearest: the log-space distance to the tuned problem.
  double distance = 0;
  /// nearest: whether the tuned problem has this problem's shape regime.
  bool same_regime = true;
  /// model_default: the tuned problems this config is best for, of `tuned_problems` of the layout.
  int wins = 0;
  int tuned_problems = 0;
  /// Whether the data's alignment narrowed the stored config's accesses.
  bool narrowed = false;
  /// Whether it was chosen in deterministic mode (atomic split-K configs skipped).
  bool deterministic_only = false;
  /// The precision policy it was chosen under.
  Precision precision = Precision::ieee;
  /// The GPU model whose tuning data was used; empty when none.
  std::string gpu_model;
  /// The problem's label as the kernels run it where that differs (y = A^T x runs as
  /// y^T = x^T A); else empty.
  std::string runs_as;
  /// Each step passed over and why, in order.
  std::vector<std::string> trail;
  /// The file the tuned data came from (the user's database or a shipped one); empty for builtin.
  std::string database;
  /// Whether `database` is a tuning database shipped with gemmtune.
  bool shipped = false;
  /// shipped: it was tuned on another GPU model of the same architecture (`gpu_model`), as none
  /// is shipped for this one.
  bool shipped_other_model = false;

  /// Several lines for people (what `gemmtune explain` prints): the kernel, the source, whether
  /// the bits are the same on every run, the math, the file, the tuned figures and the trail.
  std::string to_string() const;
};

}  // namespace gemmtune
