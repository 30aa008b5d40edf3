#pragma once
#include <string_view>

namespace gemmtune::templates {

/// The CUDA C++ source of the FP32 GEMM kernel family (templates/sgemm.cuh), as embedded at build time.
std::string_view sgemm_source();

/// The CUDA C++ source of the float64 reference GEMM (templates/reference.cuh).
std::string_view reference_source();

}  // namespace gemmtune::templates
