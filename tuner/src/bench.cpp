#include "gemmtune/tuner/bench.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <thread>

namespace gemmtune::tuner {

TimerOptions timer_options(Effort effort) {
  TimerOptions o;
  switch (effort) {
    case Effort::quick:  // fixed, few repetitions: enough to drop clear losers
      o.warmup = 1, o.min_reps = 3, o.max_reps = 3, o.target_spread = 0, o.max_seconds = 0.5;
      break;
    case Effort::normal:
      o.warmup = 2, o.min_reps = 5, o.max_reps = 50, o.target_spread = 0.02, o.max_seconds = 1.0;
      break;
    case Effort::careful:
      o.warmup = 3, o.min_reps = 20, o.max_reps = 200, o.target_spread = 0.01, o.max_seconds = 2.0;
      break;
  }
  return o;
}

static void fill_uniform(float* dst, std::size_t n, std::mt19937_64& rng) {
  std::vector<float> h(n);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  for (auto& x : h) {
    do x = d(rng);
    while (x == 0.f);
  }
  GEMMTUNE_CUDA(cudaMemcpy(dst, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
}

// Signed values spanning 41 binades (2^-20 to 2^21): where splitting a value into TF32 parts
// and summing their products in the wrong order loses accuracy that uniform data hides.
static void fill_wide_range(float* dst, std::size_t n, std::mt19937_64& rng) {
  std::vector<float> h(n);
  std::uniform_int_distribution<int> binade(-20, 20), sign(0, 1);
  std::uniform_real_distribution<float> mantissa(1.f, 2.f);
  for (auto& x : h) x = std::ldexp(mantissa(rng), binade(rng)) * (sign(rng) ? -1.f : 1.f);
  GEMMTUNE_CUDA(cudaMemcpy(dst, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
}

ProblemBench::ProblemBench(const ProblemSpec& spec, const ReferenceGemm& reference,
                           cudaStream_t stream, std::uint64_t seed)
    : p_(spec.problem()), stream_(stream), reference_(reference), seed_(seed) {
  std::size_t na = std::size_t(p_.batch) * p_.m * p_.k, nb = std::size_t(p_.batch) * p_.k * p_.n,
              nc = std::size_t(p_.batch) * p_.m * p_.n;
  try {
    GEMMTUNE_CUDA(cudaMalloc(reinterpret_cast<void**>(&a_), na * sizeof(float)));
    GEMMTUNE_CUDA(cudaMalloc(reinterpret_cast<void**>(&b_), nb * sizeof(float)));
    GEMMTUNE_CUDA(cudaMalloc(reinterpret_cast<void**>(&c_), nc * sizeof(float)));
    std::mt19937_64 rng(seed);
    fill_uniform(a_, na, rng);
    fill_uniform(b_, nb, rng);
    p_.a = a_, p_.b = b_, p_.c = c_;
    GEMMTUNE_CUDA(cudaMalloc(reinterpret_cast<void**>(&ref_), nc * sizeof(double)));
    GEMMTUNE_CUDA(cudaMalloc(reinterpret_cast<void**>(&sums_), 3 * sizeof(double)));
    reference.run(p_, ref_, stream_);
    GEMMTUNE_CUDA(cudaStreamSynchronize(stream_));
  } catch (...) {
    free_buffers();
    throw;
  }
}

void ProblemBench::free_buffers() {
  for (void* ptr :
       {static_cast<void*>(a_), static_cast<void*>(b_), static_cast<void*>(c_),
        static_cast<void*>(ref_), static_cast<void*>(sums_), static_cast<void*>(wide_a_),
        static_cast<void*>(wide_b_), static_cast<void*>(wide_ref_)})
    GEMMTUNE_CUDA_NOTHROW(cudaFree(ptr));
}

ProblemBench::~ProblemBench() {
  if (!abandoned_) free_buffers();
}

void ProblemBench::make_wide_range_inputs() {
  if (wide_ref_) return;
  std::size_t na = std::size_t(p_.batch) * p_.m * p_.k, nb = std::size_t(p_.batch) * p_.k * p_.n,
              nc = std::size_t(p_.batch) * p_.m * p_.n;
  GEMMTUNE_CUDA(cudaMalloc(reinterpret_cast<void**>(&wide_a_), na * sizeof(float)));
  GEMMTUNE_CUDA(cudaMalloc(reinterpret_cast<void**>(&wide_b_), nb * sizeof(float)));
  std::mt19937_64 rng(seed_ ^ 0x5eed5eedULL);
  fill_wide_range(wide_a_, na, rng);
  fill_wide_range(wide_b_, nb, rng);
  Problem wide = p_;
  wide.a = wide_a_, wide.b = wide_b_;
  double* ref = nullptr;
  GEMMTUNE_CUDA(cudaMalloc(reinterpret_cast<void**>(&ref), nc * sizeof(double)));
  wide_ref_ = ref;
  reference_.run(wide, wide_ref_, stream_);
}

Verification ProblemBench::verify(const GemmKernel& kernel, double timeout_s, bool corrupt) {
  Verification v =
      check(kernel, p_, ref_, verification_tolerance(kernel.config(), p_.k), timeout_s, corrupt);
  // The tensor-core variants also on wide-range data, where their splits are tested hardest.
  if (v.outcome != Verification::Outcome::ok || !kernel.config().uses_tensor_cores() ||
      p_.beta != 0.f)
    return v;
  Verification w = verify_wide_range(kernel, timeout_s);
  if (w.outcome != Verification::Outcome::ok) {
    w.error = "on wide-range inputs: " + w.error;
    if (w.outcome == Verification::Outcome::wrong_result) w.wide_rel_error = w.rel_error;
    w.rel_error = v.rel_error;
    return w;
  }
  v.wide_rel_error = w.rel_error;
  return v;
}

Verification ProblemBench::verify(const LoadedKernel& kernel, double timeout_s, bool corrupt) {
  if (const auto* gemm = dynamic_cast<const GemmKernel*>(&kernel))
    return verify(*gemm, timeout_s, corrupt);
  // Held to its family's precision class, as sgemm's configs are to theirs.
  const KernelFamily* family = family_registry().find(kernel.name());
  const Precision precision = family ? family->precision(kernel.name()) : Precision::ieee;
  return check(kernel, p_, ref_, precision_tolerance(precision, p_.k), timeout_s, corrupt);
}

Verification ProblemBench::verify_wide_range(const GemmKernel& kernel, double timeout_s) {
  make_wide_range_inputs();
  Problem wide = p_;
  wide.a = wide_a_, wide.b = wide_b_;
  return check(kernel, wide, wide_ref_, verification_tolerance(kernel.config(), p_.k), timeout_s,
               false);
}

Verification ProblemBench::check(const LoadedKernel& kernel, const Problem& p, const double* ref,
                                 double tol, double timeout_s, bool corrupt) {
  using Outcome = Verification::Outcome;
  Verification v;
  std::size_t nc = std::size_t(p_.batch) * p_.m * p_.n;
  GEMMTUNE_CUDA(cudaMemsetAsync(c_, 0xff, nc * sizeof(float), stream_));  // all-ones bits: NaN
  try {
    kernel.launch(p, stream_, &workspace_);
  } catch (const Error& e) {
    return {Outcome::launch_failed, 0, e.what(), std::nullopt};
  }
  if (corrupt) GEMMTUNE_CUDA(cudaMemsetAsync(c_, 0, std::size_t(p_.n) * sizeof(float), stream_));
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  cudaError_t rc;
  while ((rc = cudaStreamQuery(stream_)) == cudaErrorNotReady) {
    if (std::chrono::steady_clock::now() > deadline) {
      char buf[96];
      std::snprintf(buf, sizeof buf, "kernel did not finish within %.0f s", timeout_s);
      return {Outcome::timeout, 0, buf, std::nullopt};
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  if (rc != cudaSuccess)
    return {Outcome::launch_failed, 0, std::string("kernel failed: ") + cudaGetErrorString(rc),
            std::nullopt};
  v.rel_error = reference_.relative_error(p, ref, sums_, stream_);
  if (!(v.rel_error <= tol)) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "relative error %.3g exceeds the tolerance %.3g for K = %d",
                  v.rel_error, tol, p_.k);
    v.outcome = Outcome::wrong_result;
    v.error = buf;
  }
  return v;
}

Timing ProblemBench::time(const GemmKernel& kernel, const GpuTimer& timer, Effort effort) const {
  return time(kernel, timer, timer_options(effort));
}

Timing ProblemBench::time(const GemmKernel& kernel, const GpuTimer& timer,
                          const TimerOptions& options) const {
  return timer.time([&](cudaStream_t s) { kernel.launch(p_, s, &workspace_); }, options);
}

Timing ProblemBench::time(const LoadedKernel& kernel, const GpuTimer& timer, Effort effort) const {
  return timer.time([&](cudaStream_t s) { kernel.launch(p_, s, &workspace_); },
                    timer_options(effort));
}

double ProblemBench::error_of_c() const {
  GEMMTUNE_CUDA(cudaDeviceSynchronize());  // C may come from another stream (the timer's)
  return reference_.relative_error(p_, ref_, sums_, stream_);
}

Timing ProblemBench::time_cublas(const CublasSgemm& cublas, const GpuTimer& timer) const {
  return timer.time([&](cudaStream_t s) { cublas.run(p_, s); }, timer_options(Effort::careful));
}

}  // namespace gemmtune::tuner
