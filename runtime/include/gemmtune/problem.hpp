#pragma once
// A GEMM problem: C = alpha * op(A) * op(B) + beta * C, row-major FP32, optionally batched.
#include <cstdint>
#include <optional>
#include <string>

namespace gemmtune {

/// Whether an operand is used as stored (N) or transposed (T).
enum class Op { N, T };

/// How the caller's matrices are stored (CBLAS's convention). Row-major: element (i, j) of a
/// matrix with leading dimension ld is at [i * ld + j]; column-major (Fortran, BLAS, cuBLAS): at
/// [i + j * ld].
enum class Layout { row_major, col_major };

/// "row-major" or "column-major".
const char* layout_name(Layout layout);

/// 'n' or 't'.
char op_char(Op op);
/// The Op of 'n' or 't'; nullopt for any other character.
std::optional<Op> op_from_char(char c);

/// The one label of a problem class in gemmtune's output: "4096x4096x4096 nn", then " b8" for a
/// batch of 8 and " a1" (or " a2") when the data allows only 1- (or 2-) float vectors.
std::string problem_label(Op op_a, Op op_b, long long m, long long n, long long k,
                          long long batch = 1, int alignment = 4);

/// How far apart two shapes are: the Euclidean distance of log M, log N, log K and log batch, so
/// that a shape twice as large in one dimension is as far as one half as large. The dispatcher's
/// nearest-shape step and the tuner's calibration both measure with it.
double shape_distance(long long m1, long long n1, long long k1, long long batch1, long long m2,
                      long long n2, long long k2, long long batch2);

/// The shape, layout and memory of one (batched) GEMM. Row-major: element (i, j) of a matrix with
/// leading dimension ld is at [i * ld + j]. op(A) is M x K, op(B) is K x N, C is M x N.
struct Problem {
  Op op_a = Op::N, op_b = Op::N;
  int m = 0, n = 0, k = 0;
  int batch = 1;
  long long lda = 0, ldb = 0, ldc = 0;                 ///< leading dimensions, elements
  long long stride_a = 0, stride_b = 0, stride_c = 0;  ///< batch strides, elements
  const float* a = nullptr;
  const float* b = nullptr;
  float* c = nullptr;
  float alpha = 1.0f, beta = 0.0f;
  /// Device pointer mode: when not null, alpha (beta) is the float at this device address, read by
  /// the kernels when they run, so that a CUDA Graph replay sees its value of the moment; `alpha`
  /// (`beta`) is then not used. The host cannot see a device alpha: with K > 0 such a call runs
  /// the GEMM, which reads A and B, and alpha 0 gives exactly beta C.
  const float* alpha_ptr = nullptr;
  const float* beta_ptr = nullptr;
  /// Whether matrix i of A, B and C is a_array[i], b_array[i], c_array[i] (arrays of `batch`
  /// pointers in device memory: the device-array batched call) instead of a, b, c plus i batch
  /// strides. The host cannot inspect those pointers: they must be 16-byte aligned (cudaMalloc's
  /// are), and the alignment class follows from the shape and leading dimensions alone.
  bool pointer_arrays = false;
  const float* const* a_array = nullptr;
  const float* const* b_array = nullptr;
  float* const* c_array = nullptr;

  /// Tightly packed leading dimensions and batch strides for the shape and layout.
  static Problem packed(Op op_a, Op op_b, int m, int n, int k, int batch = 1);
  /// Rows and columns of A and B as stored.
  int a_rows() const { return op_a == Op::N ? m : k; }
  int a_cols() const { return op_a == Op::N ? k : m; }
  int b_rows() const { return op_b == Op::N ? k : n; }
  int b_cols() const { return op_b == Op::N ? n : k; }
  /// Largest vector width (4, 2 or 1 floats) that every row of A, B and C and every pointer and
  /// stride allows: the alignment class of the problem (the smallest of the three below).
  int alignment() const;
  /// The same for one operand: its contiguous dimension, leading dimension, batch stride and
  /// pointer. Kernels narrow the global accesses of that operand alone to it.
  int a_alignment() const;
  int b_alignment() const;
  int c_alignment() const;
  /// "nn", "nt", "tn" or "tt".
  std::string layout() const;
  /// Whether every row of `batch` matrices at `base`, rows `ld` floats apart and matrices `stride`
  /// floats apart, starts on a 16-byte boundary: what whole rows read as 4-float vectors need,
  /// whatever the row length (the split copy; tensor maps, GemmConfig::reads_a_in_place).
  static bool rows_16_byte_aligned(const float* base, long long ld, long long stride, int batch);
  /// problem_label() of this problem's class, e.g. "4095x4096x4096 nn a1", then " (pointer arrays)"
  /// for pointer_arrays.
  std::string label() const {
    return problem_label(op_a, op_b, m, n, k, batch, alignment()) +
           (pointer_arrays ? " (pointer arrays)" : "");
  }
  /// Floating-point operations: 2*M*N*K*batch.
  double flops() const { return 2.0 * m * n * double(k) * batch; }
};

/// The row-major problem that computes `p`, whose matrices are stored as `layout` says: `p`
/// itself for row-major. A column-major matrix read row-major is its transpose, so the
/// column-major C = op(A) op(B) is the row-major C^T = op(B)^T op(A)^T: A and B trade places
/// (with their ops, leading dimensions and strides) and M and N swap. The kernels only ever see
/// row-major problems.
Problem as_row_major(Layout layout, const Problem& p);

/// The problem the kernels run for the row-major problem `p`: `p` itself, except
/// - a matrix-vector product y = A^T x (N = 1, A transposed, C's elements adjacent) runs as its
///   transpose y^T = x^T A. Its matrix is then read along its stored rows by the streaming
///   path, measured faster than reducing along K across strided columns (4096x1x4096 tn on an
///   H200: 28.1 us as stored, 24.9 us transposed);
/// - a vector operand whose elements are adjacent (B with N = 1 not transposed, A with M = 1
///   transposed, leading dimension 1) is read as the one row it is in memory: its transposed op
///   with leading dimension K, so that its loads along K are whole vectors.
/// The dispatcher runs, prepares and explains this form, and the tuner tunes it, so the
/// database holds the problem that runs.
Problem kernel_form(const Problem& p);

/// A problem without data, for explaining (Dispatcher::explain, prepare): packed leading
/// dimensions and batch strides, and placeholder (never dereferenced) addresses that give it
/// alignment class min(`alignment`, what the packed shape allows). `alignment` 0 means what the
/// shape allows. With `pointer_arrays` (the device-array batched call) the placeholders are
/// pointer arrays, whose entries count as aligned: the leading dimensions are padded to carry the
/// class instead.
Problem shape_only_problem(Op op_a, Op op_b, int m, int n, int k, int batch = 1, int alignment = 0,
                           bool pointer_arrays = false);

}  // namespace gemmtune
