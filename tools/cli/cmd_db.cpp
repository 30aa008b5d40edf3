// `gemmtune db`: inspect and maintain the tuning database. The sub-commands are in cmd_db_*.cpp;
// this file adds them under `db` and defines the helpers they share (db_commands.hpp).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "db_commands.hpp"
#include "deprecated.hpp"
#include "gemmtune/db/reports.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/device.hpp"
#include "gemmtune/error.hpp"
#include "gemmtune/tuner/shape.hpp"
#include "table.hpp"

namespace gemmtune::cli {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return s;
}

std::string gpu_names(const std::vector<db::GpuModelRow>& gpus) {
  std::string s;
  for (const auto& g : gpus) s += (s.empty() ? "" : ", ") + g.model.name;
  return s.empty() ? "none" : s;
}

}  // namespace

void add_db_option(CLI::App* cmd, std::string& path) {
  cmd->add_option("--db", path, db_option_help("Tuning database file"));
}

void add_format_option(CLI::App* cmd, bool& json) {
  CLI::Option* format = cmd->add_option_function<std::string>(
                               "--format", [&json](const std::string& f) { json = f == "json"; },
                               "table (the default), or json: the table's rows as a JSON array "
                               "(numbers in ms, TFLOP/s, %, bytes)")
                            ->check(CLI::IsMember({"table", "json"}));
  cmd->add_flag_callback(
         "--json",
         [&json, format] {
           if (format->count() > 0)
             throw CLI::ValidationError("--json",
                                        "the old spelling of --format json: give one of them");
           note_deprecated("--json", "--format json");
           json = true;
         },
         "The old spelling of --format json (goes in the next release)")
      ->group(kDeprecatedGroup);
}

std::string database_path(const std::string& given) {
  return given.empty() ? db::default_database_path() : given;
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec_a, ec_b;
  if (std::filesystem::exists(a, ec_a) && std::filesystem::exists(b, ec_b))
    return std::filesystem::equivalent(a, b, ec_a);
  const auto canonical_a = std::filesystem::weakly_canonical(a, ec_a),
             canonical_b = std::filesystem::weakly_canonical(b, ec_b);
  return !ec_a && !ec_b && canonical_a == canonical_b;
}

void require_database_file(const std::string& path, const std::string& action) {
  if (!std::filesystem::exists(path)) {
    throw usage_error("no tuning database at '" + path + "': nothing to " + action +
                      "; check the path (--db, else $GEMMTUNE_DB)");
  }
}

std::optional<db::Database> open_for_reading(const std::string& given) {
  const std::string path = database_path(given);
  if (!std::filesystem::exists(path)) {
    // One rule wherever the path came from (docs/cli.md, "A missing database").
    const char* from = !given.empty()               ? "named by --db"
                       : std::getenv("GEMMTUNE_DB") ? "named by $GEMMTUNE_DB"
                                                    : "the default";
    throw usage_error("no tuning database at '" + path + "' (" + from +
                      "): run gemmtune sweep to make one, or name another file with --db");
  }
  return db::Database(path, db::OpenMode::read_only, kernel_families());
}

bool report_if_empty(const std::optional<db::Database>& db, bool json) {
  if (db && db::has_results(*db)) return false;
  if (json) print("[]\n");
  std::fprintf(json ? stderr : stdout, "no results yet: run gemmtune sweep\n");
  return true;
}

const db::GpuModelRow& find_gpu(const std::vector<db::GpuModelRow>& gpus, const std::string& name,
                                const std::string& db_path) {
  const std::string want = lower(name);
  std::vector<const db::GpuModelRow*> exact, partial;
  for (const auto& g : gpus) {
    const std::string have = lower(g.model.name);
    if (have == want)
      exact.push_back(&g);
    else if (have.find(want) != std::string::npos)
      partial.push_back(&g);
  }
  const auto& hits = exact.empty() ? partial : exact;
  if (hits.size() == 1) return *hits.front();
  if (hits.empty()) {
    throw usage_error("unknown GPU model '" + name + "' in " + db_path +
                      "; it holds: " + gpu_names(gpus));
  }
  std::vector<db::GpuModelRow> matching;
  for (const auto* g : hits) matching.push_back(*g);
  throw usage_error("'" + name + "' matches several GPU models in " + db_path + ": " +
                    gpu_names(matching) + "; give more of the name");
}

std::vector<const db::GpuModelRow*> select_gpus(const std::vector<db::GpuModelRow>& gpus,
                                                const std::string& name, const std::string& path) {
  std::vector<const db::GpuModelRow*> out;
  if (!name.empty()) {
    out.push_back(&find_gpu(gpus, name, path));
  } else {
    for (const auto& g : gpus) out.push_back(&g);
  }
  return out;
}

double fp32_peak_tflops(const db::GpuModel& gpu) {
  return gemmtune::fp32_peak_tflops(gpu.sm_count, gpu.clock_khz, gpu.cc_major, gpu.cc_minor);
}

std::string describe_gpu(const db::GpuModel& gpu) {
  return format("%s (sm_%d%d, %d SMs, FP32 peak %.1f TFLOP/s)", gpu.name.c_str(), gpu.cc_major,
                gpu.cc_minor, gpu.sm_count, fp32_peak_tflops(gpu));
}

GpuModelCeilings ceilings_of(const db::Database& db, const db::GpuModelRow& gpu) {
  GpuModelCeilings c;
  if (const auto stored = db.ceilings(gpu.id)) {
    c.fp32_tflops = stored->fp32_tflops;
    c.copy_gbs = stored->copy_gbs;
    c.measured = true;
    c.source = "measured " + stored->measured_at.substr(0, 10);
  } else {
    c.fp32_tflops = std::max(0.0, fp32_peak_tflops(gpu.model));
    c.source = "datasheet (2 x FMA lanes x SMs x clock; not measured on this GPU model)";
  }
  return c;
}

std::string problem_label(const db::ProblemKey& p) {
  std::string s = gemmtune::problem_label(op_from_char(p.op_a).value_or(Op::N),
                                          op_from_char(p.op_b).value_or(Op::N), p.m, p.n, p.k,
                                          p.batch, p.alignment);
  if (p.dtype != "f32") s += " " + p.dtype;
  return s;
}

std::string precision_class(const db::KernelConfig& config) {
  const std::optional<GemmConfig> c = from_db(config);
  return c ? precision_name(c->precision()) : "?";
}

double problem_flops(const db::ProblemKey& p) {
  return 2.0 * static_cast<double>(p.m) * static_cast<double>(p.n) * static_cast<double>(p.k) *
         static_cast<double>(p.batch);
}

void parse_mnk(const std::string& text, std::int64_t& m, std::int64_t& n, std::int64_t& k) {
  tuner::Shape shape;
  try {
    shape = tuner::parse_shape(text);  // the one shape syntax of every command
  } catch (const Error&) {
    throw usage_error("'" + text + "' is not a shape: write MxNxK, e.g. 4096x4096x4096");
  }
  m = shape.m, n = shape.n, k = shape.k;
}

void ProblemFilter::add_options(CLI::App* cmd) {
  cmd->add_option("--shape", shapes, "Only problems of this shape, MxNxK (repeatable)");
  cmd->add_option("--layout", layout, "Only this layout: nn, nt, tn, tt or all")
      ->capture_default_str();
}

void ProblemFilter::parse() {
  mnk_.clear();
  for (const auto& s : shapes) {
    Mnk x{};
    parse_mnk(s, x.m, x.n, x.k);
    mnk_.push_back(x);
  }
  layouts_.clear();
  const std::string l = lower(layout);
  if (l == "all") return;
  if (l.size() != 2 || (l[0] != 'n' && l[0] != 't') || (l[1] != 'n' && l[1] != 't')) {
    throw usage_error("'" + layout + "' is not a layout: write nn, nt, tn, tt or all");
  }
  layouts_.emplace_back(l[0], l[1]);
}

bool ProblemFilter::accepts(const db::ProblemKey& p) const {
  const bool shape_ok = mnk_.empty() || std::any_of(mnk_.begin(), mnk_.end(), [&](const Mnk& x) {
                          return x.m == p.m && x.n == p.n && x.k == p.k;
                        });
  const bool layout_ok =
      layouts_.empty() || std::any_of(layouts_.begin(), layouts_.end(), [&](auto ab) {
        return ab.first == p.op_a && ab.second == p.op_b;
      });
  return shape_ok && layout_ok;
}

void print(const std::string& text) { std::fwrite(text.data(), 1, text.size(), stdout); }

namespace {

void add_db_command(CLI::App& app) {
  auto* db = app.add_subcommand(
      "db", "Inspect and maintain the tuning database (what won, by how much, why)");
  db->require_subcommand(1);
  for (auto& [name, add] : db_registry()) add(*db);
}

const Registration kRegistration("db", add_db_command);

}  // namespace

}  // namespace gemmtune::cli
