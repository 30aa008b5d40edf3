// `gemmtune try CONFIG... --shape MxNxK [--batch N]`: compiles the named configs, checks each
// against the float64 reference and times it next to cuBLAS on the same buffers. For hand
// experiments: a result above the sweep's verification tolerance is marked WRONG and fails the
// run (status 1); --json writes every row for scripts (two builds compared, say). A problem's
// configs compile on every core before its timings, through the tuning database's binary cache
// where that file exists (a config tried before, or swept, loads at once; new compiles are
// stored). Taking a compile and storing it, loading, verifying and timing are the sweep's own
// (tuner::CandidateRunner::compile and trial), on a problem bench like the sweep's: try shows what
// a sweep would measure. It runs configs of the sgemm family; a config of another registered
// kernel family is refused by name (status 2).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>

#include "commands.hpp"
#include "deprecated.hpp"
#include "file_output.hpp"
#include "gemmtune/db/database.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/error.hpp"
#include "gemmtune/family.hpp"
#include "gemmtune/reference.hpp"
#include "gemmtune/tuner/candidate_runner.hpp"
#include "gemmtune/tuner/compile_pool.hpp"
#include "gemmtune/tuner/cublas_baseline.hpp"
#include "gemmtune/tuner/shape.hpp"
#include "gemmtune/tuner/timer.hpp"
#include "table.hpp"

namespace gemmtune::cli {

namespace {
struct TryOptions {
  std::vector<std::string> configs;
  std::vector<std::string> shapes = {"4096x4096x4096"};
  int batch = 1;       // of every --shape problem
  std::string layout;  // empty: each name's own layout
  int device = 0;
  std::string json;   // also write the rows here
  std::string db;     // binary cache; empty: the default database
  unsigned jobs = 0;  // compile threads; 0: one per core
};

// The binary cache try stores its new compiles in: the tuning database where that file exists
// and can be written (none otherwise: try then compiles every run, as without a cache).
std::unique_ptr<db::Database> open_binary_store(const std::string& path) {
  if (!std::filesystem::exists(path)) return nullptr;
  try {
    return std::make_unique<db::Database>(path, db::OpenMode::read_write, kernel_families());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gemmtune try: not storing compiles in %s: %s\n", path.c_str(), e.what());
    return nullptr;
  }
}

// The layouts to run, in first-seen order: --layout's, or else those of the named configs ("nn"
// for 'default').
std::vector<std::pair<Op, Op>> layouts_to_run(const TryOptions& o) {
  if (!o.layout.empty()) return tuner::parse_layouts(o.layout);
  std::vector<std::pair<Op, Op>> out;
  for (const auto& name : o.configs) {
    auto parsed = name == "default" ? std::nullopt : parse_config_name(name);
    std::pair<Op, Op> l = parsed ? std::pair{parsed->op_a, parsed->op_b} : std::pair{Op::N, Op::N};
    if (std::find(out.begin(), out.end(), l) == out.end()) out.push_back(l);
  }
  return out;
}

// Whether any of the names is a 1xTF32 config: cuBLAS's TF32 math is then timed as well.
bool names_tf32(const TryOptions& o) {
  for (const auto& name : o.configs)
    if (auto c = parse_config_name(name); c && c->precision() == Precision::tf32) return true;
  return false;
}

// What every problem of one run shares: the GPU, its tools, the compiles (each config compiles
// once, for every problem) and the rows so far.
struct TryRun {
  const TryOptions& o;
  DeviceInfo dev;
  tuner::GpuTimer timer;
  tuner::CublasSgemm cublas;
  std::unique_ptr<tuner::CublasSgemm> cublas_tf32;  // where a 1xTF32 config is named
  ReferenceGemm reference;
  std::string cache_path;
  bool cache = false;                   // the file exists: read even where it cannot be written
  std::unique_ptr<db::Database> store;  // where new compiles go, if anywhere
  bool store_failed = false;            // a store failed: no more are tried
  tuner::CompilePool pool;
  tuner::RunnerOptions runner_options;  // the sweep's (a hung kernel's deadline)
  std::map<std::string, std::shared_ptr<tuner::CompiledCandidate>> compiled;  // by name
  int from_cache = 0, compiles = 0, timed = 0, wrong = 0, failed = 0;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();

  TryRun(const TryOptions& options, const DeviceInfo& device)
      : o(options),
        dev(device),
        cublas_tf32(names_tf32(o) ? std::make_unique<tuner::CublasSgemm>(true) : nullptr),
        reference(device.limits.arch()),
        cache_path(o.db.empty() ? db::default_database_path() : o.db),
        cache(std::filesystem::exists(cache_path)),
        store(open_binary_store(cache_path)),
        pool(device.limits.arch(), cache ? cache_path : "", o.jobs) {
    runner_options.binary_store_failed = [this](const std::exception& e) {
      std::fprintf(stderr, "gemmtune try: not storing compiles in %s: %s\n", cache_path.c_str(),
                   e.what());
      store_failed = true;
    };
  }

  // The runner of one problem: the sweep's, storing new compiles in the binary cache.
  tuner::CandidateRunner runner(tuner::ProblemBench& bench) {
    return tuner::CandidateRunner({store_failed ? nullptr : store.get(), 0, 0, dev.limits.arch()},
                                  dev, bench, pool, timer, runner_options);
  }

  // Compiles `configs` (those not compiled for an earlier problem) on every core, all before
  // any is timed so that no compile competes with the launches for a core; `runner` stores the
  // new ones in the binary cache.
  void compile(tuner::CandidateRunner& runner, const std::vector<GemmConfig>& configs) {
    std::vector<GemmConfig> to_compile;
    for (const GemmConfig& cfg : configs)
      if (compiled.emplace(config_name(cfg), nullptr).second) to_compile.push_back(cfg);
    pool.enqueue(to_compile);
    for (const GemmConfig& cfg : to_compile) {
      std::shared_ptr<tuner::CompiledCandidate>& entry = compiled[config_name(cfg)];
      entry = runner.compile(cfg);
      if (entry->from_cache)
        ++from_cache;
      else if (entry->ok)
        ++compiles;
    }
  }
};

// The names' configs for problem `p`, in its layout and fitted to its data.
std::vector<GemmConfig> configs_for(const TryOptions& o, const DeviceInfo& dev, const Problem& p) {
  std::vector<GemmConfig> configs;
  for (const auto& name : o.configs) {
    GemmConfig cfg = default_config(dev.limits, p);  // "default": the built-in one for this data
    if (name != "default") {
      cfg = *parse_config_name(name);  // checked before
      // Without --layout each name runs in its own layout only.
      if (o.layout.empty() && (cfg.op_a != p.op_a || cfg.op_b != p.op_b)) continue;
    }  // 'default' runs in every layout run
    cfg.op_a = p.op_a, cfg.op_b = p.op_b;
    configs.push_back(cfg.fitted_to(p));  // the access widths follow from the data
  }
  return configs;
}

// Those of `configs` that may run `p`: valid on the GPU and able to run the problem.
std::vector<GemmConfig> runnable(const std::vector<GemmConfig>& configs, const DeviceLimits& limits,
                                 const Problem& p) {
  std::vector<GemmConfig> out;
  for (const GemmConfig& cfg : configs)
    if (!cfg.validate(limits) && !cfg.can_implement(p)) out.push_back(cfg);
  return out;
}

// One problem as its lines and rows show it: the problem and cuBLAS's times on it.
struct ProblemLine {
  const Problem& p;
  double cublas_ms = 0, cublas_tflops = 0;
  double tf32_ms = 0;  // cuBLAS's TF32 math, where timed
};

// Times cuBLAS on the bench's problem (and its TF32 math where a 1xTF32 config is named) and
// prints its line.
ProblemLine time_cublas(TryRun& run, const std::string& text, tuner::ProblemBench& bench) {
  ProblemLine line{bench.problem()};
  const Problem& p = line.p;
  line.cublas_ms = run.timer.time([&](cudaStream_t st) { run.cublas.run(p, st); }).median_ms;
  line.cublas_tflops = p.flops() / line.cublas_ms / 1e9;
  std::printf("\n%s %s  cuBLAS %s  %s  rel.err %.1e\n", text.c_str(), p.layout().c_str(),
              format_time_ms(line.cublas_ms).c_str(), format_rate(line.cublas_tflops).c_str(),
              bench.error_of_c());
  if (run.cublas_tf32) {
    line.tf32_ms = run.timer.time([&](cudaStream_t st) { run.cublas_tf32->run(p, st); }).median_ms;
    std::printf("%*s  cuBLAS TF32 %s  %s  rel.err %.1e\n", int(text.size() + 3), "",
                format_time_ms(line.tf32_ms).c_str(),
                format_rate(p.flops() / line.tf32_ms / 1e9).c_str(), bench.error_of_c());
  }
  return line;
}

// One row of --json: the problem, the config's name as run, and `fields`.
void add_row(TryRun& run, const ProblemLine& line, const GemmConfig& cfg,
             nlohmann::ordered_json fields) {
  const Problem& p = line.p;
  nlohmann::ordered_json row = {{"m", p.m},
                                {"n", p.n},
                                {"k", p.k},
                                {"batch", p.batch},
                                {"layout", p.layout()},
                                {"config", config_name(cfg)},
                                {"cublas_ms", line.cublas_ms}};
  row.update(fields);
  run.rows.push_back(std::move(row));
}

// A config that gave no time: its line (`what`) and its row (`status`, `reason`).
void untimed(TryRun& run, const ProblemLine& line, const GemmConfig& cfg, const std::string& what,
             const char* status, const std::string& reason) {
  std::printf("  %-52s %s\n", config_name(cfg).c_str(), what.c_str());
  add_row(run, line, cfg, {{"status", status}, {"reason", reason}});
}

// A config that ran: its time next to cuBLAS's, its error (WRONG above the sweep's tolerance) and
// its resources.
void timed(TryRun& run, const ProblemLine& line, const GemmConfig& cfg,
           const tuner::CompiledCandidate& cr, const tuner::Trial& t) {
  const Problem& p = line.p;
  const tuner::Verification& v = t.verification;
  const double ms = t.timing->median_ms, tflops = p.flops() / ms / 1e9, err = v.rel_error;
  std::printf("  %-52s %9s %13s  %5.3fx cuBLAS  err %.1e  regs %d spill %d",
              config_name(cfg).c_str(), format_time_ms(ms).c_str(), format_rate(tflops).c_str(),
              tflops / line.cublas_tflops, err, cr.resources.registers, cr.resources.spill_stores);
  if (line.tf32_ms > 0 && cfg.precision() == Precision::tf32)
    std::printf("  %5.3fx cuBLAS TF32", line.tf32_ms / ms);
  const double tolerance = verification_tolerance(cfg, p.k);
  const bool right =
      v.outcome == tuner::Verification::Outcome::ok;           // NaN (C left poisoned) is wrong
  if (!right && v.rel_error <= tolerance && v.wide_rel_error)  // right on the random inputs
    std::printf("  WRONG: on wide-range inputs error %.1e above the tolerance %.1e",
                *v.wide_rel_error, tolerance);
  else if (!right)
    std::printf("  WRONG: error above the tolerance %.1e", tolerance);
  std::printf("\n");
  ++run.timed, run.wrong += !right;
  auto number = [](std::optional<double> x) {
    return x && std::isfinite(*x) ? nlohmann::ordered_json(*x) : nlohmann::ordered_json();
  };
  nlohmann::ordered_json fields = {{"status", right ? "ok" : "wrong_result"},
                                   {"median_ms", ms},
                                   {"tflops", tflops},
                                   {"speedup", line.cublas_ms / ms},
                                   {"rel_error", number(err)},
                                   {"tolerance", tolerance},
                                   {"registers", cr.resources.registers},
                                   {"spill_bytes", cr.resources.spill_stores}};
  if (v.wide_rel_error) fields["wide_rel_error"] = number(v.wide_rel_error);
  add_row(run, line, cfg, std::move(fields));
}

// One config on the problem: why it cannot run, or the runner's trial of its compile.
void try_config(TryRun& run, tuner::CandidateRunner& runner, const ProblemLine& line,
                const GemmConfig& cfg) {
  if (auto why = cfg.validate(run.dev.limits))
    return untimed(run, line, cfg, "invalid: " + *why, "invalid", *why);
  if (auto why = cfg.can_implement(line.p))
    return untimed(run, line, cfg, "cannot run: " + *why, "cannot_run", *why);
  const tuner::CompiledCandidate& cr = *run.compiled.at(config_name(cfg));
  if (!cr.ok)
    return untimed(run, line, cfg, "compile failed\n" + cr.log, "compile_failed",
                   cr.log.substr(0, cr.log.find('\n')));
  if (cr.resources.registers < 0)
    std::printf("  (no ptxas resource report for %s; NVRTC log:)\n%s\n", cr.lowered_name.c_str(),
                cr.log.c_str());
  const tuner::Trial t = runner.trial(cfg, cr, tuner::TimerOptions{});
  if (t.timing) return timed(run, line, cfg, cr, t);
  // Not loaded, or the verification run failed.
  untimed(run, line, cfg, "launch failed: " + t.verification.error, "launch_failed",
          t.verification.error);
  ++run.failed;
}

// One problem: cuBLAS's line, then one line (and one --json row) per config.
void try_problem(TryRun& run, const std::string& text, const tuner::ProblemSpec& spec) {
  tuner::ProblemBench bench(spec, run.reference, nullptr, std::random_device{}());
  const ProblemLine line = time_cublas(run, text, bench);
  const std::vector<GemmConfig> configs = configs_for(run.o, run.dev, line.p);
  tuner::CandidateRunner runner = run.runner(bench);
  run.compile(runner, runnable(configs, run.dev.limits, line.p));
  for (const GemmConfig& cfg : configs) try_config(run, runner, line, cfg);
}

// A name try can run: 'default' or a config of the sgemm family (whose layouts, validation and
// tolerances its table shows). Error(kInvalidArgument) otherwise, naming the family of a config
// of another registered family.
void check_config_name(const std::string& name) {
  if (name == "default" || parse_config_name(name)) return;
  if (const KernelFamily* family = family_registry().find(name);
      family && family->name() != "sgemm")
    throw Error(Status::kInvalidArgument, "'" + name + "' is a config of kernel family " +
                                              std::string(family->name()) +
                                              "; try runs configs of the sgemm family only");
  throw Error(Status::kInvalidArgument,
              "'" + name + "' is not a config name (see gemmtune space --list)");
}

// The shapes, with every option and name checked before the GPU is touched: a typo fails at
// once, not after the problems before it have run.
std::vector<tuner::Shape> checked_shapes(const TryOptions& o) {
  std::vector<tuner::Shape> shapes;
  for (const auto& text : o.shapes) shapes.push_back(tuner::parse_shape(text));
  if (o.batch < 1) throw Error(Status::kInvalidArgument, "--batch must be at least 1");
  for (const auto& name : o.configs) check_config_name(name);
  if (!o.json.empty()) check_writable(o.json);  // before the GPU work, not after it
  return shapes;
}

// Every shape in every layout run; leaves the process at once after a hung kernel.
void try_problems(TryRun& run, const std::vector<tuner::Shape>& shapes) {
  const TryOptions& o = run.o;
  try {
    for (size_t i = 0; i < shapes.size(); ++i) {
      const std::string text = o.shapes[i] + (o.batch > 1 ? " b" + std::to_string(o.batch) : "");
      for (auto [oa, ob] : layouts_to_run(o))
        try_problem(run, text, {oa, ob, shapes[i].m, shapes[i].n, shapes[i].k, o.batch});
    }
  } catch (const tuner::DeviceUnusable& e) {
    if (!e.hung()) throw;
    // Freeing the GPU's memory would wait for the hung kernel forever: leave without it.
    std::fflush(stdout);
    std::fprintf(stderr, "gemmtune try: %s\n", e.what());
    std::_Exit(kExitError);
  }
}

// The compile counts, the --json file and the exit status (1 when a config was wrong or could not
// be run).
void finish(const TryRun& run) {
  const TryOptions& o = run.o;
  if (run.cache) {
    std::printf("\n%d compiled, %d from the binary cache of %s\n", run.compiles, run.from_cache,
                run.cache_path.c_str());
  }
  if (!o.json.empty()) {
    write_replacing(o.json, [&](std::ostream& out) {
      out << nlohmann::ordered_json{{"gpu", run.dev.name},
                                    {"sm_count", run.dev.sm_count},
                                    {"results", run.rows}}
                 .dump(2)
          << "\n";
    });
  }
  if (run.wrong > 0) {
    std::fprintf(stderr, "gemmtune try: %d of %d configs gave wrong results (marked WRONG above)\n",
                 run.wrong, run.timed);
    exit_status() = kExitError;
  }
  if (run.failed > 0) {
    std::fprintf(stderr,
                 "gemmtune try: %d configs could not be run (marked 'launch failed' above)\n",
                 run.failed);
    exit_status() = kExitError;
  }
}

void run_try(const TryOptions& o) {
  const std::vector<tuner::Shape> shapes = checked_shapes(o);
  DeviceInfo dev = device_info(o.device);
  GEMMTUNE_CUDA(cudaSetDevice(o.device));
  std::printf("%s, %d SMs, FP32 peak %.1f TFLOP/s\n", dev.name.c_str(), dev.sm_count,
              dev.fp32_peak_tflops());
  TryRun run(o, dev);
  try_problems(run, shapes);
  finish(run);
}
}  // namespace

static void add_try_command(CLI::App& app) {
  auto o = std::make_shared<TryOptions>();
  auto* cmd = app.add_subcommand(
      "try", "Compile, verify and time named configs next to cuBLAS (hand experiments)");
  cmd->add_option("configs", o->configs,
                  "Config names (e.g. sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8) or 'default'")
      ->required();
  // One value per --shape, so that config names may follow it.
  cmd->add_option("--shape", o->shapes, "Problem MxNxK (repeatable: --shape A --shape B)")
      ->capture_default_str()
      ->allow_extra_args(false);
  cmd->add_option("--batch", o->batch,
                  "Batch count of every --shape problem (strided, packed matrices)")
      ->capture_default_str();
  cmd->add_option(
      "--layout", o->layout,
      "nn, nt, tn, tt or all: runs every name in these layouts (default: each name in its own)");
  add_old_spelling(
      cmd, cmd->add_option("--gpu", o->device, "CUDA device ordinal")->capture_default_str(),
      "--device", o->device);
  cmd->add_option(
      "--db", o->db,
      db_option_help(
          "Tuning database whose binary cache to use and add to, where the file exists"));
  cmd->add_option("-j,--jobs", o->jobs, "Parallel compilations (0: one per core)")
      ->capture_default_str()
      ->check(CLI::Range(0, 256));
  auto* out = cmd->add_option(
      "--out", o->json,
      "Also write every row to this JSON file: problem, config, status (ok, wrong_result, "
      "invalid, cannot_run, compile_failed, launch_failed), times, speedup, errors, registers");
  add_old_spelling(cmd, out, "--json", o->json);
  cmd->callback([o] { run_try(*o); });
}

static const Registration kRegistration("try", add_try_command);

}  // namespace gemmtune::cli
