// Column-major callers and BLAS semantics, on the host: the row-major problem a column-major call
// becomes (as_row_major), run by a row-major host GEMM, must give the same bits as a column-major
// host GEMM of the caller's problem; and what a call has to do (Work) follows BLAS's rules. The
// kernels that run these problems on a GPU are tested in tests/gpu/dispatch.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "gemmtune/gemmtune.h"
#include "gemmtune/gemmtune.hpp"

namespace gemmtune::test {
namespace {

// C = alpha op(A) op(B) + beta C with BLAS's rules, element (i, j) of a matrix at `at(i, j, ld)`.
template <typename At>
void host_gemm(const Problem& p, At at) {
  const Work work = work_of(p);
  if (work == Work::none) return;
  for (int b = 0; b < p.batch; ++b)
    for (int i = 0; i < p.m; ++i)
      for (int j = 0; j < p.n; ++j) {
        float& c = p.c[b * p.stride_c + at(i, j, p.ldc)];
        if (work == Work::scale_c) {
          c = p.beta == 0.f ? 0.f : p.beta * c;
          continue;
        }
        double sum = 0;
        for (int l = 0; l < p.k; ++l) {
          const float a =
              p.a[b * p.stride_a + (p.op_a == Op::N ? at(i, l, p.lda) : at(l, i, p.lda))];
          const float x =
              p.b[b * p.stride_b + (p.op_b == Op::N ? at(l, j, p.ldb) : at(j, l, p.ldb))];
          sum += double(a) * x;
        }
        c = float(p.alpha * sum + (p.beta == 0.f ? 0.0 : double(p.beta) * c));
      }
}

const auto row_major_at = [](long long i, long long j, long long ld) { return i * ld + j; };
const auto col_major_at = [](long long i, long long j, long long ld) { return i + j * ld; };

// Host memory for a problem whose leading dimensions and strides are set: random A, B and C
// (batch matrices each), alpha 1.5, beta -0.5.
struct HostData {
  Problem p;
  std::vector<float> a, b, c;
  void fill(std::mt19937& rng) {
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    for (auto [v, size] : {std::pair{&a, p.stride_a}, {&b, p.stride_b}, {&c, p.stride_c}}) {
      v->resize(size_t(size) * p.batch);
      for (float& x : *v) x = dist(rng);
    }
    p.a = a.data(), p.b = b.data(), p.c = c.data();
    p.alpha = 1.5f, p.beta = -0.5f;
  }
};

// A column-major problem on host memory, leading dimensions padded by `pad`.
struct HostProblem : HostData {
  HostProblem(Op op_a, Op op_b, int m, int n, int k, int batch, int pad, std::mt19937& rng) {
    p.op_a = op_a, p.op_b = op_b, p.m = m, p.n = n, p.k = k, p.batch = batch;
    // Column-major: the leading dimension covers a column (the stored rows).
    p.lda = p.a_rows() + pad, p.ldb = p.b_rows() + pad, p.ldc = m + pad;
    p.stride_a = p.lda * p.a_cols(), p.stride_b = p.ldb * p.b_cols(), p.stride_c = p.ldc * n;
    fill(rng);
  }
};

TEST(Layout, ColumnMajorRunsAsTheSwappedRowMajorProblem) {
  std::mt19937 rng(17);
  for (auto [oa, ob] : {std::pair{Op::N, Op::N}, {Op::N, Op::T}, {Op::T, Op::N}, {Op::T, Op::T}})
    for (auto [m, n, k, batch, pad] :
         {std::tuple{5, 7, 3, 1, 0}, {1, 9, 4, 2, 3}, {8, 1, 6, 3, 1}, {6, 6, 1, 1, 2}}) {
      SCOPED_TRACE(testing::Message() << op_char(oa) << op_char(ob) << " " << m << "x" << n << "x"
                                      << k << " b" << batch << " pad " << pad);
      HostProblem h(oa, ob, m, n, k, batch, pad, rng);
      EXPECT_EQ(check_arguments(h.p, Layout::col_major), Work::gemm);
      const std::vector<float> c0 = h.c;
      host_gemm(h.p, col_major_at);  // what the caller asked for
      const std::vector<float> want = h.c;
      h.c = c0;
      const Problem r = as_row_major(Layout::col_major, h.p);
      EXPECT_EQ(check_arguments(r), Work::gemm);  // the row-major problem is valid as it stands
      host_gemm(r, row_major_at);                 // what the kernels compute
      EXPECT_EQ(h.c, want);
    }
}

// A row-major problem on host memory, leading dimensions padded by `pad` (C's only when asked).
struct HostRowMajor : HostData {
  HostRowMajor(Op op_a, Op op_b, int m, int n, int k, int batch, int pad, int c_pad,
               std::mt19937& rng) {
    p = Problem::packed(op_a, op_b, m, n, k, batch);
    p.lda += pad, p.ldb += pad, p.ldc += c_pad;
    p.stride_a = p.lda * p.a_rows() + 3, p.stride_b = p.ldb * p.b_rows() + 5,
    p.stride_c = p.ldc * m + 1;
    fill(rng);
  }
};

// The problem the kernels run, `r` (kernel_form of h.p), gives C the bits h.p gives it: the
// same sums in the same order. Leaves h.c as `r` computed it.
void expect_same_bits(HostRowMajor& h, const Problem& r) {
  const std::vector<float> c0 = h.c;
  host_gemm(h.p, row_major_at);
  const std::vector<float> want = h.c;
  h.c = c0;
  host_gemm(r, row_major_at);
  EXPECT_EQ(h.c, want);
}

TEST(Layout, MatrixTransposedTimesVectorRunsAsItsTranspose) {
  std::mt19937 rng(23);
  for (Op ob : {Op::N, Op::T})
    for (auto [m, k, batch, pad] : {std::tuple{7, 5, 1, 0}, {13, 1, 2, 3}, {2, 9, 3, 1}}) {
      SCOPED_TRACE(testing::Message()
                   << "t" << op_char(ob) << " " << m << "x1x" << k << " b" << batch);
      HostRowMajor h(Op::T, ob, m, 1, k, batch, pad, 0, rng);
      const Problem r = kernel_form(h.p);
      ASSERT_EQ(r.m, 1);
      EXPECT_EQ(r.n, m);
      // x with adjacent elements (stored K x 1, unpadded) is then read as the row it is.
      EXPECT_EQ(r.op_a, ob == Op::N && pad > 0 ? Op::T : Op::N);
      EXPECT_EQ(r.op_b, Op::N);
      EXPECT_EQ(check_arguments(r), Work::gemm);
      expect_same_bits(h, r);
    }
}

// A vector whose elements are adjacent in a column (B with N = 1, A transposed with M = 1) is
// read as the row it is in memory: the op flips, the leading dimension becomes K, the same sums.
TEST(Layout, AdjacentVectorElementsAreReadAsARow) {
  std::mt19937 rng(31);
  struct Case {
    Op op_a, op_b;
    int m, n, k, batch;
    Op want_a, want_b;
  };
  const Case cases[] = {
      {Op::N, Op::N, 7, 1, 5, 2, Op::N, Op::T},  // A x
      {Op::T, Op::N, 1, 9, 6, 3, Op::N, Op::N},  // x^T B with x stored as a column
      {Op::T, Op::T, 1, 9, 6, 1, Op::N, Op::T},
      {Op::N, Op::N, 1, 1, 11, 2, Op::N, Op::T},  // dot products: every layout runs as nt
      {Op::T, Op::N, 1, 1, 11, 1, Op::N, Op::T},
      {Op::T, Op::T, 1, 1, 11, 1, Op::N, Op::T},
      {Op::N, Op::N, 3, 1, 1, 1, Op::N, Op::T},  // K = 1
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message()
                 << op_char(c.op_a) << op_char(c.op_b) << " " << c.m << "x" << c.n << "x" << c.k);
    HostRowMajor h(c.op_a, c.op_b, c.m, c.n, c.k, c.batch, 0, 0, rng);
    const Problem r = kernel_form(h.p);
    EXPECT_EQ(r.op_a, c.want_a);
    EXPECT_EQ(r.op_b, c.want_b);
    EXPECT_EQ(r.m, c.m);
    EXPECT_EQ(r.n, c.n);
    EXPECT_EQ(check_arguments(r), Work::gemm);
    expect_same_bits(h, r);
  }
}

TEST(Layout, OtherProblemsRunAsTheyAre) {
  std::mt19937 rng(29);
  auto unchanged = [](const Problem& p) {
    const Problem r = kernel_form(p);
    return r.m == p.m && r.n == p.n && r.a == p.a && r.op_a == p.op_a && r.op_b == p.op_b &&
           r.lda == p.lda && r.ldb == p.ldb && r.ldc == p.ldc;
  };
  EXPECT_TRUE(
      unchanged(HostRowMajor(Op::N, Op::N, 7, 1, 5, 1, 2, 0, rng).p));  // x's elements apart
  EXPECT_TRUE(unchanged(HostRowMajor(Op::N, Op::T, 7, 1, 5, 1, 0, 0, rng).p));  // x a row already
  EXPECT_TRUE(unchanged(HostRowMajor(Op::T, Op::N, 7, 2, 5, 1, 0, 0, rng).p));  // not a vector
  EXPECT_TRUE(
      unchanged(HostRowMajor(Op::T, Op::N, 1, 1, 5, 1, 3, 0, rng).p));  // a dot of strided vectors
  EXPECT_TRUE(
      unchanged(HostRowMajor(Op::T, Op::N, 7, 1, 5, 1, 1, 2, rng).p));  // C's elements apart
  // Pointer arrays trade places with the operands.
  Problem arrays = Problem::packed(Op::T, Op::N, 7, 1, 5, 2);
  const float* a_ptrs[2] = {nullptr, nullptr};
  const float* b_ptrs[2] = {nullptr, nullptr};
  arrays.pointer_arrays = true, arrays.a_array = a_ptrs, arrays.b_array = b_ptrs;
  const Problem r = kernel_form(arrays);
  EXPECT_EQ(r.a_array, arrays.b_array);
  EXPECT_EQ(r.b_array, arrays.a_array);
}

TEST(Layout, SwapsOperandsAndSizes) {
  Problem p = Problem::packed(Op::T, Op::N, 10, 20, 30, 2);
  p.a = reinterpret_cast<const float*>(std::uintptr_t(256));
  p.b = reinterpret_cast<const float*>(std::uintptr_t(512));
  p.lda = 11, p.ldb = 33, p.stride_a = 1000, p.stride_b = 2000;
  const Problem r = as_row_major(Layout::col_major, p);
  EXPECT_EQ(r.m, 20);
  EXPECT_EQ(r.n, 10);
  EXPECT_EQ(r.k, 30);
  EXPECT_EQ(r.op_a, Op::N);
  EXPECT_EQ(r.op_b, Op::T);
  EXPECT_EQ(r.a, p.b);
  EXPECT_EQ(r.b, p.a);
  EXPECT_EQ(r.lda, 33);
  EXPECT_EQ(r.ldb, 11);
  EXPECT_EQ(r.stride_a, 2000);
  EXPECT_EQ(r.stride_b, 1000);
  EXPECT_EQ(r.c, p.c);
  EXPECT_EQ(r.ldc, p.ldc);
  const Problem same = as_row_major(Layout::row_major, p);
  EXPECT_EQ(same.m, p.m);
  EXPECT_EQ(same.a, p.a);
}

TEST(Layout, ColumnMajorLeadingDimensionsCoverAColumn) {
  Problem p = Problem::packed(Op::N, Op::N, 100, 200, 300);
  p.a = p.b = reinterpret_cast<const float*>(std::uintptr_t(256));
  p.c = reinterpret_cast<float*>(std::uintptr_t(1024));
  p.lda = 100, p.ldb = 300, p.ldc = 100;  // column-major packed
  EXPECT_EQ(check_arguments(p, Layout::col_major), Work::gemm);
  EXPECT_THROW(check_arguments(p, Layout::row_major), Error);  // rows of A have K = 300 floats
  p.lda = 99;
  try {
    check_arguments(p, Layout::col_major);
    ADD_FAILURE() << "lda 99 accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("lda = 99 is smaller than a column of A"),
              std::string::npos)
        << e.what();
  }
}

TEST(BlasSemantics, WhatACallHasToDo) {
  Problem p = Problem::packed(Op::N, Op::N, 4, 5, 6);
  p.alpha = 1.f, p.beta = 0.5f;
  EXPECT_EQ(work_of(p), Work::gemm);
  for (auto field : {&Problem::m, &Problem::n, &Problem::batch}) {
    Problem q = p;
    q.*field = 0;
    EXPECT_EQ(work_of(q), Work::none);
  }
  Problem q = p;
  q.k = 0;
  EXPECT_EQ(work_of(q), Work::scale_c);
  q.beta = 1.f;
  EXPECT_EQ(work_of(q), Work::none);  // C = 1 C
  q = p;
  q.alpha = 0.f;
  EXPECT_EQ(work_of(q), Work::scale_c);
  q.beta = 0.f;
  EXPECT_EQ(work_of(q), Work::scale_c);  // C = 0
  q.alpha = -0.f;
  EXPECT_EQ(work_of(q), Work::scale_c);
  q.alpha = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(work_of(q), Work::gemm);  // NaN is not zero
}

TEST(BlasSemantics, KZeroOrAlphaZeroNeedsNoAOrB) {
  for (Layout layout : {Layout::row_major, Layout::col_major}) {
    Problem p = Problem::packed(Op::N, Op::N, 4, 5, 0);
    p.lda = 4, p.ldb = 5, p.ldc = 5;  // enough for either layout
    p.c = reinterpret_cast<float*>(std::uintptr_t(1024));
    p.beta = 2.f;
    EXPECT_EQ(check_arguments(p, layout), Work::scale_c);
    p.c = nullptr;
    EXPECT_THROW(check_arguments(p, layout), Error);  // C is still written
    p.beta = 1.f;
    EXPECT_EQ(check_arguments(p, layout), Work::none);
  }
  Problem p = Problem::packed(Op::N, Op::N, 4, 5, 6, 3);
  p.c = reinterpret_cast<float*>(std::uintptr_t(1024));
  p.alpha = 0.f, p.beta = 0.f;
  p.stride_a = -7;  // A is not read: its stride does not matter
  EXPECT_EQ(check_arguments(p), Work::scale_c);
  p.stride_c = 1;  // but batches of C must not overlap
  EXPECT_THROW(check_arguments(p), Error);
}

TEST(BlasSemantics, HostReferenceScalesCWithoutReadingAOrB) {
  // What the GPU tests expect of the kernels: K = 0 gives beta C; alpha = 0 ignores NaN in A.
  std::mt19937 rng(5);
  HostProblem h(Op::N, Op::T, 3, 4, 5, 1, 1, rng);
  std::fill(h.a.begin(), h.a.end(), std::numeric_limits<float>::quiet_NaN());
  h.p.alpha = 0.f, h.p.beta = 2.f;
  const std::vector<float> c0 = h.c;
  host_gemm(as_row_major(Layout::col_major, h.p), row_major_at);
  for (long long j = 0; j < h.p.n; ++j)
    for (long long i = 0; i < h.p.ldc; ++i) {
      const long long at = col_major_at(i, j, h.p.ldc);
      EXPECT_EQ(h.c[at], i < h.p.m ? 2.f * c0[at] : c0[at]) << i << ", " << j;  // padding untouched
    }
}

float* fake() { return reinterpret_cast<float*>(std::uintptr_t(1024)); }

TEST(CApi, LayoutIsChecked) {
  const float one = 1.f, zero = 0.f;
  EXPECT_EQ(gemmtune_sgemm(nullptr, gemmtune_layout_t(7), GEMMTUNE_OP_N, GEMMTUNE_OP_N, 4, 4, 4,
                           1.f, fake(), 4, fake(), 4, 0.f, fake(), 4, nullptr),
            GEMMTUNE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmtune_last_error()).find("layout = 7"), std::string::npos)
      << gemmtune_last_error();
  // Column-major: lda must cover a column of A (M = 100 floats).
  EXPECT_EQ(gemmtune_cublasSgemm(nullptr, GEMMTUNE_OP_N, GEMMTUNE_OP_N, 100, 200, 300, &one, fake(),
                                 99, fake(), 300, &zero, fake(), 100),
            GEMMTUNE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmtune_last_error()).find("lda = 99 is smaller than a column of A"),
            std::string::npos)
      << gemmtune_last_error();
  // Valid column-major arguments (CUBLAS_OP_C is the transpose): only the handle is missing.
  EXPECT_EQ(gemmtune_cublasSgemm(nullptr, GEMMTUNE_OP_C, GEMMTUNE_OP_N, 100, 200, 300, &one, fake(),
                                 300, fake(), 300, &zero, fake(), 100),
            GEMMTUNE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmtune_last_error()).find("handle is NULL"), std::string::npos)
      << gemmtune_last_error();
  EXPECT_EQ(gemmtune_cublasSgemm(nullptr, GEMMTUNE_OP_N, GEMMTUNE_OP_N, 100, 200, 300, nullptr,
                                 fake(), 100, fake(), 300, &zero, fake(), 100),
            GEMMTUNE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmtune_last_error()).find("alpha is a null pointer"), std::string::npos);
  // K = 0 needs no A or B, even through the cuBLAS-shaped call.
  EXPECT_EQ(
      gemmtune_cublasSgemmStridedBatched(nullptr, GEMMTUNE_OP_N, GEMMTUNE_OP_N, 10, 20, 0, &one,
                                         nullptr, 10, 0, nullptr, 1, 0, &zero, fake(), 10, 200, 2),
      GEMMTUNE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmtune_last_error()).find("handle is NULL"), std::string::npos)
      << gemmtune_last_error();
  // M = 0: nothing to do, no pointer needed; only the handle is missing.
  EXPECT_EQ(gemmtune_sgemm(nullptr, GEMMTUNE_COL_MAJOR, GEMMTUNE_OP_N, GEMMTUNE_OP_N, 0, 4, 4, 1.f,
                           nullptr, 1, nullptr, 4, 0.f, nullptr, 1, nullptr),
            GEMMTUNE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmtune_last_error()).find("handle is NULL"), std::string::npos)
      << gemmtune_last_error();
}

TEST(CApi, PrepareChecksItsProblems) {
  gemmtune_problem p{};
  p.layout = GEMMTUNE_COL_MAJOR, p.op_a = GEMMTUNE_OP_N, p.op_b = GEMMTUNE_OP_T, p.m = 4, p.n = -1,
  p.k = 4;
  EXPECT_EQ(gemmtune_prepare(nullptr, &p, 1, nullptr), GEMMTUNE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmtune_last_error()).find("must not be negative"), std::string::npos);
  EXPECT_EQ(gemmtune_prepare(nullptr, nullptr, 1, nullptr), GEMMTUNE_STATUS_INVALID_ARGUMENT);
  p.n = 4;
  EXPECT_EQ(gemmtune_prepare(nullptr, &p, 1, nullptr), GEMMTUNE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmtune_last_error()).find("handle is NULL"), std::string::npos);
}

}  // namespace
}  // namespace gemmtune::test
