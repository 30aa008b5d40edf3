#pragma once
// How a PyTorch matrix product maps onto gemmtune's row-major strided-batched GEMM: the one home
// of that mapping. The operators run it (ops.cpp) and gemmtune.layout.plan (Python, used by
// gemmtune.capture) calls it through the gemmtune::plan operator, so what is captured and tuned
// is what runs. Shapes and strides only, in elements; no PyTorch types.
//
// A matrix X (rows x cols, element (i, j) at offset i * s_row + j * s_col) enters a row-major GEMM
//   - as stored (op n) with leading dimension s_row when s_col == 1: a row-major matrix,
//   - transposed (op t) with leading dimension s_col when s_row == 1: the transpose of a row-major
//     cols x rows matrix (a `.t()` view, a column-major matrix),
//   - not at all otherwise (every stride above 1, a zero stride along a dimension of size > 1,
//     rows that overlap): the operator then copies it with `.contiguous()` (the output: it
//     computes into a contiguous temporary and copies that into `out`).
// A dimension of size 1 constrains nothing. C must be row-major: a column-major C is computed as
// C^T = op(B)^T op(A)^T (M and N trade places, A and B too, and each op flips).
#include <cstdint>
#include <optional>

namespace gemmtune_torch {

/// A (batch x) rows x cols matrix as stored: sizes and strides in elements. A 2-D tensor has
/// batch 1 and batch stride 0.
struct MatrixView {
  int64_t batch = 1, rows = 0, cols = 0;
  int64_t batch_stride = 0, row_stride = 0, col_stride = 0;

  /// The view of a 2-D or 3-D tensor (`dims` sizes and strides).
  static MatrixView of(int dims, const int64_t* sizes, const int64_t* strides);
  /// The same shape with the strides `.contiguous()` gives it.
  MatrixView packed() const;
};

/// How a stored matrix is read: transposed or not, with leading dimension `ld`.
struct Operand {
  bool transposed = false;
  int64_t ld = 0;
};

/// The Operand that reads a rows x cols matrix with these strides; nullopt when none does.
/// Row-major is preferred when both fit (a row or column vector, a 1 x 1 matrix).
std::optional<Operand> operand(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride);

/// A (batched) product as the row-major call that runs it. `swapped`: the call's A is the caller's
/// B and its B the caller's A (C is stored column-major). `copy_a`, `copy_b`, `copy_c`: that
/// tensor's strides cannot be described and the plan is for its contiguous copy.
struct Plan {
  int64_t m = 0, n = 0, k = 0, batch = 1;
  bool transpose_a = false, transpose_b = false;
  int64_t lda = 0, ldb = 0, ldc = 0;
  int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  bool swapped = false, copy_a = false, copy_b = false, copy_c = false;
};

/// The row-major call for C = A B: a is (batch x) M x K, b (batch x) K x N, c (batch x) M x N.
/// The shapes must already agree (the operators check them first).
Plan plan(const MatrixView& a, const MatrixView& b, const MatrixView& c);

}  // namespace gemmtune_torch
