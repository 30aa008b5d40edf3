// A program whose tuning database is missing (or not a database) still computes right, from
// the built-in defaults, through both APIs.
#include <gtest/gtest.h>

#include <fstream>
#include <random>

#include "gemmtune/gemmtune.h"
#include "gpu/dispatch/dispatch_check.hpp"
#include "support/gpu_env.hpp"
#include "unit/dispatch/tuning_db.hpp"

namespace gemmtune::test {
namespace {

TEST(DispatchMissingDb, CppApiComputesRight) {
  GEMMTUNE_REQUIRE_GPU();
  DispatcherOptions o;
  o.db_path = (scratch_dir("gpu_missing_db") / "does-not-exist.db").string();
  Dispatcher d(o);
  EXPECT_EQ(d.database_path(), "");
  EXPECT_FALSE(d.database_writable());
  EXPECT_FALSE(std::filesystem::exists(o.db_path)) << "automatic access must not create a database";
  ReferenceGemm reference(d.device().limits.arch());
  std::mt19937_64 rng(5);
  for (auto [oa, ob] : {std::pair{Op::N, Op::N}, {Op::T, Op::T}}) {
    ProblemData data(shape(oa, ob, 150, 130, 170, 2), 1, 0, rng);
    EXPECT_EQ(d.explain(data.p).source, ChoiceSource::builtin);
    EXPECT_LE(dispatch_error(d, data, reference), fp32_tolerance(170)) << describe(data.p);
  }
}

TEST(DispatchMissingDb, GarbageFileIsAWarningNotAnError) {
  GEMMTUNE_REQUIRE_GPU();
  auto path = (scratch_dir("gpu_garbage_db") / "garbage.db").string();
  std::ofstream(path)
      << "not a database at all, but long enough to look like it might have a header";
  DispatcherOptions o;
  o.db_path = path;
  Dispatcher d(o);
  ReferenceGemm reference(d.device().limits.arch());
  std::mt19937_64 rng(6);
  ProblemData data(shape(Op::T, Op::N, 64, 65, 66), 0, 0, rng);
  EXPECT_LE(dispatch_error(d, data, reference), fp32_tolerance(66));
}

TEST(DispatchMissingDb, CApiComputesRight) {
  GEMMTUNE_REQUIRE_GPU();
  std::string path = (scratch_dir("gpu_missing_db_c") / "nothing-here.db").string();
  gemmtune_options o;
  gemmtune_options_init(&o);
  o.db_path = path.c_str();
  gemmtune_handle_t h = nullptr;
  ASSERT_EQ(gemmtune_create(&h, &o), GEMMTUNE_STATUS_SUCCESS) << gemmtune_last_error();
  ReferenceGemm reference(device_info(0).limits.arch());
  std::mt19937_64 rng(8);
  ProblemData data(shape(Op::N, Op::T, 99, 101, 103), 0, 0, rng);
  const Problem& p = data.p;
  DeviceArray<double> ref(size_t(p.m) * p.n);
  reference.run(p, ref.get(), nullptr);
  ASSERT_EQ(gemmtune_sgemm(h, GEMMTUNE_ROW_MAJOR, GEMMTUNE_OP_N, GEMMTUNE_OP_T, p.m, p.n, p.k,
                           p.alpha, p.a, p.lda, p.b, p.ldb, p.beta, p.c, p.ldc, nullptr),
            GEMMTUNE_STATUS_SUCCESS)
      << gemmtune_last_error();
  GEMMTUNE_CUDA(cudaDeviceSynchronize());
  EXPECT_LE(relative_error(data.result(), p.ldc, 0, ref.download(), p.m, p.n, 1),
            fp32_tolerance(p.k));
  char text[2048];
  size_t length = 0;
  ASSERT_EQ(gemmtune_explain(h, GEMMTUNE_ROW_MAJOR, GEMMTUNE_OP_N, GEMMTUNE_OP_T, 99, 101, 103, 1,
                             0, text, sizeof text, &length),
            GEMMTUNE_STATUS_SUCCESS);
  EXPECT_NE(std::string(text).find("builtin"), std::string::npos) << text;
  EXPECT_EQ(std::string(text).size(), std::min(length, sizeof text - 1));
  EXPECT_EQ(gemmtune_sgemm(h, GEMMTUNE_ROW_MAJOR, GEMMTUNE_OP_N, GEMMTUNE_OP_T, p.m, p.n, p.k,
                           p.alpha, p.a, 5, p.b, p.ldb, p.beta, p.c, p.ldc, nullptr),
            GEMMTUNE_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(gemmtune_destroy(h), GEMMTUNE_STATUS_SUCCESS);
}

}  // namespace
}  // namespace gemmtune::test
