// The vocabulary of a choice: source and regime names, and the text `explain` prints.
#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "gemmtune/choice.hpp"
#include "gemmtune/error.hpp"

namespace gemmtune {

const char* choice_source_name(ChoiceSource source) {
  switch (source) {
    case ChoiceSource::exact: return "exact";
    case ChoiceSource::nearest: return "nearest";
    case ChoiceSource::model_default: return "model_default";
    case ChoiceSource::builtin: return "builtin";
  }
  return "?";
}

Regime regime_of(long long m, long long n, long long k) {
  if (k >= 8 * std::max(m, n)) return Regime::large_k;
  if (std::min(m, n) <= 64) return Regime::skinny;
  return Regime::square;
}

const char* regime_name(Regime r) {
  switch (r) {
    case Regime::large_k: return "large-K";
    case Regime::skinny: return "skinny";
    case Regime::square: return "square";
  }
  return "?";
}

std::string TunedProblem::to_string() const { return problem_label(op_a, op_b, m, n, k, batch, alignment); }

namespace {
std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}
}  // namespace

std::string Choice::to_string() const {
  std::string s = "kernel   " + config_name(config) + "\n";
  s += "source   " + std::string(choice_source_name(source));
  switch (source) {
    case ChoiceSource::exact: s += ": the tuned best of this exact problem"; break;
    case ChoiceSource::nearest:
      s += std::string(": one of the fastest configs of the nearest tuned problem (distance ") + fmt("%.3f", distance) +
           (same_regime ? ", same regime)" : ", other regime: none of this regime could run it)");
      break;
    case ChoiceSource::model_default:
      s += ": best for " + std::to_string(wins) + " of " + std::to_string(tuned_problems) +
           " tuned problems of this layout on the GPU model";
      break;
    case ChoiceSource::builtin: s += ": the built-in default for the architecture"; break;
  }
  s += "\n";
  s += std::string("bits     ") +
       (config.deterministic() ? config.split_k > 1 ? "the same on every run (split-K sums added in split order)"
                                                    : "the same on every run (no split-K)"
                               : "may differ in the last bits from run to run (split-K " + std::to_string(config.split_k) +
                                     " adds atomically; deterministic mode excludes it)") +
       (deterministic_only ? "; deterministic mode: atomic split-K configs skipped" : "") + "\n";
  static const char* const kMath[] = {"FP32 FMA", "1xTF32 tensor cores", "3xTF32 tensor cores",
                                      "3xTF32 tensor cores, slice sums rounded in FP32", "4xTF32 tensor cores"};
  s += std::string("math     ") + kMath[std::clamp(config.math, 0, 4)] + " (" + precision_name(config.precision()) +
       " class); precision policy " + precision_name(precision) + "\n";
  if (!runs_as.empty()) s += "runs as  " + runs_as + " (y = A^T x runs as its transpose y^T = x^T A)\n";
  if (!gpu_model.empty()) s += "gpu      " + gpu_model + "\n";
  if (!tuned_config.empty() && tuned_config != config_name(config)) s += "stored   " + tuned_config + "\n";
  if (narrowed)
    s += "note     global accesses of A, B, C narrowed to " + std::to_string(config.width_a()) + ", " +
         std::to_string(config.width_b()) + ", " + std::to_string(config.width_c()) + " floats for the data's alignment\n";
  if (tuned) {
    s += "tuned    " + tuned->problem.to_string() + "  (sweep " + std::to_string(tuned->sweep_id) + ")\n";
    s += "figures  " + fmt("%.4f ms", tuned->median_ms);
    if (tuned->tflops) s += fmt("  %.2f TFLOP/s", *tuned->tflops);
    if (tuned->rel_error) s += fmt("  rel. error %.2g", *tuned->rel_error);
    if (tuned->wide_error) s += fmt(" (wide-range inputs %.2g)", *tuned->wide_error);
    if (tuned->cublas_median_ms && tuned->median_ms > 0)
      s += fmt("  %.3fx cuBLAS", *tuned->cublas_median_ms / tuned->median_ms) +
           fmt(" (cuBLAS %.4f ms)", *tuned->cublas_median_ms);
    s += "\n";
  }
  for (const auto& t : trail) s += "skipped  " + t + "\n";
  return s;
}

namespace {
// The smallest leading dimension from `cols` on that allows `want` floats per access and no more
// (`want` divides cols: it is at most what the packed shape allows).
long long ld_of_class(long long cols, int want) {
  long long ld = std::max(cols, 1LL);
  while (ld % want != 0 || (want < 4 && cols % (2 * want) == 0 && ld % (2 * want) == 0)) ++ld;
  return ld;
}
}  // namespace

Problem shape_only_problem(Op op_a, Op op_b, int m, int n, int k, int batch, int alignment, bool pointer_arrays) {
  Problem p = Problem::packed(op_a, op_b, m, n, k, batch);
  const int want = alignment <= 0 ? 4 : std::min(alignment, p.alignment());
  if (pointer_arrays) {
    p.pointer_arrays = true;
    p.lda = ld_of_class(p.a_cols(), want), p.ldb = ld_of_class(p.b_cols(), want), p.ldc = ld_of_class(p.n, want);
    p.stride_a = p.stride_b = p.stride_c = 0;
    const auto array = std::uintptr_t(16);  // placeholder, never dereferenced
    p.a_array = reinterpret_cast<const float* const*>(array);
    p.b_array = reinterpret_cast<const float* const*>(array);
    p.c_array = reinterpret_cast<float* const*>(array);
    return p;
  }
  // Placeholder addresses, never dereferenced: 16 bytes allow vec 4, 8 bytes vec 2, 4 bytes vec 1.
  // Without a requested class the pointers are aligned and the shape alone decides (for each
  // operand: tiles that stream B ignore a misaligned A).
  auto address = std::uintptr_t(want == 4 ? 16 : want == 2 ? 8 : 4);
  p.a = reinterpret_cast<const float*>(address);
  p.b = reinterpret_cast<const float*>(address);
  p.c = reinterpret_cast<float*>(address);
  return p;
}

}  // namespace gemmtune
