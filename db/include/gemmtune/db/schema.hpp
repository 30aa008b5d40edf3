#pragma once
// Schema versions and forward migrations. The version lives in PRAGMA user_version; a file with a
// newer version than this build knows is refused and never touched.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gemmtune/db/family.hpp"
#include "gemmtune/db/sqlite.hpp"

namespace gemmtune::db {

/// The schema version this build reads and writes.
inline constexpr int kSchemaVersion = 5;

/// The oldest schema version a read-only open reads without migrating the file. The versions
/// after it only added a results column, which temporary views show as NULL (not measured), the
/// gpu_ceilings table, which they show empty, and the configs key (family, name), which reads do
/// not depend on; an older file is refused read-only, with a hint to migrate it.
inline constexpr int kOldestReadableVersion = 2;

/// PRAGMA application_id of every tuning database: "gmtu".
inline constexpr int kApplicationId = 0x676d7475;

/// The script that migrates version `version - 1` to `version` (1 <= version <= kSchemaVersion).
std::string_view migration_sql(int version);

/// The file's PRAGMA user_version (0 for a new, empty file).
int schema_version(Connection& conn);

/// Throws DatabaseError, before anything is written, when `conn`'s file is not a tuning database
/// this build can use in `conn.mode()`: another application's file, a newer schema, or (read-only)
/// a file that is empty or older than kOldestReadableVersion; or when `families` holds a name
/// that cannot be a family or column name. A read-only open of an older file it can read gets the
/// temporary views (this connection's alone) through which the file reads as this version's:
/// create_configs_view() (for the knob columns of `families`), create_results_view(),
/// create_ceilings_view() and best_results with them.
void check_schema_compatible(Connection& conn, std::span<const FamilySchema> families = {});

/// Creates the temporary view `view` of `schema`.configs (this connection's alone) in which the
/// knob columns of `families` that a file made before those knobs lacks hold, in each family's
/// rows, the family's default: its configs ran with it (NULL in the rows of other families).
/// Names are the caller's constants, not input.
void create_configs_view(Connection& conn, const std::string& view, const std::string& schema,
                         std::span<const FamilySchema> families);

/// Creates the temporary view `view` of `schema`.results (this connection's alone) in which the
/// wide_error column a version 2 file lacks is NULL: nothing was measured on wide-range inputs
/// then. Names are the caller's constants, not input.
void create_results_view(Connection& conn, const std::string& view, const std::string& schema);

/// Creates the temporary view `view` of `schema`.gpu_ceilings (this connection's alone): the
/// table itself, or for a file older than version 4, which has none, an empty view with its
/// columns. Names are the caller's constants, not input.
void create_ceilings_view(Connection& conn, const std::string& view, const std::string& schema);

/// What migrate() would change in a file: its schema version, and the knob columns of the
/// families (knobs added to gemmtune after the file was made) that it has no column for yet.
struct PendingMigration {
  int from_version = 0;
  std::vector<std::string> new_knob_columns;
  bool needed() const { return from_version < kSchemaVersion || !new_knob_columns.empty(); }
};

/// What migrate() would change in `conn`'s file, opened with `families`; reads only.
PendingMigration pending_migration(Connection& conn, std::span<const FamilySchema> families = {});

/// Brings the file from its version to `target` in one immediate transaction (safe when several
/// processes open one new file at once) and, at kSchemaVersion, adds the knob columns of
/// `families` that it lacks, each filled with its family's default in that family's rows; does
/// nothing when it is already there. Throws DatabaseError when `families` holds a name that
/// cannot be a family or column name (family.hpp).
void migrate(Connection& conn, int target = kSchemaVersion,
             std::span<const FamilySchema> families = {});

}  // namespace gemmtune::db
