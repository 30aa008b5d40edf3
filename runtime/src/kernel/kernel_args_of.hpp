#pragma once
// The kernels' argument block of a problem, for every launch in the runtime.
#include "gemmtune/kernel_args.h"
#include "gemmtune/problem.hpp"

namespace gemmtune {

/// `tile_counters` are split-K's (LaunchWorkspace::prepare); null for other launches.
inline GemmArgs kernel_args_of(const Problem& p, int* tile_counters = nullptr) {
  GemmArgs args{};
  if (p.pointer_arrays) {
    args.a_array = p.a_array, args.b_array = p.b_array, args.c_array = p.c_array;
  } else {
    args.a = p.a, args.b = p.b, args.c = p.c;
  }
  args.lda = p.lda, args.ldb = p.ldb, args.ldc = p.ldc;
  args.stride_a = p.stride_a, args.stride_b = p.stride_b, args.stride_c = p.stride_c;
  args.m = p.m, args.n = p.n, args.k = p.k, args.batch = p.batch;
  args.alpha = p.alpha, args.beta = p.beta;
  args.tile_counters = tile_counters;
  args.alpha_ptr = p.alpha_ptr, args.beta_ptr = p.beta_ptr;
  args.pointer_arrays = p.pointer_arrays;
  return args;
}

}  // namespace gemmtune
