// `gemmtune db results --shape MxNxK`: the ranked candidates for one problem (each config once, at
// its fastest), with their resources; --failed lists the failures grouped by reason instead.
#include <algorithm>
#include <map>
#include <set>

#include "db_commands.hpp"
#include "deprecated.hpp"
#include "gemmtune/db/reports.hpp"
#include "table.hpp"

namespace gemmtune::cli {
namespace {

struct ResultsOptions {
  std::string db;
  std::string shape;
  std::string layout = "all";
  std::string device;
  int top = 20;
  bool failed = false;
  bool json = false;
};

// The problems of shape m x n x k (every layout, batch and alignment the filter lets through).
std::vector<db::ProblemKey> matching_problems(db::Database& db, const ProblemFilter& filter,
                                              std::int64_t m, std::int64_t n, std::int64_t k) {
  std::vector<db::ProblemKey> out;
  for (const auto& p : db::problems_of_shape(db, m, n, k)) {
    if (filter.accepts(p)) out.push_back(p);
  }
  return out;
}

std::string known_shapes(db::Database& db) {
  std::string s;
  int count = 0;
  for (const auto& shape : db::largest_shapes(db, 9)) {  // the ninth only says there are more
    if (++count > 8) return s + ", ...";
    s += (s.empty() ? "" : ", ") +
         format("%lldx%lldx%lld", (long long)shape.m, (long long)shape.n, (long long)shape.k);
  }
  return s.empty() ? "none" : s;
}

// First line of an error text, without surrounding blanks: the reason failures are grouped by.
std::string reason_of(const std::string& error) {
  std::string r = error.substr(0, error.find('\n'));
  while (!r.empty() && (r.back() == ' ' || r.back() == '\r' || r.back() == '\t')) r.pop_back();
  const auto start = r.find_first_not_of(" \t");
  return start == std::string::npos ? "(no reason recorded)" : r.substr(start);
}

struct Section {
  Table ranked{{{"GPU model", "gpu", Align::left, false},
                problem_column(false),
                {"#", "rank"},
                {"config", "config", Align::left},
                {"class", "precision_class", Align::left, true, kPrecisionLegend},
                {"time", "median_ms"},
                {"rate", "tflops"},
                {"vs best", "slower_than_best_percent"},
                {"spread", "spread_percent"},
                {"error", "rel_error"},
                {"wide-range", "wide_error"},
                {"regs", "registers"},
                {"spill", "spill_bytes"},
                {"smem", "smem_bytes"},
                {"sweep", "sweep_id"}}};
  Table failures{{{"GPU model", "gpu", Align::left, false},
                  problem_column(false),
                  {"status", "status", Align::left},
                  {"configs", "count"},
                  {"reason", "reason", Align::left},
                  {"for example", "configs", Align::left}}};
  std::size_t ok_configs = 0, failed_configs = 0;
  std::map<std::string, std::size_t> failed_by_status;
};

Section build_section(const db::GpuModel& gpu, const db::ProblemKey& p,
                      const std::vector<db::ResultRow>& rows, int top) {
  Section s;
  const std::string gpu_name = gpu.name, label = problem_label(p);
  std::set<db::Id> seen_ok;
  std::optional<double> best;
  for (const auto& row : rows) {  // ok ones come first, fastest first
    const db::Result& r = row.result;
    if (r.status != db::Status::ok || !seen_ok.insert(row.result.config_id).second) continue;
    if (top > 0 && static_cast<int>(seen_ok.size()) > top) continue;
    const double ms = r.median_ms.value_or(0);
    if (!best) best = ms;
    const double tflops = r.tflops.value_or(ms > 0 ? problem_flops(p) / (ms * 1e-3) / 1e12 : 0);
    std::optional<double> spread;
    if (r.min_ms && r.max_ms && ms > 0) spread = (*r.max_ms - *r.min_ms) / ms * 100.0;
    s.ranked.add_row({Cell::str(gpu_name), Cell::problem(label, p),
                      Cell::integer(std::int64_t(seen_ok.size())), Cell::str(row.config.name),
                      Cell::str(precision_class(row.config)), time_cell(ms), rate_cell(tflops),
                      *best > 0 ? fixed_cell((ms - *best) / *best * 100.0, 1, "%") : Cell::none(),
                      fixed_cell(spread, 1, "%"), error_cell(r.rel_error), error_cell(r.wide_error),
                      r.registers ? Cell::integer(*r.registers) : Cell::none(),
                      bytes_cell(r.spill_bytes), bytes_cell(r.smem_bytes),
                      Cell::integer(row.sweep_id)});
  }
  s.ok_configs = seen_ok.size();
  // Failures: each (config, status, reason) once, grouped by (status, reason).
  struct Group {
    std::string status, reason;
    std::vector<std::string> configs;
  };
  std::map<std::pair<std::string, std::string>, Group> groups;
  std::set<db::Id> failed_ids;
  for (const auto& row : rows) {
    const db::Result& r = row.result;
    if (r.status == db::Status::ok || seen_ok.count(r.config_id)) continue;
    const std::string status(db::status_name(r.status)), reason = reason_of(r.error);
    Group& g = groups[{status, reason}];
    g.status = status, g.reason = reason;
    if (std::find(g.configs.begin(), g.configs.end(), row.config.name) == g.configs.end()) {
      g.configs.push_back(row.config.name);
    }
    if (failed_ids.insert(r.config_id).second) ++s.failed_by_status[status];
  }
  s.failed_configs = failed_ids.size();
  std::vector<Group> sorted;
  for (auto& [key, g] : groups) sorted.push_back(std::move(g));
  std::stable_sort(sorted.begin(), sorted.end(), [](const Group& a, const Group& b) {
    return a.configs.size() > b.configs.size();
  });
  for (const auto& g : sorted) {
    std::string examples = g.configs.front();
    if (g.configs.size() > 1) examples += format(" +%zu more", g.configs.size() - 1);
    s.failures.add_row({Cell::str(gpu_name), Cell::problem(label, p), Cell::str(g.status),
                        Cell::integer(std::int64_t(g.configs.size())), Cell::str(g.reason),
                        Cell{examples, g.configs}});
  }
  return s;
}

std::string summary(const Section& s) {
  std::string line = format("%zu configs ran", s.ok_configs);
  if (s.failed_configs == 0) return line + ", none failed";
  line += format("; %zu failed:", s.failed_configs);
  bool first = true;
  for (const auto& [status, n] : s.failed_by_status) {
    line += format("%s %zu %s", first ? "" : ",", n, status.c_str());
    first = false;
  }
  return line;
}

void run_results(ResultsOptions& o) {
  std::int64_t m, n, k;
  require_shape(o.shape);
  parse_mnk(o.shape, m, n, k);
  ProblemFilter filter;
  filter.layout = o.layout;
  filter.parse();
  auto db = open_for_reading(o.db);
  if (report_if_empty(db, o.json)) return;
  const auto gpus = db->gpu_models();
  const std::vector<const db::GpuModelRow*> selected = select_gpus(gpus, o.device, db->path());
  const auto problems = matching_problems(*db, filter, m, n, k);

  std::vector<nlohmann::ordered_json> json_rows;
  std::string text;
  bool any = false;
  for (const auto* g : selected) {
    for (const auto& p : problems) {
      const auto rows = db->results_for(p, g->id);
      if (rows.empty()) continue;
      any = true;
      Section s = build_section(g->model, p, rows, o.failed ? 0 : o.top);
      const Table& table = o.failed ? s.failures : s.ranked;
      auto objs = table.json_objects();
      json_rows.insert(json_rows.end(), objs.begin(), objs.end());
      text += (text.empty() ? "" : "\n") + g->model.name + ", " + problem_label(p) + "\n" +
              summary(s) + "\n";
      if (!table.empty()) text += table.render();
      if (!o.failed && s.failed_configs > 0) text += "(--failed lists the failures by reason)\n";
      if (!o.failed && o.top > 0 && s.ok_configs > static_cast<std::size_t>(o.top)) {
        text += format("(the fastest %d of %zu; --top 0 shows all)\n", o.top, s.ok_configs);
      }
    }
  }
  if (!any) {
    const std::string where = o.device.empty() ? "" : " on " + selected.front()->model.name;
    throw usage_error("no results for shape " + o.shape +
                      (o.layout == "all" ? "" : " " + o.layout) + where +
                      "; shapes in the database: " + known_shapes(*db));
  }
  print(o.json ? Table::json_array(json_rows) : text + kProblemLegend + "\n");
}

void add_db_results(CLI::App& db) {
  auto o = std::make_shared<ResultsOptions>();
  auto* cmd = db.add_subcommand(
      "results", "Ranked configs of one shape, with resources; --failed: failures by reason");
  add_shape_option(cmd, o->shape, "Problem shape MxNxK, e.g. 4096x4096x4096");
  add_db_option(cmd, o->db);
  cmd->add_option("--layout", o->layout, "nn, nt, tn, tt or all")->capture_default_str();
  add_old_spelling(cmd,
                   cmd->add_option("--gpu-model", o->device,
                                   "Only this GPU model (its name, or a unique part of it)"),
                   "--device", o->device);
  cmd->add_option("--top", o->top, "Show the fastest N configs (0: all)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--failed", o->failed, "List the failed configs, grouped by status and reason");
  add_format_option(cmd, o->json);
  cmd->callback([o] { run_results(*o); });
}

const DbRegistration kRegistration("results", add_db_results);

}  // namespace
}  // namespace gemmtune::cli
