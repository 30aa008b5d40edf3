#pragma once
// The argument block of every kernel of the family, passed by value. Shared verbatim by the host
// launcher and the NVRTC-compiled templates (it comes first in their embedded sources:
// templates/CMakeLists.txt).
namespace gemmtune {

/// C = alpha * op(A) * op(B) + beta * C for `batch` matrices, row-major, FP32.
struct GemmArgs {
  const float* a;
  const float* b;
  float* c;
  long long lda, ldb, ldc;                 // leading dimensions, elements
  long long stride_a, stride_b, stride_c;  // batch strides, elements
  int m, n, k;
  int batch;
  float alpha, beta;
  int* tile_counters;  // split-K: one counter per output tile (SplitKWorkspace); null otherwise
};

}  // namespace gemmtune
