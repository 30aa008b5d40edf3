// `gemmtune report --out DIR`: pictures of the tuning database (best vs cuBLAS bars, a BM x BN
// heatmap, a roofline) and an index.html, drawn by tools/report/gemmtune_report.py with matplotlib.
// This command checks the database and the options, finds the script and runs it with python3.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "db_commands.hpp"
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
  candidates.push_back(fs::path(__FILE__).parent_path() / "report" / kScriptName);
  for (const auto& c : candidates)
    if (fs::is_regular_file(c, ec)) return c;
  throw usage_error(std::string("cannot find ") + kScriptName + " (looked next to the gemmtune executable, in " +
                    "share/gemmtune and in the source tree); set GEMMTUNE_REPORT_SCRIPT to its path");
}

// Runs python3 with `args`; returns its exit status.
int run_python(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  std::string python = "python3";
  argv.push_back(python.data());
  std::vector<std::string> copy = args;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, "python3", nullptr, nullptr, argv.data(), environ);
  if (rc == ENOENT) {
    throw usage_error("python3 is not installed: install Python 3 and matplotlib (pip install matplotlib)");
  }
  if (rc != 0) throw usage_error(std::string("cannot run python3: ") + std::strerror(rc));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

void run_report(const ReportOptions& o) {
  if (!o.shape.empty()) {
    std::int64_t m, n, k;
    parse_mnk(o.shape, m, n, k);
  }
  auto db = open_for_reading(o.db);  // one clear line for a missing file or one that is not a database
  if (report_if_empty(db, false)) return;
  std::string device;
  if (!o.device.empty()) device = find_gpu(db->gpu_models(), o.device, db->path()).model.name;
  const std::string path = fs::absolute(db->path()).string();
  db.reset();  // the script opens the file itself

  std::vector<std::string> args = {find_script().string(), "--db", path, "--out", o.out, "--format", o.format,
                                   "--layout", o.layout};
  if (!device.empty()) args.insert(args.end(), {"--device", device});
  if (!o.shape.empty()) args.insert(args.end(), {"--shape", o.shape});
  if (o.bandwidth_gbs > 0) args.insert(args.end(), {"--bandwidth", format("%g", o.bandwidth_gbs)});
  const int status = run_python(args);
  if (status == kNoMatplotlib) {
    throw usage_error("matplotlib is missing for python3: pip install matplotlib");
  }
  if (status != 0) exit_status() = 1;  // the script said why, in one line
}

void add_report_command(CLI::App& app) {
  auto o = std::make_shared<ReportOptions>();
  auto* cmd = app.add_subcommand(
      "report", "Draw the database: best vs cuBLAS, BM x BN heatmap, roofline, index.html");
  cmd->add_option("--out", o->out, "Directory to write the pictures and index.html to")->required();
  add_db_option(cmd, o->db);
  cmd->add_option("--device", o->device, "Only this GPU model (its name, or a unique part of it)");
  cmd->add_option("--shape", o->shape, "Problem of the heatmap, MxNxK (default: the largest)");
  cmd->add_option("--layout", o->layout, "Layout of the heatmap's problem: nn, nt, tn, tt or all")
      ->capture_default_str()
      ->check(CLI::IsMember({"nn", "nt", "tn", "tt", "all"}));
  cmd->add_option("--bandwidth", o->bandwidth_gbs,
                  "Memory bandwidth in GB/s for the roofline (default: 4800 for H200, 3350 for H100)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--format", o->format, "png or svg")->capture_default_str()->check(CLI::IsMember({"png", "svg"}));
  cmd->callback([o] { run_report(*o); });
}

const Registration kRegistration("report", add_report_command);

}  // namespace
}  // namespace gemmtune::cli
