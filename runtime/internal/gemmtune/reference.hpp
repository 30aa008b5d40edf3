#pragma once
// The float64 reference GEMM on the GPU, and the relative Frobenius error against it: how every
// kernel is verified, by the tests and by the tuner before a candidate may be timed.
#include <cuda_runtime_api.h>

#include <memory>
#include <vector>

#include "gemmtune/problem.hpp"
#include "gemmtune/sgemm/config.hpp"

namespace gemmtune {

/// A compiled, loaded reference kernel for the current device. Non-copyable.
class ReferenceGemm {
 public:
  /// Compiles the reference for `arch` with NVRTC and loads it; needs a GPU.
  explicit ReferenceGemm(const std::string& arch);
  ~ReferenceGemm();
  ReferenceGemm(const ReferenceGemm&) = delete;
  ReferenceGemm& operator=(const ReferenceGemm&) = delete;

  /// Computes alpha op(A) op(B) + beta C into `out` (device memory, batch*M*N doubles, packed
  /// row-major per batch) from the problem's current A, B and C; does not write C.
  void run(const Problem& p, double* out, cudaStream_t stream) const;

  /// The relative error of the problem's C against `ref` (device memory, as run() writes it),
  /// computed on the GPU: relative_error()'s definition without copying C to the host.
  /// `scratch` is 3 doubles of device memory; waits for `stream`.
  double relative_error(const Problem& p, const double* ref, double* scratch,
                        cudaStream_t stream) const;

 private:
  cudaLibrary_t library_ = nullptr;
  cudaKernel_t kernel_ = nullptr;
  cudaKernel_t error_sums_ = nullptr;
};

/// ||C - R||_F / ||R||_F over batch*M*N elements, C with leading dimension ldc and batch stride
/// stride_c, R packed; infinite if C holds a NaN or infinity (an unwritten, poisoned element).
double relative_error(const std::vector<float>& c, long long ldc, long long stride_c,
                      const std::vector<double>& ref, int m, int n, int batch);

/// The relative error from its three sums: squared difference, squared reference norm and the
/// count of non-finite elements of C (infinite when that count is not zero).
double relative_error_from_sums(double diff, double norm, double non_finite);

/// Tolerance for an FP32 kernel with K-long dot products: grows with sqrt(K) (rounding errors
/// of a sum add like a random walk), floor 1e-6.
double fp32_tolerance(int k);

/// Tolerance for a kernel computing with TF32 products (math 1): TF32's rounding of the inputs
/// dominates.
double tf32_tolerance(int k);

/// The tolerance results of precision class `precision` are verified at: tf32_tolerance for the
/// tf32 class (1xTF32), fp32_tolerance otherwise (the fp32 class, 3xTF32, is held to FP32's).
double precision_tolerance(Precision precision, int k);

/// precision_tolerance() of a config's class.
double verification_tolerance(const GemmConfig& c, int k);

}  // namespace gemmtune
