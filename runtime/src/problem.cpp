#include "gemmtune/problem.hpp"

#include <cstdint>

namespace gemmtune {

char op_char(Op op) { return op == Op::N ? 'n' : 't'; }

Problem Problem::packed(Op op_a, Op op_b, int m, int n, int k, int batch) {
  Problem p;
  p.op_a = op_a, p.op_b = op_b, p.m = m, p.n = n, p.k = k, p.batch = batch;
  p.lda = p.a_cols(), p.ldb = p.b_cols(), p.ldc = n;
  p.stride_a = p.lda * p.a_rows(), p.stride_b = p.ldb * p.b_rows(), p.stride_c = p.ldc * m;
  return p;
}

static bool fits(int width, long long v) { return v % width == 0; }
static bool fits_ptr(int width, const void* ptr) {
  return reinterpret_cast<std::uintptr_t>(ptr) % (width * sizeof(float)) == 0;
}

int Problem::alignment() const {
  for (int w : {4, 2}) {
    // The kernel moves `w` floats at a time along the contiguous dimension of each matrix, so
    // that dimension, the leading dimensions, batch strides and pointers must all be multiples.
    bool ok = fits(w, a_cols()) && fits(w, b_cols()) && fits(w, n) && fits(w, lda) && fits(w, ldb) &&
              fits(w, ldc) && fits_ptr(w, a) && fits_ptr(w, b) && fits_ptr(w, c);
    if (batch > 1) ok = ok && fits(w, stride_a) && fits(w, stride_b) && fits(w, stride_c);
    if (ok) return w;
  }
  return 1;
}

std::string Problem::layout() const { return {op_char(op_a), op_char(op_b)}; }

}  // namespace gemmtune
