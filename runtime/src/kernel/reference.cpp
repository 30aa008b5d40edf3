#include "gemmtune/reference.hpp"

#include <algorithm>
#include <cmath>

#include "gemmtune/compiler.hpp"
#include "gemmtune/error.hpp"
#include "gemmtune/templates.hpp"
#include "kernel_args_of.hpp"

namespace gemmtune {

namespace {
// The reference and the error sums find batches by stride and take alpha and beta by value, as
// the tuner's problems do.
GemmArgs reference_args(const Problem& p) {
  if (p.pointer_arrays || p.alpha_ptr || p.beta_ptr)
    throw Error(Status::kInvalidArgument,
                "the float64 reference takes strided batches and alpha and beta by value: no "
                "pointer arrays, "
                "no device pointer mode");
  return kernel_args_of(p);
}
}  // namespace

ReferenceGemm::ReferenceGemm(const std::string& arch) {
  CompileOptions opts;
  opts.arch = arch;
  CompileResult r = compile_cuda(templates::reference_source(), "gemmtune_reference.cu",
                                 "gemmtune_reference", opts);
  if (!r.ok) throw Error(Status::kCompileError, "compiling the reference GEMM failed:\n" + r.log);
  GEMMTUNE_CUDA(
      cudaLibraryLoadData(&library_, r.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  GEMMTUNE_CUDA(cudaLibraryGetKernel(&kernel_, library_, "gemmtune_reference"));
  GEMMTUNE_CUDA(cudaLibraryGetKernel(&error_sums_, library_, "gemmtune_error_sums"));
}

ReferenceGemm::~ReferenceGemm() { GEMMTUNE_CUDA_NOTHROW(cudaLibraryUnload(library_)); }

void ReferenceGemm::run(const Problem& p, double* out, cudaStream_t stream) const {
  // The op of each operand travels as the sign of its leading dimension.
  GemmArgs args = reference_args(p);
  if (p.op_a == Op::T) args.lda = -args.lda;
  if (p.op_b == Op::T) args.ldb = -args.ldb;
  void* params[] = {&args, &out};
  long long total = static_cast<long long>(p.m) * p.n * p.batch;
  unsigned blocks = unsigned(std::min<long long>((total + 255) / 256, 1 << 20));
  GEMMTUNE_CUDA(cudaLaunchKernel(reinterpret_cast<const void*>(kernel_), dim3(blocks), dim3(256),
                                 params, 0, stream));
  GEMMTUNE_CUDA(cudaGetLastError());
}

double ReferenceGemm::relative_error(const Problem& p, const double* ref, double* scratch,
                                     cudaStream_t stream) const {
  GemmArgs args = reference_args(p);
  void* params[] = {&args, &ref, &scratch};
  long long total = static_cast<long long>(p.m) * p.n * p.batch;
  unsigned blocks = unsigned(std::min<long long>((total + 255) / 256, 1024));
  GEMMTUNE_CUDA(cudaMemsetAsync(scratch, 0, 3 * sizeof(double), stream));
  GEMMTUNE_CUDA(cudaLaunchKernel(reinterpret_cast<const void*>(error_sums_), dim3(blocks),
                                 dim3(256), params, 0, stream));
  GEMMTUNE_CUDA(cudaGetLastError());
  double sums[3];
  GEMMTUNE_CUDA(cudaMemcpyAsync(sums, scratch, sizeof sums, cudaMemcpyDeviceToHost, stream));
  GEMMTUNE_CUDA(cudaStreamSynchronize(stream));
  return relative_error_from_sums(sums[0], sums[1], sums[2]);
}

double relative_error_from_sums(double diff, double norm, double non_finite) {
  if (non_finite != 0) return INFINITY;
  if (norm == 0) return std::sqrt(diff);
  return std::sqrt(diff / norm);
}

double relative_error(const std::vector<float>& c, long long ldc, long long stride_c,
                      const std::vector<double>& ref, int m, int n, int batch) {
  double diff = 0, norm = 0;
  for (int b = 0; b < batch; ++b)
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        double x = c[b * stride_c + i * ldc + j];
        double r = ref[(static_cast<long long>(b) * m + i) * n + j];
        if (!std::isfinite(x)) return INFINITY;
        diff += (x - r) * (x - r);
        norm += r * r;
      }
  return relative_error_from_sums(diff, norm, 0);
}

double fp32_tolerance(int k) { return std::max(1e-6, 2e-7 * std::sqrt(double(k)) * 4); }

// TF32 keeps 10 mantissa bits: each operand is rounded by up to 2^-11 relative, so a product by
// up to ~2^-10; measured 2.9e-4 (cuBLAS TF32, 4096^3, H200). 4x that, plus the FP32 sums' share.
double tf32_tolerance(int k) { return 2e-3 + fp32_tolerance(k); }

double precision_tolerance(Precision precision, int k) {
  return precision == Precision::tf32 ? tf32_tolerance(k) : fp32_tolerance(k);
}

double verification_tolerance(const GemmConfig& c, int k) {
  return precision_tolerance(c.precision(), k);
}

}  // namespace gemmtune
