#include "gemmtune/scale_kernel.hpp"

#include <algorithm>

#include "gemmtune/error.hpp"

namespace gemmtune {

namespace {
// Grid-stride loops in all three dimensions: any M, N and batch fit the grid's limits. C is found
// by stride, or through a device array of pointers (c_array, when not null); beta is read from
// device memory (beta_ptr, device pointer mode) when not null.
constexpr const char* kSource = R"(
extern "C" __global__ void gemmtune_scale_c(float* c, float* const* c_array, long long ldc, long long stride_c,
                                            int m, int n, int batch, float beta, const float* beta_ptr) {
  const float scale = beta_ptr ? *beta_ptr : beta;
  for (long long b = blockIdx.z; b < batch; b += gridDim.z) {
    float* matrix = c_array ? c_array[b] : c + b * stride_c;
    for (long long i = blockIdx.y; i < m; i += gridDim.y) {
      float* row = matrix + i * ldc;
      for (long long j = blockIdx.x * (long long)blockDim.x + threadIdx.x; j < n; j += (long long)gridDim.x * blockDim.x)
        row[j] = scale == 0.0f ? 0.0f : scale * row[j];  // beta 0: NaN and Inf in C do not survive
    }
  }
}
)";
constexpr unsigned kThreads = 256;
}  // namespace

std::string_view scale_kernel_source() { return kSource; }

CompileResult compile_scale_kernel(const std::string& arch) {
  CompileOptions options;
  options.arch = arch;
  return compile_cuda(kSource, "gemmtune_scale_c.cu", kScaleKernelName, options);
}

ScaleKernel::ScaleKernel(const std::string& arch) {
  CompileResult r = compile_scale_kernel(arch);
  if (!r.ok)
    throw Error(Status::kCompileError,
                "compiling the C = beta C kernel for " + arch + " failed:\n" + r.log);
  GEMMTUNE_CUDA(
      cudaLibraryLoadData(&library_, r.cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  try {
    GEMMTUNE_CUDA(cudaLibraryGetKernel(&kernel_, library_, r.lowered_name.c_str()));
  } catch (...) {
    GEMMTUNE_CUDA_NOTHROW(cudaLibraryUnload(library_));
    throw;
  }
}

ScaleKernel::~ScaleKernel() { GEMMTUNE_CUDA_NOTHROW(cudaLibraryUnload(library_)); }

void ScaleKernel::launch(const Problem& p, cudaStream_t stream) const {
  float* c = p.c;
  float* const* c_array = p.pointer_arrays ? p.c_array : nullptr;
  long long ldc = p.ldc, stride_c = p.stride_c;
  int m = p.m, n = p.n, batch = p.batch;
  float beta = p.beta;
  const float* beta_ptr = p.beta_ptr;
  void* params[] = {&c, &c_array, &ldc, &stride_c, &m, &n, &batch, &beta, &beta_ptr};
  const dim3 grid(unsigned(std::min((n + kThreads - 1) / kThreads, 1024u)),
                  unsigned(std::min(m, 65535)), unsigned(std::min(batch, 65535)));
  GEMMTUNE_CUDA(cudaLaunchKernel(reinterpret_cast<const void*>(kernel_), grid, dim3(kThreads),
                                 params, 0, stream));
  GEMMTUNE_CUDA(cudaGetLastError());
}

}  // namespace gemmtune
