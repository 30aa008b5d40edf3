// `gemmtune db ship --db SWEEP.db --out DIR`: makes the shipped tuning database of one GPU
// model from a sweep's database (db/shipped/README.md, tools/ship-tuning.sh): its results without
// cached binaries (merge), reduced to what the dispatcher reads (prune --keep-top), compacted
// (vacuum) and checked, then put in place as DIR/<model>.db with one rename, so that a reader
// never sees half a file and a failure leaves the file that was there.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "db_commands.hpp"
#include "file_output.hpp"
#include "gemmtune/choice.hpp"
#include "gemmtune/db/reports.hpp"
#include "gemmtune/shipped.hpp"
#include "table.hpp"

namespace gemmtune::cli {
namespace {

namespace fs = std::filesystem;

struct ShipOptions {
  std::string db;
  std::string out_dir;
  int keep_top = kTopConfigsPerProblem;
};

// The one GPU model of the sweep's database: a shipped file holds one.
db::GpuModel only_model(const db::Database& sweep) {
  const std::vector<db::GpuModelRow> models = sweep.gpu_models();
  if (models.size() == 1) return models.front().model;
  std::string names;
  for (const auto& m : models) names += (names.empty() ? "" : ", ") + m.model.name;
  throw usage_error("'" + sweep.path() + "' holds " + std::to_string(models.size()) +
                    " GPU models (" + (names.empty() ? "none" : names) +
                    "): a shipped database is made from the sweeps of one");
}

// Whether the closed file at `path` is in rollback-journal mode (header bytes 18 and 19 are 1):
// readable read-only in a read-only folder, without -wal and -shm files beside it.
bool rollback_journal_mode(const std::string& path) {
  char header[20] = {};
  std::ifstream in(path, std::ios::binary);
  return in.read(header, sizeof header) && header[18] == 1 && header[19] == 1;
}

void remove_database(const std::string& file) {
  std::error_code ignored;
  for (const char* suffix : {"", "-journal", "-wal", "-shm"}) fs::remove(file + suffix, ignored);
}

// Fills `temp` from the sweep's database and checks it; returns a line on what it holds.
std::string make_shipped(const std::string& temp, const std::string& sweep_path, int keep_top) {
  std::string summary;
  {
    db::Database out(temp, db::OpenMode::read_write, kernel_families());
    out.merge_from(sweep_path, db::ForeignBinaries::drop);
    db::PruneOptions prune;
    prune.keep_top = keep_top;
    prune.drop_binaries = true;
    out.prune(prune);
    out.vacuum();
    const db::CheckReport report = out.check();
    if (!report.ok())
      throw Error(Status::kDatabaseError,
                  "the reduced database fails its check: " + report.problems.front());
    const db::Id model = out.gpu_models().front().id;
    const db::GpuModelSummary s = db::gpu_model_summary(out, model);
    summary = format("%lld problems, %lld results (the fastest %d configs of each)",
                     (long long)s.problems, (long long)s.results, keep_top);
  }  // closed: back in rollback-journal mode, one self-contained file
  if (!rollback_journal_mode(temp))
    throw Error(Status::kDatabaseError,
                "the reduced database was left in WAL mode (another process had it open?): run "
                "again");
  return summary;
}

void run_ship(const ShipOptions& o) {
  const std::string sweep_path = database_path(o.db);
  require_database_file(sweep_path, "ship");
  db::GpuModel model;
  {
    const db::Database sweep(sweep_path, db::OpenMode::read_only, kernel_families());
    model = only_model(sweep);
    if (!db::has_results(sweep)) throw usage_error("'" + sweep_path + "' holds no results yet");
  }
  const std::string out = (fs::path(o.out_dir) / shipped_file_name(model.name)).string();
  check_writable(out);
  std::string temp;
  const int fd = create_file_beside(out, "ship", 0644, temp);
  if (fd < 0)
    throw Error(Status::kDatabaseError,
                "cannot create a file beside '" + out + "': " + std::strerror(errno));
  ::close(fd);  // an empty file: SQLite makes it a new database
  std::string summary;
  try {
    summary = make_shipped(temp, sweep_path, o.keep_top);
    fs::rename(temp, out);
  } catch (...) {
    remove_database(temp);
    throw;
  }
  print(format("wrote %s: %s, %s; %lld bytes\n", out.c_str(), describe_gpu(model).c_str(),
               summary.c_str(), (long long)fs::file_size(out)));
}

void add_db_ship(CLI::App& db) {
  auto o = std::make_shared<ShipOptions>();
  auto* cmd = db.add_subcommand(
      "ship",
      "Make the shipped tuning database of a GPU model from a sweep's database: results only, "
      "reduced to what the dispatcher reads, checked, written as DIR/<model>.db in one rename");
  add_db_option(cmd, o->db);
  cmd->add_option("--out", o->out_dir, "Folder to write <model>.db into, e.g. db/shipped")
      ->required();
  cmd->add_option("--keep-top", o->keep_top,
                  "Configs kept of each problem and precision class (the dispatcher reads " +
                      std::to_string(kTopConfigsPerProblem) + ")")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  cmd->callback([o] { run_ship(*o); });
}

const DbRegistration kRegistration("ship", add_db_ship);

}  // namespace
}  // namespace gemmtune::cli
