#include "layout.hpp"

#include <algorithm>

namespace gemmtune_torch {

MatrixView MatrixView::of(int dims, const int64_t* sizes, const int64_t* strides) {
  MatrixView v;
  if (dims == 3) {
    v.batch = sizes[0], v.batch_stride = strides[0];
    ++sizes, ++strides;
  }
  v.rows = sizes[0], v.cols = sizes[1];
  v.row_stride = strides[0], v.col_stride = strides[1];
  return v;
}

MatrixView MatrixView::packed() const {
  MatrixView v = *this;
  v.col_stride = 1;
  v.row_stride = std::max<int64_t>(cols, 1);
  v.batch_stride = v.row_stride * std::max<int64_t>(rows, 1);
  return v;
}

std::optional<Operand> operand(int64_t rows, int64_t cols, int64_t row_stride, int64_t col_stride) {
  if (rows == 0 || cols == 0) return Operand{false, std::max<int64_t>(cols, 1)};  // nothing is read
  if ((cols == 1 || col_stride == 1) && (rows == 1 || row_stride >= cols))
    return Operand{false, rows > 1 ? row_stride : cols};
  if ((rows == 1 || row_stride == 1) && col_stride >= rows)
    return Operand{true, col_stride};  // cols > 1 here
  return std::nullopt;
}

namespace {

struct Read {
  Operand operand;
  int64_t batch_stride = 0;
  bool copied = false;
};

// How the call reads `v` (an input), or its contiguous copy.
Read read(const MatrixView& v, int64_t batch) {
  if (auto found = operand(v.rows, v.cols, v.row_stride, v.col_stride))
    return {*found, batch > 1 ? v.batch_stride : 0, false};
  const MatrixView p = v.packed();
  return {*operand(p.rows, p.cols, p.row_stride, p.col_stride), batch > 1 ? p.batch_stride : 0,
          true};
}

// How the call writes `c`: row-major or transposed, with matrices that do not overlap.
std::optional<Read> write(const MatrixView& c, int64_t batch) {
  auto found = operand(c.rows, c.cols, c.row_stride, c.col_stride);
  if (!found) return std::nullopt;
  // A row-major (rows x cols, ld) matrix spans (rows - 1) * ld + cols elements.
  const int64_t rows = found->transposed ? c.cols : c.rows,
                cols = found->transposed ? c.rows : c.cols;
  const int64_t span = (rows - 1) * found->ld + cols;
  if (batch > 1 && c.batch_stride < span) return std::nullopt;
  return Read{*found, batch > 1 ? c.batch_stride : std::max<int64_t>(span, 0), false};
}

}  // namespace

Plan plan(const MatrixView& a, const MatrixView& b, const MatrixView& c) {
  const int64_t batch = a.batch;
  const Read ra = read(a, batch), rb = read(b, batch);
  std::optional<Read> rc = write(c, batch);
  const bool copy_c = !rc;
  if (!rc) rc = write(c.packed(), batch);
  Plan p;
  p.k = a.cols, p.batch = batch, p.ldc = rc->operand.ld, p.stride_c = rc->batch_stride;
  p.copy_a = ra.copied, p.copy_b = rb.copied, p.copy_c = copy_c;
  if (!rc->operand.transposed) {
    p.m = a.rows, p.n = b.cols;
    p.transpose_a = ra.operand.transposed, p.transpose_b = rb.operand.transposed;
    p.lda = ra.operand.ld, p.ldb = rb.operand.ld;
    p.stride_a = ra.batch_stride, p.stride_b = rb.batch_stride;
    return p;
  }
  // C^T = op(B)^T op(A)^T, row-major N x M.
  p.m = b.cols, p.n = a.rows, p.swapped = true;
  p.transpose_a = !rb.operand.transposed, p.transpose_b = !ra.operand.transposed;
  p.lda = rb.operand.ld, p.ldb = ra.operand.ld;
  p.stride_a = rb.batch_stride, p.stride_b = ra.batch_stride;
  return p;
}

}  // namespace gemmtune_torch
