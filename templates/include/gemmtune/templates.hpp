#pragma once
#include <string_view>

namespace gemmtune::templates {

/// The CUDA C++ source of the FP32 GEMM kernel family as embedded at build time: the kernel
/// (families/sgemm/kernels/sgemm.cuh) and its components (families/sgemm/kernels/*.cuh) as one
/// text, each file behind a #line directive (the order is families/CMakeLists.txt's). Its hash
/// keys the binary cache.
std::string_view sgemm_source();

/// The CUDA C++ source of the float64 reference GEMM (templates/reference.cuh).
std::string_view reference_source();

}  // namespace gemmtune::templates
