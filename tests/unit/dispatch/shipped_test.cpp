// The shipped tuning databases behind the user's (shipped.hpp): which file fits a GPU, and the
// chooser's chain over both, on real SQLite files in the format `gemmtune db ship` writes (one GPU
// model, results only): the user's exact result wins, a shipped exact result beats a guess from
// the user's other problems, a model without a file of its own gets its architecture's, and an
// unreadable file or a switch turns them off without an error.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fstream>

#include "gemmtune/shipped.hpp"
#include "support/sha256.hpp"
#include "support/shipped_env.hpp"
#include "unit/dispatch/tuning_db.hpp"

namespace gemmtune::test {
namespace {

const GpuIdentity kH200{"NVIDIA H200", 9, 0, 132};
const GpuIdentity kH100{"NVIDIA H100 80GB HBM3", 9, 0, 132};
const GpuIdentity kA100{"NVIDIA A100-SXM4-80GB", 8, 0, 108};

std::string trail_of(const Choice& c) {
  std::string s;
  for (const auto& line : c.trail) s += "  " + line + "\n";
  return s;
}

class Shipped : public ::testing::Test {
 protected:
  void SetUp() override {
    limits_ = DeviceLimits::for_arch("sm_90");
    pool_ = tuned_pool(limits_, Op::N, Op::N);
    ASSERT_GE(pool_.size(), 6u);
    dir_ = scratch_dir("shipped");
    shipped_dir_ = (dir_ / "tuning").string();
    std::filesystem::create_directories(shipped_dir_);
    shipped_ = shipped_dir_ + "/" + shipped_file_name("NVIDIA H200");
    {
      TuningDbBuilder b(shipped_);
      b.gpu("NVIDIA H200", 9, 0, 132);
      b.add(db_problem(Op::N, Op::N, 1024, 1024, 1024), pool_[0], 1.0);
      b.add(db_problem(Op::N, Op::N, 1024, 1024, 1024), pool_[1], 2.0);
      b.add(db_problem(Op::N, Op::N, 2048, 2048, 2048), pool_[2], 4.0);
      b.add(db_problem(Op::N, Op::N, 3000, 3000, 3000), "sgemm_nn_from_an_older_family", pool_[3],
            5.0);
    }
    user_ = (dir_ / "user.db").string();
    TuningDbBuilder u(user_);
    u.gpu("NVIDIA H200", 9, 0, 132);
    u.add(db_problem(Op::N, Op::N, 1024, 1024, 1024), pool_[3], 1.5);  // the user's own: wins
    u.add(db_problem(Op::N, Op::N, 1900, 2100, 2000), pool_[4], 3.0);  // near 2048^3
  }

  // The chooser a dispatcher on `gpu` builds: the user's database, then the shipped one.
  Chooser chooser(const GpuIdentity& gpu, const std::string& user, bool enabled = true) {
    ShippedOn on(shipped_dir_);
    return Chooser(limits_, with_shipped(load_tuning_snapshot(user, gpu), gpu, enabled));
  }

  Choice choose(const Chooser& c, long long m, long long n, long long k) {
    return c.choose(shape_only_problem(Op::N, Op::N, m, n, k));
  }

  DeviceLimits limits_;
  std::vector<GemmConfig> pool_;
  std::filesystem::path dir_;
  std::string shipped_dir_, shipped_, user_;
};

TEST(ShippedFileName, IsTheModelNameAsASlug) {
  EXPECT_EQ(shipped_file_name("NVIDIA H200"), "nvidia-h200.db");
  EXPECT_EQ(shipped_file_name("NVIDIA H100 80GB HBM3"), "nvidia-h100-80gb-hbm3.db");
  EXPECT_EQ(shipped_file_name("NVIDIA A100-SXM4-80GB"), "nvidia-a100-sxm4-80gb.db");
  EXPECT_EQ(shipped_file_name("  GeForce RTX 4090 (test)  "), "geforce-rtx-4090-test.db");
  EXPECT_EQ(shipped_file_name(""), "unnamed.db");
}

TEST_F(Shipped, TheUsersExactResultWins) {
  const Choice c = choose(chooser(kH200, user_), 1024, 1024, 1024);
  EXPECT_EQ(c.source, ChoiceSource::exact) << trail_of(c);
  EXPECT_EQ(c.tuned_config, config_name(pool_[3]));
  EXPECT_EQ(c.database, user_);
  EXPECT_FALSE(c.shipped);
  EXPECT_NE(c.to_string().find("from     " + user_ + " (your tuning database)"), std::string::npos)
      << c.to_string();
}

TEST_F(Shipped, AShippedExactResultBeatsTheUsersNearest) {
  const Choice c = choose(chooser(kH200, user_), 2048, 2048, 2048);
  EXPECT_EQ(c.source, ChoiceSource::exact) << trail_of(c);
  EXPECT_EQ(c.tuned_config, config_name(pool_[2]));
  EXPECT_TRUE(c.shipped);
  EXPECT_FALSE(c.shipped_other_model);
  EXPECT_EQ(c.database, shipped_);
  EXPECT_EQ(c.gpu_model, "NVIDIA H200 (sm_90, 132 SMs)");
  const Explanation e = explanation_of(c);
  EXPECT_TRUE(e.shipped);
  EXPECT_EQ(e.database, shipped_);
  EXPECT_NE(
      e.to_string().find("from     " + shipped_ + " (shipped with gemmtune for this GPU model)"),
      std::string::npos)
      << e.to_string();
}

TEST_F(Shipped, NearestDrawsOnBothTheUsersAndTheShippedProblems) {
  // 1952x2048x2000 is nearest to the user's 1900x2100x2000; 1024x1024x1152 to 1024^3, which the
  // user's own result of that problem answers (the shipped rows of it are set aside).
  Chooser both = chooser(kH200, user_);
  Choice c = choose(both, 1952, 2048, 2000);
  EXPECT_EQ(c.source, ChoiceSource::nearest) << trail_of(c);
  ASSERT_TRUE(c.tuned.has_value());
  EXPECT_EQ(c.tuned->problem.to_string(), "1900x2100x2000 nn");
  EXPECT_FALSE(c.shipped);
  c = choose(both, 1024, 1024, 1152);
  EXPECT_EQ(c.source, ChoiceSource::nearest) << trail_of(c);
  ASSERT_TRUE(c.tuned.has_value());
  EXPECT_EQ(c.tuned->problem.to_string(), "1024x1024x1024 nn") << trail_of(c);
  EXPECT_EQ(c.tuned_config, config_name(pool_[3])) << trail_of(c);
  EXPECT_FALSE(c.shipped);
  // With no database of the user's, the shipped problems answer alone.
  c = choose(chooser(kH200, user_ + ".missing"), 1024, 1024, 1152);
  EXPECT_EQ(c.source, ChoiceSource::nearest) << trail_of(c);
  EXPECT_EQ(c.tuned_config, config_name(pool_[0]));
  EXPECT_TRUE(c.shipped);
  EXPECT_NE(trail_of(c).find("tuning data: "), std::string::npos) << trail_of(c);
}

TEST_F(Shipped, ShippedRowsAreValidatedLikeAnyRow) {
  const Choice c = choose(chooser(kH200, user_), 3000, 3000, 3000);
  EXPECT_NE(c.source, ChoiceSource::exact);
  EXPECT_NE(trail_of(c).find("exact: 'sgemm_nn_from_an_older_family' is not a config name"),
            std::string::npos)
      << trail_of(c);
}

TEST_F(Shipped, AModelWithoutAFileGetsItsArchitecturesFile) {
  std::vector<std::string> notes;
  const std::optional<ShippedFile> f = find_shipped(kH100, {shipped_dir_}, notes);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->path, shipped_);
  EXPECT_EQ(f->gpu_name, "NVIDIA H200");
  EXPECT_FALSE(f->same_model);

  const Choice c = choose(chooser(kH100, user_), 2048, 2048, 2048);  // the user tuned an H200
  EXPECT_EQ(c.source, ChoiceSource::exact) << trail_of(c);
  EXPECT_TRUE(c.shipped);
  EXPECT_TRUE(c.shipped_other_model);
  EXPECT_NE(c.to_string().find("tuned on another GPU model of this architecture"),
            std::string::npos)
      << c.to_string();
}

TEST_F(Shipped, AnArchitectureWithoutAFileRunsAsBefore) {
  std::vector<std::string> notes;
  EXPECT_FALSE(find_shipped(kA100, {shipped_dir_}, notes).has_value());
  const Chooser c = chooser(kA100, user_ + ".missing");
  EXPECT_TRUE(c.snapshot().shipped_database.empty());
  EXPECT_EQ(choose(c, 2048, 2048, 2048).source, ChoiceSource::builtin);
}

TEST_F(Shipped, SwitchedOffByOptionOrEnvironment) {
  EXPECT_TRUE(chooser(kH200, user_, false).snapshot().shipped_database.empty());
  {
    ShippedOn on(shipped_dir_);
    ::setenv("GEMMTUNE_NO_SHIPPED", "1", 1);
    EXPECT_TRUE(shipped_disabled_by_environment());
    const TuningSnapshot s = with_shipped(load_tuning_snapshot(user_, kH200), kH200);
    EXPECT_TRUE(s.shipped_database.empty());
    ::setenv("GEMMTUNE_NO_SHIPPED", "0", 1);
    EXPECT_FALSE(shipped_disabled_by_environment());
  }
  EXPECT_EQ(choose(chooser(kH200, user_, false), 2048, 2048, 2048).source, ChoiceSource::nearest);
}

TEST_F(Shipped, TheFirstFolderHoldingFilesIsTheOne) {
  ShippedOn on(shipped_dir_ + ":unused");
  EXPECT_EQ(shipped_search_dirs(), std::vector<std::string>{shipped_dir_ + ":unused"});
  std::vector<std::string> notes;
  const auto empty = (dir_ / "empty").string();
  std::filesystem::create_directories(empty);
  const auto f = find_shipped(kH200, {empty, (dir_ / "absent").string(), shipped_dir_}, notes);
  ASSERT_TRUE(f.has_value());
  EXPECT_TRUE(f->same_model);
  EXPECT_TRUE(notes.empty());
}

TEST(ShippedSearchDirs, StartBesideTheFileHoldingTheLibrary) {
  // This test program links the static library: its code is in the program, build/tests/, so the
  // first folder is the build's share/gemmtune/tuning, where CMake copies db/shipped/*.db.
  ShippedOn on("");
  const std::vector<std::string> dirs = shipped_search_dirs();
  const std::filesystem::path exe = std::filesystem::canonical("/proc/self/exe").parent_path();
  ASSERT_GE(dirs.size(), 2u);
  EXPECT_EQ(dirs[0], (exe.parent_path() / "share" / "gemmtune" / "tuning").string());
  EXPECT_EQ(dirs[1], (exe / "tuning").string());
}

TEST_F(Shipped, AnUnreadableFileIsAWarningNotAnError) {
  // The model's own file is damaged: passed over with a note; an architecture's file of another
  // model still serves.
  std::ofstream(shipped_dir_ + "/" + shipped_file_name("NVIDIA H100 80GB HBM3"))
      << "not a database at all, but long enough to look like it might have a header";
  std::vector<std::string> notes;
  const auto f = find_shipped(kH100, {shipped_dir_}, notes);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->path, shipped_);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("cannot read shipped tuning database"), std::string::npos) << notes[0];

  // Only a damaged file: no shipped data, the user's database as before.
  std::filesystem::remove(shipped_);
  const Chooser c = chooser(kH100, user_ + ".missing");
  EXPECT_TRUE(c.snapshot().shipped_database.empty());
  const Choice choice = choose(c, 2048, 2048, 2048);
  EXPECT_EQ(choice.source, ChoiceSource::builtin);
  EXPECT_NE(trail_of(choice).find("cannot read shipped tuning database"), std::string::npos)
      << trail_of(choice);
}

TEST_F(Shipped, FilesAreReadOnlyAndNeverWritten) {
  const std::string before = file_sha256(shipped_);
  ::chmod(shipped_.c_str(), 0444);
  ::chmod(shipped_dir_.c_str(), 0555);  // as installed under a read-only prefix
  const Choice c = choose(chooser(kH200, user_ + ".missing"), 2048, 2048, 2048);
  ::chmod(shipped_dir_.c_str(), 0755);
  EXPECT_EQ(c.source, ChoiceSource::exact) << trail_of(c);
  EXPECT_TRUE(c.shipped);
  EXPECT_EQ(file_sha256(shipped_), before);
  EXPECT_EQ(list_dir(shipped_dir_), std::vector<std::string>{"nvidia-h200.db"});
}

}  // namespace
}  // namespace gemmtune::test
