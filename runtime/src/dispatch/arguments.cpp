// Argument checking of the public GEMM calls. Error messages name the argument, its value and
// the rule; nothing here allocates unless an argument is bad.
#include <string>

#include "gemmtune/gemmtune.hpp"

namespace gemmtune {

namespace {
[[noreturn]] void invalid(const std::string& message) { throw Error(Status::kInvalidArgument, message); }

void check_ld(const char* name, long long ld, long long row, const char* matrix, const char* shape) {
  long long need = row > 1 ? row : 1;
  if (ld < need)
    invalid(std::string(name) + " = " + std::to_string(ld) + " is smaller than a row of " + matrix + " (" +
            std::to_string(row) + " floats: " + matrix + " is stored " + shape +
            " row-major); it must be at least " + std::to_string(need));
}
}  // namespace

bool check_arguments(const Problem& p) {
  if (p.m < 0) invalid("M = " + std::to_string(p.m) + " is negative");
  if (p.n < 0) invalid("N = " + std::to_string(p.n) + " is negative");
  if (p.k < 0) invalid("K = " + std::to_string(p.k) + " is negative");
  if (p.batch < 0) invalid("batch = " + std::to_string(p.batch) + " is negative");
  check_ld("lda", p.lda, p.a_cols(), "A", p.op_a == Op::N ? "M x K" : "K x M (op T)");
  check_ld("ldb", p.ldb, p.b_cols(), "B", p.op_b == Op::N ? "K x N" : "N x K (op T)");
  check_ld("ldc", p.ldc, p.n, "C", "M x N");
  if (p.m == 0 || p.n == 0 || p.k == 0 || p.batch == 0) return false;
  if (p.batch > 1) {
    if (p.stride_a < 0) invalid("stride_a = " + std::to_string(p.stride_a) + " is negative");
    if (p.stride_b < 0) invalid("stride_b = " + std::to_string(p.stride_b) + " is negative");
    long long extent_c = 0;  // beyond 64 bits, it is beyond every stride
    if (__builtin_mul_overflow(p.m - 1LL, p.ldc, &extent_c) ||
        __builtin_add_overflow(extent_c, p.n, &extent_c))
      invalid("stride_c = " + std::to_string(p.stride_c) +
              " makes the batches of C overlap: (M - 1) * ldc + N (M = " + std::to_string(p.m) +
              ", ldc = " + std::to_string(p.ldc) + ") exceeds 2^63; use a smaller ldc");
    if (p.stride_c < extent_c)
      invalid("stride_c = " + std::to_string(p.stride_c) + " makes the batches of C overlap; it must be at least " +
              std::to_string(extent_c) + " ((M - 1) * ldc + N)");
  }
  if (!p.a) invalid("A is a null pointer");
  if (!p.b) invalid("B is a null pointer");
  if (!p.c) invalid("C is a null pointer");
  return true;
}

}  // namespace gemmtune
