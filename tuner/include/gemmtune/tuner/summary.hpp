#pragma once
// The table printed at the end of a sweep: per (GPU, problem) the best config, its time,
// TFLOP/s, share of the FP32 peak, cuBLAS's time and the speedup, and what the search of it
// compiled.
#include <optional>
#include <string>
#include <vector>

#include "gemmtune/tuner/compile_counts.hpp"

namespace gemmtune::tuner {

/// One line of the summary.
struct SummaryRow {
  std::string gpu;                     ///< e.g. "NVIDIA H200"
  std::string problem;                 ///< problem_label()
  std::string config;                  ///< best config name; empty when none succeeded
  std::optional<double> ms, tflops;    ///< the best config's median
  std::optional<double> peak_percent;  ///< tflops as % of the device's FP32 peak
  std::optional<double> cublas_ms;     ///< cuBLAS on the same problem
  std::string note;                    ///< e.g. "interrupted", "budget spent", "no new candidates"
  /// Where the binaries of the candidates this sweep measured came from (none when it measured
  /// nothing, e.g. "measured before").
  std::optional<CompileCounts> compiles;
  double compile_wait_s = 0;  ///< seconds the search waited for them

  /// cuBLAS time / our time (> 1: faster than cuBLAS).
  std::optional<double> speedup() const {
    if (!ms || !cublas_ms || *ms <= 0) return std::nullopt;
    return *cublas_ms / *ms;
  }
};

/// The compiles of a row as its table cell: "40/3/2" (compiled, cached, reused), then the wait,
/// "6.1 s"; "-" without compiles.
std::string compiles_cell(const SummaryRow& row);

/// The line a sweep ends a problem with: the new and the fresh candidates measured, the best
/// (`row`) and cuBLAS's TFLOP/s, where the binaries came from and the seconds waited for them
/// (row.compiles), then `note` in brackets where there is one.
std::string outcome_line(const SummaryRow& row, std::size_t new_candidates, std::size_t fresh,
                         std::optional<double> cublas_tflops, const std::string& note);

/// The rows as an aligned text table with a header; "-" where a value is missing.
std::string format_summary(const std::vector<SummaryRow>& rows);

}  // namespace gemmtune::tuner
