#pragma once
// The argument block of every kernel of the family, passed by value. Shared verbatim by the host
// launcher and the NVRTC-compiled templates (it comes first in their embedded sources:
// templates/CMakeLists.txt, families/CMakeLists.txt).
namespace gemmtune {

/// C = alpha * op(A) * op(B) + beta * C for `batch` matrices, row-major, FP32.
struct GemmArgs {
  // The matrices: matrix i of A at a + i * stride_a, likewise B and C; or, with pointer_arrays
  // (the device-array batched call), at a_array[i] in a device array of `batch` pointers.
  union {
    const float* a;
    const float* const* a_array;
  };
  union {
    const float* b;
    const float* const* b_array;
  };
  union {
    float* c;
    float* const* c_array;
  };
  long long lda, ldb, ldc;                 // leading dimensions, elements
  long long stride_a, stride_b, stride_c;  // batch strides, elements
  int m, n, k;
  int batch;
  float alpha, beta;
  int* tile_counters;  // split-K: one counter per output tile (LaunchWorkspace); null otherwise
  // Device pointer mode: alpha and beta are read from device memory when the kernel runs (a CUDA
  // Graph replay sees their current values). Null: the values above.
  const float* alpha_ptr;
  const float* beta_ptr;
  int pointer_arrays;  // nonzero: the matrices are in a_array, b_array and c_array
};
// Passed by value, the block must stay within 128 bytes: past that NVVM stops unrolling the
// register-prefetch main loop of some configs by two (64x64x16 t8x4 s2 k512 on an H200: 69.6 us
// compiled from a 104-byte block, 79.6 us from a 144-byte one).
static_assert(sizeof(GemmArgs) <= 128, "GemmArgs grew past 128 bytes: see the comment above");

/// A TMA tensor map: the driver's CUtensorMap (128 opaque bytes, 128-byte aligned), encoded on the
/// host (GemmKernel::launch) and read by the copy unit.
struct alignas(128) TensorMap {
  unsigned long long opaque[16];
};

/// The second argument of warpgroup kernels (sgemm_wgmma), a __grid_constant__ so that the copy
/// unit reads the tensor maps from the argument block: per operand, whether the kernel reads it in
/// place through its map (a TF32 operand already K-major with 16-byte aligned rows: math 1, A of
/// nn and nt, B of nt and tt; GemmConfig::reads_a_in_place) or from the split copy in GemmArgs.
struct WarpgroupArgs {
  TensorMap a, b;
  int a_in_place, b_in_place;
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

/// gemmtune_pack_split: copies `batch` matrices of `rows` x `k` elements, element (r, i) at
/// src[r * ld + i] (src[i * ld + r] when `transposed`), matrices `stride` apart, into dst as
/// K-major TF32 planes, matrix b at dst + b * dst_stride: the big parts tf32(x), then (`split`)
/// the small parts tf32(x - tf32(x)) `plane` floats further; rows [rows, dst_rows) and columns
/// [k, dst_ld) zero. A plane holds tiles of `tile_rows` rows (a multiple of 32, as dst_rows is of
/// it), each as dst_ld / 32 slices of tile_rows x 32 floats in the warpgroup kernel's
/// shared-memory order (families/sgemm/kernels/pack.cuh). dst_ld is a multiple of 32, dst 16-byte
/// aligned.
struct SplitPackArgs {
  const float* src;
  float* dst;
  long long ld, stride, dst_ld, dst_stride, plane;
  int rows, k, dst_rows, batch, tile_rows;
  int transposed, split;
  int vec;  // src, ld and stride are multiples of 4 floats: the copy reads 4-float vectors
};

/// Split-K of the reduction path: the splits' sums follow the tile counters in the same buffer,
/// from the first multiple of kSplitSumsAlign counters on (the Epilogue and LaunchWorkspace).
constexpr int kSplitSumsAlign = 64;

/// Rows of an operand that one block of gemmtune_pack_split moves at a time (a multiple of 32);
/// the launcher sizes the grid by it. 128 measured no faster than 64 on an H200 (4096^2: 38-41
/// against 39-41 us for one plane).
constexpr int kSplitPackRows = 64;

}  // namespace gemmtune
