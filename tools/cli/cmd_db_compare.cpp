// `gemmtune db compare A B`: two GPU models of one database, or two database files, side by side
// on the problems both have a best for.
#include <cmath>
#include <filesystem>
#include <map>

#include "db_commands.hpp"
#include "deprecated.hpp"
#include "table.hpp"

namespace gemmtune::cli {
namespace {

struct CompareOptions {
  std::string db;
  std::string a, b;
  std::string device;
  bool json = false;
};

// One side of the comparison: a GPU model's bests (in problem order), and where each problem is.
struct Side {
  std::string label;  // what the legend says
  std::vector<db::BestRow> bests;
  std::map<std::string, std::size_t> by_problem;  // problem label -> index in bests
};

Side side_of(db::Database& db, const db::GpuModelRow& g, const std::string& label) {
  Side s;
  s.label = label;
  s.bests = db.bests(g.id);
  for (std::size_t i = 0; i < s.bests.size(); ++i)
    s.by_problem.emplace(problem_label(s.bests[i].problem), i);
  return s;
}

// The GPU model of a database file: --gpu-model, or the only one it holds.
const db::GpuModelRow& gpu_of_file(const std::vector<db::GpuModelRow>& gpus,
                                   const std::string& device, const std::string& path) {
  if (!device.empty()) return find_gpu(gpus, device, path);
  if (gpus.size() == 1) return gpus.front();
  if (gpus.empty()) throw usage_error("no results yet in " + path + ": run gemmtune sweep");
  std::string names;
  for (const auto& g : gpus) names += (names.empty() ? "" : ", ") + g.model.name;
  throw usage_error(path + " holds several GPU models (" + names + "); pick one with --gpu-model");
}

bool is_file(const std::string& s) {
  std::error_code ec;
  return std::filesystem::is_regular_file(s, ec);
}

void compare(const Side& a, const Side& b, bool json) {
  Table table({problem_column(),
               {"A config", "a_config", Align::left},
               {"A rate", "a_tflops"},
               {"B config", "b_config", Align::left},
               {"B rate", "b_tflops"},
               {"B vs A", "b_speedup_vs_a"},
               {"A time", "a_median_ms", Align::right, false},
               {"B time", "b_median_ms", Align::right, false},
               {"A vs cuBLAS", "a_speedup_vs_cublas", Align::right, false},
               {"B vs cuBLAS", "b_speedup_vs_cublas", Align::right, false}});
  int only_a = 0, b_faster = 0;
  double log_sum = 0;
  for (const db::BestRow& x : a.bests) {
    const std::string label = problem_label(x.problem);
    auto it = b.by_problem.find(label);
    if (it == b.by_problem.end()) {
      ++only_a;
      continue;
    }
    const db::BestRow& y = b.bests[it->second];
    auto tflops = [](const db::BestRow& r) {
      return r.tflops.value_or(problem_flops(r.problem) / (r.median_ms * 1e-3) / 1e12);
    };
    const double ratio = y.median_ms > 0 ? x.median_ms / y.median_ms : NAN;
    if (ratio > 1) ++b_faster;
    if (ratio > 0) log_sum += std::log(ratio);
    const bool same = x.config.name == y.config.name;
    table.add_row({Cell::problem(label, x.problem), Cell::str(x.config.name), rate_cell(tflops(x)),
                   Cell{same ? "(same)" : y.config.name, y.config.name}, rate_cell(tflops(y)),
                   fixed_cell(ratio, 2, "x"), time_cell(x.median_ms), time_cell(y.median_ms),
                   fixed_cell(x.speedup_vs_cublas(), 2, "x"),
                   fixed_cell(y.speedup_vs_cublas(), 2, "x")});
  }
  const std::size_t common = table.size();
  const std::size_t only_b = b.bests.size() - common;
  if (json) {
    print(table.json());
    return;
  }
  std::string out = "A: " + a.label + "\nB: " + b.label + "\n";
  if (common == 0) {
    print(out +
          format("no common problems: A has %zu, B has %zu\n", a.bests.size(), b.bests.size()));
    return;
  }
  out += table.render();
  out += format("%zu common problems; B faster on %d; geometric mean B vs A %.2fx", common,
                b_faster, std::exp(log_sum / double(common)));
  out += format("; only on A: %d, only on B: %zu\n", only_a, only_b);
  print(out);
}

void run_compare(const CompareOptions& o) {
  const bool file_a = is_file(o.a), file_b = is_file(o.b);
  if (file_a != file_b) {
    throw usage_error("compare needs two GPU models of one database or two database files; '" +
                      (file_a ? o.a : o.b) + "' is a file and '" + (file_a ? o.b : o.a) +
                      "' is not");
  }
  if (file_a) {
    db::Database da(o.a, db::OpenMode::read_only, kernel_families()),
        db_b(o.b, db::OpenMode::read_only, kernel_families());
    const auto ga = da.gpu_models(), gb = db_b.gpu_models();
    const auto& x = gpu_of_file(ga, o.device, o.a);
    const auto& y = gpu_of_file(gb, o.device, o.b);
    compare(side_of(da, x, describe_gpu(x.model) + " in " + o.a),
            side_of(db_b, y, describe_gpu(y.model) + " in " + o.b), o.json);
    return;
  }
  auto db = open_for_reading(o.db);
  if (report_if_empty(db, o.json)) return;
  const auto gpus = db->gpu_models();
  const auto& x = find_gpu(gpus, o.a, db->path());
  const auto& y = find_gpu(gpus, o.b, db->path());
  compare(side_of(*db, x, describe_gpu(x.model)), side_of(*db, y, describe_gpu(y.model)), o.json);
}

void add_db_compare(CLI::App& db) {
  auto o = std::make_shared<CompareOptions>();
  auto* cmd = db.add_subcommand(
      "compare", "Two GPU models, or two database files, side by side on common problems");
  cmd->add_option("A", o->a, "A GPU model (name or a unique part of it) or a database file")
      ->required();
  cmd->add_option("B", o->b, "Another GPU model, or another database file")->required();
  add_db_option(cmd, o->db);
  add_old_spelling(
      cmd,
      cmd->add_option("--gpu-model", o->device,
                      "With two files: the GPU model to take from each (when they hold several)"),
      "--device", o->device);
  add_format_option(cmd, o->json);
  cmd->callback([o] { run_compare(*o); });
}

const DbRegistration kRegistration("compare", add_db_compare);

}  // namespace
}  // namespace gemmtune::cli
