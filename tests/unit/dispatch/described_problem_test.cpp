// gemmtune_problem, the C API's description of a call without its data (gemmtune_prepare,
// gemmtune_explain_problem): the problem it describes must have the class of the call itself,
// operand by operand, so that a prepared call finds its kernel during graph capture. Needs no
// GPU: the description is read before the handle is looked at.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "gemmtune/calls.hpp"
#include "gemmtune/gemmtune.h"
#include "gemmtune/gemmtune.hpp"

namespace gemmtune::test {
namespace {

gemmtune_problem describe(gemmtune_layout_t layout, gemmtune_op_t op_a, gemmtune_op_t op_b, int m,
                          int n, int k, int lda = 0, int ldb = 0, int ldc = 0) {
  gemmtune_problem q{};
  q.layout = layout, q.op_a = op_a, q.op_b = op_b, q.m = m, q.n = n, q.k = k;
  q.alpha = 1, q.lda = lda, q.ldb = ldb, q.ldc = ldc;
  return q;
}

// The row-major problem of the real call with 16-byte aligned (fake, never read) pointers.
Problem real_call(Layout layout, Op op_a, Op op_b, int m, int n, int k, long long lda,
                  long long ldb, long long ldc, int batch = 1, long long stride_a = 0,
                  long long stride_b = 0, long long stride_c = 0) {
  const auto* a = reinterpret_cast<const float*>(std::uintptr_t(4096));
  const auto* b = reinterpret_cast<const float*>(std::uintptr_t(8192));
  auto* c = reinterpret_cast<float*>(std::uintptr_t(16384));
  return as_row_major(layout, detail::make_problem(op_a, op_b, m, n, k, 1.f, a, lda, stride_a, b,
                                                   ldb, stride_b, 0.f, c, ldc, stride_c, batch));
}

// The fields of the dispatcher's plan key: what decides which kernel runs.
void expect_same_class(const Problem& described, const Problem& call) {
  EXPECT_EQ(described.m, call.m);
  EXPECT_EQ(described.n, call.n);
  EXPECT_EQ(described.k, call.k);
  EXPECT_EQ(described.batch, call.batch);
  EXPECT_EQ(described.op_a, call.op_a);
  EXPECT_EQ(described.op_b, call.op_b);
  EXPECT_EQ(described.a_alignment(), call.a_alignment());
  EXPECT_EQ(described.b_alignment(), call.b_alignment());
  EXPECT_EQ(described.c_alignment(), call.c_alignment());
  EXPECT_EQ(described.pointer_arrays, call.pointer_arrays);
}

TEST(DescribedProblem, OneOddLeadingDimensionNarrowsOnlyItsOperand) {
  // Column-major 512x256x1024 with A padded to an odd lda: only A (the row-major B) is narrowed.
  const Problem p = detail::described_problem(
      describe(GEMMTUNE_COL_MAJOR, GEMMTUNE_OP_N, GEMMTUNE_OP_N, 512, 256, 1024, 513), "");
  EXPECT_EQ(p.b_alignment(), 1);
  EXPECT_EQ(p.a_alignment(), 4);
  EXPECT_EQ(p.c_alignment(), 4);
  expect_same_class(p, real_call(Layout::col_major, Op::N, Op::N, 512, 256, 1024, 513, 1024, 512));
  // Row-major, ldc odd only.
  const Problem r = detail::described_problem(
      describe(GEMMTUNE_ROW_MAJOR, GEMMTUNE_OP_N, GEMMTUNE_OP_T, 1024, 4096, 768, 0, 0, 4097), "");
  EXPECT_EQ(r.a_alignment(), 4);
  EXPECT_EQ(r.b_alignment(), 4);
  EXPECT_EQ(r.c_alignment(), 1);
  expect_same_class(r, real_call(Layout::row_major, Op::N, Op::T, 1024, 4096, 768, 768, 768, 4097));
}

TEST(DescribedProblem, PackedByDefaultAsEveryLayoutStoresIt) {
  for (gemmtune_layout_t layout : {GEMMTUNE_ROW_MAJOR, GEMMTUNE_COL_MAJOR})
    for (gemmtune_op_t op_a : {GEMMTUNE_OP_N, GEMMTUNE_OP_T})
      for (gemmtune_op_t op_b : {GEMMTUNE_OP_N, GEMMTUNE_OP_T}) {
        const Layout l = layout == GEMMTUNE_ROW_MAJOR ? Layout::row_major : Layout::col_major;
        const Op a = op_a == GEMMTUNE_OP_N ? Op::N : Op::T,
                 b = op_b == GEMMTUNE_OP_N ? Op::N : Op::T;
        // A stored rows x cols: packed, its leading dimension is a row (row-major) or a column.
        const int m = 33, n = 64, k = 128;
        const int a_rows = a == Op::N ? m : k, a_cols = a == Op::N ? k : m;
        const int b_rows = b == Op::N ? k : n, b_cols = b == Op::N ? n : k;
        const bool row = l == Layout::row_major;
        SCOPED_TRACE(std::string(layout_name(l)) + " " + op_char(a) + op_char(b));
        gemmtune_problem q = describe(layout, op_a, op_b, m, n, k);
        q.batch = 3;
        const Problem p = detail::described_problem(q, "");
        const long long lda = row ? a_cols : a_rows, ldb = row ? b_cols : b_rows, ldc = row ? n : m;
        expect_same_class(
            p, real_call(l, a, b, m, n, k, lda, ldb, ldc, 3, lda * (row ? a_rows : a_cols),
                         ldb * (row ? b_rows : b_cols), ldc * (row ? m : n)));
      }
}

TEST(DescribedProblem, PointerArraysAndDeviceScalars) {
  gemmtune_problem q =
      describe(GEMMTUNE_COL_MAJOR, GEMMTUNE_OP_T, GEMMTUNE_OP_N, 64, 96, 128, 130, 0, 66);
  q.pointer_arrays = 1, q.device_scalars = 1, q.batch = 5;
  const Problem p = detail::described_problem(q, "");
  EXPECT_TRUE(p.pointer_arrays);
  EXPECT_NE(p.alpha_ptr, nullptr);
  EXPECT_NE(p.beta_ptr, nullptr);
  EXPECT_EQ(work_of(p), Work::gemm);  // a device alpha is not known to be 0
  EXPECT_EQ(p.b_alignment(), 2);      // lda 130: the column-major A is the row-major B
  EXPECT_EQ(p.a_alignment(), 4);
  EXPECT_EQ(p.c_alignment(), 2);  // ldc 66
}

TEST(DescribedProblem, BadFieldsAreNamedInTheCallersTerms) {
  auto message = [](const gemmtune_problem& q) {
    try {
      detail::described_problem(q, "problem 2: ");
    } catch (const Error& e) {
      EXPECT_EQ(e.status(), Status::kInvalidArgument);
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  // Column-major A (10 x 30, op N) needs lda >= 10.
  const std::string short_lda =
      message(describe(GEMMTUNE_COL_MAJOR, GEMMTUNE_OP_N, GEMMTUNE_OP_N, 10, 20, 30, 9));
  EXPECT_EQ(short_lda.rfind("problem 2: lda = 9", 0), 0u) << short_lda;
  EXPECT_NE(short_lda.find("column"), std::string::npos) << short_lda;
  EXPECT_NE(message(describe(GEMMTUNE_ROW_MAJOR, GEMMTUNE_OP_N, GEMMTUNE_OP_N, 10, 20, 30, 0, -1))
                .find("must not be negative"),
            std::string::npos);
  gemmtune_problem q = describe(GEMMTUNE_ROW_MAJOR, GEMMTUNE_OP_N, GEMMTUNE_OP_N, 10, 20, 30);
  q.alignment = 3;
  EXPECT_NE(message(q).find("alignment must be 0, 1, 2 or 4"), std::string::npos);
  q.alignment = 0, q.layout = gemmtune_layout_t(7);
  EXPECT_NE(message(q).find("layout = 7"), std::string::npos);
  // K = 0 is a valid call (C = beta C): packed leading dimensions of 0 become 1.
  EXPECT_EQ(message(describe(GEMMTUNE_ROW_MAJOR, GEMMTUNE_OP_N, GEMMTUNE_OP_N, 10, 20, 0)),
            "accepted");
}

TEST(DescribedProblem, ExplainProblemChecksBeforeTheHandle) {
  gemmtune_problem q = describe(GEMMTUNE_ROW_MAJOR, GEMMTUNE_OP_N, GEMMTUNE_OP_N, 10, 20, 30, 5);
  char buffer[16];
  EXPECT_EQ(gemmtune_explain_problem(nullptr, nullptr, buffer, sizeof buffer, nullptr),
            GEMMTUNE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmtune_last_error()).find("problem is NULL"), std::string::npos);
  EXPECT_EQ(gemmtune_explain_problem(nullptr, &q, buffer, sizeof buffer, nullptr),
            GEMMTUNE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmtune_last_error()).find("explain: lda = 5"), std::string::npos)
      << gemmtune_last_error();
  q.lda = 0;
  EXPECT_EQ(gemmtune_explain_problem(nullptr, &q, buffer, sizeof buffer, nullptr),
            GEMMTUNE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmtune_last_error()).find("handle is NULL"), std::string::npos)
      << gemmtune_last_error();
  // The shape-only explain keeps its rule: batch at least 1.
  EXPECT_EQ(gemmtune_explain(nullptr, GEMMTUNE_ROW_MAJOR, GEMMTUNE_OP_N, GEMMTUNE_OP_N, 10, 20, 30,
                             0, 0, buffer, sizeof buffer, nullptr),
            GEMMTUNE_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gemmtune_last_error()).find("at least 1"), std::string::npos)
      << gemmtune_last_error();
}

}  // namespace
}  // namespace gemmtune::test
