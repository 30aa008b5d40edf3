// The Dispatcher: arguments -> plan cache (hot) -> chooser + kernel cache (first call) -> launch.
#include "capture.hpp"
#include "gemmtune/gemmtune.hpp"
#include "gemmtune/logging.hpp"
#include "gemmtune/scale_kernel.hpp"
#include "gemmtune/shipped.hpp"
#include "kernels.hpp"
#include "plan_cache.hpp"
#include "store.hpp"
#include "workspaces.hpp"

namespace gemmtune {

const char* kernel_origin_name(KernelOrigin origin) {
  switch (origin) {
    case KernelOrigin::memory: return "memory";
    case KernelOrigin::database: return "database";
    case KernelOrigin::compiled: return "compiled";
  }
  return "?";
}

namespace {

// Makes `device` current for a scope, touching the runtime only when another one is current.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    int current = 0;
    GEMMTUNE_CUDA(cudaGetDevice(&current));
    if (current != device) {
      GEMMTUNE_CUDA(cudaSetDevice(device));
      previous_ = current;
    }
  }
  ~DeviceGuard() {
    if (previous_ >= 0) GEMMTUNE_CUDA_NOTHROW(cudaSetDevice(previous_));
  }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
};

GpuIdentity identity_of(const DeviceInfo& d) {
  return GpuIdentity{d.name, d.limits.cc_major, d.limits.cc_minor, d.sm_count};
}

}  // namespace

struct Dispatcher::Impl {
  DispatcherOptions options;
  DeviceInfo device;  // first: no device throws before the database is touched
  detail::TuningStore store;
  Chooser chooser;
  detail::KernelCache kernels;
  detail::PlanCache plans;
  std::mutex scale_mutex;
  std::unique_ptr<ScaleKernel> scale;  // C = beta C, loaded on first need
  detail::WorkspacePool workspaces;    // last member: freed first, after waiting for the device

  explicit Impl(const DispatcherOptions& o)
      : options(o),
        device(device_info(o.device)),
        store(o.db_path, o.db_access, o.verbose),
        chooser(
            device.limits,
            with_shipped(store.snapshot(identity_of(device)), identity_of(device), o.use_shipped),
            o.deterministic, o.precision),
        kernels(store, device.limits.arch()),
        workspaces(o.workspace_allocator) {
    if (o.verbose) {
      const TuningSnapshot& s = chooser.snapshot();
      detail::log(
          LogLevel::info,
          "device " + std::to_string(o.device) + " " + device.name + ": database '" + store.path() +
              "' (" +
              (!store.is_open()   ? "none"
               : store.writable() ? "read-write"
                                  : "read-only") +
              "), " + std::to_string(s.bests.size()) + " tuned problems" +
              (s.shipped_database.empty()
                   ? std::string(", no shipped database")
                   : ", shipped database '" + s.shipped_database + "'" +
                         (s.shipped_other_model ? " (of another GPU model of sm_" +
                                                      std::to_string(device.limits.cc_major) +
                                                      std::to_string(device.limits.cc_minor) + ")"
                                                : "")) +
              (o.deterministic ? ", deterministic configs only" : "") +
              (o.precision != Precision::ieee
                   ? std::string(", precision ") + precision_name(o.precision)
                   : "") +
              (s.notes.empty() ? "" : "; " + s.notes.front()));
    }
  }

  // Work already enqueued must finish before its kernels are unloaded (as cublasDestroy waits).
  ~Impl() {
    if (plans.size() == 0 && !scale) return;
    try {
      DeviceGuard guard(options.device);
      GEMMTUNE_CUDA_NOTHROW(cudaDeviceSynchronize());
    } catch (const std::exception& e) {
      detail::log(LogLevel::error, std::string("destroying a dispatcher: ") + e.what());
    }
  }

  // The C = beta C kernel, compiled on first need. The caller made the device current.
  const ScaleKernel& scale_kernel(cudaStream_t stream, bool preparing) {
    std::lock_guard lock(scale_mutex);
    if (!scale) {
      if (!preparing)
        detail::refuse_if_capturing(stream, "compiling the C = beta C kernel (K = 0 or alpha = 0)");
      scale = std::make_unique<ScaleKernel>(device.limits.arch());
    }
    return *scale;
  }

  // Runs checked row-major work. The first call of a problem class takes the slow path, which a
  // stream being captured into a CUDA Graph refuses.
  void execute(Work work, const Problem& p, cudaStream_t stream) {
    if (work == Work::none) return;
    DeviceGuard guard(options.device);
    if (work == Work::scale_c) return scale_kernel(stream, false).launch(p, stream);
    const detail::PlanKey key = detail::PlanKey::of(p);
    detail::Plan plan = plans.find(key);
    if (!plan) {
      detail::refuse_if_capturing(stream, "choosing and loading the kernel of " + p.label());
      KernelOrigin origin;
      plan = build(p, key, &origin);
    }
    if (!plan.gemm) return plan.other->launch(p, stream);  // another family: no workspace
    const GemmKernel* kernel = plan.gemm;
    if (kernel->config().needs_workspace()) {
      workspaces.launch(*kernel, p, stream);
    } else {
      kernel->launch(p, stream);
    }
  }

  // The slow path: choose, get the kernel, publish the plan. The caller made the device current.
  // A tuned config of another family (choice.family_config) goes through its family.
  detail::Plan build(const Problem& p, const detail::PlanKey& key, KernelOrigin* origin) {
    Choice choice = chooser.choose(p);
    detail::Plan plan;
    try {
      if (choice.family_config.empty())
        plan.gemm = &kernels.get(choice.config, origin);
      else
        plan.other = &kernels.get(choice.family_config, origin);
    } catch (const Error& e) {
      if (choice.source == ChoiceSource::builtin) throw;
      const std::string chosen =
          choice.family_config.empty() ? config_name(choice.config) : choice.family_config;
      // A tuned config that no longer compiles or loads (new driver, new NVRTC): say so once, run the default.
      detail::warn_once("kernel " + chosen, "chosen kernel " + chosen + " failed (" + e.what() +
                                                "); using the built-in default instead");
      choice.source = ChoiceSource::builtin;
      choice.family_config.clear();
      choice.config = default_config(device.limits, p);
      plan = {&kernels.get(choice.config, origin), nullptr};
    }
    if (options.verbose)
      detail::log(LogLevel::info,
                  p.label() + " -> " +
                      (plan.gemm ? config_name(choice.config) : choice.family_config) + " (" +
                      choice_source_name(choice.source) + "; kernel from " +
                      (origin ? kernel_origin_name(*origin) : "?") + ")");
    plans.insert(key, plan);
    return plan;
  }
};

namespace {
const DispatcherOptions& checked(const DispatcherOptions& options) {
  const WorkspaceAllocator& a = options.workspace_allocator;
  if (!a.allocate != !a.free)
    throw Error(Status::kInvalidArgument,
                "workspace_allocator: set both allocate and free, or neither (for cudaMalloc and "
                "cudaFree)");
  return options;
}
}  // namespace

Dispatcher::Dispatcher(const DispatcherOptions& options)
    : impl_(std::make_unique<Impl>(checked(options))) {}
Dispatcher::~Dispatcher() = default;
Dispatcher::Dispatcher(Dispatcher&&) noexcept = default;
Dispatcher& Dispatcher::operator=(Dispatcher&&) noexcept = default;

void Dispatcher::run(const Problem& p, cudaStream_t stream) {
  impl_->execute(check_arguments(p), kernel_form(p), stream);
}

KernelOrigin Dispatcher::prepare(const Problem& problem) {
  if (problem.m < 1 || problem.n < 1 || problem.k < 1 || problem.batch < 1)
    throw Error(Status::kInvalidArgument, "prepare: M, N, K and batch must be at least 1");
  const Problem p = kernel_form(problem);
  const detail::PlanKey key = detail::PlanKey::of(p);
  DeviceGuard guard(impl_->options.device);
  if (impl_->plans.find(key)) return KernelOrigin::memory;
  KernelOrigin origin = KernelOrigin::memory;
  impl_->build(p, key, &origin);
  return origin;
}

void Dispatcher::prepare(const std::vector<Problem>& problems, cudaStream_t stream) {
  for (const Problem& p : problems) {
    const Work work = work_of(p);
    if (work == Work::none) continue;
    DeviceGuard guard(impl_->options.device);
    if (work == Work::scale_c) {
      impl_->scale_kernel(stream, true);
      continue;
    }
    prepare(p);
    const Problem runs = kernel_form(p);
    const detail::Plan plan = impl_->plans.find(detail::PlanKey::of(runs));
    if (plan.gemm) impl_->workspaces.reserve(*plan.gemm, runs, stream);
  }
}

Explanation Dispatcher::explain(const Problem& p) const {
  if (p.m < 1 || p.n < 1 || p.k < 1 || p.batch < 1)
    throw Error(Status::kInvalidArgument, "explain: M, N, K and batch must be at least 1");
  const Problem runs = kernel_form(p);
  Choice choice = impl_->chooser.choose(runs);
  if (runs.m != p.m) choice.runs_as = runs.label();
  return explanation_of(choice);
}

bool Dispatcher::deterministic() const { return impl_->options.deterministic; }
Precision Dispatcher::precision() const { return impl_->options.precision; }
const DeviceInfo& Dispatcher::device() const { return impl_->device; }
const std::string& Dispatcher::database_path() const { return impl_->store.path(); }
const std::string& Dispatcher::shipped_database_path() const {
  return impl_->chooser.snapshot().shipped_database;
}
bool Dispatcher::database_writable() const { return impl_->store.writable(); }
std::size_t Dispatcher::plan_count() const { return impl_->plans.size(); }

}  // namespace gemmtune
