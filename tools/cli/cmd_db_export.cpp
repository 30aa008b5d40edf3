// `gemmtune db export`: every result (or every best) as CSV or JSON, for spreadsheets and scripts.
#include <cstdio>
#include <filesystem>
#include <iostream>

#include "db_commands.hpp"
#include "deprecated.hpp"
#include "file_output.hpp"
#include "gemmtune/db/export.hpp"
#include "gemmtune/db/reports.hpp"

namespace gemmtune::cli {
namespace {

namespace fs = std::filesystem;

struct ExportOptions {
  std::string db;
  std::string format = "csv";
  std::string what = "results";
  std::string out;
  std::string device;
};

// Whether `out` names the database at `db_path` or one of SQLite's files beside it.
bool names_the_database(const std::string& out, const std::string& db_path) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"})
    if (same_file(out, db_path + suffix)) return true;
  return false;
}

void run_export(const ExportOptions& o) {
  const auto format = o.format == "json" ? db::ExportFormat::json : db::ExportFormat::csv;
  if (!o.out.empty() && names_the_database(o.out, database_path(o.db))) {
    throw usage_error("--out '" + o.out + "' is the database being exported (" +
                      database_path(o.db) + "); write the export to another file");
  }
  if (!o.out.empty() && fs::is_directory(o.out))
    throw usage_error("--out '" + o.out + "' is a directory: name a file in it, e.g. " +
                      (fs::path(o.out) / ("gemmtune-" + o.what + "." + o.format)).string());
  auto db = open_for_reading(o.db);
  // Nothing to export: say so on stderr, so that a pipe into another program stays clean.
  if (!db || !db::has_results(*db)) {
    std::fprintf(stderr, "no results yet: run gemmtune sweep\n");
    return;
  }
  std::optional<db::Id> gpu;
  if (!o.device.empty()) gpu = find_gpu(db->gpu_models(), o.device, db->path()).id;
  const auto write = [&](std::ostream& out) {
    if (o.what == "bests")
      db::export_bests(*db, format, out, gpu);
    else
      db::export_results(*db, format, out, gpu);
  };
  if (o.out.empty()) return write(std::cout);  // main() checks that stdout took it all
  write_replacing(o.out, write);
  std::fprintf(stderr, "wrote %s\n", o.out.c_str());
}

void add_db_export(CLI::App& db) {
  auto o = std::make_shared<ExportOptions>();
  auto* cmd = db.add_subcommand("export", "Write every result (or every best) as CSV or JSON");
  add_db_option(cmd, o->db);
  cmd->add_option("--format", o->format, "csv or json")
      ->capture_default_str()
      ->check(CLI::IsMember({"csv", "json"}));
  cmd->add_option("--what", o->what,
                  "results (every outcome, failures included) or bests (one row per problem)")
      ->capture_default_str()
      ->check(CLI::IsMember({"results", "bests"}));
  cmd->add_option(
      "--out", o->out,
      "Write to this file instead of stdout (replaced only once the export is complete)");
  add_old_spelling(cmd,
                   cmd->add_option("--gpu-model", o->device,
                                   "Only this GPU model (its name, or a unique part of it)"),
                   "--device", o->device);
  cmd->callback([o] { run_export(*o); });
}

const DbRegistration kRegistration("export", add_db_export);

}  // namespace
}  // namespace gemmtune::cli
