#include "gemmtune/tuner/sweep.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <utility>

#include "gemmtune/compiler.hpp"
#include "gemmtune/db/database.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/kernel.hpp"
#include "gemmtune/sgemm/tuning/calibration.hpp"
#include "gemmtune/sgemm/tuning/candidates.hpp"
#include "gemmtune/sgemm/tuning/space.hpp"
#include "gemmtune/tuner/device_limits.hpp"
#include "gemmtune/tuner/progress.hpp"
#include "gemmtune/tuner/resume.hpp"

namespace gemmtune::tuner {

static std::vector<Precision> tuned_classes(Precision up_to) {
  std::vector<Precision> out;
  for (Precision p : {Precision::ieee, Precision::fp32, Precision::tf32})
    if (p <= up_to) out.push_back(p);
  return out;
}

SearchSpaces::SearchSpaces(const SweepOptions& options, const DeviceLimits& limits)
    : reduced_(options.space == SpaceKind::reduced && options.only_configs.empty()),
      limits_(limits) {}

const std::vector<GemmConfig>& SearchSpaces::of(Op op_a, Op op_b) {
  auto it = spaces_.find({op_a, op_b});
  if (it == spaces_.end()) {
    std::function<bool(const GemmConfig&)> keep;
    if (reduced_) keep = in_reduced_space;
    it = spaces_.emplace(std::make_pair(op_a, op_b), valid_space(limits_, op_a, op_b, keep)).first;
  }
  return it->second;
}

std::vector<GemmConfig> sweep_candidates(const SweepOptions& o, const DeviceInfo& device,
                                         const std::vector<GemmConfig>& valid,
                                         const Problem& problem) {
  std::vector<GemmConfig> out;
  // Named configs as given, and as this problem runs them: fitted to its data (an odd leading
  // dimension narrows the name's access widths, `_g1x1x1`), so that `gemmtune space --list`'s
  // names select their candidates.
  std::set<std::string> names(o.only_configs.begin(), o.only_configs.end());
  for (const std::string& name : o.only_configs)
    if (const auto c = parse_config_name(name)) names.insert(config_name(c->fitted_to(problem)));
  // The twins candidate_configs() adds to valid configs (cluster_splits, say) may need what this
  // device lacks: each candidate is checked against it.
  for (Precision cls : tuned_classes(o.precision)) {
    if (o.only_configs.empty()) {
      for (auto& c : candidate_configs(valid, problem, device.sm_count, o.space, cls))
        if (!c.validate(device.limits)) out.push_back(std::move(c));
      continue;
    }
    for (auto& c : candidate_configs(valid, problem, device.sm_count, SpaceKind::full, cls))
      if (names.count(config_name(c)) && !c.validate(device.limits)) out.push_back(std::move(c));
  }
  return out;
}

namespace {

std::string hostname() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "";
  return buf;
}

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A CUDA stream owned by a worker.
struct Stream {
  cudaStream_t s = nullptr;
  Stream() { GEMMTUNE_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~Stream() { GEMMTUNE_CUDA_NOTHROW(cudaStreamDestroy(s)); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};

// Shared by the workers of one GPU model: the next problem to take.
struct ProblemQueue {
  std::atomic<std::size_t> next{0};
};

// Everything the workers share: the report, under a lock.
struct Shared {
  std::mutex mutex;
  SweepReport report;
};

// The summary row of a problem from the database: the best over all sweeps of the GPU model, of
// precision class `cls` (`label` names the problem and, when several are tuned, the class).
SummaryRow summary_row(const db::Database& db, db::Id gpu_id, const DeviceInfo& dev,
                       const ProblemSpec& spec, std::optional<double> cublas_ms,
                       const std::string& note, Precision cls = Precision::ieee,
                       const std::string& label = "") {
  SummaryRow row;
  row.gpu = dev.name;
  row.problem = label.empty() ? problem_label(spec) : label;
  row.note = note;
  row.cublas_ms = cublas_ms;
  std::optional<db::BestRow> best = db.best_for(gpu_id, to_db(spec.problem()));
  if (best && !(parse_config_name(best->config.name) &&
                parse_config_name(best->config.name)->precision() == cls)) {
    // The overall best is of another class: this class's fastest ok result instead.
    best.reset();
    for (const auto& r : db.results_for(to_db(spec.problem()), gpu_id)) {
      auto c = parse_config_name(r.config.name);
      if (r.result.status != db::Status::ok || !c || c->precision() != cls || !r.result.median_ms)
        continue;
      best.emplace();
      best->config = r.config;
      best->median_ms = *r.result.median_ms;
      break;  // results_for lists ok results fastest first
    }
  }
  if (best) {
    row.config = best->config.name;
    row.ms = best->median_ms;
    row.tflops = spec.problem().flops() / best->median_ms / 1e9;
    double peak = dev.fp32_peak_tflops();
    if (peak > 0) row.peak_percent = 100.0 * *row.tflops / peak;
    if (!row.cublas_ms) row.cublas_ms = best->cublas_median_ms;
  }
  return row;
}

// What the precision classes of one problem share in a sweep, made when first needed: its bench
// (data and float64 references, so that every config of the problem is verified on the same
// inputs) and cuBLAS's time on it.
struct ProblemSetup {
  std::uint64_t seed = 0;
  std::unique_ptr<ProblemBench> bench;
  std::optional<db::Baseline> cublas;
};

// A worker's GPU tools, made once per sweep and lent to each problem.
struct Tools {
  SearchSpaces& spaces;  // built once per worker
  CompilePool& pool;
  Stream& stream;
  GpuTimer& timer;
  CublasSgemm& cublas;
  ReferenceGemm& reference;
};

class DeviceWorker {
 public:
  DeviceWorker(const SweepOptions& o, const KernelFamily* family, int device, ProblemQueue& queue,
               Shared& shared, unsigned compile_threads, bool plain_progress)
      : o_(o),
        family_(family),
        device_(device),
        queue_(queue),
        shared_(shared),
        compile_threads_(compile_threads),
        progress_(o.out ? *o.out : std::cout, o.is_tty && !plain_progress) {
    prefix_ = o.devices.size() > 1 ? "[gpu " + std::to_string(device) + "] " : "";
  }

  void run() {
    try {
      run_device();
    } catch (const DeviceUnusable& e) {
      progress_.note(prefix_ + "GPU " + std::to_string(device_) + " stopped: " + e.what());
      std::lock_guard lock(shared_.mutex);
      shared_.report.errors.push_back("GPU " + std::to_string(device_) + ": " + e.what());
      if (e.hung()) shared_.report.device_hung = true;
    } catch (const std::exception& e) {
      progress_.note(prefix_ + "GPU " + std::to_string(device_) + " failed: " + e.what());
      std::lock_guard lock(shared_.mutex);
      shared_.report.errors.push_back("GPU " + std::to_string(device_) + ": " + e.what());
    }
  }

 private:
  bool stop_requested() const { return o_.stop && o_.stop->load(); }

  void run_device() {
    GEMMTUNE_CUDA(cudaSetDevice(device_));
    dev_ = device_info(device_);
    arch_ = dev_.limits.arch();
    db::Database db(o_.db_path, db::OpenMode::read_write, kernel_families());
    gpu_id_ = db.upsert_gpu_model(to_db(dev_));
    CudaVersions v = cuda_versions();
    db::SweepInfo info;
    info.gpu_model_id = gpu_id_;
    info.driver_version = format_cuda_version(v.driver);
    info.runtime_version = format_cuda_version(v.runtime);
    info.nvrtc_version = format_cuda_version(v.nvrtc);
    info.gemmtune_version = o_.gemmtune_version;
    info.command_line = o_.command_line;
    info.strategy = strategy_name(o_.strategy.kind);
    info.template_hash = template_hash();
    info.hostname = hostname();
    sweep_id_ = db.begin_sweep(info);
    progress_.note(prefix_ + "GPU " + std::to_string(device_) + ": " + dev_.name + " (" + arch_ +
                   ", " + std::to_string(dev_.sm_count) + " SMs), sweep " +
                   std::to_string(sweep_id_) +
                   (family_ ? ", family " + std::string(family_->name()) : std::string()) +
                   ", strategy " + strategy_name(o_.strategy.kind) + ", database " + o_.db_path);
    // Resources are released in reverse order; after a hang they are leaked on purpose, since
    // freeing them would wait for the hung kernel forever.
    auto stream = std::make_unique<Stream>();
    auto timer = std::make_unique<GpuTimer>(stream->s);
    auto cublas = std::make_unique<CublasSgemm>();
    auto reference = std::make_unique<ReferenceGemm>(arch_);
    // Another family's configs are compiled by the runner, on this thread (tune_family).
    CompilePool pool(arch_, o_.db_path, family_ ? 1u : compile_threads_);
    SearchSpaces spaces(o_, dev_.limits);
    const Tools tools{spaces, pool, *stream, *timer, *cublas, *reference};
    try {
      while (!stop_requested()) {
        std::size_t i = queue_.next++;
        if (i >= o_.problems.size()) break;
        tune(db, i, tools);
      }
    } catch (const DeviceUnusable& e) {
      // The device's error is the one to report; failing to mark the sweep finished only adds to it.
      try {
        db.finish_sweep(sweep_id_);
      } catch (const std::exception& finish) {
        std::fprintf(stderr, "gemmtune: warning: could not mark sweep %lld finished: %s\n",
                     static_cast<long long>(sweep_id_), finish.what());
      }
      if (e.hung()) {
        (void)stream.release();
        (void)timer.release();
        (void)cublas.release();
        (void)reference.release();
      }
      throw;
    }
    db.finish_sweep(sweep_id_);
    pool.wait_idle();  // what it compiles after the last problem counts too
    std::lock_guard lock(shared_.mutex);
    shared_.report.compile_pool += pool.stats();
  }

  // Tunes problem `index`: its candidates less those measured before, cuBLAS as the baseline,
  // the strategy over the rest, and the problem's line and summary row.
  // Each precision class tuned (SweepOptions::precision) is searched on its own, so that the
  // FP32 FMA kernels are tuned as well as without the tensor-core ones beside them.
  void tune(db::Database& db, std::size_t index, const Tools& tools) {
    if (family_) return tune_family(db, index, tools);
    const ProblemSpec& spec = o_.problems[index];
    const Problem p = spec.problem();
    const std::vector<GemmConfig> everything =
        sweep_candidates(o_, dev_, tools.spaces.of(p.op_a, p.op_b), p);
    ProblemSetup setup;
    setup.seed = o_.seed ? o_.seed + index : std::random_device{}();
    for (Precision cls : tuned_classes(o_.precision)) {
      std::vector<GemmConfig> all;
      for (const auto& c : everything)
        if (c.precision() == cls) all.push_back(c);
      if (cls == Precision::ieee || !all.empty()) tune_class(db, index, tools, all, cls, setup);
    }
    if (o_.precision >= Precision::fp32 && !stop_requested())
      verify_fastest_fma(db, index, tools, setup);
  }

  // Tunes problem `index` of another family's sweep (family_sweep.hpp): its candidate_configs
  // less those measured before, each measured by name (compiled on this thread, verified at its
  // precision class's tolerance, timed, recorded) by the exhaustive strategy, cuBLAS as the
  // baseline, and the problem's line and summary row. A problem the family has no candidate for
  // is reported and skipped.
  void tune_family(db::Database& db, std::size_t index, const Tools& tools) {
    const ProblemSpec& spec = o_.problems[index];
    const Problem p = spec.problem();
    const std::vector<std::string> all = family_candidates(o_, *family_, dev_.limits, p);
    const FamilyResumeState rs = load_family_resume_state(db, gpu_id_, p, all, o_.force);
    progress_.begin_problem(index + 1, o_.problems.size(), problem_label(spec), all.size(),
                            prefix_);
    if (all.empty()) {
      const std::string why = "family " + std::string(family_->name()) + " has no candidate";
      progress_.end_problem(why + " for this problem: skipped");
      add_row(family_summary_row(db, gpu_id_, dev_, *family_, spec, std::nullopt, why));
      return;
    }
    if (rs.fresh() == 0) {
      progress_.end_problem("nothing new to measure (" +
                            std::to_string(all.size() - rs.failed_before) + " ok and " +
                            std::to_string(rs.failed_before) +
                            " failed candidates measured before; --force re-measures)");
      add_row(
          family_summary_row(db, gpu_id_, dev_, *family_, spec, std::nullopt, "measured before"));
      return;
    }
    const double setup_started = now_s();
    ProblemSetup setup;
    setup.seed = o_.seed ? o_.seed + index : std::random_device{}();
    const db::Id problem_id = db.upsert_problem(to_db(p));
    ProblemBench& bench = bench_of(index, tools, setup);
    const db::Baseline base = record_cublas(db, problem_id, bench, tools);
    SweepTimes times;
    times.setup_s = now_s() - setup_started;
    CandidateRunner runner({&db, sweep_id_, problem_id, arch_}, dev_, bench, tools.pool,
                           tools.timer, o_.runner);
    StrategyOptions so = o_.strategy;
    if (!so.seed) so.seed = setup.seed;
    StrategyResult result;
    try {
      result = measure_family_candidates(runner, rs, so, p, progress_,
                                         [this] { return stop_requested(); });
    } catch (const DeviceUnusable&) {
      times += runner.times();
      add_measurements(0, times);
      abandon(setup.bench, tools);
      throw;
    }
    times += runner.times();
    add_measurements(result.measurements, times);
    SummaryRow row = family_summary_row(db, gpu_id_, dev_, *family_, spec, base.median_ms,
                                        family_search_note(result));
    row.compiles = times.compiles;
    row.compile_wait_s = times.compile_wait_s;
    progress_.end_problem(outcome_line(row, result.new_candidates, rs.fresh(), base.tflops,
                                       family_search_note(result)));
    add_row(row);
  }

  // The problem's bench, made on first use.
  ProblemBench& bench_of(std::size_t index, const Tools& tools, ProblemSetup& setup) {
    if (!setup.bench)
      setup.bench = std::make_unique<ProblemBench>(o_.problems[index], tools.reference,
                                                   tools.stream.s, setup.seed);
    return *setup.bench;
  }

  void tune_class(db::Database& db, std::size_t index, const Tools& tools,
                  const std::vector<GemmConfig>& all, Precision cls, ProblemSetup& setup) {
    const ProblemSpec& spec = o_.problems[index];
    const Problem p = spec.problem();
    ResumeState rs = load_resume_state(db, gpu_id_, p, all, o_.force);
    const std::string label =
        problem_label(spec) +
        (o_.precision == Precision::ieee ? "" : std::string(" [") + precision_name(cls) + "]");
    progress_.begin_problem(index + 1, o_.problems.size(), label, all.size(), prefix_);
    if (rs.fresh() == 0) {
      report_measured_before(db, spec, all.size(), rs, cls, label);
      return;
    }
    const double setup_started = now_s();
    const db::Id problem_id = db.upsert_problem(to_db(p));
    ProblemBench& bench = bench_of(index, tools, setup);
    if (!setup.cublas) setup.cublas = record_cublas(db, problem_id, bench, tools);
    std::optional<ModelRanking> ranking;
    if (o_.strategy.kind == StrategyKind::model) ranking = rank_by_model(db, p, rs);
    SweepTimes times;
    times.setup_s = now_s() - setup_started;
    const StrategyResult result =
        search(db, problem_id, rs, setup.bench, tools, setup.seed, ranking, times);
    add_measurements(result.measurements, times);
    report_tuned(db, spec, rs, result, *setup.cublas, ranking, cls, label, times);
  }

  // The fp32 policy holds a 3xTF32 config to the errors of the problem's fastest FP32 FMA config,
  // the one the ieee policy runs, on both verification inputs (fp32_qualified_configs). So that
  // config, and only it, needs a wide-range error: it is verified on the wide-range inputs once
  // the classes are tuned, whichever sweep measured it, and the error goes into its result. One
  // more kernel run per problem, where checking every FMA candidate would add one to each, and
  // none once it has one. A faster FMA config found by a later sweep gets its own the same way.
  void verify_fastest_fma(db::Database& db, std::size_t index, const Tools& tools,
                          ProblemSetup& setup) {
    const ProblemSpec& spec = o_.problems[index];
    const db::ProblemKey key = to_db(spec.problem());
    std::optional<db::ResultRow> fastest;
    std::optional<GemmConfig> config;
    for (auto& row : db.results_for(key, gpu_id_)) {  // ok results first, fastest first
      config = parse_config_name(row.config.name);
      if (row.result.status == db::Status::ok && config && config->precision() == Precision::ieee) {
        fastest = std::move(row);
        break;
      }
    }
    if (!fastest || fastest->result.wide_error) return;
    CandidateRunner runner({&db, sweep_id_, db.upsert_problem(key), arch_}, dev_,
                           bench_of(index, tools, setup), tools.pool, tools.timer, o_.runner);
    std::string why_not;
    std::optional<double> error;
    try {
      error = runner.wide_range_error(*config, why_not);
    } catch (const DeviceUnusable&) {
      add_measurements(0, runner.times());
      abandon(setup.bench, tools);
      throw;
    }
    add_measurements(0, runner.times());
    tools.pool.clear();
    if (error)
      db.record_wide_error(fastest->id, *error);
    else
      progress_.note(
          prefix_ + problem_label(spec) + ": its fastest FP32 FMA config " + fastest->config.name +
          " could not be verified on wide-range inputs (" + why_not +
          "); until a sweep does, the fp32 policy runs no 3xTF32 config tuned on this problem");
  }

  // After a hung kernel or a lost context: the compile queue is dropped and the bench leaked
  // (freeing its buffers would wait for a hung kernel forever).
  static void abandon(std::unique_ptr<ProblemBench>& bench, const Tools& tools) {
    tools.pool.clear();
    bench->abandon();
    (void)bench.release();
  }

  // The model strategy's order: the cost model, calibrated with the GPU model's tuned problems.
  ModelRanking rank_by_model(const db::Database& db, const Problem& p, const ResumeState& rs) {
    return rank_candidates(rs.candidates, p, GpuCeilings::of(dev_, query_device_report(dev_.index)),
                           tuned_neighbours(db, gpu_id_));
  }

  // A problem with nothing new to measure: its best from earlier sweeps.
  void report_measured_before(const db::Database& db, const ProblemSpec& spec,
                              std::size_t candidates, const ResumeState& rs, Precision cls,
                              const std::string& label) {
    progress_.end_problem("nothing new to measure (" +
                          std::to_string(candidates - rs.failed_before) + " ok and " +
                          std::to_string(rs.failed_before) +
                          " failed candidates measured before; --force re-measures)");
    add_row(summary_row(db, gpu_id_, dev_, spec, std::nullopt, "measured before", cls, label));
  }

  // cuBLAS on the same data, recorded as the problem's baseline in this sweep.
  db::Baseline record_cublas(db::Database& db, db::Id problem_id, const ProblemBench& bench,
                             const Tools& tools) {
    Timing tc = bench.time_cublas(tools.cublas, tools.timer);
    db::Baseline base;
    base.problem_id = problem_id;
    base.library = "cublas";
    base.median_ms = tc.median_ms, base.min_ms = tc.min_ms, base.max_ms = tc.max_ms;
    if (tc.median_ms > 0) base.tflops = bench.problem().flops() / tc.median_ms / 1e9;
    db.record_baseline(sweep_id_, base);
    return base;
  }

  // Runs the strategy over the candidates; the runner compiles (through the pool), verifies,
  // times and records each one it is asked for. After a hung kernel the bench is leaked:
  // freeing its buffers would wait for the kernel forever.
  StrategyResult search(db::Database& db, db::Id problem_id, const ResumeState& rs,
                        std::unique_ptr<ProblemBench>& bench, const Tools& tools,
                        std::uint64_t seed, const std::optional<ModelRanking>& ranking,
                        SweepTimes& times) {
    CandidateRunner runner({&db, sweep_id_, problem_id, arch_}, dev_, *bench, tools.pool,
                           tools.timer, o_.runner);
    StrategyOptions so = strategy_options(tools, ranking);
    if (!so.seed) so.seed = seed;
    StrategyHooks hooks = strategy_hooks(runner, rs, tools.pool, bench->problem());
    // Once the pool has this search's first plan, its idle threads may start on the next problem.
    hooks.plan = [this, &db, &tools, plan = std::move(hooks.plan),
                  first = true](const std::vector<std::size_t>& order) mutable {
      plan(order);
      if (std::exchange(first, false)) compile_next_ahead(db, tools);
    };
    StrategyResult result;
    try {
      result = run_strategy(rs.candidates.size(), rs.known, so, hooks);
    } catch (const DeviceUnusable&) {
      times += runner.times();
      abandon(bench, tools);
      throw;
    }
    times += runner.times();
    tools.pool.clear();
    return result;
  }

  // The strategy's options for a problem, as o_ sets them and `ranking` orders its candidates.
  StrategyOptions strategy_options(const Tools& tools,
                                   const std::optional<ModelRanking>& ranking) const {
    StrategyOptions so = o_.strategy;
    // The first round of compiles runs on every compile thread at once: on a cold binary cache a
    // few seconds' budget went by before any was done (1531^3 on an H200 at 5 s: 2 of the 16
    // measured), so the budget lets them all be measured.
    so.min_measurements = std::max<std::size_t>(so.min_measurements, tools.pool.threads());
    if (ranking) use_ranking(so, *ranking);
    return so;
  }

  // Fewer compile threads have none to spare: the next problem's compiles slow the current
  // one's. The quick preset cold on an H200 (16 threads, 2026-12-03): 19.9 and 20.4 s without,
  // 18.5 s with; rehearsed on 2 cores with 2 threads: compile wait 48.6 s without, 67.8 s with
  // (docs/PERFORMANCE.md, 2026-12-03, "Matrix-vector picks by the first round's fill; the next
  // problem's first round compiled ahead").
  static constexpr unsigned kCompileAheadThreads = 8;

  // Hands the next problem's first round to the pool's idle threads (enqueue_next), once per
  // problem, so that it does not start by waiting for NVRTC (on an H200 on 2026-12-03 a cold
  // sweep spent 87-91% of its time waiting for compiles). Another GPU's worker may take that
  // problem first, and the model's calibration (tuned_neighbours) gains the current problem's
  // results before the next problem ranks its own: what then differs was compiled in vain,
  // nothing worse.
  void compile_next_ahead(const db::Database& db, const Tools& tools) {
    const std::size_t next = queue_.next;
    if (o_.strategy.kind != StrategyKind::model || next >= o_.problems.size() ||
        next == compiled_ahead_for_ || tools.pool.threads() < kCompileAheadThreads)
      return;
    compiled_ahead_for_ = next;
    // Only an optimisation: a failure here (the next problem's ranking, say) must not end the
    // problem being tuned; the next problem meets it again, and reports it, when it is tuned.
    try {
      const std::vector<GemmConfig> configs = first_round(db, next, tools);
      if (!configs.empty()) tools.pool.enqueue_next(configs);
    } catch (const std::exception&) {
    }
  }

  // What the search of problem `index` measures first (first_measured), set up as tune(),
  // tune_class() and search() do for its first precision class; none when nothing is fresh.
  std::vector<GemmConfig> first_round(const db::Database& db, std::size_t index,
                                      const Tools& tools) {
    const Problem p = o_.problems[index].problem();
    const Precision cls = tuned_classes(o_.precision).front();
    std::vector<GemmConfig> all;
    for (auto& c : sweep_candidates(o_, dev_, tools.spaces.of(p.op_a, p.op_b), p))
      if (c.precision() == cls) all.push_back(std::move(c));
    const ResumeState rs = load_resume_state(db, gpu_id_, p, all, o_.force);
    if (rs.fresh() == 0) return {};
    const StrategyOptions so = strategy_options(tools, rank_by_model(db, p, rs));
    std::vector<GemmConfig> configs;
    for (std::size_t i : first_measured(rs.candidates.size(), rs.known, so))
      configs.push_back(rs.candidates[i]);
    return configs;
  }

  // How the strategy acts on this worker: measures through `runner`, has the pool compile ahead
  // in its order, keeps the problem's clock and shows progress.
  StrategyHooks strategy_hooks(CandidateRunner& runner, const ResumeState& rs, CompilePool& pool,
                               const Problem& p) {
    const double started = now_s();
    const double flops = p.flops();
    StrategyHooks hooks;
    hooks.measure = [&runner, &rs](std::size_t i, Effort e) {
      return runner.measure(rs.candidates[i], e);
    };
    hooks.elapsed_s = [started] { return now_s() - started; };
    hooks.plan = [&rs, &pool](const std::vector<std::size_t>& order) {
      std::vector<GemmConfig> configs;
      for (std::size_t i : order) configs.push_back(rs.candidates[i]);
      pool.enqueue(configs);
    };
    hooks.stop_requested = [this] { return stop_requested(); };
    hooks.progress = [this, flops](std::size_t done, std::size_t total,
                                   std::optional<double> best_ms) {
      std::optional<double> tflops;
      if (best_ms && *best_ms > 0) tflops = flops / *best_ms / 1e9;
      progress_.update(done, total, tflops);
    };
    return hooks;
  }

  void add_measurements(std::size_t count, const SweepTimes& times) {
    std::lock_guard lock(shared_.mutex);
    shared_.report.measurements += count;
    shared_.report.times += times;
  }

  // The problem's line and summary row: its best over all sweeps of the GPU model, and cuBLAS.
  void report_tuned(const db::Database& db, const ProblemSpec& spec, const ResumeState& rs,
                    const StrategyResult& result, const db::Baseline& base,
                    const std::optional<ModelRanking>& ranking, Precision cls,
                    const std::string& label, const SweepTimes& times) {
    // Why the search ended where it did not measure every candidate.
    std::string note = result.stopped            ? "interrupted"
                       : result.budget_exhausted ? "budget spent"
                       : result.settled          ? "settled"
                                                 : "";
    // How far down the model's ranking the winner of this run was: how much the model helped.
    if (ranking && result.best) {
      char predicted[64];
      std::snprintf(predicted, sizeof predicted, ", predicted %.4g ms against %.4g measured",
                    ranking->predicted_ms[*result.best], result.best_ms.value_or(0));
      const std::string rank = "model rank " + std::to_string(ranking->rank_of(*result.best) + 1) +
                               " of " + std::to_string(ranking->order.size()) + predicted;
      note = note.empty() ? rank : note + ", " + rank;
    }
    SummaryRow row = summary_row(db, gpu_id_, dev_, spec, base.median_ms, note, cls, label);
    row.compiles = times.compiles;
    row.compile_wait_s = times.compile_wait_s;
    progress_.end_problem(outcome_line(row, result.new_candidates, rs.fresh(), base.tflops, note));
    add_row(row);
  }

  void add_row(const SummaryRow& row) {
    std::lock_guard lock(shared_.mutex);
    shared_.report.rows.push_back(row);
  }

  const SweepOptions& o_;
  const KernelFamily* family_;  // another family than sgemm (sweep_family), or nullptr
  int device_;
  ProblemQueue& queue_;
  Shared& shared_;
  unsigned compile_threads_;
  ProgressReporter progress_;
  std::string prefix_, arch_;
  DeviceInfo dev_;
  db::Id gpu_id_ = 0, sweep_id_ = 0;
  std::size_t compiled_ahead_for_ = std::size_t(-1);  // the problem compile_next_ahead served
};

// The GPU model key of a device: workers of one model share the problem list.
std::string model_key(const DeviceInfo& d) {
  return d.name + "/" + std::to_string(d.limits.cc_major) + "." +
         std::to_string(d.limits.cc_minor) + "/" + std::to_string(d.sm_count);
}

}  // namespace

SweepReport run_sweep(const SweepOptions& o) {
  const KernelFamily* family = sweep_family(o);  // a bad option before any GPU work
  int count = device_count();                    // throws kNoDevice with the reason
  std::vector<int> devices = o.devices.empty() ? std::vector<int>{0} : o.devices;
  std::map<std::string, std::unique_ptr<ProblemQueue>> queues;
  std::vector<ProblemQueue*> queue_of;
  for (int d : devices) {
    if (d < 0 || d >= count)
      throw Error(Status::kNoDevice, "no CUDA device " + std::to_string(d) + ": this machine has " +
                                         std::to_string(count) + " (see gemmtune info)");
    auto& q = queues[model_key(device_info(d))];
    if (!q) q = std::make_unique<ProblemQueue>();
    queue_of.push_back(q.get());
  }
  unsigned cores =
      o.compile_threads ? o.compile_threads : std::max(1u, std::thread::hardware_concurrency());
  unsigned per_device = std::max(1u, cores / unsigned(devices.size()));
  Shared shared;
  std::vector<std::unique_ptr<DeviceWorker>> workers;
  for (std::size_t i = 0; i < devices.size(); ++i)
    workers.push_back(std::make_unique<DeviceWorker>(o, family, devices[i], *queue_of[i], shared,
                                                     per_device, devices.size() > 1));
  if (workers.size() == 1) {
    workers[0]->run();
  } else {
    std::vector<std::thread> threads;
    for (auto& w : workers) threads.emplace_back([&w] { w->run(); });
    for (auto& t : threads) t.join();
  }
  shared.report.interrupted = o.stop && o.stop->load();
  return shared.report;
}

std::vector<PlanRow> plan_sweep(const SweepOptions& o, const DeviceInfo& device) {
  std::unique_ptr<db::Database> db;
  std::optional<db::Id> gpu_id;
  if (!o.db_path.empty() && std::filesystem::exists(o.db_path)) {
    db = std::make_unique<db::Database>(o.db_path, db::OpenMode::read_only, kernel_families());
    gpu_id = db->find_gpu_model(to_db(device));
  }
  std::vector<PlanRow> rows;
  if (const KernelFamily* family = sweep_family(o)) {
    for (const auto& spec : o.problems) {
      const Problem p = spec.problem();
      const auto all = family_candidates(o, *family, device.limits, p);
      PlanRow row{spec, all.size(), 0};
      if (gpu_id)
        row.measured = all.size() - load_family_resume_state(*db, *gpu_id, p, all, o.force).fresh();
      rows.push_back(row);
    }
    return rows;
  }
  SearchSpaces spaces(o, device.limits);
  for (const auto& spec : o.problems) {
    Problem p = spec.problem();
    auto all = sweep_candidates(o, device, spaces.of(p.op_a, p.op_b), p);
    PlanRow row{spec, all.size(), 0};
    if (gpu_id) {
      ResumeState rs = load_resume_state(*db, *gpu_id, p, all, o.force);
      row.measured = all.size() - rs.fresh();
    }
    rows.push_back(row);
  }
  return rows;
}

}  // namespace gemmtune::tuner
