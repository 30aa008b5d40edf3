// Merging another tuning database into this one. Rows are matched by natural keys (GPU model key,
// problem key, config family and name, sweep uid, binary key), never by id, so merging twice adds
// nothing.
#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <vector>

#include "file_checks.hpp"
#include "gemmtune/db/database.hpp"
#include "gemmtune/db/error.hpp"
#include "gemmtune/db/schema.hpp"
#include "rows.hpp"

namespace gemmtune::db {
namespace {

constexpr const char* kSameGpu =
    "mg.name = sg.name AND mg.cc_major = sg.cc_major AND mg.cc_minor = sg.cc_minor AND "
    "mg.sm_count = sg.sm_count";
constexpr const char* kSameProblem =
    "mp.dtype = sp.dtype AND mp.op_a = sp.op_a AND mp.op_b = sp.op_b AND mp.m = sp.m AND "
    "mp.n = sp.n AND mp.k = sp.k AND mp.batch = sp.batch AND mp.alignment = sp.alignment";

// ATTACH as "src" for the lifetime of this object (ATTACH/DETACH cannot run in a transaction),
// with temporary views of what the file may predate (it is read, never migrated, here):
// `src_configs`, whose knob columns of `families` the file lacks hold their defaults,
// `src_results`, whose wide_error a version 2 file lacks is NULL, and `src_ceilings`, empty in a
// file before version 4.
class Attached {
 public:
  Attached(Connection& conn, const std::string& path, std::span<const FamilySchema> families)
      : conn_(conn) {
    const std::string abs = std::filesystem::absolute(path).string();
    // A file left in WAL mode in a directory we cannot write: no -shm can be made, and SQLite
    // refuses it at ATTACH or at the first read. With no WAL content the main file is the whole
    // database (as Connection reads it, sqlite.cpp).
    if (!attach(detail::file_uri(abs, "mode=ro")) &&
        (detail::has_wal_content(path) || !attach(detail::file_uri(abs, "mode=ro&immutable=1")))) {
      throw DatabaseError(
          "cannot read tuning database '" + path +
          "' to merge it: SQLite cannot open it "
          "read-only (a WAL file another process holds, or permissions); nothing was merged");
    }
    create_configs_view(conn_, "src_configs", "src", families);
    create_results_view(conn_, "src_results", "src");
    create_ceilings_view(conn_, "src_ceilings", "src");
  }
  ~Attached() {
    try {
      conn_.exec("DROP VIEW IF EXISTS temp.src_configs");
      conn_.exec("DROP VIEW IF EXISTS temp.src_results");
      conn_.exec("DROP VIEW IF EXISTS temp.src_ceilings");
    } catch (const std::exception&) {  // the connection drops them when it closes
    }
    detach();
  }
  Attached(const Attached&) = delete;
  Attached& operator=(const Attached&) = delete;

 private:
  // Attaches `uri` as "src" if SQLite can read it; else leaves nothing attached.
  bool attach(const std::string& uri) {
    try {
      Statement st(conn_, "ATTACH DATABASE ?1 AS src");
      st.bind_text(1, uri).run();
    } catch (const DatabaseError&) {
      return false;
    }
    if (readable()) return true;
    detach();
    return false;
  }
  void detach() noexcept {
    try {
      conn_.exec("DETACH DATABASE src");
    } catch (const std::exception&) {  // nothing more to do: the connection closes it later
    }
  }
  bool readable() {
    try {
      Statement(conn_, "SELECT count(*) FROM src.sqlite_master").step();
      return true;
    } catch (const DatabaseError&) {
      return false;
    }
  }
  Connection& conn_;
};

std::int64_t run(Connection& conn, const std::string& sql) {
  Statement st(conn, sql);
  st.run();
  return conn.changes();
}

// A config stored with other parameters on each side cannot be merged by family and name: the
// first such name, if any. Knob columns `knobs` (both files have them) differ where both sides
// hold a value (NULL: a knob of another family, or one the writer did not know yet).
std::optional<std::string> config_conflict(Connection& conn, std::span<const std::string> knobs) {
  std::string differs;
  for (const std::string& knob : knobs) {
    const std::string m = "m." + detail::quoted(knob), s = "s." + detail::quoted(knob);
    differs += " OR (" + m + " IS NOT NULL AND " + s + " IS NOT NULL AND " + m + " <> " + s + ")";
  }
  Statement st(conn,
               "SELECT s.name FROM src_configs AS s JOIN main.configs AS m "
               "ON m.family = s.family AND m.name = s.name "
               "WHERE m.op_a IS NOT s.op_a OR m.op_b IS NOT s.op_b" +
                   differs + " LIMIT 1");
  if (st.step()) return st.get_text(0);
  return std::nullopt;
}

// The knob columns of configs that both this file and the attached one (src_configs) have, in
// this file's order: what merging copies and compares. A knob column only the other file has
// (a newer gemmtune's) is left behind, as that gemmtune's reads would default it.
std::vector<std::string> shared_knob_columns(Connection& conn) {
  const std::vector<std::string> src = detail::knob_columns(conn, "src_configs");
  std::vector<std::string> out;
  for (std::string& knob : detail::knob_columns(conn, "configs", "main"))
    if (std::find(src.begin(), src.end(), knob) != src.end()) out.push_back(std::move(knob));
  return out;
}

// The first problem PRAGMA quick_check finds in the attached `schema`, or "".
std::string first_damage(Connection& conn, const std::string& schema) {
  try {
    Statement st(conn, "PRAGMA " + schema + ".quick_check(1)");
    std::string line = st.step() ? st.get_text(0) : "";
    if (line.rfind("*** in database ", 0) == 0) line.erase(0, line.find('\n') + 1);  // names "src"
    return line == "ok" ? "" : line;
  } catch (const DatabaseError& e) {
    return e.what();
  }
}

// SQLite's errors name the connection's file, the target, even when what it could not read came
// from the other file: when the other file is damaged, say so. (Only for errors that damage
// explains: checking costs a read of the whole file.)
std::string merge_failure(Connection& conn, const std::string& other, const std::string& error) {
  const int rc = sqlite3_extended_errcode(conn.handle()) & 0xff;
  std::string damaged;
  if (rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB || rc == SQLITE_CONSTRAINT) {
    if (std::string d = first_damage(conn, "src"); !d.empty())
      damaged = ": '" + other + "' is damaged (" + d + ")";
  }
  return "cannot merge '" + other + "' into tuning database '" + conn.path() + "'" + damaged +
         "; nothing was merged. " + error;
}

// Copies what the attached "src" has and "main" lacks, matched by natural keys (in the caller's
// transaction).
MergeStats copy_new_rows(Connection& conn, std::span<const std::string> knobs,
                         ForeignBinaries binaries) {
  MergeStats n;
  n.gpu_models =
      run(conn,
          "INSERT INTO main.gpu_models (name, cc_major, cc_minor, sm_count, memory_bytes, "
          "l2_bytes, smem_per_block_optin, clock_khz) SELECT name, cc_major, cc_minor, "
          "sm_count, memory_bytes, l2_bytes, smem_per_block_optin, clock_khz "
          "FROM src.gpu_models WHERE true ORDER BY id ON CONFLICT DO NOTHING");
  const std::string pcols = detail::problem_columns("");
  n.problems = run(conn, "INSERT INTO main.problems (" + pcols + ") SELECT " + pcols +
                             " FROM src.problems WHERE true ORDER BY id ON CONFLICT DO NOTHING");
  const std::string ccols = detail::config_columns(knobs, "");
  n.configs = run(conn, "INSERT INTO main.configs (" + ccols + ") SELECT " + ccols +
                            " FROM src_configs WHERE true ORDER BY id ON CONFLICT DO NOTHING");
  // A sweep merged while it ran gets its end time when merged again after it finished.
  n.sweeps = run(conn, std::string("INSERT INTO main.sweeps (uid, gpu_model_id, started_at, "
                                   "finished_at, hostname, command_line, strategy, "
                                   "gemmtune_version, driver_version, runtime_version, "
                                   "nvrtc_version, template_hash) "
                                   "SELECT s.uid, mg.id, s.started_at, s.finished_at, s.hostname, "
                                   "s.command_line, s.strategy, s.gemmtune_version, "
                                   "s.driver_version, s.runtime_version, s.nvrtc_version, "
                                   "s.template_hash FROM src.sweeps AS s "
                                   "JOIN src.gpu_models AS sg ON sg.id = s.gpu_model_id "
                                   "JOIN main.gpu_models AS mg ON ") +
                           kSameGpu +
                           " WHERE true ORDER BY s.id ON CONFLICT (uid) DO UPDATE SET "
                           "finished_at = excluded.finished_at "
                           "WHERE finished_at IS NULL AND excluded.finished_at IS NOT NULL");
  const std::string matched = std::string(" FROM %T AS r ") +
                              "JOIN src.sweeps AS ss ON ss.id = r.sweep_id "
                              "JOIN main.sweeps AS ms ON ms.uid = ss.uid "
                              "JOIN src.problems AS sp ON sp.id = r.problem_id "
                              "JOIN main.problems AS mp ON " +
                              kSameProblem;
  auto from = [&](const std::string& table) {
    std::string s = matched;
    s.replace(s.find("%T"), 2, table);
    return s;
  };
  n.results =
      run(conn,
          "INSERT INTO main.results (sweep_id, problem_id, config_id, status, median_ms, "
          "min_ms, max_ms, repetitions, tflops, rel_error, wide_error, registers, spill_bytes, "
          "smem_bytes, error, recorded_at) SELECT ms.id, mp.id, mc.id, r.status, "
          "r.median_ms, r.min_ms, r.max_ms, r.repetitions, r.tflops, r.rel_error, "
          "r.wide_error, r.registers, r.spill_bytes, r.smem_bytes, r.error, r.recorded_at" +
              from("src_results") +
              " JOIN src.configs AS sc ON sc.id = r.config_id "
              "JOIN main.configs AS mc ON mc.family = sc.family AND mc.name = sc.name "
              // A wide-range error filled in later (Database::record_wide_error) comes
              // along to a copy of the result that lacks it.
              "WHERE true ORDER BY r.id ON CONFLICT (sweep_id, problem_id, config_id) DO UPDATE "
              "SET wide_error = excluded.wide_error "
              "WHERE wide_error IS NULL AND excluded.wide_error IS NOT NULL");
  n.baselines = run(conn,
                    "INSERT INTO main.baselines (sweep_id, problem_id, library, median_ms, min_ms, "
                    "max_ms, tflops, recorded_at) SELECT ms.id, mp.id, r.library, r.median_ms, "
                    "r.min_ms, r.max_ms, r.tflops, r.recorded_at" +
                        from("src.baselines") + " WHERE true ORDER BY r.id ON CONFLICT DO NOTHING");
  // Measured once per GPU model: a model that has its ceilings here keeps them.
  n.ceilings =
      run(conn, std::string("INSERT INTO main.gpu_ceilings (gpu_model_id, fp32_tflops, "
                            "copy_gbs, measured_at, gemmtune_version) SELECT mg.id, "
                            "c.fp32_tflops, c.copy_gbs, c.measured_at, "
                            "c.gemmtune_version FROM src_ceilings AS c "
                            "JOIN src.gpu_models AS sg ON sg.id = c.gpu_model_id "
                            "JOIN main.gpu_models AS mg ON ") +
                    kSameGpu + " WHERE true ORDER BY c.gpu_model_id ON CONFLICT DO NOTHING");
  // Cached binaries are code that every process reading this file may load: only copied when
  // the caller vouches for the other file (docs/database.md, "Trust").
  if (binaries == ForeignBinaries::drop) {
    Statement st(
        conn, "SELECT count(*) FROM src.binaries WHERE key NOT IN (SELECT key FROM main.binaries)");
    st.step();
    n.binaries_dropped = st.get_int(0);
    return n;
  }
  n.binaries =
      run(conn,
          "INSERT INTO main.binaries (key, arch, nvrtc_version, config_name, lowered_name, "
          "cubin, content_hash, registers, spill_bytes, smem_bytes, created_at) "
          "SELECT key, arch, nvrtc_version, config_name, lowered_name, cubin, "
          "content_hash, registers, spill_bytes, smem_bytes, created_at "
          "FROM src.binaries WHERE true ORDER BY id ON CONFLICT DO NOTHING");
  return n;
}

}  // namespace

MergeStats Database::merge_from(const std::string& other, ForeignBinaries binaries) {
  require_writable("merge");
  {
    // Opening it alone first gives the usual clear errors (missing, not a database, newer).
    Connection probe(other, OpenMode::read_only);
    check_schema_compatible(probe);
  }
  std::error_code ec;
  if (std::filesystem::equivalent(other, conn_.path(), ec)) {
    throw DatabaseError("cannot merge tuning database '" + other + "' into itself");
  }
  Attached attached(conn_, other, families_);
  Transaction tx(conn_);
  std::optional<std::string> conflict;
  MergeStats n;
  try {
    const std::vector<std::string> knobs = shared_knob_columns(conn_);
    conflict = config_conflict(conn_, knobs);
    if (!conflict) {
      n = copy_new_rows(conn_, knobs, binaries);
      tx.commit();
    }
  } catch (const DatabaseError& e) {
    throw DatabaseError(merge_failure(conn_, other, e.what()));
  }
  if (conflict) {
    throw DatabaseError("cannot merge '" + other + "' into tuning database '" + conn_.path() +
                        "': config '" + *conflict +
                        "' has other parameters there; nothing was merged");
  }
  return n;
}

}  // namespace gemmtune::db
