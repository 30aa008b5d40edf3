// A dispatcher with no tuning database of the user's runs the kernels of a shipped one
// (shipped.hpp) and computes right: a shipped file made here for this GPU's model (and one for its
// architecture, under another model's name), and the files the build carries (db/shipped/), when
// one fits.
#include <gtest/gtest.h>

#include <random>

#include "gemmtune/gemmtune.h"
#include "gemmtune/shipped.hpp"
#include "gpu/dispatch/dispatch_check.hpp"
#include "support/gpu_env.hpp"
#include "support/shipped_env.hpp"
#include "unit/dispatch/tuning_db.hpp"

namespace gemmtune::test {
namespace {

// A shipped file for `model` of this GPU's architecture in `dir`, tuned on three nn problems.
void write_shipped(const std::string& dir, const std::string& model, const DeviceInfo& device,
                   const std::vector<GemmConfig>& pool) {
  TuningDbBuilder b(dir + "/" + shipped_file_name(model));
  b.gpu(model, device.limits.cc_major, device.limits.cc_minor, device.sm_count);
  b.add(db_problem(Op::N, Op::N, 256, 256, 256), pool[0], 0.02);
  b.add(db_problem(Op::N, Op::N, 96, 80, 1000, 1, 1), pool[1], 0.03);  // alignment 1
  b.add(db_problem(Op::N, Op::N, 64, 64, 64, 3), pool[2], 0.01);       // batched
}

DispatcherOptions without_user_database(const std::string& dir) {
  DispatcherOptions o;
  o.db_path = dir + "/no-user-database.db";  // missing: the shipped file answers
  return o;
}

// Runs the shipped file's problems through `d`: each must come from the shipped file, exactly,
// and match the float64 reference.
void expect_shipped_answers(Dispatcher& d, bool other_model) {
  ReferenceGemm reference(d.device().limits.arch());
  std::mt19937_64 rng(41);
  for (auto [m, n, k, batch] : {std::tuple{256, 256, 256, 1}, {96, 80, 1000, 1}, {64, 64, 64, 3}}) {
    ProblemData data(shape(Op::N, Op::N, m, n, k, batch), m == 96 ? 1 : 0, 0, rng);
    const Explanation e = d.explain(data.p);
    EXPECT_EQ(e.source, ChoiceSource::exact) << describe(data.p) << "\n" << e.to_string();
    EXPECT_TRUE(e.shipped) << e.to_string();
    EXPECT_EQ(e.shipped_other_model, other_model) << e.to_string();
    EXPECT_LE(dispatch_error(d, data, reference), fp32_tolerance(k)) << describe(data.p);
  }
}

class DispatchShipped : public ::testing::Test {
 protected:
  void SetUp() override {
    GEMMTUNE_REQUIRE_GPU();
    device_ = device_info(0);
    pool_ = tuned_pool(device_.limits, Op::N, Op::N);
    ASSERT_GE(pool_.size(), 3u);
    dir_ = scratch_dir("gpu_shipped").string();
  }
  DeviceInfo device_;
  std::vector<GemmConfig> pool_;
  std::string dir_;
};

TEST_F(DispatchShipped, TheModelsOwnFileAnswers) {
  write_shipped(dir_, device_.name, device_, pool_);
  ShippedOn on(dir_);
  Dispatcher d(without_user_database(dir_));
  EXPECT_EQ(d.shipped_database_path(), dir_ + "/" + shipped_file_name(device_.name));
  expect_shipped_answers(d, false);
}

TEST_F(DispatchShipped, TheArchitecturesFileAnswersAnotherModel) {
  write_shipped(dir_, "Another GPU of " + device_.limits.arch(), device_, pool_);
  ShippedOn on(dir_);
  Dispatcher d(without_user_database(dir_));
  expect_shipped_answers(d, true);
}

TEST_F(DispatchShipped, CApiCanSwitchThemOff) {
  write_shipped(dir_, device_.name, device_, pool_);
  ShippedOn on(dir_);
  const std::string path = dir_ + "/no-user-database.db";
  for (int off : {0, 1}) {
    gemmtune_options o;
    gemmtune_options_init(&o);
    EXPECT_EQ(o.no_shipped, 0);
    o.db_path = path.c_str();
    o.no_shipped = off;
    gemmtune_handle_t h = nullptr;
    ASSERT_EQ(gemmtune_create(&h, &o), GEMMTUNE_STATUS_SUCCESS) << gemmtune_last_error();
    char text[4096];
    size_t length = 0;
    ASSERT_EQ(gemmtune_explain(h, GEMMTUNE_ROW_MAJOR, GEMMTUNE_OP_N, GEMMTUNE_OP_N, 256, 256, 256,
                               1, 0, text, sizeof text, &length),
              GEMMTUNE_STATUS_SUCCESS);
    const std::string s = text;
    EXPECT_EQ(s.find("source   exact") != std::string::npos, off == 0) << s;
    EXPECT_EQ(s.find("(shipped with gemmtune for this GPU model)") != std::string::npos, off == 0)
        << s;
    EXPECT_EQ(gemmtune_destroy(h), GEMMTUNE_STATUS_SUCCESS);
  }
}

// The files db/shipped/ holds, as the build carries them (build/share/gemmtune/tuning): a problem
// of db/shipped/shapes.csv runs from the one that fits this GPU, and computes right.
TEST_F(DispatchShipped, TheBuildsShippedFileAnswersAProblemOfShapesCsv) {
  ShippedOn on("");  // the folders beside the library
  std::vector<std::string> notes;
  const GpuIdentity gpu{device_.name, device_.limits.cc_major, device_.limits.cc_minor,
                        device_.sm_count};
  if (!find_shipped(gpu, shipped_search_dirs(), notes))
    GTEST_SKIP() << "no shipped tuning database fits " << device_.name << " ("
                 << device_.limits.arch() << ") in the folders beside the library";
  DispatcherOptions o = without_user_database(dir_);
  Dispatcher d(o);
  ReferenceGemm reference(device_.limits.arch());
  std::mt19937_64 rng(43);
  // 1024x1024x1024 nn and 4096x4096x4096 nt are rows of db/shipped/shapes.csv.
  for (auto [oa, ob, m] : {std::tuple{Op::N, Op::N, 1024}, {Op::N, Op::T, 4096}}) {
    ProblemData data(shape(oa, ob, m, m, m), 0, 0, rng);
    const Explanation e = d.explain(data.p);
    EXPECT_TRUE(e.shipped) << e.to_string();
    EXPECT_EQ(e.source, ChoiceSource::exact) << e.to_string();
    EXPECT_EQ(e.database, d.shipped_database_path());
    EXPECT_LE(dispatch_error(d, data, reference), fp32_tolerance(m)) << describe(data.p);
  }
}

}  // namespace
}  // namespace gemmtune::test
