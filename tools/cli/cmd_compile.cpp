// `gemmtune compile`: fills the database's binary cache with the cubins a sweep of the same
// problems would compile, for a named architecture, without a GPU: CPU nodes compile, GPU nodes
// then only time. docs/cluster.md is the user guide. With --resources it also shows what each
// kernel takes (registers, spills, shared memory), as ptxas reported it, without a GPU.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <mutex>
#include <thread>

#include "commands.hpp"
#include "gemmtune/db/database.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/error.hpp"
#include "gemmtune/kernel.hpp"
#include "gemmtune/tuner/threads.hpp"
#include "sweep_plan_options.hpp"
#include "table.hpp"

namespace gemmtune::cli {
namespace {

struct CompileCliOptions {
  SweepPlanOptions plan;
  std::string db_path;
  int jobs = int(std::max(1u, std::thread::hardware_concurrency()));
  bool resources = false;
};

std::atomic<bool> g_stop{false};

extern "C" void on_compile_sigint(int) {
  g_stop.store(true);
  static const char msg[] =
      "\ngemmtune: stopping after the compiles in flight (Ctrl-C again to kill)\n";
  ssize_t ignored = write(2, msg, sizeof msg - 1);
  (void)ignored;
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C kills: what is stored stays stored
}

// The configs of this task: all of them, or every N-th (configs cost about the same to compile,
// and the sorted names mix the tile sizes).
std::vector<GemmConfig> configs_to_build(const std::vector<GemmConfig>& all,
                                         const std::optional<tuner::Shard>& shard) {
  if (!shard) return all;
  std::vector<GemmConfig> mine;
  for (std::size_t i : tuner::shard_items(std::vector<double>(all.size(), 1.0), *shard))
    mine.push_back(all[i]);
  return mine;
}

// Compiles `configs` on `jobs` threads, storing each cubin as it is done (a killed task keeps
// what it finished). Returns the names and first log lines of those that failed.
std::vector<std::string> compile_and_store(const std::vector<GemmConfig>& configs,
                                           const std::string& arch, int jobs, db::Database& db) {
  std::mutex mutex;  // guards db, failures, done
  std::vector<std::string> failures;
  std::size_t done = 0;
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i; !g_stop.load() && (i = next++) < configs.size();) {
      const GemmConfig& config = configs[i];
      CompileResult r = compile_config(config, arch);
      std::lock_guard lock(mutex);
      if (r.ok) {
        db.put_binary(to_binary(config, arch, binary_key(config, arch),
                                {std::move(r.cubin), r.lowered_name, r.resources}));
      } else {
        failures.push_back(config_name(config) + ": " + r.log.substr(0, r.log.find('\n')));
      }
      if (++done % 50 == 0) std::fprintf(stderr, "compiled %zu / %zu\n", done, configs.size());
    }
  };
  const auto stop = [&] { next = configs.size(); };
  for (auto& t : tuner::start_threads(unsigned(jobs), work, stop, "compile jobs (-j)")) t.join();
  return failures;
}

// What each of `configs` takes per thread and block, from its cubin's record in the binary cache
// (ptxas's report at compile time): how a kernel change moves registers before any GPU runs it.
std::string resources_table(const std::vector<GemmConfig>& configs, const std::string& arch,
                            const db::Database& db) {
  Table table({{"config", "config", Align::left},
               {"registers", "registers"},
               {"spilled", "spill_bytes", Align::right, true,
                "spilled: register bytes stored to the stack"},
               {"shared memory", "smem_bytes", Align::right, true,
                "shared memory: per block, the tile buffers and the kernel's static arrays"}});
  for (const GemmConfig& config : configs) {
    const std::optional<db::Binary> b = db.get_binary(binary_key(config, arch)).binary;
    if (!b || !from_binary(config, arch, *b)) {  // not compiled: it failed, or the run was stopped
      table.add_row({Cell::str(config_name(config))});
      continue;
    }
    table.add_row({Cell::str(config_name(config)),
                   b->registers ? Cell::integer(*b->registers) : Cell::none(),
                   bytes_cell(b->spill_bytes), bytes_cell(b->smem_bytes)});
  }
  return table.render();
}

void run(const CompileCliOptions& c) {
  tuner::SweepOptions o;
  c.plan.fill(o);
  const DeviceInfo device = c.plan.planning_device();
  const std::optional<tuner::Shard> shard = c.plan.shard_to_run();
  const std::vector<GemmConfig> all = tuner::sweep_configs(o, device);
  if (all.empty()) {
    throw Error(Status::kInvalidArgument,
                "no config to compile: the --config names are none of the problems' "
                "candidates (gemmtune space --list --arch " +
                    c.plan.arch + " lists valid names)");
  }
  const std::vector<GemmConfig> mine = configs_to_build(all, shard);
  const std::string path = c.db_path.empty() ? db::default_database_path() : c.db_path;
  db::Database db(path, db::OpenMode::read_write, kernel_families());
  std::vector<GemmConfig> missing;
  for (const GemmConfig& config : mine) {
    // What a program would load counts as cached (checked as the dispatcher checks it); anything
    // else under the key (damaged, another config's, GEMMTUNE_NO_CACHED_BINARIES) is compiled
    // again.
    const std::optional<db::Binary> b = db.get_binary(binary_key(config, c.plan.arch)).binary;
    if (!b || !from_binary(config, c.plan.arch, *b)) missing.push_back(config);
  }
  std::printf(
      "%s%zu of the %zu configs a sweep of %zu problem%s could compile for %s (%d SMs), NVRTC %s: "
      "%zu in the binary cache of %s, %zu to compile\n",
      shard ? ("shard " + tuner::shard_label(*shard) + ": ").c_str() : "", mine.size(), all.size(),
      o.problems.size(), o.problems.size() == 1 ? "" : "s", c.plan.arch.c_str(), c.plan.sms,
      nvrtc_version_string().c_str(), mine.size() - missing.size(), path.c_str(), missing.size());
  std::fflush(stdout);
  std::signal(SIGINT, on_compile_sigint);
  const std::vector<std::string> failures = compile_and_store(missing, c.plan.arch, c.jobs, db);
  std::signal(SIGINT, SIG_DFL);
  for (const auto& f : failures) std::fprintf(stderr, "gemmtune compile: failed: %s\n", f.c_str());
  if (g_stop.load()) {
    std::printf("interrupted: rerun the same command to go on (stored cubins are skipped)\n");
    exit_status() = kExitInterrupted;
    return;
  }
  std::printf("%zu compiled and stored, %zu failed\n", missing.size() - failures.size(),
              failures.size());
  if (c.resources) std::printf("\n%s", resources_table(mine, c.plan.arch, db).c_str());
  if (!failures.empty()) exit_status() = kExitError;
}

}  // namespace

static void add_compile_command(CLI::App& app) {
  auto c = std::make_shared<CompileCliOptions>();
  auto* cmd = app.add_subcommand("compile",
                                 "Fill the binary cache with the cubins a sweep of these problems "
                                 "would compile (no GPU needed)");
  c->plan.add_problem_options(cmd);
  c->plan.add_candidate_options(cmd);
  c->plan.add_device_options(cmd, "The GPUs the sweep will run on");
  c->plan.add_shard_option(cmd);
  cmd->add_option("--db", c->db_path, db_option_help("Tuning database to store the cubins in"));
  cmd->add_option("-j,--jobs", c->jobs, "Parallel compilations (0: one per core)")
      ->capture_default_str()
      ->check(CLI::Range(0, 256));
  cmd->add_flag("--resources", c->resources,
                "Then show each config's registers, spilled bytes and shared memory per block "
                "(ptxas's figures, from the binary cache)");
  cmd->callback([c] {
    if (c->jobs == 0) c->jobs = int(std::max(1u, std::thread::hardware_concurrency()));
    run(*c);
  });
}

static const Registration kRegistration("compile", add_compile_command);

}  // namespace gemmtune::cli
