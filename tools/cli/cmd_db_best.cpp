// `gemmtune db best`: per (GPU model, problem) the best config, its time and TFLOP/s, its share of
// the FMA ceiling (ceilings_of: measured and stored, else the datasheet), cuBLAS's time in the same
// sweep and the speedup, the spread of the measurement and how far behind the runner-up (the best
// other config) is, the config's precision class and its measured errors, and whether the config is
// deterministic (no atomic split-K: a deterministic dispatcher may run it).
#include <algorithm>

#include "db_commands.hpp"
#include "deprecated.hpp"
#include "gemmtune/db/reports.hpp"
#include "gemmtune/db_rows.hpp"
#include "table.hpp"

namespace gemmtune::cli {
namespace {

struct BestOptions {
  std::string db;
  std::string device;
  ProblemFilter filter;
  bool json = false;
};

std::vector<Column> best_columns() {
  return {{"GPU model", "gpu", Align::left, false},
          problem_column(),
          {"best config", "config", Align::left},
          {"class", "precision_class", Align::left, true, kPrecisionLegend},
          {"time", "median_ms"},
          {"rate", "tflops"},
          {"% peak", "peak_percent"},
          {"cuBLAS", "cublas_median_ms"},
          {"speedup", "speedup_vs_cublas"},
          {"spread", "spread_percent"},
          {"margin", "runner_up_margin_percent"},
          {"error", "rel_error"},
          {"wide-range", "wide_error"},
          {"deterministic", "deterministic", Align::left, false}};  // text: a line under the table
}

// Whether a row's config gives the same bits on every run (GemmConfig::deterministic); a row
// that names no valid config counts as split-K's.
bool deterministic(const db::KernelConfig& row) {
  if (const auto config = from_db(row)) return config->deterministic();
  const auto split_k = row.knobs.find("split_k");
  return split_k == row.knobs.end() || split_k->second <= 1;
}

std::vector<Cell> best_row(db::Database& db, const db::GpuModel& gpu, double peak,
                           const db::BestRow& b) {
  const double tflops = b.tflops.value_or(problem_flops(b.problem) / (b.median_ms * 1e-3) / 1e12);
  std::optional<double> spread, margin;
  if (b.min_ms && b.max_ms && b.median_ms > 0)
    spread = (*b.max_ms - *b.min_ms) / b.median_ms * 100.0;
  if (auto r = db::runner_up_ms(db, b); r && b.median_ms > 0)
    margin = (*r - b.median_ms) / b.median_ms * 100.0;
  return {Cell::str(gpu.name),
          Cell::problem(problem_label(b.problem), b.problem),
          Cell::str(b.config.name),
          Cell::str(precision_class(b.config)),
          time_cell(b.median_ms),
          rate_cell(tflops),
          percent_cell(peak > 0 ? std::optional<double>(tflops / peak * 100.0) : std::nullopt),
          time_cell(b.cublas_median_ms),
          fixed_cell(b.speedup_vs_cublas(), 2, "x"),
          fixed_cell(spread, 1, "%"),
          fixed_cell(margin, 1, "%"),
          error_cell(b.rel_error),
          error_cell(b.wide_error),
          Cell::boolean(deterministic(b.config))};
}

void run_best(BestOptions& o) {
  o.filter.parse();
  auto db = open_for_reading(o.db);
  if (report_if_empty(db, o.json)) return;
  const auto gpus = db->gpu_models();
  const std::vector<const db::GpuModelRow*> selected = select_gpus(gpus, o.device, db->path());

  std::vector<nlohmann::ordered_json> json_rows;
  std::string text;
  std::vector<std::string> seen_problems;
  for (const auto* g : selected) {
    Table table(best_columns());
    const GpuModelCeilings ceilings = ceilings_of(*db, *g);
    std::string split_k;  // the problems whose best is not deterministic
    for (const auto& b : db->bests(g->id)) {
      seen_problems.push_back(problem_label(b.problem));
      if (!o.filter.accepts(b.problem)) continue;
      table.add_row(best_row(*db, g->model, ceilings.fp32_tflops, b));
      if (!deterministic(b.config))
        split_k += (split_k.empty() ? "" : ", ") + problem_label(b.problem);
    }
    if (table.empty()) continue;
    auto objs = table.json_objects();
    json_rows.insert(json_rows.end(), objs.begin(), objs.end());
    text += (text.empty() ? "" : "\n") + describe_gpu(g->model) + "\n" +
            format("%% peak: of the FMA ceiling %.1f TFLOP/s, %s\n", ceilings.fp32_tflops,
                   ceilings.source.c_str()) +
            table.render();
    if (!split_k.empty())
      text += "split-K, not deterministic (a deterministic dispatcher runs another config): " +
              split_k + "\n";
  }
  if (json_rows.empty()) {
    const std::string where = o.device.empty() ? "" : " on " + selected.front()->model.name;
    if (seen_problems.empty()) throw usage_error("no results" + where + " yet: run gemmtune sweep");
    std::sort(seen_problems.begin(), seen_problems.end());
    seen_problems.erase(std::unique(seen_problems.begin(), seen_problems.end()),
                        seen_problems.end());
    std::string list;
    for (std::size_t i = 0; i < seen_problems.size() && i < 8; ++i)
      list += (i ? ", " : "") + seen_problems[i];
    if (seen_problems.size() > 8) list += ", ...";
    throw usage_error("no problem matches --shape/--layout" + where +
                      "; the database has: " + list);
  }
  print(o.json ? Table::json_array(json_rows) : text);
}

void add_db_best(CLI::App& db) {
  auto o = std::make_shared<BestOptions>();
  auto* cmd = db.add_subcommand(
      "best", "Per problem: the best config, its speed, cuBLAS's and the margins");
  cmd->footer(
      "Columns: time (median), rate (FLOP/s), % of the FMA ceiling (measured on the GPU model and "
      "stored by\n"
      "gemmtune sweep; else the datasheet's 2 x FMA lanes x SMs x clock; the line above the table\n"
      "says which), "
      "cuBLAS's median in the same sweep, speedup (cuBLAS time / ours), spread ((max - min) / "
      "median of our\n"
      "timing) and margin (how much slower the best other config is), the config's precision "
      "class and its\n"
      "relative errors on the random and the wide-range verification inputs. A line under the "
      "table names the\n"
      "problems whose best adds split-K parts atomically: its results may differ in the last bits "
      "from run to\n"
      "run, and a deterministic dispatcher runs another config (--format json: \"deterministic\" "
      "per row).");
  add_db_option(cmd, o->db);
  add_old_spelling(
      cmd,
      cmd->add_option("--gpu-model", o->device,
                      "Only this GPU model (its name, or a unique part of it, e.g. H200)"),
      "--device", o->device);
  o->filter.add_options(cmd);
  add_format_option(cmd, o->json);
  cmd->callback([o] { run_best(*o); });
}

const DbRegistration kRegistration("best", add_db_best);

}  // namespace
}  // namespace gemmtune::cli
