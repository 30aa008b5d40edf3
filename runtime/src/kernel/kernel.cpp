#include "gemmtune/kernel.hpp"

#include <algorithm>

#include "gemmtune/error.hpp"
#include "gemmtune/db/records.hpp"
#include "gemmtune/templates.hpp"
#include "kernel_args_of.hpp"

namespace gemmtune {

namespace {
constexpr const char* kSourceName = "gemmtune_sgemm.cu";

}  // namespace

CompileResult compile_config(const GemmConfig& config, const std::string& arch) {
  CompileOptions opts;
  opts.arch = arch;
  return compile_cuda(templates::sgemm_source(), kSourceName, config.name_expression(), opts);
}

std::string template_hash() { return db::content_hash(templates::sgemm_source()); }

std::string binary_key(const GemmConfig& config, const std::string& arch) {
  std::string text(templates::sgemm_source());
  for (const std::string& part : {config.name_expression(), arch, "nvrtc " + nvrtc_version_string()}) {
    text += '\n';
    text += part;
  }
  return db::content_hash(text);
}

GemmKernel::GemmKernel(const GemmConfig& config, const std::vector<char>& cubin, const std::string& lowered_name)
    : config_(config) {
  GEMMTUNE_CUDA(cudaLibraryLoadData(&library_, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  try {
    GEMMTUNE_CUDA(cudaLibraryGetKernel(&gemm_, library_, lowered_name.c_str()));
    // Above 48 KiB a block's dynamic shared memory must be opted in to.
    GEMMTUNE_CUDA(cudaFuncSetAttribute(reinterpret_cast<const void*>(gemm_),
                                       cudaFuncAttributeMaxDynamicSharedMemorySize, config.smem_bytes()));
  } catch (...) {
    GEMMTUNE_CUDA_NOTHROW(cudaLibraryUnload(library_));
    throw;
  }
}

GemmKernel::~GemmKernel() { GEMMTUNE_CUDA_NOTHROW(cudaLibraryUnload(library_)); }

void GemmKernel::launch(const Problem& p, cudaStream_t stream, SplitKWorkspace* workspace) const {
  const GemmConfig& c = config_;
  long long tiles = static_cast<long long>((p.m + c.bm - 1) / c.bm) * ((p.n + c.bn - 1) / c.bn);
  if (tiles > 0x7fffffffLL) throw Error(Status::kNotSupported, "problem has more tiles than a grid can hold");
  int* tile_counters = nullptr;
  if (c.split_k > 1) {
    if (!workspace)
      throw Error(Status::kInvalidArgument,
                  "launching split-K kernel " + config_name(c) + " without a workspace: pass a SplitKWorkspace");
    tile_counters = workspace->prepare(c, p, stream);
  }
  GemmArgs args = kernel_args_of(p, tile_counters);
  void* params[] = {&args};
  dim3 grid(unsigned(tiles), 1, unsigned(p.batch * c.split_k));
  GEMMTUNE_CUDA(cudaLaunchKernel(reinterpret_cast<const void*>(gemm_), grid, dim3(c.threads()), params,
                                 size_t(c.smem_bytes()), stream));
  GEMMTUNE_CUDA(cudaGetLastError());
}

std::unique_ptr<GemmKernel> build_kernel(const GemmConfig& config, const std::string& arch) {
  CompileResult r = compile_config(config, arch);
  if (!r.ok) throw Error(Status::kCompileError, "compiling " + config_name(config) + " failed:\n" + r.log);
  return std::make_unique<GemmKernel>(config, r.cubin, r.lowered_name);
}

}  // namespace gemmtune
