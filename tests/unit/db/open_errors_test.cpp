// Bad files: each open fails with a message naming the path and the cause, and creates nothing.
#include <sqlite3.h>
#include <sys/stat.h>

#include "gemmtune/db/schema.hpp"
#include "unit/db/db_fixture.hpp"

namespace gemmtune::db::test {
namespace {

using OpenErrors = ScratchDirTest;

// A database with a few results and pages, closed (so checkpointed).
void make_database(const std::string& file, int results = 200) {
  Database db(file, OpenMode::read_write);
  const Id gpu = db.upsert_gpu_model(sample_gpu());
  const Id sweep = db.begin_sweep(sweep_info(gpu, "gemmtune sweep"));
  const Id problem = db.upsert_problem(sample_problem(1024));
  std::vector<Result> batch;
  for (int i = 0; i < results; ++i) {
    Result r = ok_result(problem, db.upsert_config(sample_config(i)), 1.0 + i);
    r.error = std::string(200, 'x');  // make it span pages
    batch.push_back(r);
  }
  db.record_results(sweep, batch);
}

TEST_F(OpenErrors, NotADatabaseNamesPathAndCause) {
  const std::string file = path("notes.db");
  std::ofstream(file) << "these are my notes, not a database\n";
  const std::string before = file_bytes(file);
  for (OpenMode mode : {OpenMode::read_only, OpenMode::read_write}) {
    expect_error([&] { Database db(file, mode); }, {file, "not an SQLite database"});
  }
  EXPECT_EQ(file_bytes(file), before);
  EXPECT_EQ(list_dir(dir_), std::vector<std::string>{"notes.db"});
}

TEST_F(OpenErrors, AnotherApplicationsSqliteFileIsRefusedUntouched) {
  const std::string file = path("other.db");
  {
    Connection raw(file, OpenMode::read_write);
    raw.exec("CREATE TABLE t (x); INSERT INTO t VALUES (1)");
  }
  const std::string before = file_bytes(file);
  expect_error([&] { Database db(file, OpenMode::read_write); }, {file, "not a tuning database"});
  EXPECT_EQ(file_bytes(file), before);
}

// Another application's file that happens to carry a schema version gemmtune knows (1 to
// kSchemaVersion) but not gemmtune's application_id: refused in both modes, never migrated.
TEST_F(OpenErrors, AForeignFileWithAKnownVersionIsRefusedUntouched) {
  for (int version = 1; version <= kSchemaVersion; ++version) {
    SCOPED_TRACE(version);
    const std::string file = path("app" + std::to_string(version) + ".db");
    {
      Connection raw(file, OpenMode::read_write);
      raw.exec("CREATE TABLE notes (x); INSERT INTO notes VALUES (1)");
      raw.exec("PRAGMA user_version = " + std::to_string(version));
    }
    const std::string before = file_bytes(file);
    for (OpenMode mode : {OpenMode::read_only, OpenMode::read_write})
      expect_error([&] { Database db(file, mode); },
                   {file, "another application", "no gemmtune application_id"});
    EXPECT_EQ(file_bytes(file), before);
  }
}

TEST_F(OpenErrors, TruncatedDatabaseNamesPathAndCause) {
  const std::string file = path("tuning.db");
  make_database(file);
  const auto size = fs::file_size(file);
  ASSERT_GT(size, 8192u);
  fs::resize_file(file, size / 2);
  for (OpenMode mode : {OpenMode::read_only, OpenMode::read_write}) {
    expect_error([&] { Database db(file, mode); }, {file, "truncated"});
  }
  EXPECT_EQ(fs::file_size(file), size / 2);
  fs::resize_file(file, 40);  // shorter than the header itself
  expect_error([&] { Database db(file, OpenMode::read_only); }, {file, "truncated"});
}

TEST_F(OpenErrors, MissingDirectoryCreatesNothing) {
  const std::string file = path("no/such/dir/tuning.db");
  expect_error([&] { Database db(file, OpenMode::read_write); },
               {file, "directory", "does not exist", "GEMMTUNE_DB"});
  expect_error([&] { Database db(file, OpenMode::read_only); }, {file, "does not exist"});
  EXPECT_FALSE(fs::exists(path("no")));
  EXPECT_TRUE(list_dir(dir_).empty());
}

TEST_F(OpenErrors, MissingFileReadOnlyCreatesNothing) {
  const std::string file = path("tuning.db");
  expect_error([&] { Database db(file, OpenMode::read_only); }, {file, "does not exist"});
  EXPECT_TRUE(list_dir(dir_).empty());
}

TEST_F(OpenErrors, DirectoryAsPath) {
  expect_error([&] { Database db(dir_.string(), OpenMode::read_write); },
               {dir_.string(), "is a directory"});
}

TEST_F(OpenErrors, EmptyFileReadOnlyIsNotADatabaseYet) {
  const std::string file = path("tuning.db");
  std::ofstream{file};
  expect_error([&] { Database db(file, OpenMode::read_only); }, {file, "empty"});
  EXPECT_EQ(fs::file_size(file), 0u);
}

TEST_F(OpenErrors, NewerSchemaIsRefusedAndFileLeftByteIdentical) {
  const std::string file = path("tuning.db");
  make_database(file, 5);
  {
    Connection raw(file, OpenMode::read_write);
    raw.exec("PRAGMA user_version = " + std::to_string(kSchemaVersion + 1));
  }
  const std::string before = file_bytes(file);
  for (OpenMode mode : {OpenMode::read_write, OpenMode::read_only}) {
    expect_error(
        [&] { Database db(file, mode); },
        {file, "schema version " + std::to_string(kSchemaVersion + 1), "newer", "not changed"});
    EXPECT_EQ(file_bytes(file), before);
  }
  // Merging it in is refused as well, and leaves both files alone.
  Database other(path("main.db"), OpenMode::read_write);
  expect_error([&] { other.merge_from(file); }, {file, "newer"});
  EXPECT_EQ(file_bytes(file), before);
}

// Permissions do not bind root: these run in a child that drops to nobody when we are root.
TEST_F(OpenErrors, ReadOnlyFile) {
  const std::string file = path("tuning.db");
  make_database(file, 5);
  fs::permissions(file, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  fs::permissions(dir_, fs::perms::all);  // the directory is writable: only the file is not
  const std::string out = run_in_child(
      [&]() -> std::string {
        std::string log;
        try {
          Database db(file, OpenMode::read_write);
          return "read_write open succeeded";
        } catch (const DatabaseError& e) {
          const std::string m = e.what();
          if (m.find(file) == std::string::npos || m.find("not writable") == std::string::npos)
            return "unclear read_write error: " + m;
        }
        Database db(file, OpenMode::read_only);
        if (db.bests().size() != 1) return "read_only open read the wrong rows";
        try {
          db.upsert_problem(sample_problem(7));
          return "write through read_only succeeded";
        } catch (const DatabaseError& e) {
          const std::string m = e.what();
          if (m.find(file) == std::string::npos || m.find("read-only") == std::string::npos)
            return "unclear write error: " + m;
        }
        return "ok";
      },
      /*unprivileged=*/true);
  EXPECT_EQ(out, "ok");
  EXPECT_EQ(list_dir(dir_), std::vector<std::string>{"tuning.db"});
}

// Both states a file rests in: rollback journal (closed cleanly) and WAL (a sweep died, or closed
// while another process had it open); the latter cannot get its -shm file here.
TEST_F(OpenErrors, ReadOnlyFileInReadOnlyDirectory) {
  for (bool wal_at_rest : {false, true}) {
    SCOPED_TRACE(wal_at_rest ? "WAL at rest" : "rollback journal at rest");
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add);
    const std::string file = path(wal_at_rest ? "wal.db" : "rollback.db");
    make_database(file, 5);
    if (wal_at_rest) Connection(file, OpenMode::read_write).exec("PRAGMA journal_mode = WAL");
    const auto files_before = list_dir(dir_);
    const std::string before = file_bytes(file);
    fs::permissions(file, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                              fs::perms::group_exec | fs::perms::others_read |
                              fs::perms::others_exec);
    const std::string out = run_in_child(
        [&]() -> std::string {
          Database db(file, OpenMode::read_only);
          return db.bests().size() == 1 ? "ok" : "wrong rows";
        },
        /*unprivileged=*/true);
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add);
    EXPECT_EQ(out, "ok");
    EXPECT_EQ(list_dir(dir_), files_before);
    EXPECT_EQ(file_bytes(file), before);
  }
}

// The same file merged into another, as nobody: SQLite refused it at ATTACH (issue 22 #5, found
// by the fault matrix, tests/unit/tools/fault_matrix_test.cpp); it is read as immutable instead.
TEST_F(OpenErrors, MergeFromAWalFileInAReadOnlyDirectory) {
  fs::create_directories(path("ro"));
  fs::create_directories(path("rw"));
  const std::string file = path("ro/wal.db"), target = path("rw/target.db");
  make_database(file, 5);
  Connection(file, OpenMode::read_write).exec("PRAGMA journal_mode = WAL");
  const std::string before = file_bytes(file);
  fs::permissions(file, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  fs::permissions(path("ro"), fs::perms::owner_read | fs::perms::owner_exec |
                                  fs::perms::group_read | fs::perms::group_exec |
                                  fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(path("rw"), fs::perms::all);
  const std::string out = run_in_child(
      [&]() -> std::string {
        Database db(target, OpenMode::read_write);
        return db.merge_from(file).results == 5 ? "ok" : "wrong rows";
      },
      /*unprivileged=*/true);
  fs::permissions(path("ro"), fs::perms::owner_all, fs::perm_options::add);
  EXPECT_EQ(out, "ok");
  EXPECT_EQ(list_dir(path("ro")), std::vector<std::string>{"wal.db"});
  EXPECT_EQ(file_bytes(file), before);
}

// SQLite names the target in what it says, whichever file it could not read: a merge from a
// damaged file says that file is damaged (found by the fault matrix).
TEST_F(OpenErrors, AFailedMergeNamesTheDamagedSource) {
  const std::string file = path("damaged.db");
  make_database(file, 200);
  std::string bytes = file_bytes(file);
  for (std::size_t at = bytes.size() / 2; at < bytes.size(); at += 7)
    bytes[at] = char(0xa5);  // rows
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
  Database target(path("target.db"), OpenMode::read_write);
  expect_error([&] { target.merge_from(file); },
               {"'" + file + "' is damaged", "nothing was merged"});
  EXPECT_EQ(file_bytes(file), bytes);
  EXPECT_TRUE(target.bests().empty());
}

TEST_F(OpenErrors, DefaultPathComesFromEnvironment) {
  const std::string saved_db = getenv("GEMMTUNE_DB") ? getenv("GEMMTUNE_DB") : "";
  const std::string saved_home = getenv("HOME") ? getenv("HOME") : "";
  const std::string saved_xdg = getenv("XDG_CACHE_HOME") ? getenv("XDG_CACHE_HOME") : "";
  unsetenv("XDG_CACHE_HOME");
  setenv("GEMMTUNE_DB", path("env.db").c_str(), 1);
  EXPECT_EQ(default_database_path(), path("env.db"));
  setenv("GEMMTUNE_DB", "", 1);
  setenv("HOME", path("home").c_str(), 1);
  EXPECT_EQ(default_database_path(), path("home/.cache/gemmtune/tuning.db"));
  // Read-only creates nothing; read-write creates the default directory only.
  expect_error([&] { Database::open_default(OpenMode::read_only); }, {"does not exist"});
  EXPECT_FALSE(fs::exists(path("home")));
  { Database db = Database::open_default(OpenMode::read_write); }
  EXPECT_TRUE(fs::exists(path("home/.cache/gemmtune/tuning.db")));
  // XDG_CACHE_HOME wins over HOME when absolute; a relative one is ignored, as the spec says.
  setenv("XDG_CACHE_HOME", path("xdg").c_str(), 1);
  EXPECT_EQ(default_database_path(), path("xdg/gemmtune/tuning.db"));
  { Database db = Database::open_default(OpenMode::read_write); }
  EXPECT_TRUE(fs::exists(path("xdg/gemmtune/tuning.db")));
  setenv("XDG_CACHE_HOME", "relative/cache", 1);
  EXPECT_EQ(default_database_path(), path("home/.cache/gemmtune/tuning.db"));
  unsetenv("XDG_CACHE_HOME");
  unsetenv("HOME");
  expect_error([] { default_database_path(); }, {"GEMMTUNE_DB", "HOME"});
  if (saved_db.empty())
    unsetenv("GEMMTUNE_DB");
  else
    setenv("GEMMTUNE_DB", saved_db.c_str(), 1);
  if (!saved_home.empty()) setenv("HOME", saved_home.c_str(), 1);
  if (!saved_xdg.empty()) setenv("XDG_CACHE_HOME", saved_xdg.c_str(), 1);
}

}  // namespace
}  // namespace gemmtune::db::test
