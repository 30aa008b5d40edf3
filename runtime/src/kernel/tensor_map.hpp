#pragma once
// Tensor maps for the copy unit (TMA): how a warpgroup kernel reads an operand in place.
#include "gemmtune/kernel_args.h"

namespace gemmtune {

/// The map of `batch` matrices of `rows` x `k` floats, element (r, i) at base[r * ld + i], matrices
/// `stride` floats apart, read in boxes of `box_rows` x 32 floats with the 128-byte swizzle of the
/// warpgroup kernel's shared memory (families/sgemm/kernels/wgmma.cuh), zeros past the edges. Needs
/// what GemmConfig::reads_a_in_place checks (16-byte aligned base, ld and stride multiples of 4)
/// and box_rows <= 256. Throws Error(kCudaError) when the driver refuses it.
TensorMap k_major_tensor_map(const float* base, long long rows, long long k, long long batch,
                             long long ld, long long stride, int box_rows);

}  // namespace gemmtune
