// The CPU baseline of `gemmtune bench --cpu` computes what gemmtune computes: every layout, a
// batch and leading dimensions wider than the rows, against a plain triple loop in double. Built
// without OpenBLAS, it says how to get it.
#include "cpu_blas.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "gemmtune/error.hpp"

namespace gemmtune::tools_test {
namespace {

using cli::cpu_blas_setup;
using cli::cpu_sgemm;

// Element (r, c) of op(X) for a row-major X with leading dimension ld.
float at(const float* x, Op op, long long ld, int r, int c) {
  return op == Op::N ? x[r * ld + c] : x[c * ld + r];
}

#ifdef GEMMTUNE_HAVE_OPENBLAS

TEST(CpuBlas, UsesEveryCoreAndNamesItself) {
  const cli::CpuBlas blas = cpu_blas_setup();
  EXPECT_GE(blas.threads, 1);
  EXPECT_NE(blas.library.find("OpenBLAS"), std::string::npos) << blas.library;
}

TEST(CpuBlas, MatchesATripleLoopInEveryLayout) {
  cpu_blas_setup();
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  for (Op op_a : {Op::N, Op::T}) {
    for (Op op_b : {Op::N, Op::T}) {
      Problem p = Problem::packed(op_a, op_b, 37, 29, 53, 3);
      p.lda += 3, p.ldb += 5, p.ldc += 2;  // padded rows: the leading dimensions must be honoured
      p.stride_a = p.a_rows() * p.lda, p.stride_b = p.b_rows() * p.ldb, p.stride_c = p.m * p.ldc;
      std::vector<float> a(p.stride_a * p.batch), b(p.stride_b * p.batch),
          c(p.stride_c * p.batch, 0.5f);
      for (auto& x : a) x = d(rng);
      for (auto& x : b) x = d(rng);
      p.a = a.data(), p.b = b.data(), p.c = c.data(), p.alpha = 2.0f, p.beta = 0.25f;
      cpu_sgemm(p);
      double worst = 0;
      for (int i = 0; i < p.batch; ++i)
        for (int r = 0; r < p.m; ++r)
          for (int col = 0; col < p.n; ++col) {
            double sum = 0;
            for (int k = 0; k < p.k; ++k)
              sum += double(at(p.a + i * p.stride_a, op_a, p.lda, r, k)) *
                     at(p.b + i * p.stride_b, op_b, p.ldb, k, col);
            const double want = 2.0 * sum + 0.25 * 0.5;
            worst = std::max(worst, std::abs(want - c[i * p.stride_c + r * p.ldc + col]));
          }
      EXPECT_LT(worst, 1e-4) << "layout " << p.layout();
    }
  }
}

#else

TEST(CpuBlas, WithoutOpenBlasSaysHowToGetIt) {
  try {
    cpu_blas_setup();
    FAIL() << "built without OpenBLAS, yet it set up";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("apt-get install libopenblas-dev"), std::string::npos)
        << e.what();
  }
}

#endif

}  // namespace
}  // namespace gemmtune::tools_test
