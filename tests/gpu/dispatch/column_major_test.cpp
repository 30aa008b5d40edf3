// Column-major calls and BLAS semantics on the GPU, against cuBLAS's own column-major call on the
// same buffers: gemmtune_cublasSgemmStridedBatched (cuBLAS's arguments) and the column-major
// gemmtune_sgemm_strided_batched give the same bits as the row-major call they become (same
// dispatcher, same config), and gemmtune and cuBLAS are both within the reference tolerance of
// the float64 reference.
#include <cmath>
#include <limits>
#include <random>

#include "gpu/dispatch/beside_cublas.hpp"

namespace gemmtune::test {
namespace {

// A column-major problem with its own device memory: ld padded by `pad`, random A, B and C.
struct ColumnMajorData {
  Problem p;  // column-major, as the caller describes it
  std::vector<float> c_init;
  DeviceArray<float> a, b, c;
  ColumnMajorData(Op op_a, Op op_b, int m, int n, int k, int batch, int pad, std::mt19937_64& rng)
      : p(with_lds(op_a, op_b, m, n, k, batch, pad)),
        a(size_t(p.stride_a) * batch),
        b(size_t(p.stride_b) * batch),
        c(size_t(p.stride_c) * batch) {
    a.upload(random_floats(a.size(), rng));
    b.upload(random_floats(b.size(), rng));
    c_init = random_floats(c.size(), rng);
    c.upload(c_init);
    p.a = a.get(), p.b = b.get(), p.c = c.get();
  }
  static Problem with_lds(Op op_a, Op op_b, int m, int n, int k, int batch, int pad) {
    Problem p;
    p.op_a = op_a, p.op_b = op_b, p.m = m, p.n = n, p.k = k, p.batch = batch;
    p.lda = p.a_rows() + pad, p.ldb = p.b_rows() + pad, p.ldc = m + pad;
    p.stride_a = p.lda * p.a_cols(), p.stride_b = p.ldb * p.b_cols(), p.stride_c = p.ldc * n;
    p.alpha = 1.25f, p.beta = 0.5f;
    return p;
  }
  void reset_c() { c.upload(c_init); }
};

class ColumnMajor : public BesideCublas {
 protected:
  // Relative error of C (column-major) against the float64 reference of the caller's problem.
  double error(const ColumnMajorData& d, const std::vector<double>& ref) {
    const Problem r = as_row_major(Layout::col_major, d.p);
    return relative_error(d.c.download(), r.ldc, r.stride_c, ref, r.m, r.n, r.batch);
  }
};

TEST_F(ColumnMajor, MatchesCublasOnTheSameBuffers) {
  std::mt19937_64 rng(11);
  for (auto [oa, ob] : {std::pair{Op::N, Op::N}, {Op::N, Op::T}, {Op::T, Op::N}, {Op::T, Op::T}})
    for (auto [m, n, k, batch, pad] : {std::tuple{127, 65, 129, 1, 0},
                                       {64, 96, 33, 3, 1},
                                       {1, 300, 200, 1, 0},
                                       {300, 1, 200, 2, 3},
                                       {256, 256, 256, 1, 0}}) {
      ColumnMajorData d(oa, ob, m, n, k, batch, pad, rng);
      const Problem& p = d.p;
      SCOPED_TRACE(describe(p));
      DeviceArray<double> ref(size_t(batch) * m * n);
      reference_->run(as_row_major(Layout::col_major, p), ref.get(), nullptr);
      const std::vector<double> want = ref.download();
      const double tolerance = fp32_tolerance(k);

      CUBLAS_OK(cublasSgemmStridedBatched(cublas_, cublas_op(oa), cublas_op(ob), m, n, k, &p.alpha,
                                          p.a, int(p.lda), p.stride_a, p.b, int(p.ldb), p.stride_b,
                                          &p.beta, p.c, int(p.ldc), p.stride_c, batch));
      GEMMTUNE_CUDA(cudaDeviceSynchronize());
      EXPECT_LE(error(d, want), tolerance) << "cuBLAS";

      // The cuBLAS-shaped call: the cuBLAS call site with gemmtune_ in front.
      d.reset_c();
      ASSERT_EQ(gemmtune_cublasSgemmStridedBatched(
                    handle_, c_op(oa), c_op(ob), m, n, k, &p.alpha, p.a, int(p.lda), p.stride_a,
                    p.b, int(p.ldb), p.stride_b, &p.beta, p.c, int(p.ldc), p.stride_c, batch),
                GEMMTUNE_STATUS_SUCCESS)
          << gemmtune_last_error();
      GEMMTUNE_CUDA(cudaDeviceSynchronize());
      EXPECT_LE(error(d, want), tolerance) << "gemmtune_cublasSgemmStridedBatched";
      const std::vector<float> from_cublas_shape = d.c.download();

      // The CBLAS-shaped call, and the row-major problem it becomes: the same kernel, the same bits.
      d.reset_c();
      ASSERT_EQ(
          gemmtune_sgemm_strided_batched(handle_, GEMMTUNE_COL_MAJOR, c_op(oa), c_op(ob), m, n, k,
                                         p.alpha, p.a, p.lda, p.stride_a, p.b, p.ldb, p.stride_b,
                                         p.beta, p.c, p.ldc, p.stride_c, batch, nullptr),
          GEMMTUNE_STATUS_SUCCESS)
          << gemmtune_last_error();
      GEMMTUNE_CUDA(cudaDeviceSynchronize());
      EXPECT_EQ(d.c.download(), from_cublas_shape);
      d.reset_c();
      const Problem r = as_row_major(Layout::col_major, p);
      ASSERT_EQ(gemmtune_sgemm_strided_batched(handle_, GEMMTUNE_ROW_MAJOR, c_op(r.op_a),
                                               c_op(r.op_b), r.m, r.n, r.k, r.alpha, r.a, r.lda,
                                               r.stride_a, r.b, r.ldb, r.stride_b, r.beta, r.c,
                                               r.ldc, r.stride_c, batch, nullptr),
                GEMMTUNE_STATUS_SUCCESS)
          << gemmtune_last_error();
      GEMMTUNE_CUDA(cudaDeviceSynchronize());
      EXPECT_EQ(d.c.download(), from_cublas_shape);
    }
}

// K = 0 and alpha = 0: C = beta C exactly (one float multiply per element, as BLAS does it),
// without reading A or B (NaN there must not reach C); beta = 0 overwrites NaN in C; beta = 1
// leaves C alone. Padding between the columns of C is never written.
TEST_F(ColumnMajor, BlasSemanticsWithoutReadingAOrB) {
  std::mt19937_64 rng(12);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  struct Case {
    int k;
    float alpha, beta;
    bool nan_c;
  };
  for (const Case& s :
       {Case{0, 1.f, 0.5f, false}, Case{0, 1.f, 0.f, true}, Case{64, 0.f, -2.f, false},
        Case{64, 0.f, 0.f, true}, Case{0, 1.f, 1.f, false}}) {
    SCOPED_TRACE(testing::Message() << "k " << s.k << " alpha " << s.alpha << " beta " << s.beta);
    ColumnMajorData d(Op::N, Op::T, 77, 45, s.k, 2, 1, rng);
    Problem& p = d.p;
    p.alpha = s.alpha, p.beta = s.beta;
    d.a.upload(std::vector<float>(d.a.size(), nan));  // never to be read
    d.b.upload(std::vector<float>(d.b.size(), nan));
    if (s.nan_c) d.c_init.assign(d.c_init.size(), nan);
    d.reset_c();
    ASSERT_EQ(gemmtune_cublasSgemmStridedBatched(handle_, GEMMTUNE_OP_N, GEMMTUNE_OP_T, p.m, p.n,
                                                 p.k, &p.alpha, p.a, int(p.lda), p.stride_a, p.b,
                                                 int(p.ldb), p.stride_b, &p.beta, p.c, int(p.ldc),
                                                 p.stride_c, p.batch),
              GEMMTUNE_STATUS_SUCCESS)
        << gemmtune_last_error();
    GEMMTUNE_CUDA(cudaDeviceSynchronize());
    const std::vector<float> got = d.c.download();
    for (long long i = 0; i < (long long)got.size(); ++i) {
      const bool in_c = i % p.ldc < p.m;  // column-major: row i % ldc of its column
      const float c0 = d.c_init[i];
      const float want = !in_c || p.beta == 1.f ? c0 : p.beta == 0.f ? 0.f : p.beta * c0;
      if (std::isnan(want))
        ASSERT_TRUE(std::isnan(got[i])) << i;
      else
        ASSERT_EQ(got[i], want) << i << (in_c ? "" : " (padding)");
    }
  }
}

TEST_F(ColumnMajor, PointerArrayBatchMatchesOneByOne) {
  std::mt19937_64 rng(13);
  const int batch = 4;
  ColumnMajorData d(Op::T, Op::N, 50, 70, 90, batch, 2, rng);
  const Problem& p = d.p;
  DeviceArray<double> ref(size_t(batch) * p.m * p.n);
  reference_->run(as_row_major(Layout::col_major, p), ref.get(), nullptr);
  std::vector<const float*> a(batch), b(batch);
  std::vector<float*> c(batch);
  // Runs the batch through the pointer arrays and checks C against the reference.
  auto run_and_check = [&] {
    ASSERT_EQ(gemmtune_sgemm_batched(handle_, GEMMTUNE_COL_MAJOR, GEMMTUNE_OP_T, GEMMTUNE_OP_N, p.m,
                                     p.n, p.k, p.alpha, a.data(), p.lda, b.data(), p.ldb, p.beta,
                                     c.data(), p.ldc, batch, nullptr),
              GEMMTUNE_STATUS_SUCCESS)
        << gemmtune_last_error();
    GEMMTUNE_CUDA(cudaDeviceSynchronize());
    EXPECT_LE(error(d, ref.download()), fp32_tolerance(p.k));
  };
  // Matrices in reverse order: not evenly spaced, so one launch per GEMM.
  for (int i = 0; i < batch; ++i) {
    const int j = batch - 1 - i;
    a[i] = p.a + j * p.stride_a, b[i] = p.b + j * p.stride_b, c[i] = p.c + j * p.stride_c;
  }
  run_and_check();
  // Evenly spaced pointers: one strided-batched launch.
  for (int i = 0; i < batch; ++i)
    a[i] = p.a + i * p.stride_a, b[i] = p.b + i * p.stride_b, c[i] = p.c + i * p.stride_c;
  d.reset_c();
  run_and_check();
}

}  // namespace
}  // namespace gemmtune::test
