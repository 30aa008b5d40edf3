// The dispatcher and the tuner share the database's binary cache: a kernel either one compiled
// and stored reads back in the other with the same resources (shared memory with its static share);
// a row that is not the config's kernel, or GEMMTUNE_NO_CACHED_BINARIES, means a compile.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>

#include "gemmtune/choice.hpp"
#include "gemmtune/db/database.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/gemmtune.hpp"
#include "gemmtune/kernel.hpp"
#include "gemmtune/tuner/compile_pool.hpp"
#include "support/gpu_env.hpp"
#include "support/scratch.hpp"

namespace gemmtune::test {
namespace {

class BinaryCache : public ScratchDirTest {
 protected:
  void SetUp() override {
    GEMMTUNE_REQUIRE_GPU();
    ScratchDirTest::SetUp();
    device_ = device_info(0);
    options_.db_path = path("tuning.db");
    options_.db_access = DbAccess::read_write;
  }
  DeviceInfo device_;
  DispatcherOptions options_;
};

TEST_F(BinaryCache, TheTunerReadsWhatTheDispatcherStored) {
  const Problem p = shape_only_problem(Op::N, Op::N, 256, 256, 256);
  GemmConfig config;
  {
    Dispatcher dispatcher(options_);
    config = explained_config(dispatcher.explain(p));
    ASSERT_EQ(dispatcher.prepare(p), KernelOrigin::compiled);
  }
  const std::string arch = device_.limits.arch();
  const CompileResult compiled = compile_config(config, arch);
  ASSERT_TRUE(compiled.ok) << compiled.log;

  tuner::CompilePool pool(arch, options_.db_path, 1);
  auto cached = pool.take(config);
  ASSERT_TRUE(cached->ok);
  EXPECT_TRUE(cached->from_cache);
  EXPECT_EQ(cached->resources.registers, compiled.resources.registers);
  EXPECT_EQ(cached->resources.static_smem, compiled.resources.static_smem);
  db::Database db(options_.db_path, db::OpenMode::read_only, kernel_families());
  auto row = db.get_binary(binary_key(config, arch));
  ASSERT_TRUE(row.binary);
  EXPECT_EQ(row.binary->smem_bytes, config.smem_bytes() + compiled.resources.static_smem);
}

TEST_F(BinaryCache, TheDispatcherRunsWhatTheTunerStored) {
  const Problem p = shape_only_problem(Op::N, Op::T, 256, 256, 256);
  const std::string arch = device_.limits.arch();
  GemmConfig config;
  {
    Dispatcher dispatcher(options_);  // creates the file; its choice for an untuned problem
    config = explained_config(dispatcher.explain(p));
  }
  tuner::CompilePool pool(arch, "", 1);  // no cache: compiles
  auto compiled = pool.take(config);
  ASSERT_TRUE(compiled->ok) << compiled->log;
  ASSERT_FALSE(compiled->from_cache);
  {
    db::Database db(options_.db_path, db::OpenMode::read_write, kernel_families());
    db.put_binary(tuner::to_binary(*compiled, arch));
  }
  Dispatcher dispatcher(options_);
  EXPECT_EQ(dispatcher.prepare(p), KernelOrigin::database);
  tuner::CompilePool reader(arch, options_.db_path, 1);
  auto back = reader.take(config);
  EXPECT_TRUE(back->from_cache);
  EXPECT_EQ(back->resources.static_smem, compiled->resources.static_smem);
}

// A cached binary is loaded only as its config's kernel (docs/database.md, "Trust"): another
// config's real cubin planted under this config's key, its SHA-256 recomputed as a hostile writer
// would, is compiled again and replaced; GEMMTUNE_NO_CACHED_BINARIES compiles even a good one.
TEST_F(BinaryCache, APlantedBinaryOrTheOptOutIsCompiledAgain) {
  const Problem p = shape_only_problem(Op::N, Op::N, 256, 256, 256);
  const std::string arch = device_.limits.arch();
  GemmConfig config;
  {
    Dispatcher dispatcher(options_);
    const std::optional<GemmConfig> chosen = parse_config_name(dispatcher.explain(p).config);
    ASSERT_TRUE(chosen.has_value());
    config = *chosen;
    ASSERT_EQ(dispatcher.prepare(p), KernelOrigin::compiled);
  }
  ASSERT_EQ(Dispatcher(options_).prepare(p), KernelOrigin::database);
  setenv("GEMMTUNE_NO_CACHED_BINARIES", "1", 1);
  EXPECT_EQ(Dispatcher(options_).prepare(p), KernelOrigin::compiled);
  unsetenv("GEMMTUNE_NO_CACHED_BINARIES");

  GemmConfig other;
  other.op_a = config.op_a == Op::N ? Op::T : Op::N;  // another instance: another entry point
  ASSERT_NE(config_name(other), config_name(config));
  const CompileResult planted = compile_config(other, arch);
  ASSERT_TRUE(planted.ok) << planted.log;
  {
    db::Database db(options_.db_path, db::OpenMode::read_write, kernel_families());
    db::Binary row = db.get_binary(binary_key(config, arch)).binary.value();
    row.cubin.assign(
        reinterpret_cast<const std::byte*>(planted.cubin.data()),
        reinterpret_cast<const std::byte*>(planted.cubin.data()) + planted.cubin.size());
    row.lowered_name = planted.lowered_name;
    db.put_binary(row);  // hashed again by put_binary
  }
  EXPECT_EQ(Dispatcher(options_).prepare(p), KernelOrigin::compiled);
  EXPECT_EQ(Dispatcher(options_).prepare(p), KernelOrigin::database);  // the compile replaced it
}

}  // namespace
}  // namespace gemmtune::test
