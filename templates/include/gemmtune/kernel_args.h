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
  // Device arrays of `batch` pointers (the device-array batched call): matrix i of A is
  // a_array[i], likewise B and C; a, b, c and the batch strides are then not used. Null: by stride.
  const float* const* a_array;
  const float* const* b_array;
  float* const* c_array;
  // Device pointer mode: alpha and beta are read from device memory when the kernel runs (a CUDA
  // Graph replay sees their current values). Null: the values above.
  const float* alpha_ptr;
  const float* beta_ptr;
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
