#include "gemmtune/db/sqlite.hpp"

#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <thread>
#include <utility>

#include "file_checks.hpp"
#include "gemmtune/db/error.hpp"

namespace gemmtune::db {
namespace {

constexpr int kBusyTimeoutMs = 10000;
// How long a writer waits for another writer's lock (a long `db merge`, a second sweep) before
// it gives up: long, so that measurements are not lost to a busy lock. It waits with backoff:
// 1, 2, 4 ... 256 ms between tries, then 250 ms.
constexpr int kWriterPatienceMs = 10 * 60 * 1000;

int backoff_ms(int tries) { return tries < 8 ? 1 << tries : 250; }

// sqlite3_busy_handler for writable connections: `tries` counts the earlier calls for this lock.
int wait_with_backoff(void*, int tries) {
  int waited = 0;
  for (int i = 0; i < tries; ++i) waited += backoff_ms(i);
  if (waited >= kWriterPatienceMs) return 0;  // give up: the statement returns SQLITE_BUSY
  std::this_thread::sleep_for(std::chrono::milliseconds(backoff_ms(tries)));
  return 1;
}

// What to do about an error, by primary result code.
const char* hint(int rc) {
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return "another process held the database locked too long (10 s for a reader, 10 minutes for "
             "a writer): retry, or look for a hung gemmtune process";
    case SQLITE_READONLY:
      return "the file or its directory is not writable: fix the permissions or open it read-only";
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return "the file is damaged or not a tuning database: restore a backup, or move it away and "
             "re-run the sweep";
    case SQLITE_FULL: return "the disk is full: free space and retry";
    case SQLITE_CANTOPEN: return "check that the file's directory exists and is writable";
    case SQLITE_IOERR: return "an I/O error: check the disk and the file system";
    case SQLITE_CONSTRAINT:
      return "a value breaks a rule of the schema (docs/database.md lists them)";
    default: return "see the SQLite message";
  }
}

const char* base_name(const char* file) {
  const char* slash = std::strrchr(file, '/');
  return slash ? slash + 1 : file;
}

std::string error_text(int rc, sqlite3* handle, const std::string& path, const char* call,
                       const char* file, int line) {
  const char* msg = handle ? sqlite3_errmsg(handle) : sqlite3_errstr(rc);
  // What the system said, for errors of the file system: "No space left on device".
  std::string os_error;
  const int primary = rc & 0xff;
  if (handle && (primary == SQLITE_IOERR || primary == SQLITE_FULL || primary == SQLITE_CANTOPEN)) {
    if (const int e = sqlite3_system_errno(handle)) os_error = std::string("; ") + std::strerror(e);
  }
  return "tuning database '" + path + "': " + call + " failed at " + base_name(file) + ":" +
         std::to_string(line) + ": " + msg + " (" + sqlite3_errstr(rc) + ", code " +
         std::to_string(rc) + os_error + "); " + hint(rc);
}

bool is_failure(int rc) { return rc != SQLITE_OK && rc != SQLITE_ROW && rc != SQLITE_DONE; }

std::string short_sql(std::string_view sql) {
  std::string s(sql.substr(0, 80));
  for (char& c : s)
    if (c == '\n') c = ' ';
  return sql.size() > 80 ? s + "..." : s;
}

}  // namespace

void check_sqlite(int rc, sqlite3* handle, const std::string& path, const char* call,
                  const char* file, int line) {
  if (is_failure(rc)) throw DatabaseError(error_text(rc, handle, path, call, file, line));
}

void check_sqlite_noexcept(int rc, sqlite3* handle, const std::string& path, const char* call,
                           const char* file, int line) noexcept {
  if (is_failure(rc)) {
    try {
      std::cerr << "gemmtune: " << error_text(rc, handle, path, call, file, line) << "\n";
    } catch (...) {
    }
  }
}

// ---- Connection ----

Connection::Connection(std::string path, OpenMode mode) : path_(std::move(path)), mode_(mode) {
  detail::check_file_before_open(path_, mode_);
  // URIs are on (for ATTACH ... ?mode=ro); a plain path that looks like one must stay a path.
  const std::string filename = path_.rfind("file:", 0) == 0 ? "./" + path_ : path_;
  const int flags = SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX |
                    (mode_ == OpenMode::read_only ? SQLITE_OPEN_READONLY
                                                  : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  open_handle(filename, flags);
  try {
    finish_open(flags);
  } catch (...) {
    close();
    throw;
  }
}

void Connection::finish_open(int flags) {
  if (mode_ == OpenMode::read_write && sqlite3_db_readonly(db_, "main") == 1) {
    throw DatabaseError("cannot open tuning database '" + path_ +
                        "' for writing: the file is not writable; fix its permissions or open it "
                        "read-only");
  }
  // Reading page 1 now turns "not a database" and lock-file problems into errors at open.
  const int rc = sqlite3_exec(db_, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
  const int primary = rc & 0xff;
  if (mode_ == OpenMode::read_only && (primary == SQLITE_CANTOPEN || primary == SQLITE_READONLY) &&
      !detail::has_wal_content(path_)) {
    // A file left in WAL mode, in a directory we cannot write: no -shm can be made, so SQLite's
    // locks are out of reach. With no WAL content the main file is the whole database, and a
    // writer would have made one, so read the file as immutable.
    close();
    const std::string abs = std::filesystem::absolute(path_).string();
    open_handle(detail::file_uri(abs, "immutable=1"), flags);
    immutable_ = true;
    GEMMTUNE_DB_CHECK(
        *this, sqlite3_exec(db_, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr));
  } else if (rc != SQLITE_OK) {
    throw DatabaseError(error_text(rc, db_, path_, "opening", __FILE__, __LINE__));
  }
}

void Connection::open_handle(const std::string& filename, int flags) {
  const int rc = sqlite3_open_v2(filename.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    const std::string msg = error_text(rc, db_, path_, "sqlite3_open_v2", __FILE__, __LINE__);
    close();
    throw DatabaseError(msg);
  }
  sqlite3_extended_result_codes(db_, 1);
  try {
    GEMMTUNE_DB_CHECK(*this, mode_ == OpenMode::read_write
                                 ? sqlite3_busy_handler(db_, wait_with_backoff, nullptr)
                                 : sqlite3_busy_timeout(db_, kBusyTimeoutMs));
    GEMMTUNE_DB_CHECK(*this,
                      sqlite3_exec(db_, "PRAGMA foreign_keys = ON", nullptr, nullptr, nullptr));
  } catch (...) {
    close();
    throw;
  }
}

namespace {

// Whether the main file of `db` is in WAL mode.
bool in_wal_mode(sqlite3* db) noexcept {
  std::string mode;
  sqlite3_exec(
      db, "PRAGMA main.journal_mode",
      [](void* out, int, char** values, char**) {
        *static_cast<std::string*>(out) = values[0] ? values[0] : "";
        return 0;
      },
      &mode, nullptr);
  return mode == "wal";
}

// Switches the file at `path` back to a rollback journal (checkpointing the WAL into it) when no
// other connection has it open and this process may write it and its directory; else leaves it.
void leave_wal_mode(const std::string& path) noexcept {
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (::access(path.c_str(), W_OK) != 0 || ::access(dir.c_str(), W_OK) != 0) return;
  const std::string filename = path.rfind("file:", 0) == 0 ? "./" + path : path;
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(filename.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                      nullptr) == SQLITE_OK) {
    sqlite3_busy_timeout(db, 0);  // another connection holds it: that one's close does this
    sqlite3_exec(db, "PRAGMA journal_mode = DELETE", nullptr, nullptr, nullptr);
  }
  sqlite3_close_v2(db);
}

}  // namespace

void Connection::close() noexcept {
  if (!db_) return;
  if (wal_) {
    // Succeeds only for the last connection (others hold shared locks); no waiting for that.
    sqlite3_busy_timeout(db_, 0);
    sqlite3_exec(db_, "PRAGMA journal_mode = DELETE", nullptr, nullptr, nullptr);
  }
  // A writer that closed while this reader was open could not switch the file back.
  const bool restore = mode_ == OpenMode::read_only && !immutable_ && in_wal_mode(db_);
  check_sqlite_noexcept(sqlite3_close_v2(db_), nullptr, path_, "sqlite3_close_v2", __FILE__,
                        __LINE__);
  db_ = nullptr;
  wal_ = false;
  immutable_ = false;
  if (restore) leave_wal_mode(path_);
}

Connection::~Connection() { close(); }

Connection::Connection(Connection&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      path_(std::move(other.path_)),
      mode_(other.mode_),
      wal_(std::exchange(other.wal_, false)),
      immutable_(std::exchange(other.immutable_, false)) {}

Connection& Connection::operator=(Connection&& other) noexcept {
  if (this != &other) {
    close();
    db_ = std::exchange(other.db_, nullptr);
    path_ = std::move(other.path_);
    mode_ = other.mode_;
    wal_ = std::exchange(other.wal_, false);
    immutable_ = std::exchange(other.immutable_, false);
  }
  return *this;
}

void Connection::exec(std::string_view sql, std::source_location where) {
  const std::string text(sql);
  char* err = nullptr;
  const int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &err);
  sqlite3_free(err);  // errmsg of the handle carries the same text
  check_sqlite(rc, db_, path_, ("executing \"" + short_sql(sql) + "\"").c_str(), where.file_name(),
               static_cast<int>(where.line()));
}

void Connection::enable_wal() {
  // Changing the journal mode needs the exclusive lock, and SQLite does not wait for it (the busy
  // handler is skipped to avoid deadlocks), so wait here while other processes open or close.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  for (;;) {
    std::string mode;
    const int rc = sqlite3_exec(
        db_, "PRAGMA journal_mode = WAL",
        [](void* out, int, char** values, char**) {
          *static_cast<std::string*>(out) = values[0] ? values[0] : "";
          return 0;
        },
        &mode, nullptr);
    if (rc == SQLITE_OK && mode == "wal") break;
    if ((rc & 0xff) != SQLITE_BUSY && rc != SQLITE_OK) {
      check_sqlite(rc, db_, path_, "PRAGMA journal_mode = WAL", __FILE__, __LINE__);
    }
    if (std::chrono::steady_clock::now() > deadline) {
      throw DatabaseError(
          "tuning database '" + path_ + "': cannot switch to WAL journal mode (" +
          (rc == SQLITE_OK ? "it stays in '" + mode + "' mode" : std::string(sqlite3_errstr(rc))) +
          "); another process kept it locked for 10 s, or the file system does "
          "not support WAL (network file systems): use a local disk");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  wal_ = true;
}

std::int64_t Connection::last_insert_id() const { return sqlite3_last_insert_rowid(db_); }

std::int64_t Connection::changes() const { return sqlite3_changes64(db_); }

// ---- Statement ----

Statement::Statement(Connection& conn, std::string_view sql, std::source_location where)
    : conn_(conn), sql_(sql), where_(where) {
  check(sqlite3_prepare_v2(conn_.handle(), sql_.data(), static_cast<int>(sql_.size()), &stmt_,
                           nullptr),
        "preparing");
}

void Statement::check(int rc, const std::string& what) const {
  check_sqlite(rc, conn_.handle(), conn_.path(), (what + " \"" + short_sql(sql_) + "\"").c_str(),
               where_.file_name(), static_cast<int>(where_.line()));
}

Statement::~Statement() { sqlite3_finalize(stmt_); }  // its code repeats the last step's

Statement& Statement::bind_int(int index, std::int64_t value) {
  check(sqlite3_bind_int64(stmt_, index, value), "binding");
  return *this;
}

Statement& Statement::bind_int(int index, std::optional<std::int64_t> value) {
  return value ? bind_int(index, *value) : bind_null(index);
}

Statement& Statement::bind_real(int index, std::optional<double> value) {
  if (!value) return bind_null(index);
  check(sqlite3_bind_double(stmt_, index, *value), "binding");
  return *this;
}

Statement& Statement::bind_text(int index, std::string_view value) {
  check(
      sqlite3_bind_text64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8),
      "binding");
  return *this;
}

Statement& Statement::bind_blob(int index, std::span<const std::byte> value) {
  check(sqlite3_bind_blob64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT), "binding");
  return *this;
}

Statement& Statement::bind_null(int index) {
  check(sqlite3_bind_null(stmt_, index), "binding");
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  check(rc, "running");
  return false;
}

void Statement::run() {
  while (step()) {
  }
}

void Statement::reset() {
  sqlite3_reset(stmt_);  // returns the last step's code, already reported
  check(sqlite3_clear_bindings(stmt_), "resetting");
}

int Statement::column_count() const { return sqlite3_column_count(stmt_); }

std::string Statement::column_name(int col) const { return sqlite3_column_name(stmt_, col); }

int Statement::column_type(int col) const { return sqlite3_column_type(stmt_, col); }

bool Statement::is_null(int col) const { return column_type(col) == SQLITE_NULL; }

std::int64_t Statement::get_int(int col) const { return sqlite3_column_int64(stmt_, col); }

std::optional<std::int64_t> Statement::get_opt_int(int col) const {
  if (is_null(col)) return std::nullopt;
  return get_int(col);
}

double Statement::get_real(int col) const { return sqlite3_column_double(stmt_, col); }

std::optional<double> Statement::get_opt_real(int col) const {
  if (is_null(col)) return std::nullopt;
  return get_real(col);
}

std::string Statement::get_text(int col) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
  return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col))) : "";
}

std::vector<std::byte> Statement::get_blob(int col) const {
  const auto* p = static_cast<const std::byte*>(sqlite3_column_blob(stmt_, col));
  return p ? std::vector<std::byte>(p, p + sqlite3_column_bytes(stmt_, col))
           : std::vector<std::byte>{};
}

// ---- Transaction ----

Transaction::Transaction(Connection& conn, TransactionKind kind, std::source_location where)
    : conn_(conn), where_(where) {
  conn_.exec(kind == TransactionKind::immediate ? "BEGIN IMMEDIATE" : "BEGIN", where_);
  open_ = true;
}

void Transaction::commit() {
  conn_.exec("COMMIT", where_);
  open_ = false;
}

Transaction::~Transaction() {
  // Some errors (disk full, I/O) roll back by themselves; then there is nothing left to undo.
  if (open_ && sqlite3_get_autocommit(conn_.handle()) == 0) {
    check_sqlite_noexcept(sqlite3_exec(conn_.handle(), "ROLLBACK", nullptr, nullptr, nullptr),
                          conn_.handle(), conn_.path(), "ROLLBACK", where_.file_name(),
                          static_cast<int>(where_.line()));
  }
}

}  // namespace gemmtune::db
