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
  int* tile_counters;  // split-K: one counter per output tile (LaunchWorkspace); null otherwise
};

/// gemmtune_pack_operand: copies `batch` rows x cols matrices from src (rows ld apart, matrices
/// stride apart) to dst (dst_ld, dst_stride: multiples of 4 floats, 16-byte aligned base),
/// zeroing each row's padding columns [cols, dst_ld).
struct PackArgs {
  const float* src;
  float* dst;
  long long ld, stride, dst_ld, dst_stride;
  int rows, cols, batch;
};

}  // namespace gemmtune
