#include "gemmtune/problem.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace gemmtune {

char op_char(Op op) { return op == Op::N ? 'n' : 't'; }

std::string problem_label(Op op_a, Op op_b, long long m, long long n, long long k, long long batch, int alignment) {
  std::string s = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " " + op_char(op_a) +
                  op_char(op_b);
  if (batch != 1) s += " b" + std::to_string(batch);
  if (alignment != 4) s += " a" + std::to_string(alignment);
  return s;
}

double shape_distance(long long m1, long long n1, long long k1, long long batch1, long long m2, long long n2,
                      long long k2, long long batch2) {
  auto d = [](long long a, long long b) {
    return std::log(double(std::max(1LL, a))) - std::log(double(std::max(1LL, b)));
  };
  const double dm = d(m1, m2), dn = d(n1, n2), dk = d(k1, k2), db = d(batch1, batch2);
  return std::sqrt(dm * dm + dn * dn + dk * dk + db * db);
}

std::optional<Op> op_from_char(char c) {
  if (c == 'n') return Op::N;
  if (c == 't') return Op::T;
  return std::nullopt;
}

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

// The kernel moves `w` floats at a time along the contiguous dimension of each matrix, so that
// dimension, the leading dimensions, batch strides and pointers must all be multiples.
static bool a_fits(int w, const Problem& p) {
  return fits(w, p.a_cols()) && fits(w, p.lda) && fits_ptr(w, p.a) && (p.batch == 1 || fits(w, p.stride_a));
}
static bool b_and_c_fit(int w, const Problem& p) {
  bool ok = fits(w, p.b_cols()) && fits(w, p.n) && fits(w, p.ldb) && fits(w, p.ldc) && fits_ptr(w, p.b) &&
            fits_ptr(w, p.c);
  return ok && (p.batch == 1 || (fits(w, p.stride_b) && fits(w, p.stride_c)));
}

int Problem::alignment() const {
  for (int w : {4, 2})
    if (a_fits(w, *this) && b_and_c_fit(w, *this)) return w;
  return 1;
}

int Problem::alignment_without_a() const {
  for (int w : {4, 2})
    if (b_and_c_fit(w, *this)) return w;
  return 1;
}

std::string Problem::layout() const { return {op_char(op_a), op_char(op_b)}; }

}  // namespace gemmtune
