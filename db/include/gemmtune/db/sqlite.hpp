#pragma once
// RAII wrappers of the SQLite C API: a connection, a prepared statement, a transaction.
// Every call is checked by check_sqlite(), whose message names the file, the call and the source
// line.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <source_location>
#include <span>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace gemmtune::db {

/// How a database file is opened. Read-only never creates or alters anything.
enum class OpenMode { read_only, read_write };

/// Throws DatabaseError unless `rc` is SQLITE_OK, SQLITE_ROW or SQLITE_DONE; the message names
/// `path`, the call text and where it was made, SQLite's own message and a hint of what to do.
void check_sqlite(int rc, sqlite3* handle, const std::string& path, const char* call,
                  const char* file, int line);

/// The variant for destructors: reports a failure on stderr instead of throwing.
void check_sqlite_noexcept(int rc, sqlite3* handle, const std::string& path, const char* call,
                           const char* file, int line) noexcept;

/// Checks an SQLite call made on Connection `conn`.
#define GEMMTUNE_DB_CHECK(conn, call) \
  ::gemmtune::db::check_sqlite((call), (conn).handle(), (conn).path(), #call, __FILE__, __LINE__)

/// One open SQLite connection with gemmtune's settings: extended error codes, a 10 s busy timeout,
/// foreign keys on. Not thread-safe: use one per thread. Opening checks the file first (exists,
/// directory, SQLite header, truncation) so that errors say what is wrong with which file.
class Connection {
 public:
  /// Opens `path`; read_write creates the file (never its directory) when it does not exist.
  Connection(std::string path, OpenMode mode);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  Connection(Connection&& other) noexcept;
  Connection& operator=(Connection&& other) noexcept;

  /// The raw handle, for calls this class does not wrap.
  sqlite3* handle() const { return db_; }
  /// The path as given to the constructor: every error message names it.
  const std::string& path() const { return path_; }
  /// The mode the file was opened in.
  OpenMode mode() const { return mode_; }
  /// Runs SQL without parameters (schema scripts, pragmas); never use it with values. Errors name
  /// the caller's file and line.
  void exec(std::string_view sql, std::source_location where = std::source_location::current());
  /// Switches the file to WAL, so that several processes can write while others read. The last
  /// connection to close switches it back, so that a file at rest is one self-contained file that
  /// a read-only open (even in a read-only directory) can read without creating -wal/-shm files.
  /// A read-only connection that closes last does it too, where it may write the file and its
  /// directory (a reader open while the last writer closed kept the file in WAL mode).
  void enable_wal();
  /// Rowid of the last INSERT on this connection.
  std::int64_t last_insert_id() const;
  /// Rows changed by the last INSERT, UPDATE or DELETE.
  std::int64_t changes() const;

 private:
  void open_handle(const std::string& filename, int flags);
  void finish_open(int flags);
  void close() noexcept;

  sqlite3* db_ = nullptr;
  std::string path_;
  OpenMode mode_ = OpenMode::read_only;
  bool wal_ = false;
  bool immutable_ = false;  // read as immutable (finish_open): no locks, no journal of its own
};

/// A prepared statement. Parameters and columns are numbered as SQLite does: bind from 1, read from
/// 0.
class Statement {
 public:
  /// Compiles `sql` on `conn`; throws DatabaseError naming the SQL when it does not compile. Errors
  /// of this statement name the file and line where it was created.
  Statement(Connection& conn, std::string_view sql,
            std::source_location where = std::source_location::current());
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  /// Binds an integer.
  Statement& bind_int(int index, std::int64_t value);
  /// Binds an integer, or NULL when empty.
  Statement& bind_int(int index, std::optional<std::int64_t> value);
  /// Binds a double, or NULL when empty.
  Statement& bind_real(int index, std::optional<double> value);
  /// Binds text; the bytes are stored as given (no UTF-8 check), so any bytes round-trip.
  Statement& bind_text(int index, std::string_view value);
  /// Binds a blob.
  Statement& bind_blob(int index, std::span<const std::byte> value);
  /// Binds NULL.
  Statement& bind_null(int index);

  /// Steps once: true when a row is ready, false when the statement is done.
  bool step();
  /// Steps to the end (for statements that return no rows).
  void run();
  /// Resets the statement and clears its bindings, for the next use.
  void reset();

  /// Number of result columns.
  int column_count() const;
  /// Name of result column `col`.
  std::string column_name(int col) const;
  /// SQLITE_INTEGER, SQLITE_FLOAT, SQLITE_TEXT, SQLITE_BLOB or SQLITE_NULL.
  int column_type(int col) const;
  /// True when column `col` is NULL.
  bool is_null(int col) const;
  /// Column `col` as an integer.
  std::int64_t get_int(int col) const;
  /// Column `col` as an integer, empty when NULL.
  std::optional<std::int64_t> get_opt_int(int col) const;
  /// Column `col` as a double.
  double get_real(int col) const;
  /// Column `col` as a double, empty when NULL.
  std::optional<double> get_opt_real(int col) const;
  /// Column `col` as text, byte for byte (empty when NULL).
  std::string get_text(int col) const;
  /// Column `col` as bytes.
  std::vector<std::byte> get_blob(int col) const;

 private:
  void check(int rc, const std::string& what) const;

  Connection& conn_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
  std::source_location where_;
};

/// What a transaction locks when it begins.
enum class TransactionKind {
  deferred,   ///< a consistent snapshot for reads; locks lazily
  immediate,  ///< takes the write lock at once, waiting up to the busy timeout: use for every write
};

/// A transaction that rolls back unless commit() is called.
class Transaction {
 public:
  /// Begins a transaction on `conn`.
  explicit Transaction(Connection& conn, TransactionKind kind = TransactionKind::immediate,
                       std::source_location where = std::source_location::current());
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  /// Commits; the destructor then does nothing.
  void commit();

 private:
  Connection& conn_;
  bool open_ = false;
  std::source_location where_;
};

}  // namespace gemmtune::db
