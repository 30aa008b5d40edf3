// `gemmtune db export`: every result (or every best) as CSV or JSON, for spreadsheets and scripts.
#include <cstdio>
#include <fstream>
#include <iostream>

#include "db_commands.hpp"
#include "gemmtune/db/export.hpp"
#include "gemmtune/db/reports.hpp"

namespace gemmtune::cli {
namespace {

struct ExportOptions {
  std::string db;
  std::string format = "csv";
  std::string what = "results";
  std::string out;
  std::string device;
};

void run_export(const ExportOptions& o) {
  const auto format = o.format == "json" ? db::ExportFormat::json : db::ExportFormat::csv;
  auto db = open_for_reading(o.db);
  // Nothing to export: say so on stderr, so that a pipe into another program stays clean.
  if (!db || !db::has_results(*db)) {
    std::fprintf(stderr, "no results yet: run gemmtune sweep\n");
    return;
  }
  std::optional<db::Id> gpu;
  if (!o.device.empty()) gpu = find_gpu(db->gpu_models(), o.device, db->path()).id;
  std::ofstream file;
  if (!o.out.empty()) {
    file.open(o.out, std::ios::binary | std::ios::trunc);
    if (!file) throw usage_error("cannot write '" + o.out + "': check that its directory exists and is writable");
  }
  std::ostream& out = o.out.empty() ? std::cout : file;
  if (o.what == "bests") db::export_bests(*db, format, out, gpu);
  else db::export_results(*db, format, out, gpu);
  out.flush();
  if (!out) throw usage_error("writing the export to '" + (o.out.empty() ? std::string("stdout") : o.out) + "' failed");
  if (!o.out.empty()) std::fprintf(stderr, "wrote %s\n", o.out.c_str());
}

void add_db_export(CLI::App& db) {
  auto o = std::make_shared<ExportOptions>();
  auto* cmd = db.add_subcommand("export", "Write every result (or every best) as CSV or JSON");
  add_db_option(cmd, o->db);
  cmd->add_option("--format", o->format, "csv or json")->capture_default_str()->check(CLI::IsMember({"csv", "json"}));
  cmd->add_option("--what", o->what, "results (every outcome, failures included) or bests (one row per problem)")
      ->capture_default_str()
      ->check(CLI::IsMember({"results", "bests"}));
  cmd->add_option("--out", o->out, "Write to this file instead of stdout");
  cmd->add_option("--device", o->device, "Only this GPU model (its name, or a unique part of it)");
  cmd->callback([o] { run_export(*o); });
}

const DbRegistration kRegistration("export", add_db_export);

}  // namespace
}  // namespace gemmtune::cli
