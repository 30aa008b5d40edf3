#pragma once
// The tuning database: a typed API over one SQLite file. Writes run in immediate transactions
// (one per call, one per batch of results) so that several sweep processes can share a file.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "gemmtune/db/family.hpp"
#include "gemmtune/db/records.hpp"
#include "gemmtune/db/sqlite.hpp"

namespace gemmtune::db {

namespace detail {
struct DatabaseAccess;  // db's own sources reach the connection through it (database_access.hpp)
}  // namespace detail

/// $GEMMTUNE_DB when set and non-empty, else $XDG_CACHE_HOME/gemmtune/tuning.db when
/// XDG_CACHE_HOME is an absolute path, else $HOME/.cache/gemmtune/tuning.db.
std::string default_database_path();

/// A GPU model as stored, with its id.
struct GpuModelRow {
  Id id = 0;
  GpuModel model;
};

/// What merge_from() added (sweeps also counts sweeps whose end time it filled in, results the
/// results whose wide-range error it filled in).
struct MergeStats {
  std::int64_t gpu_models = 0, sweeps = 0, problems = 0, configs = 0, results = 0, baselines = 0,
               binaries = 0;
  /// GPU models whose measured ceilings it copied (this file had none for them).
  std::int64_t ceilings = 0;
  /// Cached binaries the other file has and this one lacks, left out (ForeignBinaries::drop).
  std::int64_t binaries_dropped = 0;
};

/// What merge_from() does with the other file's cached binaries. They are code that every
/// process reading the database may load onto its GPU: only copy them from a file you trust as
/// you trust a shared library. Dropped ones are compiled again where they are used.
enum class ForeignBinaries { drop, copy };

/// A sweep with no end time may still be running: prune() drops one only on request, and only
/// once it started more than this many days ago.
inline constexpr double kUnfinishedSweepMinAgeDays = 1;

/// Which sweeps prune() drops, with their results and baselines. Unset criteria are ignored.
struct PruneOptions {
  std::optional<double> older_than_days;          ///< sweeps started more than this many days ago
  std::optional<std::string> keep_template_hash;  ///< sweeps whose template_hash differs from this
  /// Also the sweeps above that never finished (killed, crashed), once they started more than
  /// kUnfinishedSweepMinAgeDays ago. Without it every unfinished sweep is kept.
  bool include_unfinished = false;
  /// Of the results each GPU model has of each problem, keep only the fastest `keep_top` configs
  /// of each precision class, one result each (their best: what top_configs() and the view
  /// best_results read); every other result goes, failures included, and so does every config
  /// that no result names any more. For a finished database that no sweep writes to: a sweep
  /// resumed afterwards measures again what was dropped.
  std::optional<int> keep_top;
  /// Also drop every cached binary (the NVRTC cache): results alone are data, binaries are code.
  bool drop_binaries = false;
  /// Count and list what would go, change nothing (a read-only database will do).
  bool dry_run = false;
};

/// What prune() removed, and the unfinished sweeps the criteria selected but it kept.
struct PruneStats {
  std::int64_t sweeps = 0, results = 0, baselines = 0;
  /// What keep_top dropped besides (configs no result names any more), and drop_binaries.
  std::int64_t configs = 0, binaries = 0;
  std::int64_t unfinished_kept = 0;
  /// The sweeps dropped (or, with dry_run, that would be): id and start time, oldest first.
  std::vector<std::pair<std::int64_t, std::string>> dropped;
};

/// What check() found; ok() when nothing.
struct CheckReport {
  int schema_version = 0;
  std::vector<std::string> problems;  ///< one line each: integrity, foreign keys, corrupt binaries
  bool ok() const { return problems.empty(); }
};

/// One open tuning database. Not thread-safe: one per thread. Processes may share the file, but
/// not a Database: open it after fork(), never before.
class Database {
 public:
  /// Opens `path`. read_write creates the file (never a directory, except that of the default
  /// path) and migrates it, adding the knob columns of `families` it lacks; read_only creates and
  /// changes nothing, and shows those columns with their defaults. Configs of a family are read
  /// and written through whatever knob columns the file has, so a family whose columns the file
  /// has already needs no description; one whose columns it may lack must be among `families`
  /// (the kernel families gemmtune has: gemmtune::kernel_families()). Throws DatabaseError.
  Database(const std::string& path, OpenMode mode, std::span<const FamilySchema> families = {});
  /// Opens default_database_path().
  static Database open_default(OpenMode mode, std::span<const FamilySchema> families = {});

  /// The path as given.
  const std::string& path() const { return conn_.path(); }
  /// The mode it was opened in.
  OpenMode mode() const { return conn_.mode(); }

  // ---- writes (read_write only; each call is one transaction) ----

  /// The id of `gpu`, inserting it when its key (name, cc, SM count) is new.
  Id upsert_gpu_model(const GpuModel& gpu);
  /// Starts a sweep now: stores its environment and returns its id.
  Id begin_sweep(const SweepInfo& info);
  /// Stamps the sweep's end time.
  void finish_sweep(Id sweep_id);
  /// The id of `problem`, inserting it when new.
  Id upsert_problem(const ProblemKey& problem);
  /// The id of `config` (by family and name), inserting it when new; throws when the name is
  /// stored with other parameters, or the file has no column for one of its knobs (open it with
  /// its family).
  Id upsert_config(const KernelConfig& config);
  /// Stores a batch of results of a sweep in one transaction: all or none. A result for the same
  /// (sweep, problem, config) replaces the earlier one.
  void record_results(Id sweep_id, std::span<const Result> batch);
  /// Stores the wide-range error of a result recorded without one: a problem's fastest FP32 FMA
  /// config, which the fp32 precision policy compares with, is verified on wide-range inputs by
  /// a later sweep. A stored error is never replaced: returns false and changes nothing. Throws
  /// when there is no such result.
  bool record_wide_error(Id result_id, double wide_error);
  /// Stores the ceilings measured on a GPU model, once: a model that has them keeps them (returns
  /// false and changes nothing). Throws when a ceiling is not a positive finite number or there
  /// is no such GPU model.
  bool record_ceilings(Id gpu_model_id, const MeasuredCeilingsRow& ceilings);
  /// Stores a library's time for a problem in a sweep (replacing an earlier one).
  void record_baseline(Id sweep_id, const Baseline& baseline);
  /// Stores a compiled kernel under its key (replacing an earlier, e.g. corrupt, entry).
  void put_binary(const Binary& binary);
  /// Drops every cached binary, so that the next use of each kernel compiles it (cold-start
  /// timing). Returns how many were dropped.
  std::int64_t clear_binaries();

  // ---- reads ----

  /// The id of the GPU model with `gpu`'s key, if stored.
  std::optional<Id> find_gpu_model(const GpuModel& gpu) const;
  /// Every GPU model.
  std::vector<GpuModelRow> gpu_models() const;
  /// The ceilings measured on a GPU model, if stored (record_ceilings).
  std::optional<MeasuredCeilingsRow> ceilings(Id gpu_model_id) const;
  /// Every sweep, optionally of one GPU model, oldest first.
  std::vector<SweepRow> sweeps(std::optional<Id> gpu_model_id = std::nullopt) const;
  /// The id of `problem`, if stored.
  std::optional<Id> find_problem(const ProblemKey& problem) const;
  /// The config stored under `config_id`.
  std::optional<KernelConfig> config(Id config_id) const;
  /// The best ok result for (GPU model, problem) over all sweeps, if any.
  std::optional<BestRow> best_for(Id gpu_model_id, const ProblemKey& problem) const;
  /// Every (GPU model, problem) best, optionally of one GPU model: the dispatcher's nearest-shape
  /// candidates. Ordered by GPU model, then problem id.
  std::vector<BestRow> bests(std::optional<Id> gpu_model_id = std::nullopt) const;
  /// The `per_problem` fastest configs of every problem tuned on a GPU model (each config's best
  /// ok result; lowest median first, the older result on a tie), ordered by problem id, then
  /// place. The first of each problem is its best. cublas_median_ms is not filled.
  std::vector<BestRow> top_configs(Id gpu_model_id, int per_problem) const;
  /// Every result for (problem, GPU model): ok ones fastest first, then failures.
  std::vector<ResultRow> results_for(const ProblemKey& problem, Id gpu_model_id) const;
  /// Whether any sweep on the GPU model recorded (problem, config), whatever its status: for
  /// resume.
  bool measured(Id gpu_model_id, Id problem_id, Id config_id) const;
  /// The config that is best for the most problems of the GPU model (ties: lowest config id).
  std::optional<CommonBest> most_common_best(Id gpu_model_id) const;
  /// The cached binary for `key`; a stored entry whose bytes fail the hash check is a miss,
  /// described in BinaryLookup::corrupt.
  BinaryLookup get_binary(const std::string& key) const;
  /// The key of every cached binary, oldest first.
  std::vector<std::string> binary_keys() const;

  // ---- maintenance ----

  /// Copies everything from the tuning database at `other_path` that this one lacks, in one
  /// transaction; its cached binaries only with ForeignBinaries::copy. Rows are matched by
  /// natural keys, so merging twice adds nothing. Configs bring the knob columns both files
  /// have; where the other file predates a knob of this one's families, its default.
  MergeStats merge_from(const std::string& other_path,
                        ForeignBinaries binaries = ForeignBinaries::drop);
  /// Drops the sweeps `options` selects, with their results and baselines, then the results
  /// keep_top leaves out and the cached binaries when asked; one transaction.
  PruneStats prune(const PruneOptions& options);
  /// Rewrites the file without its free pages (SQLite's VACUUM), after a prune: the file shrinks
  /// to its rows. Needs room for a copy of the file. Returns the file's size before and after,
  /// in bytes.
  std::pair<std::int64_t, std::int64_t> vacuum();
  /// Runs SQLite's integrity and foreign-key checks and re-hashes every cached binary.
  CheckReport check() const;

 private:
  friend struct detail::DatabaseAccess;
  void require_writable(const char* action) const;

  mutable Connection conn_;
  std::vector<FamilySchema> families_;  // as opened: merge_from() reads the other file with them;
                                        // their precision classes rank top_configs() and prune()
  std::vector<std::string> knob_columns_;  // of configs (or its view) as opened, in its order
};

}  // namespace gemmtune::db
