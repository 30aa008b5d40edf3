// `gemmtune try CONFIG... --shape MxNxK [--batch N]`: compiles the named configs, checks each
// against the float64 reference and times it next to cuBLAS on the same buffers. For hand
// experiments: a result above the sweep's verification tolerance is marked WRONG and fails the
// run (status 1); --json writes every row for scripts (two builds compared, say). A problem's
// configs compile on every core before its timings, through the tuning database's binary cache
// where that file exists (a config tried before, or swept, loads at once; new compiles are
// stored).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>

#include "commands.hpp"
#include "deprecated.hpp"
#include "file_output.hpp"
#include "gemmtune/db/database.hpp"
#include "gemmtune/device_buffer.hpp"
#include "gemmtune/error.hpp"
#include "gemmtune/kernel.hpp"
#include "gemmtune/reference.hpp"
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
    return std::make_unique<db::Database>(path, db::OpenMode::read_write);
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
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  int wrong = 0, timed = 0;
  DeviceInfo dev = device_info(o.device);
  GEMMTUNE_CUDA(cudaSetDevice(o.device));
  std::printf("%s, %d SMs, FP32 peak %.1f TFLOP/s\n", dev.name.c_str(), dev.sm_count,
              dev.fp32_peak_tflops());
  tuner::GpuTimer timer;
  tuner::CublasSgemm cublas;
  // cuBLAS's TF32 math as well where a 1xTF32 config is named: its own baseline.
  bool any_tf32 = false;
  for (const auto& name : o.configs)
    if (auto c = parse_config_name(name)) any_tf32 |= c->precision() == Precision::tf32;
  std::unique_ptr<tuner::CublasSgemm> cublas_tf32 =
      any_tf32 ? std::make_unique<tuner::CublasSgemm>(true) : nullptr;
  ReferenceGemm reference(dev.limits.arch());
  const std::string cache_path = o.db.empty() ? db::default_database_path() : o.db;
  std::unique_ptr<db::Database> store = open_binary_store(cache_path);
  const bool cache = std::filesystem::exists(cache_path);  // read even where it cannot be written
  tuner::CompilePool pool(dev.limits.arch(), cache ? cache_path : "", o.jobs);
  std::map<std::string, std::shared_ptr<tuner::CompiledCandidate>>
      compiled;  // by name, for every shape
  int from_cache = 0, compiles = 0;
  std::mt19937_64 rng(std::random_device{}());
  for (size_t i = 0; i < shapes.size(); ++i) {
    const std::string text = o.shapes[i] + (o.batch > 1 ? " b" + std::to_string(o.batch) : "");
    const tuner::Shape s = shapes[i];
    for (auto [oa, ob] : layouts_to_run(o)) {
      Problem p = Problem::packed(oa, ob, s.m, s.n, s.k, o.batch);
      const size_t matrices = size_t(o.batch);
      DeviceBuffer<float> a(matrices * p.m * p.k), b(matrices * p.k * p.n), c(matrices * p.m * p.n);
      DeviceBuffer<double> r(matrices * p.m * p.n);
      p.a = a.get(), p.b = b.get(), p.c = c.get();
      a.upload(random_floats(a.size(), rng));
      b.upload(random_floats(b.size(), rng));
      reference.run(p, r.get(), nullptr);
      std::vector<double> ref = r.download();
      auto error_of_c = [&] {
        return relative_error(c.download(), p.ldc, p.stride_c, ref, p.m, p.n, p.batch);
      };
      auto tc = timer.time([&](cudaStream_t st) { cublas.run(p, st); });
      double cublas_tflops = p.flops() / tc.median_ms / 1e9;
      std::printf("\n%s %s  cuBLAS %s  %s  rel.err %.1e\n", text.c_str(), p.layout().c_str(),
                  format_time_ms(tc.median_ms).c_str(), format_rate(cublas_tflops).c_str(),
                  error_of_c());
      double tf32_ms = 0;
      if (cublas_tf32) {
        tf32_ms = timer.time([&](cudaStream_t st) { cublas_tf32->run(p, st); }).median_ms;
        std::printf("%*s  cuBLAS TF32 %s  %s  rel.err %.1e\n", int(text.size() + 3), "",
                    format_time_ms(tf32_ms).c_str(), format_rate(p.flops() / tf32_ms / 1e9).c_str(),
                    error_of_c());
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
        rows.push_back(std::move(row));
      };
      // The names' configs for this problem, fitted to its data; those that can run compile ahead.
      std::vector<GemmConfig> configs, to_compile;
      for (const auto& name : o.configs) {
        GemmConfig cfg =
            default_config(dev.limits, p);  // "default": the built-in one for this data
        if (name != "default") {
          cfg = *parse_config_name(name);  // checked above
          // Without --layout each name runs in its own layout only.
          if (o.layout.empty() && (cfg.op_a != oa || cfg.op_b != ob)) continue;
        }  // 'default' runs in every layout run
        cfg.op_a = oa, cfg.op_b = ob;
        configs.push_back(cfg.fitted_to(p));  // the access widths follow from the data
        if (!configs.back().validate(dev.limits) && !configs.back().can_implement(p) &&
            compiled.emplace(config_name(configs.back()), nullptr).second)
          to_compile.push_back(configs.back());
      }
      // All of them before any is timed, so that no compile competes with the launches for a core.
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
      for (const GemmConfig& cfg : configs) {
        if (auto why = cfg.validate(dev.limits)) {
          std::printf("  %-52s invalid: %s\n", config_name(cfg).c_str(), why->c_str());
          add_row(cfg, {{"status", "invalid"}, {"reason", *why}});
          continue;
        }
        if (auto why = cfg.can_implement(p)) {
          std::printf("  %-52s cannot run: %s\n", config_name(cfg).c_str(), why->c_str());
          add_row(cfg, {{"status", "cannot_run"}, {"reason", *why}});
          continue;
        }
        const tuner::CompiledCandidate& cr = *compiled.at(config_name(cfg));
        if (!cr.ok) {
          std::printf("  %-52s compile failed\n%s\n", config_name(cfg).c_str(), cr.log.c_str());
          add_row(cfg,
                  {{"status", "compile_failed"}, {"reason", cr.log.substr(0, cr.log.find('\n'))}});
          continue;
        }
        if (cr.resources.registers < 0)
          std::printf("  (no ptxas resource report for %s; NVRTC log:)\n%s\n",
                      cr.lowered_name.c_str(), cr.log.c_str());
        GemmKernel k(cfg, cr.cubin, cr.lowered_name);
        GEMMTUNE_CUDA(cudaMemset(c.get(), 0xff, c.size() * sizeof(float)));  // poison: NaN
        LaunchWorkspace workspace;
        k.launch(p, nullptr, &workspace);
        GEMMTUNE_CUDA(cudaDeviceSynchronize());
        double err = error_of_c();
        auto t = timer.time([&](cudaStream_t st) { k.launch(p, st, &workspace); });
        double tflops = p.flops() / t.median_ms / 1e9;
        std::printf("  %-52s %9s %13s  %5.3fx cuBLAS  err %.1e  regs %d spill %d",
                    config_name(cfg).c_str(), format_time_ms(t.median_ms).c_str(),
                    format_rate(tflops).c_str(), tflops / cublas_tflops, err,
                    cr.resources.registers, cr.resources.spill_stores);
        if (tf32_ms > 0 && cfg.precision() == Precision::tf32)
          std::printf("  %5.3fx cuBLAS TF32", tf32_ms / t.median_ms);
        const double tolerance = verification_tolerance(cfg, p.k);
        const bool right = err <= tolerance;  // NaN (C left poisoned) is wrong too
        if (!right) std::printf("  WRONG: error above the tolerance %.1e", tolerance);
        std::printf("\n");
        ++timed, wrong += !right;
        add_row(cfg, {{"status", right ? "ok" : "wrong_result"},
                      {"median_ms", t.median_ms},
                      {"tflops", tflops},
                      {"speedup", tc.median_ms / t.median_ms},
                      {"rel_error",
                       std::isfinite(err) ? nlohmann::ordered_json(err) : nlohmann::ordered_json()},
                      {"tolerance", tolerance},
                      {"registers", cr.resources.registers},
                      {"spill_bytes", cr.resources.spill_stores}});
      }
    }
  }
  if (cache) {
    std::printf("\n%d compiled, %d from the binary cache of %s\n", compiles, from_cache,
                cache_path.c_str());
  }
  if (!o.json.empty()) {
    write_replacing(o.json, [&](std::ostream& out) {
      out << nlohmann::ordered_json{{"gpu", dev.name},
                                    {"sm_count", dev.sm_count},
                                    {"results", rows}}
                 .dump(2)
          << "\n";
    });
  }
  if (wrong > 0) {
    std::fprintf(stderr, "gemmtune try: %d of %d configs gave wrong results (marked WRONG above)\n",
                 wrong, timed);
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
      "invalid, cannot_run, compile_failed), times, speedup, error, registers");
  add_old_spelling(cmd, out, "--json", o->json);
  cmd->callback([o] { run_try(*o); });
}

static const Registration kRegistration("try", add_try_command);

}  // namespace gemmtune::cli
