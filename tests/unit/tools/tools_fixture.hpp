#pragma once
// Shared fixtures of the `gemmtune db` / `gemmtune report` tests: a tuning database that looks like
// two recorded sweeps on an H200 (an old one with a stale template hash, a current one) and one on
// an H100, and a test fixture that runs the real CLI against it (support/cli.hpp).
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "gemmtune/db/database.hpp"
#include "gemmtune/db/sqlite.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/kernel.hpp"
#include "support/cli.hpp"
#include "support/fake_cubin.hpp"
#include "support/scratch.hpp"

namespace gemmtune::tools_test {

namespace fs = std::filesystem;
using namespace gemmtune::db;
using ::gemmtune::test::CliRun;
using ::gemmtune::test::file_bytes;

/// The entry point NVRTC names `config`'s kernel by (its prefix is checked against NVRTC in
/// compile_test.cpp).
inline std::string fixture_entry_name(const KernelConfig& config) {
  return entry_name_prefix(from_db(config).value()) + "EEvNS_8GemmArgsE";
}

/// The template hash the CLI considers current (what a sweep stores).
inline std::string current_template_hash() { return gemmtune::template_hash(); }

/// A config of the family with the given tiles; its name encodes them as the runtime's does.
inline KernelConfig make_config(const char* layout, int bm, int bn, int bk, int wm, int wn, int tm,
                                int tn, int stages) {
  KernelConfig c = to_db(GemmConfig{});  // every knob, at its default
  c.op_a = layout[0];
  c.op_b = layout[1];
  for (const auto& [knob, value] : {std::pair{"bm", bm},
                                    {"bn", bn},
                                    {"bk", bk},
                                    {"wm", wm},
                                    {"wn", wn},
                                    {"tm", tm},
                                    {"tn", tn},
                                    {"stages", stages}})
    c.knobs.at(knob) = value;
  c.knobs.at("vec") = 4, c.knobs.at("pad") = 4, c.knobs.at("split_k") = 1, c.knobs.at("raster") = 8;
  char buf[128];
  std::snprintf(buf, sizeof buf, "sgemm_%s_%dx%dx%d_w%dx%d_t%dx%d_s%d_v4_p4_k1_r8", layout, bm, bn,
                bk, wm, wn, tm, tn, stages);
  c.name = buf;
  return c;
}

inline ProblemKey make_problem(std::int64_t m, std::int64_t n, std::int64_t k,
                               const char* layout = "nn") {
  ProblemKey p;
  p.m = m, p.n = n, p.k = k;
  p.op_a = layout[0], p.op_b = layout[1];
  return p;
}

inline Result ok(Id problem, Id config, double median_ms, double flops, double spread = 0.10) {
  Result r;
  r.problem_id = problem;
  r.config_id = config;
  r.median_ms = median_ms;
  r.min_ms = median_ms * (1 - spread / 2);
  r.max_ms = median_ms * (1 + spread / 2);
  r.repetitions = 50;
  r.tflops = flops / (median_ms * 1e-3) / 1e12;
  r.rel_error = 2e-7;
  r.registers = 128;
  r.spill_bytes = 0;
  r.smem_bytes = 16384;
  return r;
}

inline Result failed(Id problem, Id config, Status status, const std::string& error) {
  Result r;
  r.problem_id = problem;
  r.config_id = config;
  r.status = status;
  r.error = error;
  return r;
}

inline Baseline cublas(Id problem, double median_ms) {
  Baseline b;
  b.problem_id = problem;
  b.median_ms = b.min_ms = b.max_ms = median_ms;
  return b;
}

inline GpuModel h200() {
  return {"NVIDIA H200", 9, 0, 132, 150ll << 30, 60ll << 20, 232448, 1980000};
}
inline GpuModel h100() {
  return {"NVIDIA H100 80GB HBM3", 9, 0, 132, 80ll << 30, 50ll << 20, 232448, 1980000};
}

/// The configs of the fixture, by the role they play.
inline KernelConfig cfg_best() {
  return make_config("nn", 128, 128, 8, 64, 32, 8, 8, 2);
}  // best on H200 4096^3
inline KernelConfig cfg_second() {
  return make_config("nn", 128, 64, 8, 64, 32, 8, 4, 2);
}  // runner-up
inline KernelConfig cfg_third() { return make_config("nn", 64, 64, 8, 32, 32, 4, 4, 1); }
inline KernelConfig cfg_old() {
  return make_config("nn", 32, 32, 8, 32, 32, 2, 2, 1);
}  // old sweep only

/// Builds the fixture database at `path` (replacing any file there):
///  H200, sweep 1 (started 2020, stale template hash): 4096^3 nn with cfg_old.
///  H200, sweep 2 (now, current hash): 4096^3 nn: cfg_best 3.0 ms (spread 10%), cfg_second 3.15 ms,
///    cfg_third 4.5 ms, cuBLAS 3.6 ms (speedup 1.20x, margin 5.0%); failures: 1 compile_failed,
///    2 invalid with one reason, 1 wrong_result. 1024x1024x2048 nn: cfg_second 0.2 ms, cfg_best 0.25 ms,
///    cuBLAS 0.21 ms. 2048^3 nt: one config.
///  H100, one sweep: 4096^3 nn cfg_second 4.0 ms, cfg_best 4.4 ms, cuBLAS 4.2 ms; 1024x1024x2048 nn
///    cfg_best 0.3 ms; 512^3 nn cfg_third 0.05 ms.
///  One cached binary.
inline void build_fixture(const fs::path& path) {
  fs::remove(path);
  fs::remove(path.string() + "-wal");
  fs::remove(path.string() + "-shm");
  Database db(path.string(), OpenMode::read_write, kernel_families());
  const Id g200 = db.upsert_gpu_model(h200()), g100 = db.upsert_gpu_model(h100());
  const ProblemKey big = make_problem(4096, 4096, 4096), mid = make_problem(1024, 1024, 2048),
                   nt = make_problem(2048, 2048, 2048, "nt"), small = make_problem(512, 512, 512);
  const Id p_big = db.upsert_problem(big), p_mid = db.upsert_problem(mid),
           p_nt = db.upsert_problem(nt), p_small = db.upsert_problem(small);
  const double f_big = 2.0 * 4096 * 4096 * 4096, f_mid = 2.0 * 1024 * 1024 * 2048,
               f_nt = 2.0 * 2048 * 2048 * 2048, f_small = 2.0 * 512 * 512 * 512;
  const Id c_best = db.upsert_config(cfg_best()), c_second = db.upsert_config(cfg_second()),
           c_third = db.upsert_config(cfg_third()), c_old = db.upsert_config(cfg_old());
  const Id c_fail1 = db.upsert_config(make_config("nn", 256, 256, 16, 64, 64, 16, 16, 4));
  const Id c_fail2 = db.upsert_config(make_config("nn", 256, 128, 32, 64, 64, 8, 8, 4));
  const Id c_fail3 = db.upsert_config(make_config("nn", 128, 256, 32, 64, 64, 8, 8, 4));
  const Id c_fail4 = db.upsert_config(make_config("nn", 64, 128, 16, 32, 64, 4, 8, 3));
  const Id c_nt = db.upsert_config(make_config("nt", 128, 128, 8, 64, 32, 8, 8, 2));

  SweepInfo info;
  info.gpu_model_id = g200;
  info.command_line = "gemmtune sweep --preset quick";
  info.strategy = "exhaustive";
  info.gemmtune_version = "0.1.0";
  info.template_hash = "0123456789abcdef";  // stale
  const Id s_old = db.begin_sweep(info);
  db.record_results(s_old, std::vector<Result>{ok(p_big, c_old, 30.0, f_big)});
  db.record_baseline(s_old, cublas(p_big, 3.7));
  db.finish_sweep(s_old);
  {
    Connection raw(db.path(), OpenMode::read_write);  // backdating is no typed API's job
    Statement st(raw, "UPDATE sweeps SET started_at = '2020-01-01T00:00:00.000Z' WHERE id = ?1");
    st.bind_int(1, s_old).run();
  }

  info.template_hash = current_template_hash();
  const Id s200 = db.begin_sweep(info);
  db.record_results(
      s200, std::vector<Result>{
                ok(p_big, c_best, 3.0, f_big), ok(p_big, c_second, 3.15, f_big),
                ok(p_big, c_third, 4.5, f_big),
                failed(p_big, c_fail1, Status::compile_failed,
                       "ptxas error: Entry function uses too much shared data"),
                failed(p_big, c_fail2, Status::invalid,
                       "needs 264 KiB of shared memory, the GPU allows 227 KiB"),
                failed(p_big, c_fail3, Status::invalid,
                       "needs 264 KiB of shared memory, the GPU allows 227 KiB"),
                failed(p_big, c_fail4, Status::wrong_result, "relative error 3.1e-02 > 1e-04"),
                ok(p_mid, c_second, 0.2, f_mid), ok(p_mid, c_best, 0.25, f_mid),
                ok(p_nt, c_nt, 0.6, f_nt)});
  db.record_baseline(s200, cublas(p_big, 3.6));
  db.record_baseline(s200, cublas(p_mid, 0.21));
  db.finish_sweep(s200);

  info.gpu_model_id = g100;
  const Id s100 = db.begin_sweep(info);
  db.record_results(s100, std::vector<Result>{
                              ok(p_big, c_second, 4.0, f_big), ok(p_big, c_best, 4.4, f_big),
                              ok(p_mid, c_best, 0.3, f_mid), ok(p_small, c_third, 0.05, f_small)});
  db.record_baseline(s100, cublas(p_big, 4.2));
  db.finish_sweep(s100);

  Binary bin;
  bin.key = "fixture-binary";
  bin.arch = "sm_90";
  bin.nvrtc_version = "13.0";
  bin.config_name = cfg_best().name;
  bin.lowered_name = fixture_entry_name(cfg_best());
  const std::vector<char> cubin = ::gemmtune::test::fake_cubin(bin.lowered_name, 128);
  bin.cubin.assign(reinterpret_cast<const std::byte*>(cubin.data()),
                   reinterpret_cast<const std::byte*>(cubin.data()) + cubin.size());
  db.put_binary(bin);
}

/// The fixture, built once per process in a directory of its own (ctest -j runs the tests of
/// this suite in parallel processes), and a fresh directory per test.
class CliTest : public ::gemmtune::test::ScratchDirTest {
 protected:
  static fs::path fixture() { return suite_dir_ / "fixture.db"; }

  static void SetUpTestSuite() {
    suite_dir_ = ::gemmtune::test::scratch_dir("fixture");
    build_fixture(fixture());
  }
  static void TearDownTestSuite() {
    std::error_code ignored;
    fs::remove_all(suite_dir_, ignored);
  }

  /// A copy of the fixture in this test's directory, for commands that change it.
  fs::path copy_fixture(const std::string& name = "copy.db") const {
    const fs::path p = dir_ / name;
    fs::copy_file(fixture(), p, fs::copy_options::overwrite_existing);
    return p;
  }

  /// Runs the CLI with `args`, with GEMMTUNE_DB set to `default_db` when given.
  CliRun cli(const std::vector<std::string>& args, const std::string& default_db = "") const {
    ::gemmtune::test::RunOptions options;
    if (!default_db.empty()) options.set_env = {{"GEMMTUNE_DB", default_db}};
    return ::gemmtune::test::run_cli(args, options);
  }

  /// Runs `gemmtune db <args> --db <fixture>`.
  CliRun db_cmd(std::vector<std::string> args, const fs::path& db) const {
    args.insert(args.begin(), "db");
    args.push_back("--db");
    args.push_back(db.string());
    return cli(args);
  }

  /// Whether python3 parses `json` (skips the check when there is no python3).
  bool json_parses(const std::string& json) const {
    const std::string f = write("out.json", json);
    CliRun r = ::gemmtune::test::run_program(
        {"python3", "-c",
         "import json,sys; v = json.load(open(sys.argv[1], 'rb')); assert isinstance(v, list)", f});
    if (r.status == 127)
      return json.size() > 1 && json.front() == '[';  // no python3: a minimal check
    return r.status == 0;
  }

 private:
  inline static fs::path suite_dir_;
};

/// Every line of `text` fits a 100-column terminal.
inline ::testing::AssertionResult fits_100_columns(const std::string& text) {
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) {
    if (l.size() > 100) return ::testing::AssertionFailure() << l.size() << " columns: " << l;
  }
  return ::testing::AssertionSuccess();
}

/// Every config name in `text` is whole (as `gemmtune try` takes it: no elision, nothing cut
/// off), and there is at least one.
inline ::testing::AssertionResult config_names_whole(const std::string& text) {
  static const std::regex whole(
      "sgemm_[nt]{2}_[0-9]+x[0-9]+x[0-9]+_w[0-9]+x[0-9]+_t[0-9]+x[0-9]+_s[0-9]+"
      "_v[0-9]+_p[0-9]+_k[0-9]+_r[0-9]+(_[a-z][0-9]+(x[0-9]+x[0-9]+)?)*");
  std::istringstream in(text);
  int names = 0;
  for (std::string word; in >> word;) {
    if (word.find("sgemm_") == std::string::npos && word.find("..") == std::string::npos) continue;
    if (!std::regex_match(word, whole))
      return ::testing::AssertionFailure() << "not a whole config name: " << word;
    ++names;
  }
  if (names == 0) return ::testing::AssertionFailure() << "no config name in: " << text;
  return ::testing::AssertionSuccess();
}

/// Number of lines in `s`.
inline int line_count(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

}  // namespace gemmtune::tools_test
