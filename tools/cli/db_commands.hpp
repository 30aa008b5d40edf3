#pragma once
// `gemmtune db ...`: the database inspection commands. Each lives in its own cmd_db_*.cpp and
// registers itself under `db` with a file-scope
//   static const gemmtune::cli::DbRegistration reg("best", add_db_best);
// cmd_db.cpp adds the `db` command and, under it, every registered one; it also defines the helpers
// below that they share (opening the database, naming devices and problems, error lines).
#include <CLI/CLI.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "commands.hpp"
#include "gemmtune/db/database.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/error.hpp"

namespace gemmtune::cli {

/// Every registered `db` sub-command, by name.
inline std::map<std::string, AddCommand>& db_registry() {
  static std::map<std::string, AddCommand> commands;
  return commands;
}

/// Registers a `db` sub-command at static-initialisation time.
struct DbRegistration {
  DbRegistration(const std::string& name, AddCommand add) { db_registry()[name] = std::move(add); }
};

/// A mistake in what the user asked for (unknown device or shape, bad option): one line, exit 1.
inline Error usage_error(const std::string& message) {
  return Error(Status::kInvalidArgument, message);
}

/// Adds `--db PATH` (empty: the default database) to `cmd`.
void add_db_option(CLI::App* cmd, std::string& path);
/// Adds `--format table|json` to `cmd` (json: `json` becomes true), and the older `--json`.
void add_format_option(CLI::App* cmd, bool& json);

/// The path `--db` names, or the default database's.
std::string database_path(const std::string& given);

/// Whether paths `a` and `b` name one file: the same file when both exist (through symlinks, hard
/// links, "..", relative paths), else the same absolute path once symlinks are resolved.
bool same_file(const std::string& a, const std::string& b);

/// Throws a usage error when there is no file at `path`, for commands that change a database and
/// must not create one for a mistyped path: "no tuning database at '...': nothing to <action>".
void require_database_file(const std::string& path, const std::string& action);

/// Opens the database read-only for a read command (always engaged: the optional lets callers
/// reset it early). A missing file is a usage error wherever its path came from (--db,
/// $GEMMTUNE_DB or the default); a file that is not a tuning database throws a DatabaseError.
std::optional<db::Database> open_for_reading(const std::string& given);

/// True, after printing "no results yet: run gemmtune sweep" (to stderr, and "[]" to stdout with
/// --format json), when `db` is absent or holds no results; read commands then exit 0.
bool report_if_empty(const std::optional<db::Database>& db, bool json);

/// The GPU model whose name is `name` (case-insensitive), or whose name alone contains it;
/// throws a usage error naming the models there are when none or several match.
const db::GpuModelRow& find_gpu(const std::vector<db::GpuModelRow>& gpus, const std::string& name,
                                const std::string& db_path);

/// The GPU model `name` names (see find_gpu), or every model when `name` is empty.
std::vector<const db::GpuModelRow*> select_gpus(const std::vector<db::GpuModelRow>& gpus,
                                                const std::string& name, const std::string& path);

/// FP32 FMA peak of a GPU model in TFLOP/s: gemmtune::fp32_peak_tflops() of its SMs, clock and
/// compute capability.
double fp32_peak_tflops(const db::GpuModel& gpu);
/// "NVIDIA H200 (sm_90, 132 SMs, FP32 peak 66.9 TFLOP/s)".
std::string describe_gpu(const db::GpuModel& gpu);

/// The ceilings a GPU model's rates are read against: those measured on it and stored in the
/// database (`gemmtune sweep` measures them once per GPU model), else the datasheet's FMA peak
/// (fp32_peak_tflops) and no bandwidth. tools/report/report_data.py's ceilings() reads the
/// database by the same rule.
struct GpuModelCeilings {
  double fp32_tflops = 0;  ///< FMA ceiling, TFLOP/s; 0 when unknown (no SMs or clock recorded)
  std::optional<double> copy_gbs;  ///< measured device copy, GB/s
  bool measured = false;           ///< stored measurements, not the datasheet
  /// "measured 2026-12-02" or "datasheet (2 x FMA lanes x SMs x clock; not measured on this GPU model)".
  std::string source;
};
GpuModelCeilings ceilings_of(const db::Database& db, const db::GpuModelRow& gpu);

/// "4096x4096x4096 nn", with " b8" for a batch and " a1" for an alignment class other than 4.
std::string problem_label(const db::ProblemKey& p);
/// The precision class of a stored config, GemmConfig::precision(): "ieee" (FP32 FMA), "fp32"
/// (3xTF32), "tf32" (1xTF32); "?" for a row not of the kernel family.
std::string precision_class(const db::KernelConfig& config);
/// FLOPs of one problem: 2 M N K batch.
double problem_flops(const db::ProblemKey& p);

/// Which problems a command looks at: --shape (repeatable) and --layout.
struct ProblemFilter {
  std::vector<std::string> shapes;  ///< "MxNxK"; empty: all
  std::string layout = "all";       ///< nn, nt, tn, tt or all
  /// Adds --shape and --layout to `cmd`.
  void add_options(CLI::App* cmd);
  /// Parses the options; throws a usage error on malformed ones.
  void parse();
  /// Whether `p` passes.
  bool accepts(const db::ProblemKey& p) const;

 private:
  struct Mnk {
    std::int64_t m, n, k;
  };
  std::vector<Mnk> mnk_;
  std::vector<std::pair<char, char>> layouts_;
};

/// Parses "MxNxK"; throws a usage error naming the text.
void parse_mnk(const std::string& text, std::int64_t& m, std::int64_t& n, std::int64_t& k);

/// Writes `text` to stdout.
void print(const std::string& text);

}  // namespace gemmtune::cli
