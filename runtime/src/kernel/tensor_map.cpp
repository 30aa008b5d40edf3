#include "tensor_map.hpp"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <mutex>
#include <string>

#include "gemmtune/error.hpp"

namespace gemmtune {

static_assert(sizeof(TensorMap) == sizeof(CUtensorMap) && alignof(TensorMap) >= 64,
              "TensorMap (kernel_args.h) must be the driver's CUtensorMap");

namespace {
// The driver's encoder, through the runtime (the library does not link the driver API).
PFN_cuTensorMapEncodeTiled_v12000 encoder() {
  static PFN_cuTensorMapEncodeTiled_v12000 fn = nullptr;
  static std::once_flag once;
  std::call_once(once, [] {
    void* sym = nullptr;
    cudaDriverEntryPointQueryResult found{};
    GEMMTUNE_CUDA(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &sym, 12000,
                                                   cudaEnableDefault, &found));
    if (found == cudaDriverEntryPointSuccess)
      fn = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(sym);
  });
  if (!fn)
    throw Error(
        Status::kCudaError,
        "the CUDA driver has no cuTensorMapEncodeTiled (a driver for CUDA 12 or newer is needed)");
  return fn;
}
}  // namespace

TensorMap k_major_tensor_map(const float* base, long long rows, long long k, long long batch,
                             long long ld, long long stride, int box_rows) {
  // Innermost first: K, rows, matrices. A single matrix's stride is never used; the driver still
  // wants one that steps past the matrix.
  const cuuint64_t dims[3] = {cuuint64_t(k), cuuint64_t(rows), cuuint64_t(batch)};
  const cuuint64_t strides[2] = {cuuint64_t(ld) * 4,
                                 cuuint64_t(batch > 1 ? stride : ld * rows) * 4};
  const cuuint32_t box[3] = {32, cuuint32_t(box_rows), 1}, steps[3] = {1, 1, 1};
  TensorMap map{};
  const CUresult r =
      encoder()(reinterpret_cast<CUtensorMap*>(&map), CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3,
                const_cast<float*>(base), dims, strides, box, steps, CU_TENSOR_MAP_INTERLEAVE_NONE,
                CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw Error(Status::kCudaError, "cuTensorMapEncodeTiled refused a " + std::to_string(rows) +
                                        " x " + std::to_string(k) + " operand (leading dimension " +
                                        std::to_string(ld) + "): CUresult " +
                                        std::to_string(int(r)));
  return map;
}

}  // namespace gemmtune
