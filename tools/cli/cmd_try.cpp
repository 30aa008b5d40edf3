// `gemmtune try CONFIG... --shape MxNxK [--batch N]`: compiles the named configs, checks each
// against the float64 reference and times it next to cuBLAS on the same buffers. For hand
// experiments: a result above the sweep's verification tolerance is marked WRONG and fails the
// run (status 1); --json writes every row for scripts (two builds compared, say). A problem's
// configs compile on every core before its timings, through the tuning database's binary cache
// where that file exists (a config tried before, or swept, loads at once; new compiles are
// stored). Loading, verifying and timing are the sweep's own (tuner::CandidateRunner::trial), on
// a problem bench like the sweep's: try shows what a sweep would measure.
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
  tuner::CompilePool pool;
  const tuner::RunnerOptions runner_options;  // the sweep's: a hung kernel's deadline
  std::map<std::string, std::shared_ptr<tuner::CompiledCandidate>> compiled;  // by name
  int from_cache = 0, compiles = 0, timed = 0, wrong = 0, failed = 0;
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();

  TryRun(const TryOptions& options, const DeviceInfo& device)
      : o(options),
        dev(device),
        reference(device.limits.arch()),
        cache_path(o.db.empty() ? db::default_database_path() : o.db),
        cache(std::filesystem::exists(cache_path)),
        store(open_binary_store(cache_path)),
        pool(device.limits.arch(), cache ? cache_path : "", o.jobs) {}

  // Compiles `configs` (those not compiled for an earlier problem) on every core, all before
  // any is timed so that no compile competes with the launches for a core, and stores the new
  // ones in the binary cache.
  void compile(const std::vector<GemmConfig>& configs) {
    std::vector<GemmConfig> to_compile;
    for (const GemmConfig& cfg : configs)
      if (compiled.emplace(config_name(cfg), nullptr).second) to_compile.push_back(cfg);
    pool.enqueue(to_compile);
    for (const GemmConfig& cfg : to_compile) {
      std::shared_ptr<tuner::CompiledCandidate>& entry = compiled[config_name(cfg)];
      entry = pool.take(cfg);
      if (entry->from_cache) {
        ++from_cache;
      } else if (entry->ok) {
        ++compiles;
        if (store) {
          try {
            store->put_binary(tuner::to_binary(*entry, dev.limits.arch()));
          } catch (const std::exception& e) {
            std::fprintf(stderr, "gemmtune try: not storing compiles in %s: %s\n",
                         cache_path.c_str(), e.what());
            store.reset();
          }
        }
      }
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

// One problem: cuBLAS's line, then one line (and one --json row) per config.
void try_problem(TryRun& run, const std::string& text, const tuner::ProblemSpec& spec) {
  tuner::ProblemBench bench(spec, run.reference, nullptr, std::random_device{}());
  const Problem& p = bench.problem();
  auto tc = run.timer.time([&](cudaStream_t st) { run.cublas.run(p, st); });
  double cublas_tflops = p.flops() / tc.median_ms / 1e9;
  std::printf("\n%s %s  cuBLAS %s  %s  rel.err %.1e\n", text.c_str(), p.layout().c_str(),
              format_time_ms(tc.median_ms).c_str(), format_rate(cublas_tflops).c_str(),
              bench.error_of_c());
  double tf32_ms = 0;
  if (run.cublas_tf32) {
    tf32_ms = run.timer.time([&](cudaStream_t st) { run.cublas_tf32->run(p, st); }).median_ms;
    std::printf("%*s  cuBLAS TF32 %s  %s  rel.err %.1e\n", int(text.size() + 3), "",
                format_time_ms(tf32_ms).c_str(), format_rate(p.flops() / tf32_ms / 1e9).c_str(),
                bench.error_of_c());
  }
  // One row of --json: the problem, the config's name as run, and `fields`.
  auto add_row = [&](const GemmConfig& cfg, nlohmann::ordered_json fields) {
    nlohmann::ordered_json row = {{"m", p.m},
                                  {"n", p.n},
                                  {"k", p.k},
                                  {"batch", p.batch},
                                  {"layout", p.layout()},
                                  {"config", config_name(cfg)},
                                  {"cublas_ms", tc.median_ms}};
    row.update(fields);
    run.rows.push_back(std::move(row));
  };
  const std::vector<GemmConfig> configs = configs_for(run.o, run.dev, p);
  std::vector<GemmConfig> runnable;
  for (const GemmConfig& cfg : configs)
    if (!cfg.validate(run.dev.limits) && !cfg.can_implement(p)) runnable.push_back(cfg);
  run.compile(runnable);
  tuner::CandidateRunner runner({nullptr, 0, 0, run.dev.limits.arch()}, run.dev, bench, run.pool,
                                run.timer, run.runner_options);
  for (const GemmConfig& cfg : configs) {
    const std::string name = config_name(cfg);
    if (auto why = cfg.validate(run.dev.limits)) {
      std::printf("  %-52s invalid: %s\n", name.c_str(), why->c_str());
      add_row(cfg, {{"status", "invalid"}, {"reason", *why}});
      continue;
    }
    if (auto why = cfg.can_implement(p)) {
      std::printf("  %-52s cannot run: %s\n", name.c_str(), why->c_str());
      add_row(cfg, {{"status", "cannot_run"}, {"reason", *why}});
      continue;
    }
    const tuner::CompiledCandidate& cr = *run.compiled.at(name);
    if (!cr.ok) {
      std::printf("  %-52s compile failed\n%s\n", name.c_str(), cr.log.c_str());
      add_row(cfg, {{"status", "compile_failed"}, {"reason", cr.log.substr(0, cr.log.find('\n'))}});
      continue;
    }
    if (cr.resources.registers < 0)
      std::printf("  (no ptxas resource report for %s; NVRTC log:)\n%s\n", cr.lowered_name.c_str(),
                  cr.log.c_str());
    const tuner::Trial t = runner.trial(cfg, cr, tuner::TimerOptions{});
    const tuner::Verification& v = t.verification;
    if (!t.timing) {  // not loaded, or the verification run failed
      std::printf("  %-52s launch failed: %s\n", name.c_str(), v.error.c_str());
      add_row(cfg, {{"status", "launch_failed"}, {"reason", v.error}});
      ++run.failed;
      continue;
    }
    const double ms = t.timing->median_ms, tflops = p.flops() / ms / 1e9, err = v.rel_error;
    std::printf("  %-52s %9s %13s  %5.3fx cuBLAS  err %.1e  regs %d spill %d", name.c_str(),
                format_time_ms(ms).c_str(), format_rate(tflops).c_str(), tflops / cublas_tflops,
                err, cr.resources.registers, cr.resources.spill_stores);
    if (tf32_ms > 0 && cfg.precision() == Precision::tf32)
      std::printf("  %5.3fx cuBLAS TF32", tf32_ms / ms);
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
                                     {"speedup", tc.median_ms / ms},
                                     {"rel_error", number(err)},
                                     {"tolerance", tolerance},
                                     {"registers", cr.resources.registers},
                                     {"spill_bytes", cr.resources.spill_stores}};
    if (v.wide_rel_error) fields["wide_rel_error"] = number(v.wide_rel_error);
    add_row(cfg, std::move(fields));
  }
}

void run_try(const TryOptions& o) {
  // Shapes and names checked before the GPU is touched: a typo fails at once, not after the
  // problems before it have run.
  std::vector<tuner::Shape> shapes;
  for (const auto& text : o.shapes) shapes.push_back(tuner::parse_shape(text));
  if (o.batch < 1) throw Error(Status::kInvalidArgument, "--batch must be at least 1");
  for (const auto& name : o.configs)
    if (name != "default" && !parse_config_name(name))
      throw Error(Status::kInvalidArgument,
                  "'" + name + "' is not a config name (see gemmtune space --list)");
  if (!o.json.empty()) check_writable(o.json);  // before the GPU work, not after it
  DeviceInfo dev = device_info(o.device);
  GEMMTUNE_CUDA(cudaSetDevice(o.device));
  std::printf("%s, %d SMs, FP32 peak %.1f TFLOP/s\n", dev.name.c_str(), dev.sm_count,
              dev.fp32_peak_tflops());
  TryRun run(o, dev);
  // cuBLAS's TF32 math as well where a 1xTF32 config is named: its own baseline.
  for (const auto& name : o.configs)
    if (auto c = parse_config_name(name);
        c && c->precision() == Precision::tf32 && !run.cublas_tf32)
      run.cublas_tf32 = std::make_unique<tuner::CublasSgemm>(true);
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
  if (run.cache) {
    std::printf("\n%d compiled, %d from the binary cache of %s\n", run.compiles, run.from_cache,
                run.cache_path.c_str());
  }
  if (!o.json.empty()) {
    write_replacing(o.json, [&](std::ostream& out) {
      out << nlohmann::ordered_json{{"gpu", dev.name},
                                    {"sm_count", dev.sm_count},
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
