// The Dispatcher: arguments -> plan cache (hot) -> chooser + kernel cache (first call) -> launch.
#include <cstdio>

#include "kernels.hpp"
#include "plan_cache.hpp"
#include "store.hpp"
#include "workspaces.hpp"
#include "gemmtune/gemmtune.hpp"

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

Problem make_problem(Op op_a, Op op_b, int m, int n, int k, float alpha, const float* a, long long lda,
                     long long stride_a, const float* b, long long ldb, long long stride_b, float beta, float* c,
                     long long ldc, long long stride_c, int batch) {
  Problem p;
  p.op_a = op_a, p.op_b = op_b, p.m = m, p.n = n, p.k = k, p.batch = batch;
  p.lda = lda, p.ldb = ldb, p.ldc = ldc;
  p.stride_a = stride_a, p.stride_b = stride_b, p.stride_c = stride_c;
  p.a = a, p.b = b, p.c = c, p.alpha = alpha, p.beta = beta;
  return p;
}

}  // namespace

struct Dispatcher::Impl {
  DispatcherOptions options;
  DeviceInfo device;  // first: no device throws before the database is touched
  detail::TuningStore store;
  Chooser chooser;
  detail::KernelCache kernels;
  detail::PlanCache plans;
  detail::WorkspacePool workspaces;  // last member: freed first, after waiting for the device

  explicit Impl(const DispatcherOptions& o)
      : options(o),
        device(device_info(o.device)),
        store(o.db_path, o.db_access, o.verbose),
        chooser(device.limits, store.snapshot(identity_of(device))),
        kernels(store, device.limits.arch()) {
    if (o.verbose) {
      const TuningSnapshot& s = chooser.snapshot();
      std::fprintf(stderr, "gemmtune: device %d %s: database '%s' (%s), %zu tuned problems%s%s\n", o.device,
                   device.name.c_str(), store.path().c_str(),
                   !store.is_open() ? "none" : store.writable() ? "read-write" : "read-only", s.bests.size(),
                   s.notes.empty() ? "" : "; ", s.notes.empty() ? "" : s.notes.front().c_str());
    }
  }

  // The slow path: choose, get the kernel, publish the plan. The caller made the device current.
  const GemmKernel& build(const Problem& p, const detail::PlanKey& key, KernelOrigin* origin) {
    Choice choice = chooser.choose(p);
    const GemmKernel* kernel = nullptr;
    try {
      kernel = &kernels.get(choice.config, origin);
    } catch (const Error& e) {
      if (choice.source == ChoiceSource::builtin) throw;
      // A tuned config that no longer compiles or loads (new driver, new NVRTC): say so once, run the default.
      detail::warn_once("kernel " + config_name(choice.config),
                        "chosen kernel " + config_name(choice.config) + " failed (" + e.what() +
                            "); using the built-in default instead");
      choice.source = ChoiceSource::builtin;
      choice.config = default_config(device.limits, p);
      kernel = &kernels.get(choice.config, origin);
    }
    if (options.verbose)
      std::fprintf(stderr, "gemmtune: %s -> %s (%s; kernel from %s)\n", p.label().c_str(),
                   config_name(choice.config).c_str(),
                   choice_source_name(choice.source), origin ? kernel_origin_name(*origin) : "?");
    plans.insert(key, kernel);
    return *kernel;
  }
};

Dispatcher::Dispatcher(const DispatcherOptions& options) : impl_(std::make_unique<Impl>(options)) {}
Dispatcher::~Dispatcher() = default;
Dispatcher::Dispatcher(Dispatcher&&) noexcept = default;
Dispatcher& Dispatcher::operator=(Dispatcher&&) noexcept = default;

void Dispatcher::run(const Problem& p, cudaStream_t stream) {
  if (!check_arguments(p)) return;
  const detail::PlanKey key = detail::PlanKey::of(p);
  DeviceGuard guard(impl_->options.device);
  const GemmKernel* kernel = impl_->plans.find(key);
  if (!kernel) {
    KernelOrigin origin;
    kernel = &impl_->build(p, key, &origin);
  }
  if (kernel->config().needs_workspace()) {
    impl_->workspaces.launch(*kernel, p, stream);
  } else {
    kernel->launch(p, stream);
  }
}

void Dispatcher::sgemm(Op op_a, Op op_b, int m, int n, int k, float alpha, const float* a, long long lda,
                       const float* b, long long ldb, float beta, float* c, long long ldc, cudaStream_t stream) {
  run(make_problem(op_a, op_b, m, n, k, alpha, a, lda, 0, b, ldb, 0, beta, c, ldc, 0, 1), stream);
}

void Dispatcher::sgemm_strided_batched(Op op_a, Op op_b, int m, int n, int k, float alpha, const float* a,
                                       long long lda, long long stride_a, const float* b, long long ldb,
                                       long long stride_b, float beta, float* c, long long ldc, long long stride_c,
                                       int batch, cudaStream_t stream) {
  run(make_problem(op_a, op_b, m, n, k, alpha, a, lda, stride_a, b, ldb, stride_b, beta, c, ldc, stride_c, batch),
      stream);
}

KernelOrigin Dispatcher::prepare(const Problem& p) {
  if (p.m < 1 || p.n < 1 || p.k < 1 || p.batch < 1)
    throw Error(Status::kInvalidArgument, "prepare: M, N, K and batch must be at least 1");
  const detail::PlanKey key = detail::PlanKey::of(p);
  DeviceGuard guard(impl_->options.device);
  if (impl_->plans.find(key)) return KernelOrigin::memory;
  KernelOrigin origin = KernelOrigin::memory;
  impl_->build(p, key, &origin);
  return origin;
}

Choice Dispatcher::explain(const Problem& p) const {
  if (p.m < 1 || p.n < 1 || p.k < 1 || p.batch < 1)
    throw Error(Status::kInvalidArgument, "explain: M, N, K and batch must be at least 1");
  return impl_->chooser.choose(p);
}

const DeviceInfo& Dispatcher::device() const { return impl_->device; }
const std::string& Dispatcher::database_path() const { return impl_->store.path(); }
bool Dispatcher::database_writable() const { return impl_->store.writable(); }
std::size_t Dispatcher::plan_count() const { return impl_->plans.size(); }

}  // namespace gemmtune
