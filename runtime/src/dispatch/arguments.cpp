// Argument checking of the public GEMM calls, with BLAS's rules for what a call must do. Error
// messages name the argument, its value and the rule; nothing here allocates unless an argument
// is bad.
#include <string>

#include "gemmtune/gemmtune.hpp"

namespace gemmtune {

const char* work_name(Work work) {
  switch (work) {
    case Work::none: return "none";
    case Work::scale_c: return "scale_c";
    case Work::gemm: return "gemm";
  }
  return "?";
}

Work work_of(const Problem& p) {
  if (p.m <= 0 || p.n <= 0 || p.batch <= 0) return Work::none;
  // A scalar in device memory (device pointer mode) is unknown here: neither 0 nor 1.
  if (p.k > 0 && (p.alpha_ptr || p.alpha != 0.0f)) return Work::gemm;
  return !p.beta_ptr && p.beta == 1.0f ? Work::none : Work::scale_c;
}

namespace {
[[noreturn]] void invalid(const std::string& message) {
  throw Error(Status::kInvalidArgument, message);
}

// A matrix stored `rows` x `cols` in `layout`: its leading dimension must cover a row
// (row-major) or a column (column-major).
void check_ld(const char* name, long long ld, long long rows, long long cols, const char* matrix,
              Layout layout) {
  const bool row_major = layout == Layout::row_major;
  const long long line = row_major ? cols : rows;
  const long long need = line > 1 ? line : 1;
  if (ld < need)
    invalid(std::string(name) + " = " + std::to_string(ld) + " is smaller than a " +
            (row_major ? "row" : "column") + " of " + matrix + " (" + std::to_string(line) +
            " floats: " + matrix + " is stored " + std::to_string(rows) + " x " +
            std::to_string(cols) + " " + layout_name(layout) + "); it must be at least " +
            std::to_string(need));
}
}  // namespace

Work check_arguments(const Problem& p, Layout layout) {
  if (layout != Layout::row_major && layout != Layout::col_major)
    invalid("layout = " + std::to_string(int(layout)) + " is neither row-major nor column-major");
  if (p.m < 0) invalid("M = " + std::to_string(p.m) + " is negative");
  if (p.n < 0) invalid("N = " + std::to_string(p.n) + " is negative");
  if (p.k < 0) invalid("K = " + std::to_string(p.k) + " is negative");
  if (p.batch < 0) invalid("batch = " + std::to_string(p.batch) + " is negative");
  // BLAS checks the leading dimensions even when there is nothing to do.
  check_ld("lda", p.lda, p.a_rows(), p.a_cols(), "A", layout);
  check_ld("ldb", p.ldb, p.b_rows(), p.b_cols(), "B", layout);
  check_ld("ldc", p.ldc, p.m, p.n, "C", layout);
  const Work work = work_of(p);
  if (work == Work::none) return work;
  // K = 0 or alpha = 0: C = beta C, and A and B are not read (they may be null).
  const bool reads_ab = work == Work::gemm;
  if (p.pointer_arrays) {
    // The matrices' pointers are in device memory: only the arrays themselves can be checked here
    // (not their entries' alignment, nor whether the matrices of C overlap).
    if (reads_ab && !p.a_array) invalid("the device array of A pointers is null");
    if (reads_ab && !p.b_array) invalid("the device array of B pointers is null");
    if (!p.c_array) invalid("the device array of C pointers is null");
    return work;
  }
  if (p.batch > 1) {
    if (reads_ab && p.stride_a < 0)
      invalid("stride_a = " + std::to_string(p.stride_a) + " is negative");
    if (reads_ab && p.stride_b < 0)
      invalid("stride_b = " + std::to_string(p.stride_b) + " is negative");
    const Problem r = as_row_major(layout, p);  // C's extent, row-major: (rows - 1) * ldc + cols
    long long extent_c = 0;                     // beyond 64 bits, it is beyond every stride
    if (__builtin_mul_overflow(r.m - 1LL, r.ldc, &extent_c) ||
        __builtin_add_overflow(extent_c, r.n, &extent_c))
      invalid("stride_c = " + std::to_string(p.stride_c) +
              " makes the batches of C overlap: one matrix of C (M = " + std::to_string(p.m) +
              ", N = " + std::to_string(p.n) + ", ldc = " + std::to_string(p.ldc) +
              ") spans more than 2^63 floats; use a smaller ldc");
    if (p.stride_c < extent_c)
      invalid("stride_c = " + std::to_string(p.stride_c) +
              " makes the batches of C overlap; it must be at least " + std::to_string(extent_c) +
              " (the span of one matrix of C: " +
              (layout == Layout::row_major ? "(M - 1) * ldc + N)" : "(N - 1) * ldc + M)"));
  }
  if (reads_ab && !p.a) invalid("A is a null pointer");
  if (reads_ab && !p.b) invalid("B is a null pointer");
  if (!p.c) invalid("C is a null pointer");
  return work;
}

}  // namespace gemmtune
