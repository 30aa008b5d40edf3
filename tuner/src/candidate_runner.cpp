#include "gemmtune/tuner/candidate_runner.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "gemmtune/db_rows.hpp"
#include "gemmtune/family.hpp"

namespace gemmtune::tuner {

SweepTimes& SweepTimes::operator+=(const SweepTimes& o) {
  setup_s += o.setup_s, compile_wait_s += o.compile_wait_s, verify_s += o.verify_s;
  timing_s += o.timing_s, record_s += o.record_s;
  compiles += o.compiles;
  return *this;
}

std::string SweepTimes::describe() const {
  char buf[300];
  std::snprintf(buf, sizeof buf,
                "problem setup %.1f s, compile wait %.1f s (%s), verification %.1f s, timing "
                "%.1f s, recording %.1f s",
                setup_s, compile_wait_s, compiles.describe().c_str(), verify_s, timing_s, record_s);
  return buf;
}

namespace {

// Fault injection for the GPU tests of a killed or interrupted sweep
// (tests/gpu/tuner/sweep_kill_test.cpp): GEMMTUNE_TEST_RAISE_AFTER=N:SIGNAL sends the process
// signal SIGNAL (a number) once it has recorded N results, so that the signal lands part-way
// through the sweep however fast the GPU and the compiler are. Unset: nothing happens.
void raise_after_recorded_result() {
  struct Plan {
    int after = 0, signal = 0;
  };
  static const Plan plan = [] {
    Plan p;
    const char* text = std::getenv("GEMMTUNE_TEST_RAISE_AFTER");
    if (!text || std::sscanf(text, "%d:%d", &p.after, &p.signal) != 2) p.after = 0;
    return p;
  }();
  static std::atomic<int> recorded = 0;
  if (plan.after > 0 && ++recorded == plan.after) kill(getpid(), plan.signal);
}

// Adds the seconds from its construction to its destruction to `total`.
class Stopwatch {
 public:
  explicit Stopwatch(double& total) : total_(total), start_(std::chrono::steady_clock::now()) {}
  ~Stopwatch() {
    total_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }
  Stopwatch(const Stopwatch&) = delete;
  Stopwatch& operator=(const Stopwatch&) = delete;

 private:
  double& total_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace

std::optional<std::string> prune_reason(const KernelResources& r, const GemmConfig& config,
                                        const DeviceLimits& limits) {
  if (r.spill_stores > 0)
    return "spills " + std::to_string(r.spill_stores) + " bytes to local memory (ptxas report)";
  if (r.registers > 0 && r.registers * config.threads() > limits.max_regs_per_block)
    return std::to_string(r.registers) + " registers x " + std::to_string(config.threads()) +
           " threads exceed the block's " + std::to_string(limits.max_regs_per_block);
  return std::nullopt;
}

CandidateRunner::CandidateRunner(RecordTarget target, const DeviceInfo& device, ProblemBench& bench,
                                 CompilePool& pool, const GpuTimer& timer,
                                 const RunnerOptions& options)
    : target_(std::move(target)),
      device_(device),
      bench_(bench),
      pool_(pool),
      timer_(timer),
      options_(options) {}

db::Id CandidateRunner::config_id(const GemmConfig& config) {
  std::string name = config_name(config);
  auto it = config_ids_.find(name);
  if (it != config_ids_.end()) return it->second;
  db::Id id = target_.database->upsert_config(to_db(config));
  config_ids_[name] = id;
  return id;
}

void CandidateRunner::record(const GemmConfig& config, db::Result result) {
  result.problem_id = target_.problem_id;
  result.config_id = config_id(config);
  Stopwatch watch(times_.record_s);
  result.smem_bytes = config.smem_bytes();
  if (auto it = resources_.find(config_name(config)); it != resources_.end()) {
    if (it->second.registers >= 0) result.registers = it->second.registers;
    result.spill_bytes = it->second.spill_stores;
    result.smem_bytes = config.smem_bytes() + it->second.static_smem;
  }
  target_.database->record_results(target_.sweep_id, std::span<const db::Result>(&result, 1));
  raise_after_recorded_result();
}

std::optional<double> CandidateRunner::fail(const GemmConfig& config, db::Status status,
                                            const std::string& error,
                                            std::optional<double> rel_error,
                                            std::optional<double> wide_error) {
  db::Result r;
  r.status = status;
  r.error = error;
  r.rel_error = rel_error;
  r.wide_error = wide_error;
  record(config, std::move(r));
  return std::nullopt;
}

void CandidateRunner::stop_if_context_lost(const GemmConfig& config, const Verification& v,
                                           std::unique_ptr<GemmKernel>& kernel, bool recorded) {
  // Unloading any module would wait for a hung kernel: leak it.
  if (v.outcome == Verification::Outcome::timeout) (void)kernel.release();
  stop_if_context_lost(config_name(config), v, recorded);
}

void CandidateRunner::stop_if_context_lost(const std::string& name, const Verification& v,
                                           bool recorded) {
  using Outcome = Verification::Outcome;
  if (v.outcome == Outcome::timeout) {
    // Unloading any module would wait for the hung kernel: leak them all.
    for (auto& [loaded_name, loaded] : kernels_) (void)loaded.release();
    for (auto& [loaded_name, loaded] : others_) (void)loaded.release();
    throw DeviceUnusable(
        true, name + ": " + v.error +
                  "; a hung kernel leaves the GPU's CUDA context unusable, so the sweep of "
                  "this GPU stops here" +
                  (recorded ? " (resuming skips this config)" : ""));
  }
  if (v.outcome == Outcome::launch_failed) {
    cudaError_t sticky = cudaDeviceSynchronize();
    if (sticky != cudaSuccess)
      throw DeviceUnusable(false, name + ": " + v.error + "; the CUDA context is now unusable (" +
                                      cudaGetErrorString(sticky) +
                                      "), so the sweep of this GPU stops here");
    (void)cudaGetLastError();  // clear a non-sticky launch error
  }
}

std::unique_ptr<GemmKernel> CandidateRunner::load(const GemmConfig& config,
                                                  const CompiledCandidate& compiled,
                                                  std::string& why_not) {
  try {
    return std::make_unique<GemmKernel>(config, compiled.cubin, compiled.lowered_name);
  } catch (const Error& e) {
    why_not = std::string("loading the cubin failed: ") + e.what();
    return nullptr;
  }
}

std::shared_ptr<CompiledCandidate> CandidateRunner::take(const GemmConfig& config) {
  std::shared_ptr<CompiledCandidate> compiled;
  {
    Stopwatch watch(times_.compile_wait_s);
    compiled = pool_.take(config);
  }
  times_.compiles.add(compiled->origin);
  return compiled;
}

void CandidateRunner::store_binary(const db::Binary& binary) {
  if (!target_.database || !store_binaries_) return;
  Stopwatch watch(times_.record_s);
  try {
    target_.database->put_binary(binary);
  } catch (const std::exception& e) {
    if (!options_.binary_store_failed) throw;
    store_binaries_ = false;
    options_.binary_store_failed(e);
  }
}

std::shared_ptr<CompiledCandidate> CandidateRunner::compile(const GemmConfig& config) {
  std::shared_ptr<CompiledCandidate> compiled = take(config);
  if (compiled->ok && compiled->origin == CompileOrigin::compiled)
    store_binary(to_binary(*compiled, target_.arch));
  return compiled;
}

// The loaded kernel of a config verified in this sweep; compiles, prunes, loads and verifies it
// first when needed. nullptr when it failed (the failure is recorded).
const GemmKernel* CandidateRunner::load_verified(const GemmConfig& config) {
  std::string name = config_name(config);
  if (auto it = kernels_.find(name); it != kernels_.end()) return it->second.get();
  std::shared_ptr<CompiledCandidate> compiled = compile(config);
  if (!compiled->ok) {
    fail(config, db::Status::compile_failed,
         compiled->log.empty() ? "NVRTC failed" : compiled->log);
    return nullptr;
  }
  resources_[name] = compiled->resources;
  if (auto why = prune_reason(compiled->resources, config, device_.limits)) {
    fail(config, db::Status::pruned, *why);
    return nullptr;
  }
  Stopwatch verifying(times_.verify_s);
  std::string why_not;
  std::unique_ptr<GemmKernel> kernel = load(config, *compiled, why_not);
  if (!kernel) {
    fail(config, db::Status::launch_failed, why_not);
    return nullptr;
  }
  bool corrupt = options_.corrupt_output && options_.corrupt_output(config);
  Verification v = bench_.verify(*kernel, options_.hang_timeout_s, corrupt);
  using Outcome = Verification::Outcome;
  switch (v.outcome) {
    case Outcome::ok: break;
    case Outcome::wrong_result:
      fail(config, db::Status::wrong_result, v.error, v.rel_error, v.wide_rel_error);
      return nullptr;
    case Outcome::timeout:
      fail(config, db::Status::timeout, v.error);
      stop_if_context_lost(config, v, kernel, true);  // throws
      return nullptr;
    case Outcome::launch_failed:
      fail(config, db::Status::launch_failed, v.error);
      stop_if_context_lost(config, v, kernel, true);
      return nullptr;
  }
  errors_[name] = {v.rel_error, v.wide_rel_error};
  if (kernels_.size() >= 256) kernels_.clear();  // bound the loaded modules; re-timed ones reload
  return (kernels_[name] = std::move(kernel)).get();
}

db::Result CandidateRunner::timed_result(const Timing& t, double rel_error) const {
  db::Result r;
  r.status = db::Status::ok;
  r.median_ms = t.median_ms, r.min_ms = t.min_ms, r.max_ms = t.max_ms;
  r.repetitions = t.reps;
  if (t.median_ms > 0) r.tflops = bench_.problem().flops() / t.median_ms / 1e9;
  r.rel_error = rel_error;
  return r;
}

void CandidateRunner::stop_if_timing_broke_the_context(const std::string& name) {
  cudaError_t sticky = cudaDeviceSynchronize();
  if (sticky != cudaSuccess)
    throw DeviceUnusable(false, name + ": the CUDA context is unusable (" +
                                    cudaGetErrorString(sticky) +
                                    "), so the sweep of this GPU stops here");
}

std::optional<double> CandidateRunner::measure(const GemmConfig& config, Effort effort) {
  const GemmKernel* kernel = load_verified(config);
  if (!kernel) return std::nullopt;
  Timing t;
  try {
    Stopwatch watch(times_.timing_s);
    t = bench_.time(*kernel, timer_, effort);
  } catch (const Error& e) {
    fail(config, db::Status::launch_failed, std::string("timing failed: ") + e.what());
    stop_if_timing_broke_the_context(config_name(config));
    return std::nullopt;
  }
  const Errors& errors = errors_[config_name(config)];
  db::Result r = timed_result(t, errors.random);
  r.wide_error = errors.wide;
  record(config, std::move(r));
  return t.median_ms;
}

std::optional<double> CandidateRunner::measure(const std::string& name, Effort effort) {
  if (const std::optional<GemmConfig> config = parse_config_name(name))
    return measure(*config, effort);
  const KernelFamily& family = family_of(name);
  const LoadedKernel* kernel = load_verified_other(family, name);
  if (!kernel) return std::nullopt;
  Timing t;
  try {
    Stopwatch watch(times_.timing_s);
    t = bench_.time(*kernel, timer_, effort);
  } catch (const Error& e) {
    fail_other(family, name, db::Status::launch_failed, std::string("timing failed: ") + e.what());
    stop_if_timing_broke_the_context(name);
    return std::nullopt;
  }
  record_other(family, name, timed_result(t, errors_[name].random));
  return t.median_ms;
}

const LoadedKernel* CandidateRunner::load_verified_other(const KernelFamily& family,
                                                         const std::string& name) {
  if (auto it = others_.find(name); it != others_.end()) return it->second.get();
  const std::optional<KernelInstance> instance = family.parse(name);
  if (!instance)
    throw Error(Status::kInvalidArgument,
                "'" + name + "' is no config of kernel family " + std::string(family.name()));
  if (auto why = family.can_implement(name, bench_.problem())) {
    fail_other(family, name, db::Status::launch_failed, "cannot run the problem: " + *why);
    return nullptr;
  }
  CompileResult compiled;
  {
    Stopwatch watch(times_.compile_wait_s);
    compiled = compile_instance(family, *instance, target_.arch);
  }
  times_.compiles.add(CompileOrigin::compiled);
  if (!compiled.ok) {
    fail_other(family, name, db::Status::compile_failed,
               compiled.log.empty() ? "NVRTC failed" : compiled.log);
    return nullptr;
  }
  resources_[name] = compiled.resources;
  store_binary(gemmtune::to_binary(name, target_.arch, family.binary_key(*instance, target_.arch),
                                   {compiled.cubin, compiled.lowered_name, compiled.resources}, 0));
  if (compiled.resources.spill_stores > 0) {
    fail_other(family, name, db::Status::pruned,
               "spills " + std::to_string(compiled.resources.spill_stores) +
                   " bytes to local memory (ptxas report)");
    return nullptr;
  }
  Stopwatch verifying(times_.verify_s);
  std::unique_ptr<LoadedKernel> kernel;
  try {
    kernel = family.load(name, compiled.cubin, compiled.lowered_name);
  } catch (const Error& e) {
    fail_other(family, name, db::Status::launch_failed,
               std::string("loading the cubin failed: ") + e.what());
    return nullptr;
  }
  Verification v = bench_.verify(*kernel, options_.hang_timeout_s);
  using Outcome = Verification::Outcome;
  if (v.outcome != Outcome::ok) {
    const db::Status status = v.outcome == Outcome::wrong_result ? db::Status::wrong_result
                              : v.outcome == Outcome::timeout    ? db::Status::timeout
                                                                 : db::Status::launch_failed;
    fail_other(family, name, status, v.error,
               v.outcome == Outcome::wrong_result ? std::optional(v.rel_error) : std::nullopt);
    if (v.outcome == Outcome::timeout) (void)kernel.release();  // a hung kernel: leak it
    stop_if_context_lost(name, v, true);
    return nullptr;
  }
  errors_[name] = {v.rel_error, std::nullopt};
  return (others_[name] = std::move(kernel)).get();
}

void CandidateRunner::record_other(const KernelFamily& family, const std::string& name,
                                   db::Result result) {
  result.problem_id = target_.problem_id;
  auto id = config_ids_.find(name);
  if (id == config_ids_.end()) {
    const std::optional<db::KernelConfig> row = family.db_row(name);
    if (!row)
      throw Error(Status::kInvalidArgument, "kernel family " + std::string(family.name()) +
                                                " gives no database row of " + name);
    id = config_ids_.emplace(name, target_.database->upsert_config(*row)).first;
  }
  result.config_id = id->second;
  Stopwatch watch(times_.record_s);
  if (auto it = resources_.find(name); it != resources_.end()) {
    if (it->second.registers >= 0) result.registers = it->second.registers;
    result.spill_bytes = it->second.spill_stores;
    result.smem_bytes = it->second.static_smem;
  }
  target_.database->record_results(target_.sweep_id, std::span<const db::Result>(&result, 1));
  raise_after_recorded_result();
}

std::optional<double> CandidateRunner::fail_other(const KernelFamily& family,
                                                  const std::string& name, db::Status status,
                                                  const std::string& error,
                                                  std::optional<double> rel_error) {
  db::Result r;
  r.status = status;
  r.error = error;
  r.rel_error = rel_error;
  record_other(family, name, std::move(r));
  return std::nullopt;
}

std::optional<double> CandidateRunner::wide_range_error(const GemmConfig& config,
                                                        std::string& why_not) {
  std::shared_ptr<CompiledCandidate> compiled = take(config);
  if (!compiled->ok) {
    why_not = "it no longer compiles";
    return std::nullopt;
  }
  Stopwatch verifying(times_.verify_s);
  std::unique_ptr<GemmKernel> kernel = load(config, *compiled, why_not);
  if (!kernel) return std::nullopt;
  Verification v = bench_.verify_wide_range(*kernel, options_.hang_timeout_s);
  v.error = "on wide-range inputs: " + v.error;
  // Nothing is recorded: its ok result stays what it measured (another sweep's, maybe).
  stop_if_context_lost(config, v, kernel, false);
  if (v.outcome == Verification::Outcome::launch_failed) {
    why_not = v.error;
    return std::nullopt;
  }
  // Above the tolerance (wrong_result) it is still this config's error there: the figure 3xTF32
  // configs are held to. On the random inputs it was verified when it was measured.
  return v.rel_error;
}

Trial CandidateRunner::trial(const GemmConfig& config, const CompiledCandidate& compiled,
                             const TimerOptions& timing) {
  using Outcome = Verification::Outcome;
  Trial out;
  std::string why_not = compiled.ok ? "" : "it did not compile";
  std::unique_ptr<GemmKernel> kernel = compiled.ok ? load(config, compiled, why_not) : nullptr;
  if (!kernel) {
    out.verification = {Outcome::launch_failed, 0, why_not, std::nullopt};
    return out;
  }
  {
    Stopwatch verifying(times_.verify_s);
    const bool corrupt = options_.corrupt_output && options_.corrupt_output(config);
    out.verification = bench_.verify(*kernel, options_.hang_timeout_s, corrupt);
  }
  stop_if_context_lost(config, out.verification, kernel, false);
  if (out.verification.outcome != Outcome::ok && out.verification.outcome != Outcome::wrong_result)
    return out;
  Stopwatch watch(times_.timing_s);
  out.timing = bench_.time(*kernel, timer_, timing);
  return out;
}

}  // namespace gemmtune::tuner
