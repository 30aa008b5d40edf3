#include "gemmtune/problem.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace gemmtune {

char op_char(Op op) { return op == Op::N ? 'n' : 't'; }

std::string problem_label(Op op_a, Op op_b, long long m, long long n, long long k, long long batch,
                          int alignment) {
  std::string s = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " " +
                  op_char(op_a) + op_char(op_b);
  if (batch != 1) s += " b" + std::to_string(batch);
  if (alignment != 4) s += " a" + std::to_string(alignment);
  return s;
}

double shape_distance(long long m1, long long n1, long long k1, long long batch1, long long m2,
                      long long n2, long long k2, long long batch2) {
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

bool Problem::rows_16_byte_aligned(const float* base, long long ld, long long stride, int batch) {
  return reinterpret_cast<std::uintptr_t>(base) % 16 == 0 && ld % 4 == 0 &&
         (batch == 1 || stride % 4 == 0);
}
static bool fits_ptr(int width, const void* ptr) {
  return reinterpret_cast<std::uintptr_t>(ptr) % (width * sizeof(float)) == 0;
}

// Each operand is read (C also written) `w` floats at a time along its contiguous dimension, so
// that dimension, its leading dimension, batch stride and pointer must all be multiples of w.
// Pointers in device arrays cannot be inspected: they are required to be 16-byte aligned.
static int widest(bool (*fits_w)(int, const Problem&), const Problem& p) {
  for (int w : {4, 2})
    if (fits_w(w, p)) return w;
  return 1;
}
static bool matrices_fit(int w, const Problem& p, const void* ptr, long long stride) {
  return p.pointer_arrays || (fits_ptr(w, ptr) && (p.batch == 1 || fits(w, stride)));
}
static bool a_fits(int w, const Problem& p) {
  return fits(w, p.a_cols()) && fits(w, p.lda) && matrices_fit(w, p, p.a, p.stride_a);
}
static bool b_fits(int w, const Problem& p) {
  return fits(w, p.b_cols()) && fits(w, p.ldb) && matrices_fit(w, p, p.b, p.stride_b);
}
static bool c_fits(int w, const Problem& p) {
  return fits(w, p.n) && fits(w, p.ldc) && matrices_fit(w, p, p.c, p.stride_c);
}

int Problem::a_alignment() const { return widest(a_fits, *this); }
int Problem::b_alignment() const { return widest(b_fits, *this); }
int Problem::c_alignment() const { return widest(c_fits, *this); }
int Problem::alignment() const { return std::min({a_alignment(), b_alignment(), c_alignment()}); }

std::string Problem::layout() const { return {op_char(op_a), op_char(op_b)}; }

namespace {
// The smallest leading dimension from `cols` on that allows `want` floats per access and no more
// (`want` divides cols: it is at most what the packed shape allows).
long long ld_of_class(long long cols, int want) {
  long long ld = std::max(cols, 1LL);
  while (ld % want != 0 || (want < 4 && cols % (2 * want) == 0 && ld % (2 * want) == 0)) ++ld;
  return ld;
}
}  // namespace

Problem shape_only_problem(Op op_a, Op op_b, int m, int n, int k, int batch, int alignment,
                           bool pointer_arrays) {
  Problem p = Problem::packed(op_a, op_b, m, n, k, batch);
  const int want = alignment <= 0 ? 4 : std::min(alignment, p.alignment());
  if (pointer_arrays) {
    p.pointer_arrays = true;
    p.lda = ld_of_class(p.a_cols(), want), p.ldb = ld_of_class(p.b_cols(), want),
    p.ldc = ld_of_class(p.n, want);
    p.stride_a = p.stride_b = p.stride_c = 0;
    const auto array = std::uintptr_t(16);  // placeholder, never dereferenced
    p.a_array = reinterpret_cast<const float* const*>(array);
    p.b_array = reinterpret_cast<const float* const*>(array);
    p.c_array = reinterpret_cast<float* const*>(array);
    return p;
  }
  // Placeholder addresses, never dereferenced: 16 bytes allow vec 4, 8 bytes vec 2, 4 bytes vec 1.
  // Without a requested class the pointers are aligned and the shape alone decides (for each
  // operand: tiles that stream B ignore a misaligned A).
  auto address = std::uintptr_t(want == 4 ? 16 : want == 2 ? 8 : 4);
  p.a = reinterpret_cast<const float*>(address);
  p.b = reinterpret_cast<const float*>(address);
  p.c = reinterpret_cast<float*>(address);
  return p;
}

}  // namespace gemmtune
