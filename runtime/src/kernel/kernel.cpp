#include "gemmtune/kernel.hpp"

#include <algorithm>

#include "gemmtune/error.hpp"
#include "gemmtune/family.hpp"
#include "gemmtune/sgemm/family.hpp"
#include "kernel_args_of.hpp"
#include "tensor_map.hpp"

namespace gemmtune {

namespace {
constexpr const char* kPackKernel = "gemmtune_pack_operand";  // families/sgemm/kernels/pack.cuh
constexpr const char* kSplitKernel = "gemmtune_pack_split";
constexpr const char* kPrescaleKernel = "gemmtune_prescale_c";

// Enqueues the copy of `rows` x `cols` matrices at `src` (leading dimension ld, batch stride
// stride) into `dst`'s layout.
void pack_operand(cudaKernel_t pack, const float* src, long long ld, long long stride, int rows,
                  int cols, int batch, const PackedOperand& dst, cudaStream_t stream) {
  PackArgs args{src, dst.data, ld, stride, dst.ld, dst.stride, rows, cols, batch};
  // Up to 32 threads along a row (4 floats each), as many as it has 4-float quads; 256 a block.
  const long long quads = dst.ld / 4;
  unsigned along = 1;
  while (along < 32 && along < quads) along *= 2;
  const dim3 block(along, 256 / along);
  const dim3 grid(unsigned(std::min<long long>((quads + along - 1) / along, 65535)),
                  unsigned(std::min<long long>((rows + block.y - 1) / block.y, 65535)),
                  unsigned(std::min(batch, 65535)));
  void* params[] = {&args};
  GEMMTUNE_CUDA(
      cudaLaunchKernel(reinterpret_cast<const void*>(pack), grid, block, params, 0, stream));
  GEMMTUNE_CUDA(cudaGetLastError());
}

// Enqueues the split copy (warpgroup configs) of `batch` operands with `rows` rows along K, element
// (r, i) at src[r * ld + i] or, `transposed`, at src[i * ld + r], into dst's layout.
void split_operand(cudaKernel_t split, const float* src, long long ld, long long stride,
                   bool transposed, int rows, int k, int batch, bool two_planes,
                   const PackedOperand& dst, cudaStream_t stream) {
  const int dst_rows = int(dst.plane / dst.ld);
  const bool vec = Problem::rows_16_byte_aligned(src, ld, stride, batch);
  SplitPackArgs args{
      src, dst.data, ld,    stride,        dst.ld,          dst.stride,      dst.plane, rows,
      k,   dst_rows, batch, dst.tile_rows, int(transposed), int(two_planes), int(vec)};
  const dim3 block(32, 8);
  const int row_groups = (dst_rows + kSplitPackRows - 1) / kSplitPackRows;
  const dim3 grid(unsigned(dst.ld / 32), unsigned(std::min(row_groups, 65535)),
                  unsigned(std::min(batch, 65535)));
  void* params[] = {&args};
  GEMMTUNE_CUDA(
      cudaLaunchKernel(reinterpret_cast<const void*>(split), grid, block, params, 0, stream));
  GEMMTUNE_CUDA(cudaGetLastError());
}
}  // namespace

// GemmConfig is the sgemm family's config: its family is known without a lookup.
CompileResult compile_config(const GemmConfig& config, const std::string& arch) {
  return compile_instance(sgemm_kernel_family(), kernel_instance(config), arch);
}

// The built-in families' alone: a family registered at run time (register_family) must not make
// every stored sweep of the built-in ones stale; its binaries are keyed by its own source.
std::string template_hash() {
  static const std::string hash = [] {
    FamilyRegistry builtin;
    for (const KernelFamily* family : builtin_families()) builtin.add(*family);
    return builtin.source_hash();
  }();
  return hash;
}

std::string binary_identity(const GemmConfig& config, const std::string& arch) {
  return binary_identity(kernel_instance(config), arch);
}

std::string binary_key(const GemmConfig& config, const std::string& arch) {
  return sgemm_kernel_family().binary_key(kernel_instance(config), arch);
}

GemmKernel::GemmKernel(const GemmConfig& config, const std::vector<char>& cubin,
                       const std::string& lowered_name)
    : config_(config) {
  GEMMTUNE_CUDA(
      cudaLibraryLoadData(&library_, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
  try {
    GEMMTUNE_CUDA(cudaLibraryGetKernel(&gemm_, library_, lowered_name.c_str()));
    // Above 48 KiB a block's dynamic shared memory must be opted in to.
    GEMMTUNE_CUDA(cudaFuncSetAttribute(reinterpret_cast<const void*>(gemm_),
                                       cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       config.smem_bytes()));
    if (config.repack) GEMMTUNE_CUDA(cudaLibraryGetKernel(&pack_, library_, kPackKernel));
    if (config.wgmma) GEMMTUNE_CUDA(cudaLibraryGetKernel(&pack_, library_, kSplitKernel));
    if (config.prescale_c)
      GEMMTUNE_CUDA(cudaLibraryGetKernel(&prescale_, library_, kPrescaleKernel));
    // Clusters of more than 8 blocks (cluster_splits up to 16) must be opted in to.
    if (config.cluster_splits && config.split_k > 8)
      GEMMTUNE_CUDA(cudaFuncSetAttribute(reinterpret_cast<const void*>(gemm_),
                                         cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    int device = 0;
    GEMMTUNE_CUDA(cudaGetDevice(&device));
    if (config.split_tail) {
      int sms = 0;
      GEMMTUNE_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
      sms_ = sms;
    }
    int major = 0;
    GEMMTUNE_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    overlaps_ = major >= 9;
  } catch (...) {
    GEMMTUNE_CUDA_NOTHROW(cudaLibraryUnload(library_));
    throw;
  }
}

GemmKernel::~GemmKernel() { GEMMTUNE_CUDA_NOTHROW(cudaLibraryUnload(library_)); }

void GemmKernel::launch(const Problem& p, cudaStream_t stream, LaunchWorkspace* workspace) const {
  const GemmConfig& c = config_;
  long long tiles = static_cast<long long>((p.m + c.bm - 1) / c.bm) * ((p.n + c.bn - 1) / c.bn);
  if ((c.split_tail ? c.blocks_for(tiles, sms_) : tiles) > 0x7fffffffLL)
    throw Error(Status::kNotSupported, "problem has more tiles than a grid can hold");
  LaunchBuffers buffers;
  if (c.needs_workspace()) {
    if (!workspace)
      throw Error(Status::kInvalidArgument, "launching " +
                                                std::string(c.wgmma    ? "warpgroup"
                                                            : c.repack ? "repack"
                                                                       : "split-K") +
                                                " kernel " + config_name(c) +
                                                " without a workspace: pass a LaunchWorkspace");
    buffers = workspace->prepare(c, p, stream);
  }
  // The GEMM runs on the packed copies where there are any (the same stream orders them).
  Problem q = p;
  WarpgroupArgs maps{};  // warpgroup configs: the operands read in place
  if (c.wgmma) {
    // op(A)'s rows and op(B)'s columns along K: A transposed in memory unless op(A) is N, B unless
    // op(B) is T. Those stored along K already are read in place where their rows allow.
    if (c.reads_a_in_place(p)) {
      maps.a = k_major_tensor_map(p.a, p.m, p.k, p.batch, p.lda, p.stride_a, c.bm),
      maps.a_in_place = 1;
    } else {
      split_operand(pack_, p.a, p.lda, p.stride_a, p.op_a == Op::T, p.m, p.k, p.batch, c.math >= 2,
                    buffers.a, stream);
      q.a = buffers.a.data, q.lda = buffers.a.ld, q.stride_a = buffers.a.stride;
    }
    if (c.reads_b_in_place(p)) {
      maps.b = k_major_tensor_map(p.b, p.n, p.k, p.batch, p.ldb, p.stride_b, c.bn),
      maps.b_in_place = 1;
    } else {
      split_operand(pack_, p.b, p.ldb, p.stride_b, p.op_b == Op::N, p.n, p.k, p.batch, c.math >= 2,
                    buffers.b, stream);
      q.b = buffers.b.data, q.ldb = buffers.b.ld, q.stride_b = buffers.b.stride;
    }
  } else {
    if (buffers.a.data) {
      pack_operand(pack_, p.a, p.lda, p.stride_a, p.a_rows(), p.a_cols(), p.batch, buffers.a,
                   stream);
      q.a = buffers.a.data, q.lda = buffers.a.ld, q.stride_a = buffers.a.stride;
    }
    if (buffers.b.data) {
      pack_operand(pack_, p.b, p.ldb, p.stride_b, p.b_rows(), p.b_cols(), p.batch, buffers.b,
                   stream);
      q.b = buffers.b.data, q.ldb = buffers.b.ld, q.stride_b = buffers.b.stride;
    }
  }
  GemmArgs args = kernel_args_of(q, buffers.tile_counters);
  void* params[] = {&args, &maps};  // the warpgroup entry point takes both (sgemm_wgmma)
  if (c.prescale_c) {  // C = beta C first; one thread per element, up to 1024 blocks of 256
    const long long elements = static_cast<long long>(p.m) * p.n * p.batch;
    cudaLaunchConfig_t scale{};
    scale.gridDim = dim3(unsigned(std::min<long long>((elements + 255) / 256, 1024)));
    scale.blockDim = dim3(256);
    scale.stream = stream;
    void* scale_params[] = {&args};
    GEMMTUNE_CUDA(
        cudaLaunchKernelExC(&scale, reinterpret_cast<const void*>(prescale_), scale_params));
  }
  // split_tail: the tiles of whole rounds of one per SM unsplit, the rest split_k times
  // (BlockWork::of_split_tail).
  cudaLaunchConfig_t launch{};
  launch.gridDim = c.split_tail ? dim3(unsigned(c.blocks_for(tiles, sms_)), 1, 1)
                                : dim3(unsigned(tiles), 1, unsigned(p.batch * c.split_k));
  launch.blockDim = dim3(c.threads());
  launch.dynamicSmemBytes = size_t(c.smem_bytes());
  launch.stream = stream;
  // After a split copy the warpgroup kernel starts while the copy's last blocks run, and waits
  // for the copy where it first reads it (griddepcontrol, wgmma.cuh); a prescale_c kernel
  // likewise after the scaling of C, which it waits for before its first add (epilogue.cuh).
  cudaLaunchAttribute early{};
  early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  early.val.programmaticStreamSerializationAllowed = 1;
  if (c.wgmma && (q.a != p.a || q.b != p.b)) launch.attrs = &early, launch.numAttrs = 1;
  if (c.prescale_c && overlaps_) launch.attrs = &early, launch.numAttrs = 1;
  // cluster_splits: a tile's SPLIT_K blocks (consecutive in z) are one cluster.
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = 1, cluster.val.clusterDim.y = 1,
  cluster.val.clusterDim.z = unsigned(c.split_k);
  if (c.cluster_splits) launch.attrs = &cluster, launch.numAttrs = 1;
  GEMMTUNE_CUDA(cudaLaunchKernelExC(&launch, reinterpret_cast<const void*>(gemm_), params));
  GEMMTUNE_CUDA(cudaGetLastError());
}

std::unique_ptr<GemmKernel> build_kernel(const GemmConfig& config, const std::string& arch) {
  CompileResult r = compile_config(config, arch);
  if (!r.ok)
    throw Error(Status::kCompileError, "compiling " + config_name(config) + " failed:\n" + r.log);
  return std::make_unique<GemmKernel>(config, r.cubin, r.lowered_name);
}

}  // namespace gemmtune
