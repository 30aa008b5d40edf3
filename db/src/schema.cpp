#include "gemmtune/db/schema.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gemmtune/db/error.hpp"
#include "rows.hpp"

namespace gemmtune::db {
namespace detail {
// Generated from db/schema/*.sql by embed_text() (db/CMakeLists.txt).
std::string_view schema_v1_sql();
std::string_view schema_v2_sql();
std::string_view schema_v3_sql();
std::string_view schema_v4_sql();
std::string_view schema_v5_sql();
}  // namespace detail

namespace {

int pragma_int(Connection& conn, const char* sql) {
  Statement st(conn, sql);
  return st.step() ? static_cast<int>(st.get_int(0)) : 0;
}

// Tables, indexes and views that are not SQLite's own.
int user_objects(Connection& conn) {
  return pragma_int(
      conn, "SELECT count(*) FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'");
}

[[noreturn]] void refuse(const Connection& conn, const std::string& why) {
  throw DatabaseError("cannot use tuning database '" + conn.path() + "': " + why);
}

[[noreturn]] void refuse_newer(const Connection& conn, int version) {
  refuse(conn, "it has schema version " + std::to_string(version) +
                   ", newer than the version this gemmtune understands (" +
                   std::to_string(kSchemaVersion) +
                   "); it was written by a newer gemmtune: use that version or upgrade. The file "
                   "was not changed");
}

// The command that migrates `conn`'s file (read commands open it read-only and cannot).
std::string migrate_hint(const Connection& conn) {
  return "run `gemmtune db migrate --db '" + conn.path() + "'` (or open it read-write) once";
}

// A knob column of the families that `schema`.configs lacks, with the families that declare it.
struct MissingColumn {
  std::string name;
  std::vector<std::pair<std::string, int>> defaults;  // family, its default
};

// Throws unless every name in `families` may go into SQL as a family or column name.
void check_families(std::span<const FamilySchema> families) {
  for (const FamilySchema& family : families) {
    if (!detail::valid_column_name(family.name))
      throw DatabaseError("'" + family.name + "' cannot name a kernel family in a tuning database");
    for (const KnobColumn& knob : family.knobs) {
      if (!detail::valid_column_name(knob.name)) {
        throw DatabaseError("kernel family '" + family.name + "' declares knob column '" +
                            knob.name + "', which cannot name a column of configs");
      }
    }
    const std::string& column = family.precision.column;
    if (!column.empty() &&
        std::none_of(family.knobs.begin(), family.knobs.end(),
                     [&](const KnobColumn& knob) { return knob.name == column; })) {
      throw DatabaseError("kernel family '" + family.name + "' ranks precision classes by '" +
                          column + "', which is none of its knob columns");
    }
  }
}

// The knob columns of `families` that `schema`.configs has no column for yet: knobs added after
// the file was made. In the order the families declare them.
std::vector<MissingColumn> missing_knob_columns(Connection& conn,
                                                std::span<const FamilySchema> families,
                                                const std::string& schema = "main") {
  check_families(families);
  std::set<std::string, std::less<>> columns;
  Statement st(conn, "SELECT name FROM pragma_table_info('configs', ?1)");
  st.bind_text(1, schema);
  while (st.step()) columns.insert(st.get_text(0));
  std::vector<MissingColumn> missing;
  if (columns.empty()) return missing;  // no schema yet: the migrations create the table
  for (const FamilySchema& family : families) {
    for (const KnobColumn& knob : family.knobs) {
      if (columns.count(knob.name)) continue;
      auto it = std::find_if(missing.begin(), missing.end(),
                             [&](const MissingColumn& m) { return m.name == knob.name; });
      if (it == missing.end()) it = missing.insert(missing.end(), MissingColumn{knob.name, {}});
      it->defaults.emplace_back(family.name, knob.default_value);
    }
  }
  return missing;
}

// Whether `schema`.`table` (a table or a view) has `column`.
bool has_column(Connection& conn, const std::string& schema, const std::string& table,
                const std::string& column) {
  Statement st(conn, "SELECT 1 FROM pragma_table_info(?1, ?2) WHERE name = ?3");
  st.bind_text(1, table).bind_text(2, schema).bind_text(3, column);
  return st.step();
}

// A read-only view of a file older than this version (from kOldestReadableVersion): results and
// best_results with the wide-range error of version 3, NULL, and the gpu_ceilings of version 4,
// empty: nothing was measured then (temp names come first, so every query reads these).
void create_read_only_views(Connection& conn) {
  if (!has_column(conn, "main", "results", "wide_error"))
    create_results_view(conn, "results", "main");
  if (!has_column(conn, "main", "best_results", "wide_error"))
    conn.exec(
        "CREATE TEMP VIEW best_results AS SELECT *, NULL AS wide_error FROM main.best_results");
  if (!has_column(conn, "main", "gpu_ceilings", "gpu_model_id"))
    create_ceilings_view(conn, "gpu_ceilings", "main");
}

// The generated migration of the families' knobs: one column per new knob, each declaring
// family's default filling that family's rows already there (configs made before the knob existed
// ran with that value); other families' rows hold NULL.
void add_knob_columns(Connection& conn, std::span<const FamilySchema> families) {
  for (const MissingColumn& column : missing_knob_columns(conn, families)) {
    conn.exec("ALTER TABLE configs ADD COLUMN " + detail::quoted(column.name) + " INTEGER");
    Statement fill(conn,
                   "UPDATE configs SET " + detail::quoted(column.name) + " = ?1 WHERE family = ?2");
    for (const auto& [family, value] : column.defaults) {
      fill.bind_int(1, value).bind_text(2, family).run();
      fill.reset();
    }
  }
}

// Version 5 builds `configs` anew (SQLite changes no table's key in place). Its script creates
// configs_v5 with the columns every file has; the knob columns, which follow the gemmtune that
// wrote the file, are added where the script marks, in their order, before it copies the rows.
constexpr std::string_view kKnobColumnsMark = "-- @knob-columns";

// Runs the migration to `version`.
void run_migration(Connection& conn, int version) {
  const std::string_view sql = migration_sql(version);
  const std::size_t mark = sql.find(kKnobColumnsMark);
  if (mark == std::string_view::npos) {
    conn.exec(sql);
    return;
  }
  conn.exec(sql.substr(0, mark));
  for (const std::string& column : detail::knob_columns(conn, "configs", "main"))
    conn.exec("ALTER TABLE configs_v5 ADD COLUMN " + detail::quoted(column) + " INTEGER");
  conn.exec(sql.substr(mark));
}

// Foreign-key enforcement off for this object's life, on the connection: the migration that
// builds `configs` anew drops the table that results refer to (their ids are kept). PRAGMA
// foreign_keys does nothing inside a transaction: make this before it.
class ForeignKeysOff {
 public:
  explicit ForeignKeysOff(Connection& conn) : conn_(conn) {
    conn_.exec("PRAGMA foreign_keys = OFF");
  }
  ~ForeignKeysOff() {
    check_sqlite_noexcept(
        sqlite3_exec(conn_.handle(), "PRAGMA foreign_keys = ON", nullptr, nullptr, nullptr),
        conn_.handle(), conn_.path(), "PRAGMA foreign_keys = ON", __FILE__, __LINE__);
  }
  ForeignKeysOff(const ForeignKeysOff&) = delete;
  ForeignKeysOff& operator=(const ForeignKeysOff&) = delete;

 private:
  Connection& conn_;
};

// The first version whose migration builds `configs` anew.
constexpr int kConfigsRebuilt = 5;

}  // namespace

std::string_view migration_sql(int version) {
  std::string_view sql;
  switch (version) {
    case 1: sql = detail::schema_v1_sql(); break;
    case 2: sql = detail::schema_v2_sql(); break;
    case 3: sql = detail::schema_v3_sql(); break;
    case 4: sql = detail::schema_v4_sql(); break;
    case 5: sql = detail::schema_v5_sql(); break;
    default:
      throw DatabaseError("no migration to schema version " + std::to_string(version) +
                          " (this build knows 1.." + std::to_string(kSchemaVersion) + ")");
  }
  // An empty script would stamp a version on a file without its tables: a broken build.
  if (sql.find("CREATE") == std::string_view::npos && sql.find("ALTER") == std::string_view::npos) {
    throw DatabaseError("migration to schema version " + std::to_string(version) +
                        " is empty in this build of gemmtune: the embedded db/schema file is "
                        "missing; rebuild gemmtune");
  }
  return sql;
}

int schema_version(Connection& conn) { return pragma_int(conn, "PRAGMA user_version"); }

void check_schema_compatible(Connection& conn, std::span<const FamilySchema> families) {
  // One snapshot: another process may be creating the schema between two separate reads.
  Transaction snapshot(conn, TransactionKind::deferred);
  const int version = schema_version(conn);
  const int app_id = pragma_int(conn, "PRAGMA application_id");
  if (app_id != 0 && app_id != kApplicationId) {
    refuse(conn, "it is an SQLite database of another application (application_id " +
                     std::to_string(app_id) + "); point GEMMTUNE_DB at a tuning database");
  }
  // Every version gemmtune ever wrote carries its application_id (migrate() stamps both).
  if (version > 0 && app_id != kApplicationId) {
    refuse(conn,
           "it is an SQLite database of another application (schema version " +
               std::to_string(version) +
               " but no gemmtune application_id); point GEMMTUNE_DB at a tuning database. The file "
               "was not changed");
  }
  if (version > kSchemaVersion) refuse_newer(conn, version);
  if (version == 0 && user_objects(conn) > 0) {
    refuse(conn,
           "it is an SQLite database but not a tuning database (it has tables but no "
           "gemmtune schema version); point GEMMTUNE_DB at a tuning database");
  }
  if (conn.mode() == OpenMode::read_only && version == 0) {
    refuse(conn, "it is empty: no sweep has written to it yet; run `gemmtune sweep` first");
  }
  if (conn.mode() == OpenMode::read_only && version < kOldestReadableVersion) {
    refuse(conn, "it has schema version " + std::to_string(version) +
                     ", older than this "
                     "gemmtune's " +
                     std::to_string(kSchemaVersion) + ", and was opened read-only; " +
                     migrate_hint(conn) + " to migrate it");
  }
  std::vector<MissingColumn> missing;
  if (conn.mode() == OpenMode::read_only && version > 0)
    missing = missing_knob_columns(conn, families);
  else
    check_families(families);
  snapshot.commit();
  // Reading must not need a write, so temporary views (temp names come first) show what a
  // newer gemmtune added since the file was written: the columns of new knobs and of results.
  // A writable open adds the real ones.
  if (!missing.empty()) create_configs_view(conn, "configs", "main", families);
  if (conn.mode() == OpenMode::read_only && version < kSchemaVersion) create_read_only_views(conn);
}

void create_configs_view(Connection& conn, const std::string& view, const std::string& schema,
                         std::span<const FamilySchema> families) {
  std::string sql = "CREATE TEMP VIEW " + view + " AS SELECT *";
  for (const MissingColumn& column : missing_knob_columns(conn, families, schema)) {
    sql += ", CASE family";
    for (const auto& [family, value] : column.defaults)  // names checked: plain characters
      sql += " WHEN '" + family + "' THEN " + std::to_string(value);
    sql += " END AS " + detail::quoted(column.name);
  }
  conn.exec(sql + " FROM " + schema + ".configs");
}

void create_results_view(Connection& conn, const std::string& view, const std::string& schema) {
  std::string sql = "CREATE TEMP VIEW " + view + " AS SELECT *";
  if (!has_column(conn, schema, "results", "wide_error")) sql += ", NULL AS wide_error";
  conn.exec(sql + " FROM " + schema + ".results");
}

void create_ceilings_view(Connection& conn, const std::string& view, const std::string& schema) {
  if (has_column(conn, schema, "gpu_ceilings", "gpu_model_id")) {
    conn.exec("CREATE TEMP VIEW " + view + " AS SELECT * FROM " + schema + ".gpu_ceilings");
    return;
  }
  conn.exec("CREATE TEMP VIEW " + view +
            " AS SELECT 0 AS gpu_model_id, 0.0 AS fp32_tflops, 0.0 AS copy_gbs, '' AS "
            "measured_at, '' AS gemmtune_version WHERE 0");
}

PendingMigration pending_migration(Connection& conn, std::span<const FamilySchema> families) {
  Transaction snapshot(
      conn, TransactionKind::deferred);  // one view of a file another process may migrate
  PendingMigration pending;
  pending.from_version = schema_version(conn);
  for (const MissingColumn& column : missing_knob_columns(conn, families))
    pending.new_knob_columns.push_back(column.name);
  snapshot.commit();
  return pending;
}

void migrate(Connection& conn, int target, std::span<const FamilySchema> families) {
  if (target < 0 || target > kSchemaVersion) {
    throw DatabaseError("cannot migrate '" + conn.path() + "' to unknown schema version " +
                        std::to_string(target));
  }
  // The common case takes no write lock.
  const int before = schema_version(conn);
  if (before >= target && missing_knob_columns(conn, families).empty()) return;
  std::optional<ForeignKeysOff> keys_off;
  if (before < kConfigsRebuilt && target >= kConfigsRebuilt) keys_off.emplace(conn);
  Transaction tx(conn, TransactionKind::immediate);
  const int from = schema_version(conn);  // again: another process may have migrated meanwhile
  if (from > kSchemaVersion) refuse_newer(conn, from);
  if (from < target) {
    for (int v = from + 1; v <= target; ++v) run_migration(conn, v);
    // PRAGMA takes no parameters; both values are constants of this build.
    conn.exec("PRAGMA user_version = " + std::to_string(target));
    conn.exec("PRAGMA application_id = " + std::to_string(kApplicationId));
  }
  if (target == kSchemaVersion) add_knob_columns(conn, families);
  tx.commit();
}

}  // namespace gemmtune::db
