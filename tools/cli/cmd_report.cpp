// `gemmtune report --out DIR`: pictures of the tuning database (speedup over cuBLAS, heatmaps per
// problem class, a roofline, the CPU/GPU crossover of bench files) and index.html, drawn by
// tools/report/gemmtune_report.py with matplotlib. This command checks the database and the
// options, finds the script and a python3 that has matplotlib, and runs it.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "db_commands.hpp"
#include "deprecated.hpp"
#include "table.hpp"

extern char** environ;

namespace gemmtune::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kScriptName = "gemmtune_report.py";
constexpr int kNoMatplotlib = 3;  // the script's exit status when matplotlib cannot be imported

struct ReportOptions {
  std::string db;
  std::string out;
  std::string device;
  std::string shape;
  std::string layout = "all";
  double bandwidth_gbs = 0;
  double peak_tflops = 0;
  std::vector<std::string> bench;
  std::string format = "png";
};

// $GEMMTUNE_REPORT_SCRIPT, next to the executable (report/), the install tree (share/gemmtune/),
// then the source tree this binary was built from.
fs::path find_script() {
  std::vector<fs::path> candidates;
  if (const char* env = std::getenv("GEMMTUNE_REPORT_SCRIPT"); env && *env) return env;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    candidates.push_back(exe.parent_path() / "report" / kScriptName);
    candidates.push_back(exe.parent_path().parent_path() / "share" / "gemmtune" / kScriptName);
  }
  // Not __FILE__: ccache (CCACHE_BASEDIR) makes it relative to the build folder.
  candidates.push_back(fs::path(GEMMTUNE_REPORT_SOURCE_DIR) / kScriptName);
  for (const auto& c : candidates)
    if (fs::is_regular_file(c, ec)) return c;
  throw usage_error(
      std::string("cannot find ") + kScriptName + " (looked next to the gemmtune executable, in " +
      "share/gemmtune and in the source tree); set GEMMTUNE_REPORT_SCRIPT to its path");
}

// The pythons to try, in order: $GEMMTUNE_PYTHON, Debian's /usr/bin/python3 (where the
// distribution's python3-matplotlib lives, which a pyenv or venv python3 on PATH does not see),
// then python3 on PATH.
std::vector<std::string> python_candidates() {
  std::vector<std::string> out;
  if (const char* env = std::getenv("GEMMTUNE_PYTHON"); env && *env) return {env};
  std::error_code ec;
  if (fs::is_regular_file("/usr/bin/python3", ec)) out.push_back("/usr/bin/python3");
  out.push_back("python3");
  return out;
}

// Runs `python` with `args`; returns its exit status, or -1 when `python` cannot be found.
int run_python(const std::string& python, const std::vector<std::string>& args) {
  std::vector<std::string> copy = args;
  copy.insert(copy.begin(), python);
  std::vector<char*> argv;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, python.c_str(), nullptr, nullptr, argv.data(), environ);
  if (rc == ENOENT) return -1;
  if (rc != 0) throw usage_error("cannot run " + python + ": " + std::strerror(rc));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

// Runs the script with the first python that has matplotlib; returns its exit status.
int run_script(const std::vector<std::string>& args) {
  std::string tried;
  for (const auto& python : python_candidates()) {
    const int status = run_python(python, args);
    if (status != kNoMatplotlib && status != -1) return status;
    tried += (tried.empty() ? "" : ", ") + python +
             (status == -1 ? " (not installed)" : " (no matplotlib)");
  }
  throw usage_error(
      "gemmtune report needs Python 3 with matplotlib; tried " + tried +
      ". On Debian or Ubuntu: apt-get install python3-matplotlib (or tools/setup.sh); "
      "elsewhere: python3 -m pip install matplotlib; or set GEMMTUNE_PYTHON to a python3 that has "
      "it");
}

void run_report(const ReportOptions& o) {
  if (!o.shape.empty()) {
    std::int64_t m, n, k;
    parse_mnk(o.shape, m, n, k);
  }
  auto db =
      open_for_reading(o.db);  // one clear line for a missing file or one that is not a database
  if (report_if_empty(db, false)) return;
  std::string device;
  if (!o.device.empty()) device = find_gpu(db->gpu_models(), o.device, db->path()).model.name;
  const std::string path = fs::absolute(db->path()).string();
  db.reset();  // the script opens the file itself

  std::vector<std::string> args = {find_script().string(),
                                   "--db",
                                   path,
                                   "--out",
                                   o.out,
                                   "--format",
                                   o.format,
                                   "--layout",
                                   o.layout};
  if (!device.empty()) args.insert(args.end(), {"--device", device});
  if (!o.shape.empty()) args.insert(args.end(), {"--shape", o.shape});
  if (o.bandwidth_gbs > 0) args.insert(args.end(), {"--bandwidth", format("%g", o.bandwidth_gbs)});
  if (o.peak_tflops > 0) args.insert(args.end(), {"--peak", format("%g", o.peak_tflops)});
  for (const auto& b : o.bench) args.insert(args.end(), {"--bench", fs::absolute(b).string()});
  args.insert(args.end(), {"--version", GEMMTUNE_VERSION});
  if (run_script(args) != 0) exit_status() = 1;  // the script said why, in one line
}

void add_report_command(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  auto* cmd = app.add_subcommand("report",
                                 "Draw the database: speedup over cuBLAS, heatmaps per problem "
                                 "class, roofline, CPU/GPU crossover, index.html");
  cmd->add_option("--out", o->out, "Directory to write the pictures and index.html to")->required();
  add_db_option(cmd, o->db);
  add_old_spelling(cmd,
                   cmd->add_option("--gpu-model", o->device,
                                   "Only this GPU model (its name, or a unique part of it)"),
                   "--device", o->device);
  cmd->add_option("--shape", o->shape,
                  "Problem of the single BM x BN heatmap, MxNxK (default: the largest)");
  cmd->add_option("--layout", o->layout, "Layout of that problem: nn, nt, tn, tt or all")
      ->capture_default_str()
      ->check(CLI::IsMember({"nn", "nt", "tn", "tt", "all"}));
  cmd->add_option(
         "--bench", o->bench,
         "A `gemmtune bench --out` file of the same GPU (repeatable): the dispatcher's times, the "
         "roofline's ceilings where the database has none, and with --cpu the CPU/GPU crossover")
      ->check(CLI::ExistingFile);
  cmd->add_option("--peak", o->peak_tflops,
                  "FMA ceiling of the roofline in TFLOP/s (default: measured on the GPU model and "
                  "stored by gemmtune sweep, else from --bench, else the datasheet's, noted)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--bandwidth", o->bandwidth_gbs,
                  "Memory bandwidth of the roofline in GB/s (default: measured, as --peak; else "
                  "the datasheet's: 4800 H200, 3350 H100)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--format", o->format, "png or svg")
      ->capture_default_str()
      ->check(CLI::IsMember({"png", "svg"}));
  cmd->callback([o] { run_report(*o); });
}

const Registration kRegistration("report", add_report_command);

}  // namespace
}  // namespace gemmtune::cli
