// A full disk. A merge into a database on a tiny file system (tmpfs, in a mount namespace of the
// test's own; skipped where mounting is not allowed) or past a file size limit (ulimit -f) fails
// with a clear error, leaves the database as it was (db check passes, the same rows) and its source
// unchanged, and succeeds once there is room. Batches written through the library as a sweep
// writes them, past a file size limit: the batch that does not fit fails clearly, and every
// earlier one is there.
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/resource.h>

#include <cerrno>
#include <cstring>

#include "unit/tools/faults.hpp"

namespace gemmtune::tools_test {
namespace {

// The source's rows: 45000 results, about 5 MB to write.
constexpr int kSourceProblems = 150;

class FullDisk : public ::gemmtune::test::ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    source_ = dir_ / "source.db";
    make_large_source(source_, kSourceProblems);
    source_sha_ = file_sha256(source_);
    before_ = checked_counts(intact_database());
    const fs::path whole = dir_ / "whole.db";
    fs::copy_file(intact_database(), whole);
    const CliRun merged =
        ::gemmtune::test::run_cli({"db", "merge", source_.string(), "--db", whole.string()});
    EXPECT_EQ(merged.status, 0) << merged.err;
    after_ = checked_counts(whole);
  }
  std::vector<std::string> merge_into(const fs::path& target) const {
    return {"db", "merge", source_.string(), "--db", target.string()};
  }
  // What the failed merge into `target` must have left: a clear error, the rows as they were.
  void expect_clean_failure(const CliRun& merge, const CliRun& check, const fs::path& target,
                            const std::string& cause) {
    expect_clean_end(merge, target.string());
    EXPECT_EQ(merge.status, 1) << merge.out;
    EXPECT_NE(merge.err.find(cause), std::string::npos) << merge.err;
    EXPECT_NE(merge.err.find("nothing was merged"), std::string::npos) << merge.err;
    EXPECT_EQ(check.status, 0) << check.out << check.err;
    EXPECT_NE(check.out.find(before_), std::string::npos) << "not the rows it held:\n" << check.out;
    EXPECT_EQ(file_sha256(source_), source_sha_) << "the source changed";
  }

  fs::path source_;
  std::string source_sha_, before_, after_;
};

TEST_F(FullDisk, MergeOntoAFullFileSystem) {
  const fs::path disk = dir_ / "disk", target = disk / "tuning.db";
  fs::create_directories(disk);
  const auto room = fs::file_size(intact_database()) + 256 * 1024;
  // The merge, db check, then the same with room to spare; the tmpfs goes with the child.
  const std::string packed = ::gemmtune::test::run_in_child([&]() -> std::string {
    const std::string size = "size=" + std::to_string(room);
    if (unshare(CLONE_NEWNS) != 0 ||
        mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0 ||
        mount("tmpfs", disk.c_str(), "tmpfs", 0, size.c_str()) != 0)
      return std::string("cannot mount a tmpfs here: ") + std::strerror(errno);
    fs::copy_file(intact_database(), target);
    std::string out = pack(::gemmtune::test::run_cli(merge_into(target)));
    out += pack(::gemmtune::test::run_cli({"db", "check", "--db", target.string()}));
    if (mount("tmpfs", disk.c_str(), "tmpfs", MS_REMOUNT, "size=67108864") != 0) return out;
    out += pack(::gemmtune::test::run_cli(merge_into(target)));
    return out + pack(::gemmtune::test::run_cli({"db", "check", "--db", target.string()}));
  });
  if (packed.rfind("cannot mount", 0) == 0) GTEST_SKIP() << packed;
  std::istringstream in(packed);
  CliRun full, check, roomy, check_roomy;
  ASSERT_TRUE(unpack(in, full) && unpack(in, check)) << packed;
  expect_clean_failure(full, check, target, "the disk is full");
  ASSERT_TRUE(unpack(in, roomy) && unpack(in, check_roomy)) << "the remount failed: " << packed;
  EXPECT_EQ(roomy.status, 0) << roomy.err;
  EXPECT_NE(check_roomy.out.find(after_), std::string::npos) << check_roomy.out;
}

TEST_F(FullDisk, MergePastAFileSizeLimit) {
  const fs::path target = dir_ / "tuning.db";
  fs::copy_file(intact_database(), target);
  const auto blocks = (fs::file_size(target) + 256 * 1024) / 1024;  // ulimit -f counts KiB
  std::vector<std::string> argv = {"bash", "-c",
                                   "ulimit -f " + std::to_string(blocks) + " && exec \"$@\"",
                                   "bash", ::gemmtune::test::cli_path()};
  for (const std::string& a : merge_into(target)) argv.push_back(a);
  const CliRun limited = ::gemmtune::test::run_program(argv);
  const CliRun check = ::gemmtune::test::run_cli({"db", "check", "--db", target.string()});
  expect_clean_failure(limited, check, target, "File too large");
  const CliRun roomy = ::gemmtune::test::run_cli(merge_into(target));
  EXPECT_EQ(roomy.status, 0) << roomy.err;
  EXPECT_EQ(checked_counts(target), after_);
}

// As a sweep writes: one transaction per batch of results, until the file may grow no further.
TEST_F(FullDisk, BatchesPastAFileSizeLimitKeepEveryEarlierBatch) {
  const fs::path file = dir_ / "sweep.db";
  fs::copy_file(intact_database(), file);
  const auto limit = fs::file_size(file) + 512 * 1024;
  const std::string out = ::gemmtune::test::run_in_child([&]() -> std::string {
    const rlimit fsize{rlim_t(limit), rlim_t(limit)};
    if (setrlimit(RLIMIT_FSIZE, &fsize) != 0 || signal(SIGXFSZ, SIG_IGN) == SIG_ERR)
      return "no limit";
    Database db(file.string(), OpenMode::read_write, kernel_families());
    SweepInfo info;
    info.gpu_model_id = db.upsert_gpu_model(h100());
    const Id sweep = db.begin_sweep(info);
    std::vector<Id> configs;
    for (int bm : {16, 32, 64, 128, 256})
      for (int stages : {1, 2, 3, 4})
        configs.push_back(db.upsert_config(make_config("nn", bm, 64, 8, bm / 2, 32, 4, 4, stages)));
    int batches = 0;
    try {
      for (;; ++batches) {
        const Id problem = db.upsert_problem(make_problem(1 + batches, 512, 512));
        std::vector<Result> batch;
        for (Id c : configs) {
          batch.push_back(ok(problem, c, 1.0, 1e9));
          batch.back().error = std::string(400, 'x');  // larger rows: fewer batches to fill it
        }
        db.record_results(sweep, batch);
      }
    } catch (const std::exception& e) {
      return std::to_string(batches) + " " + std::to_string(sweep) + "\n" + e.what();
    }
  });
  std::istringstream in(out);
  int batches = 0;
  Id sweep = 0;
  ASSERT_TRUE(in >> batches >> sweep) << out;
  EXPECT_GT(batches, 10) << out;
  EXPECT_NE(out.find(file.string()), std::string::npos) << out;
  EXPECT_NE(out.find("File too large"), std::string::npos) << out;
  Database db(file.string(), OpenMode::read_write,
              kernel_families());  // recovery, if any, happens here
  EXPECT_TRUE(db.check().ok());
  std::int64_t stored = 0;
  for (int b = 0; b < batches; ++b) {
    const auto results = db.results_for(make_problem(1 + b, 512, 512), *db.find_gpu_model(h100()));
    stored += std::int64_t(results.size());
  }
  EXPECT_EQ(stored, std::int64_t(batches) * 20) << "a committed batch was lost";
  if (db.find_problem(make_problem(1 + batches, 512, 512))) {
    EXPECT_TRUE(
        db.results_for(make_problem(1 + batches, 512, 512), *db.find_gpu_model(h100())).empty())
        << "a part of the batch that failed was stored";
  }
  ASSERT_EQ(db.sweeps().size(), 2u);
  EXPECT_EQ(db.sweeps()[1].id, sweep);
  std::cout << "[ info     ] " << batches
            << " batches of 20 results fit under the limit; the next failed\n";
}

}  // namespace
}  // namespace gemmtune::tools_test
