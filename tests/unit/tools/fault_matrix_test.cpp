// Fault injection: every command that reads or writes a tuning database (fault_matrix.hpp) against
// damaged files (truncated at several offsets, bytes flipped in the header and in pages, another
// application's SQLite file, an empty file, a newer schema) and unusable ones (read-only file or
// directory, a file another process holds in a write transaction). Every run ends with a clear
// error naming the file, or with the result the command gives on the intact file; never with a
// signal or a sanitizer report; and every file it must not change keeps its SHA-256.
#include <chrono>
#include <random>
#include <thread>

#include "gemmtune/db/schema.hpp"
#include "unit/tools/faults.hpp"

namespace gemmtune::tools_test {
namespace {

using Clock = std::chrono::steady_clock;

TEST(Sha256, KnownDigests) {
  using ::gemmtune::test::sha256;
  EXPECT_EQ(sha256(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256(std::string(1000, 'a')),
            "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3");
}

// What the commands must do with a damaged file.
enum class Expect {
  refused,  // every command refuses it unchanged (explain falls back to its built-in kernels)
  empty,    // reads refuse it; writes make it a new database
  any,      // a clear error or a result; files that must not change do not
};

struct Damage {
  std::string name;
  Expect expect;
  std::function<void(const fs::path&)> apply;
};

// Names the damage in test output (gtest would print its bytes).
[[maybe_unused]] void PrintTo(const Damage& d, std::ostream* os) { *os << d.name; }

void truncate_to(const fs::path& f, std::uintmax_t size) { fs::resize_file(f, size); }

// Flips `count` bytes at random offsets in [from, to) of the file, seeded.
void flip_bytes(const fs::path& f, unsigned seed, int count, std::size_t from, std::size_t to) {
  std::string bytes = ::gemmtune::test::file_bytes(f);
  std::mt19937 rng(seed);
  to = std::min(to, bytes.size());
  for (int i = 0; i < count; ++i) {
    const std::size_t at = from + rng() % (to - from);
    bytes[at] = char(bytes[at] ^ (1 + rng() % 255));
  }
  std::ofstream(f, std::ios::binary | std::ios::trunc) << bytes;
}

std::vector<Damage> damages() {
  std::vector<Damage> d;
  // Truncations, as the size left of a file of `size` bytes (pages of 1 KiB).
  const std::pair<const char*, std::uintmax_t (*)(std::uintmax_t)> cuts[] = {
      {"truncated_to_16_bytes", [](std::uintmax_t) -> std::uintmax_t { return 16; }},
      {"truncated_in_the_header", [](std::uintmax_t) -> std::uintmax_t { return 99; }},
      {"truncated_to_one_page", [](std::uintmax_t) -> std::uintmax_t { return 1024; }},
      {"truncated_to_half", [](std::uintmax_t size) { return size / 2; }},
      {"last_page_cut", [](std::uintmax_t size) { return size - 1024; }},
      {"last_byte_cut", [](std::uintmax_t size) { return size - 1; }},
  };
  for (const auto& [name, left] : cuts)
    d.push_back({name, Expect::refused,
                 [left](const fs::path& f) { truncate_to(f, left(fs::file_size(f))); }});
  for (unsigned seed : {1u, 2u, 3u, 4u})
    d.push_back({"header_flips_seed_" + std::to_string(seed), Expect::any,
                 [seed](const fs::path& f) { flip_bytes(f, seed, 3, 0, 100); }});
  for (unsigned seed : {1u, 2u, 3u, 4u})
    d.push_back({"page_flips_seed_" + std::to_string(seed), Expect::any,
                 [seed](const fs::path& f) { flip_bytes(f, seed, 32, 1024, SIZE_MAX); }});
  d.push_back({"foreign_sqlite_file", Expect::refused, [](const fs::path& f) {
                 fs::remove(f);
                 db::Connection c(f.string(), db::OpenMode::read_write);
                 c.exec(
                     "CREATE TABLE notes (x); INSERT INTO notes VALUES ('not a tuning database')");
               }});
  d.push_back({"empty_file", Expect::empty, [](const fs::path& f) { truncate_to(f, 0); }});
  d.push_back({"newer_schema", Expect::refused, [](const fs::path& f) {
                 db::Connection(f.string(), db::OpenMode::read_write)
                     .exec("PRAGMA user_version = " + std::to_string(db::kSchemaVersion + 1));
               }});
  return d;
}

class DamagedFile : public CliTest, public ::testing::WithParamInterface<Damage> {
 protected:
  // The file under test, fresh: the intact sweep with the damage done; no merge target yet.
  void reset(const Damage& d) {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(file_.string() + suffix);
    fs::remove_all(dir_ / "out");
    fs::create_directories(dir_ / "out");
    fs::copy_file(intact_database(), file_);
    d.apply(file_);
  }
  void SetUp() override {
    CliTest::SetUp();
    file_ = dir_ / "tuning.db", source_ = dir_ / "source.db", target_ = dir_ / "out/merged.db";
  }
  fs::path file_, source_, target_;
};

TEST_P(DamagedFile, EveryCommandEndsCleanlyAndChangesNothingItMustNot) {
  const Damage& d = GetParam();
  fs::copy_file(fixture(), source_);
  const std::string source_sha = file_sha256(source_);
  std::string summary;
  for (const Command& c : db_commands(file_.string(), source_.string(), target_.string())) {
    SCOPED_TRACE(d.name + ": " + c.name);
    reset(d);
    const std::string before = file_sha256(file_), before_content = content_sha256(file_);
    const CliRun r = ::gemmtune::test::run_cli(c.args);
    expect_clean_end(r, file_.string());
    summary += " " + c.name + (r.status == 0 ? " ok," : " refused,");
    EXPECT_EQ(file_sha256(source_), source_sha) << "the merge source changed";
    if (c.role != Command::writes) {
      EXPECT_EQ(file_sha256(file_), before) << "a read changed the file";
    }
    if (c.role == Command::merges_from && r.status == 0) {
      EXPECT_TRUE(check_passes(target_));
    } else if (c.role == Command::merges_from) {
      EXPECT_FALSE(fs::exists(target_)) << "a failed merge left its new target behind";
    }
    if (c.role == Command::writes && r.status != 0) {
      EXPECT_EQ(content_sha256(file_), before_content) << "a failed write changed the file";
    }
    switch (d.expect) {
      case Expect::refused:
        if (c.name == "explain") {
          EXPECT_EQ(r.status, 0) << r.err;
          const std::string note = "skipped  tuning data: cannot read the tuning database: ";
          EXPECT_NE(r.out.find(note), std::string::npos) << r.out;
          EXPECT_NE(r.out.find("'" + file_.string() + "'", r.out.find(note)), std::string::npos)
              << r.out;
        } else {
          EXPECT_EQ(r.status, 1) << r.out;
        }
        EXPECT_EQ(file_sha256(file_), before) << "a refused file changed";
        break;
      case Expect::empty:
        if (c.role == Command::writes) {
          EXPECT_EQ(r.status, 0) << r.err;
          EXPECT_TRUE(check_passes(file_));
        } else if (c.name != "explain") {
          EXPECT_EQ(r.status, 1) << r.out;
          EXPECT_NE(r.err.find("empty"), std::string::npos) << r.err;
        }
        break;
      case Expect::any: break;
    }
  }
  std::cout << "[ info     ] " << d.name << ":" << summary << "\n";
}

INSTANTIATE_TEST_SUITE_P(FaultMatrix, DamagedFile, ::testing::ValuesIn(damages()),
                         [](const auto& info) { return info.param.name; });

// Healthy data that the commands may only read: as nobody, reads give what they give on the intact
// file, writes are refused with a clear error, and the file keeps its SHA-256.
class ReadOnlyDatabase : public CliTest {
 protected:
  // Each command's run on the intact file `file` (as root, before any permission is taken).
  std::vector<CliRun> intact_runs(const std::vector<Command>& commands, const fs::path& file) {
    std::vector<CliRun> runs;
    for (const Command& c : commands) {
      for (const char* suffix : {"", "-wal", "-shm", "-journal"})
        fs::remove(file.string() + suffix);
      fs::remove_all(dir_ / "out");
      fs::create_directories(dir_ / "out");
      fs::copy_file(intact_database(), file);
      runs.push_back(::gemmtune::test::run_cli(c.args));
      EXPECT_EQ(runs.back().status, 0) << c.name << " on the intact file: " << runs.back().err;
    }
    fs::remove(file);  // the last command pruned it
    fs::copy_file(intact_database(), file);
    fs::remove_all(dir_ / "out");
    fs::create_directories(dir_ / "out");
    fs::permissions(dir_ / "out", fs::perms::all);  // nobody writes the merge's new target here
    return runs;
  }

  void expect_read_only(const fs::path& file, const std::function<void()>& take_permissions) {
    const fs::path source = dir_ / "source.db", target = dir_ / "out/merged.db";
    fs::copy_file(fixture(), source);
    const std::string source_sha = file_sha256(source);
    const auto commands = db_commands(file.string(), source.string(), target.string());
    const std::vector<CliRun> intact = intact_runs(commands, file);
    take_permissions();
    const std::string before = file_sha256(file);
    const auto runs = run_unprivileged(commands, file);
    fs::permissions(file.parent_path(), fs::perms::owner_all, fs::perm_options::add);
    for (std::size_t i = 0; i < runs.size(); ++i) {
      const Command& c = commands[i];
      const CliRun& r = runs[i].run;
      SCOPED_TRACE(c.name);
      expect_clean_end(r, file.string());
      EXPECT_EQ(runs[i].file_sha256, before) << "the read-only file changed";
      if (c.role == Command::writes) {
        EXPECT_EQ(r.status, 1) << r.out;
        EXPECT_NE(r.err.find("writable"), std::string::npos) << r.err;
      } else {
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.out, intact[i].out) << "not what the intact file gives";
      }
    }
    EXPECT_TRUE(check_passes(target)) << "the merge of the read-only file";
    EXPECT_EQ(file_sha256(source), source_sha);
  }
};

TEST_F(ReadOnlyDatabase, ReadOnlyFile) {
  const fs::path file = dir_ / "tuning.db";
  expect_read_only(file, [&] {
    fs::permissions(dir_, fs::perms::all);  // only the file is not writable
    fs::permissions(file, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  });
}

// A writable file in a directory that is not: SQLite cannot make its journal there.
TEST_F(ReadOnlyDatabase, ReadOnlyDirectory) {
  fs::create_directories(dir_ / "ro");
  const fs::path file = dir_ / "ro/tuning.db";
  expect_read_only(file, [&] {
    fs::permissions(file, fs::perms::all & ~(fs::perms::owner_exec | fs::perms::group_exec |
                                             fs::perms::others_exec));
    fs::permissions(dir_ / "ro", fs::perms::owner_read | fs::perms::owner_exec |
                                     fs::perms::group_read | fs::perms::group_exec |
                                     fs::perms::others_read | fs::perms::others_exec);
  });
}

// A file left in WAL mode (a sweep was killed) in a read-only directory: no -shm can be made
// there, so readers (and a merge from it, issue 22 #5) read it as immutable.
TEST_F(ReadOnlyDatabase, ReadOnlyDirectoryWithTheFileInWalMode) {
  fs::create_directories(dir_ / "ro");
  const fs::path file = dir_ / "ro/tuning.db";
  expect_read_only(file, [&] {
    db::Connection(file.string(), db::OpenMode::read_write).exec("PRAGMA journal_mode = WAL");
    fs::permissions(file, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    fs::permissions(dir_ / "ro", fs::perms::owner_read | fs::perms::owner_exec |
                                     fs::perms::group_read | fs::perms::group_exec |
                                     fs::perms::others_read | fs::perms::others_exec);
  });
}

// Another process holds the file in an open write transaction: reads go on at once and give what
// they give on the intact file; writes wait for the lock (writers wait up to 10 minutes), then
// give what they give on the intact file too.
using LockedDatabase = CliTest;

TEST_F(LockedDatabase, ReadsGoOnAndWritesWait) {
  const fs::path file = dir_ / "tuning.db", source = dir_ / "source.db",
                 target = dir_ / "out/merged.db";
  fs::copy_file(fixture(), source);
  const std::string source_sha = file_sha256(source);
  auto reset = [&] {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(file.string() + suffix);
    fs::remove_all(dir_ / "out");
    fs::create_directories(dir_ / "out");
    fs::copy_file(intact_database(), file);
  };
  const auto hold = std::chrono::milliseconds(1500);
  for (const Command& c : db_commands(file.string(), source.string(), target.string())) {
    SCOPED_TRACE(c.name);
    reset();
    const CliRun intact = ::gemmtune::test::run_cli(c.args);
    ASSERT_EQ(intact.status, 0) << intact.err;
    reset();
    WriteLockHolder lock(file);
    ASSERT_TRUE(lock.held());
    const std::string before = file_sha256(file);
    CliRun r;
    if (c.role == Command::writes) {
      const auto start = Clock::now();
      ::gemmtune::test::ChildProcess writer(::gemmtune::test::cli_argv(c.args));
      std::this_thread::sleep_for(hold);
      EXPECT_TRUE(lock.release());
      r = writer.wait();
      EXPECT_GE(Clock::now() - start, hold) << "the writer did not wait for the lock";
      EXPECT_TRUE(check_passes(file));
    } else {
      r = ::gemmtune::test::run_cli(c.args);  // while the lock is held
      EXPECT_EQ(file_sha256(file), before) << "a read changed the file";
      EXPECT_TRUE(lock.release());
    }
    expect_clean_end(r, file.string());
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, intact.out) << "not what the intact file gives";
    EXPECT_EQ(file_sha256(source), source_sha);
  }
}

}  // namespace
}  // namespace gemmtune::tools_test
