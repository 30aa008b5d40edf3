#pragma once
// The sgemm family (FP32 GEMM) behind the runtime's family interface (gemmtune/family.hpp):
// its name and prefix "sgemm", its NVRTC source, its database description and the kernel
// instance of a config.
#include "gemmtune/family.hpp"
#include "gemmtune/sgemm/config.hpp"

namespace gemmtune {

/// The sgemm family, as builtin_families() lists it.
const KernelFamily& sgemm_kernel_family();

/// The kernel instance of `config`: its name expression, the kernels its launches run before
/// the GEMM (families/sgemm/kernels/pack.cuh) as defines, and whether it needs the
/// arch-specific target (a warpgroup config).
KernelInstance kernel_instance(const GemmConfig& config);

}  // namespace gemmtune
