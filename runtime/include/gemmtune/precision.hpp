#pragma once
// The precision policy of a Dispatcher: which kernels may compute an FP32 GEMM.
#include <optional>
#include <string>

namespace gemmtune {

/// How a dispatcher may compute an FP32 GEMM (DispatcherOptions::precision), and the precision
/// class of a kernel: ordered, each admitting the classes before it.
///   ieee  FP32 FMA only: the default
///   fp32  also the 3xTF32 tensor-core kernels, where their measured relative error on both
///         verification inputs (random and wide-range) is no worse than the FP32 FMA kernel's
///         of the same problem (the dispatcher checks the database's figures)
///   tf32  also 1xTF32: TF32 accuracy (~1e-3 relative), the fastest
enum class Precision { ieee = 0, fp32 = 1, tf32 = 2 };

/// "ieee", "fp32" or "tf32".
const char* precision_name(Precision p);
/// The inverse of precision_name(); nullopt for anything else.
std::optional<Precision> parse_precision(const std::string& text);

}  // namespace gemmtune
