#pragma once
// The kernels' argument block of a problem, for every launch in the runtime.
#include "gemmtune/kernel_args.h"
#include "gemmtune/problem.hpp"

namespace gemmtune {

/// `tile_counters` are split-K's (LaunchWorkspace::prepare); null for other launches.
inline GemmArgs kernel_args_of(const Problem& p, int* tile_counters = nullptr) {
  const bool arrays = p.pointer_arrays;
  return GemmArgs{p.a, p.b, p.c, p.lda, p.ldb, p.ldc, p.stride_a, p.stride_b, p.stride_c,
                  p.m, p.n, p.k, p.batch, p.alpha, p.beta, tile_counters,
                  arrays ? p.a_array : nullptr, arrays ? p.b_array : nullptr, arrays ? p.c_array : nullptr,
                  p.alpha_ptr, p.beta_ptr};
}

}  // namespace gemmtune
