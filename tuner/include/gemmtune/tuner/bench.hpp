#pragma once
#include <optional>
// One problem on the GPU during a sweep: its buffers filled with fresh random data, the float64
// reference result (computed once per problem), verification of a candidate kernel against it
// with a deadline for hung kernels, and timing of candidates and of cuBLAS on the same buffers.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <vector>

#include "gemmtune/error.hpp"
#include "gemmtune/kernel.hpp"
#include "gemmtune/reference.hpp"
#include "gemmtune/tuner/cublas_baseline.hpp"
#include "gemmtune/tuner/problems.hpp"
#include "gemmtune/tuner/strategy.hpp"
#include "gemmtune/tuner/timer.hpp"

namespace gemmtune::tuner {

/// The device cannot be used any more: a kernel hung (the CUDA context is stuck behind it) or a
/// sticky CUDA error poisoned the context. The sweep of this device stops.
class DeviceUnusable : public Error {
 public:
  /// `hung`: a kernel did not finish before its deadline.
  DeviceUnusable(bool hung, const std::string& message)
      : Error(Status::kCudaError, message), hung_(hung) {}
  /// Whether a kernel is still running (its resources must not be freed: that would wait forever).
  bool hung() const { return hung_; }

 private:
  bool hung_;
};

/// How one verification went.
struct Verification {
  enum class Outcome { ok, wrong_result, launch_failed, timeout } outcome = Outcome::ok;
  double rel_error = 0;  ///< vs the float64 reference (infinite when an element is NaN)
  std::string error;     ///< why it failed
  /// The same on wide-range inputs (signed, 2^-20..2^21): measured for tensor-core configs (and
  /// kept when they fail there: wrong_result).
  std::optional<double> wide_rel_error;
};

/// Timer settings of each effort level.
TimerOptions timer_options(Effort effort);

/// A problem's device memory and reference result. Non-copyable; needs a GPU.
class ProblemBench {
 public:
  /// Allocates A, B, C (packed) and the reference on the current device, fills A and B with
  /// uniform random numbers in [-1, 1] (never zeros: a kernel that skips work is caught) and
  /// computes the float64 reference with `reference`, which must outlive the bench (it also
  /// verifies candidates, on the GPU).
  ProblemBench(const ProblemSpec& spec, const ReferenceGemm& reference, cudaStream_t stream,
               std::uint64_t seed);
  ~ProblemBench();
  ProblemBench(const ProblemBench&) = delete;
  ProblemBench& operator=(const ProblemBench&) = delete;

  /// The problem, with this bench's pointers.
  const Problem& problem() const { return p_; }

  /// Poisons C with NaN (beta = 0 must not read it), launches `kernel` once, waits for it with a
  /// deadline of `timeout_s` and compares C with the reference at verification_tolerance(), on
  /// the GPU; a tensor-core config is checked again on wide-range inputs (made on first use).
  /// With `corrupt` (a test hook) a row of C is overwritten after the kernel, before the check.
  /// A hang throws nothing: it comes back as Outcome::timeout; the caller stops the device.
  Verification verify(const GemmKernel& kernel, double timeout_s, bool corrupt = false);
  /// The same for a kernel of any family: a GemmKernel as above, any other at the tolerance of
  /// its family's precision class (KernelFamily::precision, precision_tolerance()), on the
  /// random inputs alone.
  Verification verify(const LoadedKernel& kernel, double timeout_s, bool corrupt = false);
  /// The same check of any config on the wide-range inputs alone: its rel_error is the error there.
  Verification verify_wide_range(const GemmKernel& kernel, double timeout_s);

  /// Times `kernel` on this problem at `effort`.
  Timing time(const GemmKernel& kernel, const GpuTimer& timer, Effort effort) const;
  /// Times `kernel` on this problem with `options`.
  Timing time(const GemmKernel& kernel, const GpuTimer& timer, const TimerOptions& options) const;
  /// Times a kernel of any family on this problem at `effort`.
  Timing time(const LoadedKernel& kernel, const GpuTimer& timer, Effort effort) const;
  /// The relative error of what C holds now (after cuBLAS ran on this bench's inputs, say)
  /// against the float64 reference: as verify() measures it, without a launch.
  double error_of_c() const;
  /// Times cuBLAS on the same buffers, carefully.
  Timing time_cublas(const CublasSgemm& cublas, const GpuTimer& timer) const;

  /// Forgets the device memory without freeing it (after a hang freeing would block forever).
  void abandon() {
    abandoned_ = true;
    workspace_.abandon();
  }

 private:
  void free_buffers();
  // One verification of `kernel` on `p` (this bench's C, inputs `p.a`, `p.b`) against `ref`.
  Verification check(const LoadedKernel& kernel, const Problem& p, const double* ref, double tol,
                     double timeout_s, bool corrupt);
  void make_wide_range_inputs();

  Problem p_;
  cudaStream_t stream_;
  const ReferenceGemm& reference_;
  float *a_ = nullptr, *b_ = nullptr, *c_ = nullptr;
  double* ref_ = nullptr;   // the float64 reference result, packed, on the device
  double* sums_ = nullptr;  // scratch of ReferenceGemm::relative_error
  std::uint64_t seed_;
  float *wide_a_ = nullptr, *wide_b_ = nullptr;  // wide-range inputs and their reference
  double* wide_ref_ = nullptr;
  mutable LaunchWorkspace workspace_;  // split-K counters, repack copies (launches are sequential)
  bool abandoned_ = false;
};

}  // namespace gemmtune::tuner
