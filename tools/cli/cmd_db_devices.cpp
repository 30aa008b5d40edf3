// `gemmtune db devices`: the GPU models in the database, with their sweeps, problems and results.
#include "db_commands.hpp"
#include "gemmtune/db/reports.hpp"
#include "table.hpp"

namespace gemmtune::cli {
namespace {

struct DevicesOptions {
  std::string db;
  bool json = false;
};

void run_devices(const DevicesOptions& o) {
  auto db = open_for_reading(o.db);
  if (!db) {
    report_if_empty(db, o.json);
    return;
  }
  const auto gpus = db->gpu_models();
  if (gpus.empty()) {
    report_if_empty(std::nullopt, o.json);
    return;
  }
  Table table({{"GPU model", "gpu", Align::left},
               {"arch", "arch", Align::left},
               {"SMs", "sm_count"},
               {"FP32 peak", "fp32_peak_tflops"},
               {"memory", "memory_bytes"},
               {"sweeps", "sweeps"},
               {"problems", "problems"},
               {"results", "results"},
               {"failed", "failed"},
               {"last sweep", "last_sweep", Align::left}});
  for (const auto& g : gpus) {
    const db::GpuModelSummary s = db::gpu_model_summary(*db, g.id);
    const std::string& last = s.last_sweep_started_at;
    table.add_row(
        {Cell::str(g.model.name), Cell::str(format("sm_%d%d", g.model.cc_major, g.model.cc_minor)),
         Cell::integer(g.model.sm_count), fixed_cell(fp32_peak_tflops(g.model), 1, " TFLOP/s"),
         bytes_cell(g.model.memory_bytes), Cell::integer(s.sweeps), Cell::integer(s.problems),
         Cell::integer(s.results), Cell::integer(s.failed),
         last.empty() ? Cell::none() : Cell{last.substr(0, 10), last}});
  }
  print(o.json ? table.json() : table.render());
}

void add_db_devices(CLI::App& db) {
  auto o = std::make_shared<DevicesOptions>();
  auto* cmd = db.add_subcommand(
      "devices", "The GPU models in the database with their sweeps, problems and results");
  add_db_option(cmd, o->db);
  add_format_option(cmd, o->json);
  cmd->callback([o] { run_devices(*o); });
}

const DbRegistration kRegistration("devices", add_db_devices);

}  // namespace
}  // namespace gemmtune::cli
