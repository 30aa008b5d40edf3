#pragma once
// Shared fixtures of the database tests: sample rows, errors; scratch directories and forked
// children (optionally unprivileged, for permission tests) from support/.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gemmtune/db/database.hpp"
#include "gemmtune/db/error.hpp"
#include "support/child.hpp"
#include "support/scratch.hpp"

namespace gemmtune::db::test {

namespace fs = std::filesystem;

using ::gemmtune::test::file_bytes;
using ::gemmtune::test::list_dir;
using ::gemmtune::test::run_in_child;
using ::gemmtune::test::ScratchDirTest;

inline GpuModel sample_gpu(const std::string& name = "NVIDIA H200", int sms = 132) {
  return GpuModel{name, 9, 0, sms, 150ll << 30, 60ll << 20, 232448, 1980000};
}

/// The kernel family of sample_config(), as these tests declare it: "sgemm" with the knob
/// columns they use (a stand-in for gemmtune::sgemm_family(), which tests/unit/runtime tests).
/// A fresh file has the first twelve and occupancy from its first schema version; k_lanes and
/// k_warps are knobs added later, and math names the precision class that top_configs() and
/// prune() rank within.
inline std::span<const FamilySchema> sample_families() {
  static const std::vector<FamilySchema> families{{"sgemm",
                                                   {{"bm", 128},
                                                    {"bn", 128},
                                                    {"bk", 8},
                                                    {"wm", 64},
                                                    {"wn", 32},
                                                    {"tm", 8},
                                                    {"tn", 8},
                                                    {"stages", 2},
                                                    {"vec", 4},
                                                    {"pad", 4},
                                                    {"split_k", 1},
                                                    {"raster", 8},
                                                    {"occupancy", 1},
                                                    {"k_lanes", 1},
                                                    {"k_warps", 1},
                                                    {"math", 0}},
                                                   {"math", {{0, 0}, {1, 2}}, 1}}};
  return families;
}

/// A read-write tuning.db in the test's directory, opened with sample_families(), holding one
/// GPU model, sample_gpu().
class OneGpuDbTest : public ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    db_.emplace(path("tuning.db"), OpenMode::read_write, sample_families());
    gpu_ = db_->upsert_gpu_model(sample_gpu());
  }
  std::optional<Database> db_;
  Id gpu_ = 0;
};

inline ProblemKey sample_problem(std::int64_t m, std::int64_t n = 1024, std::int64_t k = 1024) {
  ProblemKey p;
  p.m = m;
  p.n = n;
  p.k = k;
  return p;
}

/// Config number `i` of the family "sgemm": distinct parameters in the knob columns every file
/// has, and a name that encodes them.
inline KernelConfig sample_config(int i) {
  KernelConfig c;
  c.family = "sgemm";
  const int bm = 32 << (i % 3), bn = 32 << ((i / 3) % 3), stages = 1 + i % 4;
  const int split_k = 1 + i / 100, raster = 1 + (i / 12) % 8;
  c.knobs = {{"bm", bm}, {"bn", bn},           {"bk", 8},
             {"wm", 32}, {"wn", 32},           {"tm", 4},
             {"tn", 4},  {"stages", stages},   {"vec", 4},
             {"pad", 4}, {"split_k", split_k}, {"raster", raster}};
  c.name = "sgemm_nn_" + std::to_string(bm) + "x" + std::to_string(bn) + "x8_w32x32_t4x4_s" +
           std::to_string(stages) + "_v4_p4_k" + std::to_string(split_k) + "_r" +
           std::to_string(raster) + "_i" + std::to_string(i);
  return c;
}

/// A sweep's environment with only the GPU model and command line set.
inline SweepInfo sweep_info(Id gpu, const std::string& command_line = "gemmtune sweep") {
  SweepInfo s;
  s.gpu_model_id = gpu;
  s.command_line = command_line;
  return s;
}

/// A cuBLAS baseline.
inline Baseline cublas(Id problem, double median_ms) {
  Baseline b;
  b.problem_id = problem;
  b.median_ms = median_ms;
  b.tflops = 1.0 / median_ms;
  return b;
}

/// An ok result.
inline Result ok_result(Id problem, Id config, double median_ms) {
  Result r;
  r.problem_id = problem;
  r.config_id = config;
  r.median_ms = median_ms;
  r.min_ms = median_ms * 0.9;
  r.max_ms = median_ms * 1.1;
  r.repetitions = 20;
  r.tflops = 1.0 / median_ms;
  r.rel_error = 1e-6;
  r.registers = 128;
  r.spill_bytes = 0;
  r.smem_bytes = 16384;
  return r;
}

/// A failed result: no time, only the status and why.
inline Result failed_result(Id problem, Id config, Status status, std::string error) {
  Result r;
  r.problem_id = problem;
  r.config_id = config;
  r.status = status;
  r.error = std::move(error);
  return r;
}

/// Expects `fn` to throw DatabaseError whose message contains every one of `parts`.
inline void expect_error(const std::function<void()>& fn, const std::vector<std::string>& parts) {
  try {
    fn();
    ADD_FAILURE() << "no DatabaseError thrown";
  } catch (const DatabaseError& e) {
    for (const auto& part : parts) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
          << "message lacks \"" << part << "\": " << e.what();
    }
  }
}

/// One scalar from SQL on a raw connection (tests only: bypasses the typed API).
inline std::int64_t scalar(Connection& conn, const std::string& sql) {
  Statement st(conn, sql);
  return st.step() ? st.get_int(0) : -1;
}

/// One scalar from SQL on a connection of its own to the file at `path`, which a Database may
/// hold open: Database offers no raw SQL.
inline std::int64_t scalar(const std::string& path, const std::string& sql) {
  Connection conn(path, OpenMode::read_only);
  return scalar(conn, sql);
}

/// Runs SQL on a connection of its own to the file at `path`, behind the typed API's back (to
/// damage or backdate rows).
inline void exec_raw(const std::string& path, const std::string& sql) {
  Connection(path, OpenMode::read_write).exec(sql);
}

}  // namespace gemmtune::db::test
