// `gemmtune sweep`: tunes problems on this machine's GPUs and records every outcome in the
// tuning database. docs/sweep.md is the user guide.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

#include "commands.hpp"
#include "deprecated.hpp"
#include "gemmtune/db/database.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/device.hpp"
#include "gemmtune/error.hpp"
#include "gemmtune/tuner/device_limits.hpp"
#include "gemmtune/tuner/sweep.hpp"
#include "gemmtune/tuner/timer.hpp"
#include "sweep_plan_options.hpp"

namespace gemmtune::cli {

namespace {

struct SweepCliOptions {
  SweepPlanOptions plan;  // problems, candidates, planning device, shard
  std::string db_path;
  // The default strategy: replayed on an exhaustive H200 recording of 30 problems, it finds each
  // problem's best within 3% (tests/unit/tuner/replay_test.cpp; docs/PERFORMANCE.md).
  std::string strategy = "model";
  bool strategy_given = false;  // --strategy on the command line: another family takes exhaustive
  std::string family = tuner::kSgemmFamily;
  double budget = 0;
  std::size_t max_configs = 0;
  bool force = false;
  std::string devices = "0";
  bool dry_run = false;
  double hang_timeout = 10;
  unsigned compile_threads = 0;
  std::uint64_t seed = 0;
};

std::atomic<bool> g_stop{false};

extern "C" void on_sigint(int) {
  g_stop.store(true);
  static const char msg[] =
      "\ngemmtune: stopping after the current candidate (Ctrl-C again to kill)\n";
  ssize_t ignored = write(2, msg, sizeof msg - 1);
  (void)ignored;
  std::signal(SIGINT, SIG_DFL);  // a second Ctrl-C kills: results so far are committed
}

std::string command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()), out;
  for (char c : all) out += c ? c : ' ';
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::vector<int> parse_devices(const std::string& text) {
  std::vector<int> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    try {
      std::size_t used = 0;
      int d = std::stoi(item, &used);
      if (used != item.size() || d < 0) throw std::invalid_argument(item);
      out.push_back(d);
    } catch (const std::exception&) {
      throw Error(Status::kInvalidArgument,
                  "bad --gpus '" + text + "': expected CUDA ordinals such as 0,1");
    }
    if (std::count(out.begin(), out.end() - 1, out.back()) > 0)
      throw Error(Status::kInvalidArgument,
                  "bad --gpus '" + text + "': GPU " + std::to_string(out.back()) +
                      " is listed twice; each worker needs a GPU of its own");
  }
  if (out.empty()) throw Error(Status::kInvalidArgument, "--gpus lists no GPU");
  return out;
}

tuner::SweepOptions to_sweep_options(const SweepCliOptions& c) {
  tuner::SweepOptions o;
  c.plan.fill(o);
  o.db_path = c.db_path.empty() ? db::default_database_path() : c.db_path;
  o.family = c.family;
  const bool other_family = c.family != tuner::kSgemmFamily;
  // Another family is swept exhaustively: that is its default, and the only strategy it takes.
  o.strategy.kind =
      tuner::parse_strategy(other_family && !c.strategy_given ? "exhaustive" : c.strategy);
  if (c.max_configs > 0 && o.strategy.kind != tuner::StrategyKind::random)
    throw Error(Status::kInvalidArgument,
                "--max-configs applies to --strategy random; use --budget to limit the "
                "others");
  if (c.budget < 0)
    throw Error(Status::kInvalidArgument, "--budget must be positive seconds (0: no limit)");
  o.strategy.budget_s = c.budget;
  o.strategy.max_configs = c.max_configs;
  o.force = c.force;
  o.devices = parse_devices(c.devices);
  o.compile_threads = c.compile_threads;
  o.command_line = command_line();
  o.gemmtune_version = GEMMTUNE_VERSION;
  o.runner.hang_timeout_s = c.hang_timeout;
  o.seed = c.seed;
  o.stop = &g_stop;
  o.out = &std::cout;
  o.is_tty = isatty(STDOUT_FILENO) != 0;
  tuner::sweep_family(o);  // an unknown family, or what it does not take, refused before any work
  if (other_family && c.plan.space != "auto")
    throw Error(Status::kInvalidArgument, "--space is the sgemm family's: a sweep of --family " +
                                              c.family + " measures its candidate_configs");
  return o;
}

void dry_run(const tuner::SweepOptions& o, const SweepCliOptions& c) {
  DeviceInfo dev;
  try {
    dev = device_info(o.devices.front());
  } catch (const Error&) {
    dev = c.plan.planning_device();
  }
  if (o.family != tuner::kSgemmFamily)
    std::printf("dry run on %s: %zu problems, family %s, strategy %s, database %s\n",
                dev.name.c_str(), o.problems.size(), o.family.c_str(),
                tuner::strategy_name(o.strategy.kind), o.db_path.c_str());
  else
    std::printf("dry run on %s: %zu problems, strategy %s, space %s, database %s\n",
                dev.name.c_str(), o.problems.size(), tuner::strategy_name(o.strategy.kind),
                o.space == tuner::SpaceKind::full ? "full" : "reduced", o.db_path.c_str());
  std::size_t total = 0, measured = 0;
  for (const auto& row : tuner::plan_sweep(o, dev)) {
    std::printf("  %-24s %6zu candidates, %6zu measured before\n",
                tuner::problem_label(row.problem).c_str(), row.candidates, row.measured);
    total += row.candidates, measured += row.measured;
  }
  std::printf("total %zu candidates, %zu measured before (skipped unless --force)\n", total,
              measured);
}

// Narrows o.problems to this task's shard, if this is one of several tasks, and says so. False
// when the shard has no problem.
bool take_shard(tuner::SweepOptions& o, const SweepCliOptions& c) {
  const std::optional<tuner::Shard> shard = c.plan.shard_to_run();
  if (!shard) return true;
  // The split balances the sgemm family's estimated tuning times.
  if (o.family != tuner::kSgemmFamily && shard->count > 1)
    throw Error(Status::kInvalidArgument,
                "--shard " + tuner::shard_label(*shard) + ": a sweep of --family " + o.family +
                    " is not split into shards (in a Slurm array, --shard 0/1 runs all of it)");
  const std::size_t all = o.problems.size();
  const tuner::SweepShard part = tuner::plan_sweep_shard(o, c.plan.planning_device(), *shard);
  o.problems = part.problems;
  std::printf(
      "shard %s: %zu of %zu problems, an estimated %.0f of %.0f s of tuning (balanced for %s, %d "
      "SMs)\n",
      tuner::shard_label(*shard).c_str(), o.problems.size(), all, part.seconds, part.total_seconds,
      c.plan.arch.c_str(), c.plan.sms);
  if (o.problems.empty()) std::printf("nothing to tune in this shard: more tasks than problems\n");
  return !o.problems.empty();
}

// Measures the ceilings of each GPU model the sweep ran on and stores them, once per GPU model:
// `db best`'s % peak and the report's roofline read against them (ceilings_of). A failure is a
// warning: the results stand, and those readers use the datasheet until a sweep measures them.
void store_ceilings_once(const tuner::SweepOptions& o) {
  try {
    db::Database db(o.db_path, db::OpenMode::read_write, kernel_families());
    for (int device : o.devices) {
      const DeviceInfo dev = device_info(device);
      const auto id = db.find_gpu_model(to_db(dev));
      if (!id || db.ceilings(*id)) continue;  // nothing recorded on it, or measured before
      GEMMTUNE_CUDA(cudaSetDevice(device));
      tuner::GpuTimer timer;
      const tuner::MeasuredCeilings m = tuner::measure_ceilings(timer);
      if (db.record_ceilings(*id, {m.fp32_tflops, m.copy_gbs, "", GEMMTUNE_VERSION}))
        std::printf("ceilings of %s, measured once and stored: FMA %.1f TFLOP/s, copy %.0f GB/s\n",
                    dev.name.c_str(), m.fp32_tflops, m.copy_gbs);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr,
                 "gemmtune sweep: warning: the GPU's ceilings were not measured (%s); %% peak and "
                 "the report's roofline use the datasheet until a sweep measures them\n",
                 e.what());
  }
}

void run(const SweepCliOptions& c) {
  tuner::SweepOptions o = to_sweep_options(c);
  if (!take_shard(o, c)) return;
  if (c.dry_run) return dry_run(o, c);
  try {
    device_count();
  } catch (const Error& e) {
    std::string why = e.what();
    if (why.rfind("no CUDA device / driver found", 0) != 0)
      why = "no CUDA device / driver found: " + why;
    std::fprintf(stderr, "gemmtune sweep: %s\n", why.c_str());
    exit_status() = kExitNoGpu;
    return;
  }
  std::signal(SIGINT, on_sigint);
  const auto started = std::chrono::steady_clock::now();
  tuner::SweepReport report = tuner::run_sweep(o);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::signal(SIGINT, SIG_DFL);
  if (!report.interrupted && !report.device_hung) store_ceilings_once(o);
  std::printf("\n%s", tuner::format_summary(report.rows).c_str());
  std::printf("%zu measurements recorded in %s\n", report.measurements, o.db_path.c_str());
  if (report.measurements > 0) {
    std::printf("%.1f s in all; the GPU workers' time: %s\n", seconds,
                report.times.describe().c_str());
  }
  // Another family's configs are compiled by their measurements, not by the compile pools.
  if (report.measurements > 0 && o.family == tuner::kSgemmFamily) {
    // Compiles the pools made that no measurement used: compiled ahead for ranks never reached.
    const std::size_t used = report.times.compiles.compiled;
    const std::size_t nvrtc = report.compile_pool.compiles;
    std::printf("NVRTC: %zu compiles, %.1f s each, %zu of them not measured\n", nvrtc,
                nvrtc ? report.compile_pool.compile_s / double(nvrtc) : 0.0,
                nvrtc > used ? nvrtc - used : 0);
  }
  for (const auto& e : report.errors) std::fprintf(stderr, "gemmtune sweep: %s\n", e.c_str());
  std::fflush(stdout);
  if (report.interrupted) {
    std::printf("interrupted: rerun the same command to resume (measured pairs are skipped)\n");
    exit_status() = kExitInterrupted;
  } else if (!report.errors.empty()) {
    exit_status() = kExitError;
  }
  if (report.device_hung) {
    // A hung kernel still runs: CUDA's exit-time cleanup would wait for it forever.
    std::fflush(nullptr);
    std::_Exit(exit_status() ? exit_status() : 1);
  }
}

}  // namespace

static void add_sweep_command(CLI::App& app) {
  auto c = std::make_shared<SweepCliOptions>();
  auto* cmd = app.add_subcommand(
      "sweep", "Tune problems on this machine's GPUs and record everything in the database");
  c->plan.add_problem_options(cmd);
  cmd->add_option("--db", c->db_path, db_option_help("Tuning database"));
  auto* strategy = cmd->add_option("--strategy", c->strategy,
                                   "exhaustive, random, halving or model (a --family other than "
                                   "sgemm: exhaustive, its default)")
                       ->capture_default_str();
  cmd->add_option("--family", c->family,
                  "Kernel family to tune: sgemm, or another registered family, whose own "
                  "candidate_configs are each measured (--strategy exhaustive; no --space, "
                  "--config or --shard); an unknown name is refused with the registered ones")
      ->capture_default_str();
  cmd->add_option("--budget", c->budget,
                  "Seconds per problem (0: no limit); every strategy honours it, after measuring "
                  "the first round of compiles (one per -j job)")
      ->capture_default_str()
      ->check(finite_number(0, false, 1e9, "a number of seconds, 0 or more (0: no limit)"));
  cmd->add_option("--max-configs", c->max_configs,
                  "Random strategy: candidates to try per problem");
  cmd->add_flag("--force", c->force, "Re-measure configs already measured on this GPU model");
  c->plan.add_candidate_options(cmd);
  add_old_spelling(cmd,
                   cmd->add_option("--gpus", c->devices, "CUDA ordinals, one worker each, e.g. 0,1")
                       ->capture_default_str(),
                   "--devices", c->devices);
  cmd->add_flag("--dry-run", c->dry_run, "List the problems and candidate counts; needs no GPU");
  cmd->add_option("--hang-timeout", c->hang_timeout,
                  "Seconds before a verification run counts as hung")
      ->capture_default_str()
      ->check(finite_number(0, true, 86400,
                            "a number of seconds above 0, up to 86400 (a timeout is recorded, and "
                            "later sweeps skip the config: too short a wait would mark running "
                            "kernels hung)"));
  auto* jobs =
      cmd->add_option("-j,--jobs", c->compile_threads, "Parallel compilations (0: one per core)")
          ->capture_default_str()
          ->check(CLI::Range(0, 256));
  add_old_spelling(cmd, jobs, "--compile-threads", c->compile_threads)->check(CLI::Range(0, 256));
  cmd->add_option("--seed", c->seed, "Seed of the random data and sampling (0: random)")
      ->capture_default_str();
  c->plan.add_device_options(cmd,
                             "Planning without a GPU (--dry-run, and how --shard splits the work)");
  c->plan.add_shard_option(cmd);
  cmd->callback([c, strategy] {
    c->strategy_given = strategy->count() > 0;
    run(*c);
  });
}

static const Registration kRegistration("sweep", add_sweep_command);

}  // namespace gemmtune::cli
