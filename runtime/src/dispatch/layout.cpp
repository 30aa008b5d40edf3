// Column-major callers: their problem as the row-major one the kernels run.
#include <utility>

#include "gemmtune/problem.hpp"

namespace gemmtune {

const char* layout_name(Layout layout) {
  return layout == Layout::row_major ? "row-major" : "column-major";
}

Problem as_row_major(Layout layout, const Problem& p) {
  if (layout == Layout::row_major) return p;
  // C^T = op(B)^T op(A)^T: the stored B, read row-major, is op's input for the new first operand.
  Problem r = p;
  std::swap(r.m, r.n);
  std::swap(r.op_a, r.op_b);
  std::swap(r.lda, r.ldb);
  std::swap(r.stride_a, r.stride_b);
  r.a = p.b, r.b = p.a;
  r.a_array = p.b_array, r.b_array = p.a_array;
  return r;
}

// y = A^T x (N = 1, A transposed) as y^T = x^T A, where C's elements are adjacent.
static Problem transposed_matrix_vector(const Problem& p) {
  // C (M x 1) must be one contiguous row to be read as C^T (1 x M).
  if (p.n != 1 || p.m == 1 || p.op_a != Op::T || p.ldc != 1) return p;
  auto flip = [](Op op) { return op == Op::N ? Op::T : Op::N; };
  // y^T = op(B)^T op(A)^T: x (the stored B) becomes the first operand with its op flipped, the
  // stored A the second, as stored. A 1-row C may take any leading dimension: M keeps it packed.
  Problem r = p;
  r.m = 1, r.n = p.m;
  r.op_a = flip(p.op_b), r.op_b = Op::N;
  r.lda = p.ldb, r.ldb = p.lda, r.ldc = p.m;
  r.stride_a = p.stride_b, r.stride_b = p.stride_a;
  r.a = p.b, r.b = p.a;
  r.a_array = p.b_array, r.b_array = p.a_array;
  return r;
}

// A vector operand stored as a column of adjacent elements (B with N = 1, or A transposed with
// M = 1, leading dimension 1) is the same memory as that vector stored as one row: read as the
// row, its K values come in whole-vector runs rather than one float per k.
static Problem vectors_as_rows(Problem p) {
  const int row_ld = p.k > 1 ? p.k : 1;
  if (p.n == 1 && p.op_b == Op::N && p.ldb == 1) p.op_b = Op::T, p.ldb = row_ld;
  if (p.m == 1 && p.op_a == Op::T && p.lda == 1) p.op_a = Op::N, p.lda = row_ld;
  return p;
}

Problem kernel_form(const Problem& p) { return vectors_as_rows(transposed_matrix_vector(p)); }

}  // namespace gemmtune
