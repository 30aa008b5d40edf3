// Column-major callers: their problem as the row-major one the kernels run.
#include <utility>

#include "gemmtune/problem.hpp"

namespace gemmtune {

const char* layout_name(Layout layout) { return layout == Layout::row_major ? "row-major" : "column-major"; }

Problem as_row_major(Layout layout, const Problem& p) {
  if (layout == Layout::row_major) return p;
  // C^T = op(B)^T op(A)^T: the stored B, read row-major, is op's input for the new first operand.
  Problem r = p;
  std::swap(r.m, r.n);
  std::swap(r.op_a, r.op_b);
  std::swap(r.lda, r.ldb);
  std::swap(r.stride_a, r.stride_b);
  r.a = p.b, r.b = p.a;
  return r;
}

}  // namespace gemmtune
