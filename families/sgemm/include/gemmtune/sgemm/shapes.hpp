#pragma once
// The kernel paths of the FP32 GEMM family (families/sgemm/kernels/sgemm.cuh) and the shapes that
// follow from an instance's knobs: the one definition of both for the templates, which NVRTC
// compiles (Traits in kernels/tiles.cuh, Mainloop in kernels/mainloops.cuh, WgmmaMainloop in
// kernels/wgmma.cuh), and for the host (GemmConfig::path, smem_bytes, validate and the helpers
// fitted_to asks). Constexpr functions on integers: it is embedded in the family's NVRTC source
// after kernel_args.h (families/CMakeLists.txt), and host code includes it as
// gemmtune/sgemm/shapes.hpp. Sizes are 64-bit: the host computes them for configs not validated
// yet, whose knobs may be as large as 65536.

// NVRTC compiles device code only and refuses functions not marked for it; the host compiler sees
// plain constexpr functions. Undefined again at the end of the file.
#if defined(__CUDACC__)
#define GEMMTUNE_SHAPE_FN __host__ __device__ constexpr
#else
#define GEMMTUNE_SHAPE_FN constexpr
#endif

namespace gemmtune {

/// How an instance computes: which mainloop runs (families/sgemm/kernels/mainloops.cuh, Mainloop),
/// and which of GemmConfig::validate()'s rules apply. Decided by kernel_path() from the knobs; not
/// a knob itself, and not part of a config's name.
enum class KernelPath : int {
  /// FP32 FMA on shared-memory tiles, stages 1 and 2 filled through registers
  /// (RegisterPrefetchMainloop).
  register_tile,
  /// FP32 FMA on shared-memory tiles, 3 or 4 stages filled by cp.async (CpAsyncMainloop).
  cp_async_tile,
  /// A thin tile with every row in each thread (bm <= 8, tm == bm, B not transposed): B streams
  /// from global memory into registers, no shared memory (StreamingMainloop).
  streamed_tile,
  /// k_lanes or k_warps > 1: lanes and warps share each output's K range and sum by shuffles and
  /// through shared memory; no shared-memory tiles (ReductionMainloop).
  reduction,
  /// Tensor cores by mma.sync (math 1 to 4) on shared-memory tiles: the register or cp.async
  /// mainloop by stages, with the tensor-core step (families/sgemm/kernels/mma.cuh).
  mma_sync,
  /// Tensor cores by Hopper's warpgroup instruction (wgmma 1; WgmmaMainloop).
  warpgroup,
};

/// Whether a shared-memory tile mainloop fills its stages by cp.async (3 or more stages) rather
/// than through registers.
GEMMTUNE_SHAPE_FN bool fills_by_cp_async(int stages) { return stages >= 3; }

/// Whether the products run on tensor cores (math 1 to 4), whose accumulator layout then fixes a
/// thread's chunks and the shared-memory layout.
GEMMTUNE_SHAPE_FN bool tensor_core_math(int math) { return math > 0; }

/// The path of an instance with these knobs (b_transposed: op(B) = B^T). The first that applies:
/// the reduction knobs, a thin tile that can stream B, the warpgroup instruction, tensor-core math,
/// then the depth of the pipeline. The paths' knobs exclude each other where validate() accepts
/// a config (a tensor-core config is no reduction and has 16-row warp tiles, a warpgroup config
/// has tensor-core math), so the order only decides which rules judge an invalid config.
GEMMTUNE_SHAPE_FN KernelPath kernel_path(int bm, int tm, int stages, int k_lanes, int k_warps,
                                         int math, int wgmma, bool b_transposed) {
  if (k_lanes > 1 || k_warps > 1) return KernelPath::reduction;
  if (bm <= 8 && tm == bm && !b_transposed) return KernelPath::streamed_tile;
  if (wgmma != 0) return KernelPath::warpgroup;
  if (tensor_core_math(math)) return KernelPath::mma_sync;
  return fills_by_cp_async(stages) ? KernelPath::cp_async_tile : KernelPath::register_tile;
}

/// Warps that own the block tile's outputs (k_warps > 1 repeats them along K).
GEMMTUNE_SHAPE_FN long long output_warps(int bm, int bn, int wm, int wn) {
  return 1LL * (bm / wm) * (bn / wn);
}
/// Threads per block.
GEMMTUNE_SHAPE_FN long long block_threads(int bm, int bn, int wm, int wn, int k_warps) {
  return output_warps(bm, bn, wm, wn) * 32 * k_warps;
}

/// A thread's accumulator rows: math 3 and 4 sum each slice in tm rows of their own.
GEMMTUNE_SHAPE_FN int accumulator_rows(int math, int tm) { return math >= 3 ? 2 * tm : tm; }

/// The rows of a thread's chunks of C (Traits::VM): 1 for the tensor-core accumulator layout,
/// else up to 4.
GEMMTUNE_SHAPE_FN int chunk_rows(int math, int tm) {
  return tensor_core_math(math) ? 1 : tm < 4 ? tm : 4;
}
/// The columns of a thread's chunks of C (Traits::VN): 2 for the tensor-core accumulator layout,
/// else up to 4. A streamed tile whose B is read narrowed (width_b floats per access) takes
/// chunks of width_b columns: a warp's load of a row of B then takes adjacent floats, whole
/// sectors, where chunks of 4 read in narrower pieces touch a sector per lane.
GEMMTUNE_SHAPE_FN int chunk_columns(KernelPath path, int math, int tn, int width_b) {
  if (tensor_core_math(math)) return 2;
  const int chunk = tn < 4 ? tn : 4;
  return path == KernelPath::streamed_tile && width_b < chunk ? width_b : chunk;
}

/// Row strides (floats) of the shared-memory slices of A and B (Traits::LDA, LDB). The FMA step
/// reads both K-major (As[k][m], Bs[k][n]) with `pad` floats per row against bank conflicts; the
/// tensor-core step keeps each operand as it lies in global memory, K-contiguous ones as rows of
/// bk + 4 floats, the others as rows of x + 8, so that its fragment reads hit 32 banks.
GEMMTUNE_SHAPE_FN int smem_row_a(int math, bool a_transposed, int bm, int bk, int pad) {
  return !tensor_core_math(math) ? bm + pad : a_transposed ? bm + 8 : bk + 4;
}
GEMMTUNE_SHAPE_FN int smem_row_b(int math, bool b_transposed, int bn, int bk, int pad) {
  return !tensor_core_math(math) ? bn + pad : b_transposed ? bk + 4 : bn + 8;
}
/// Floats of one pipeline stage of A and of B in shared memory (Traits::kStageA, kStageB).
GEMMTUNE_SHAPE_FN long long stage_floats_a(int math, bool a_transposed, int bm, int bk, int pad) {
  return 1LL * (tensor_core_math(math) && !a_transposed ? bm : bk) *
         smem_row_a(math, a_transposed, bm, bk, pad);
}
GEMMTUNE_SHAPE_FN long long stage_floats_b(int math, bool b_transposed, int bn, int bk, int pad) {
  return 1LL * (tensor_core_math(math) && b_transposed ? bn : bk) *
         smem_row_b(math, b_transposed, bn, bk, pad);
}

/// A row of C staged through shared memory (Epilogue::staged): wn + 4 floats, so that vector
/// writes stay aligned and rows fall on other banks.
GEMMTUNE_SHAPE_FN int staged_c_row(int wn) { return wn + 4; }
/// Floats of C the epilogue stages (GemmConfig::stage_c): one row per lane row of each warp.
GEMMTUNE_SHAPE_FN long long staged_c_floats(int bm, int bn, int wm, int wn, int tm) {
  return output_warps(bm, bn, wm, wn) * (wm / tm) * staged_c_row(wn);
}

/// The warpgroup mainloop's TF32 planes of each operand: the big part, and from math 2 on the
/// small part too.
GEMMTUNE_SHAPE_FN int warpgroup_planes(int math) { return math >= 2 ? 2 : 1; }
/// Bytes of one plane's tile of `rows` rows in a stage: one 128-byte swizzle row (32 floats of
/// K, the slice) per row.
GEMMTUNE_SHAPE_FN long long warpgroup_tile_bytes(int rows) { return 128LL * rows; }
/// Bytes of one stage of the warpgroup mainloop: every plane's tile of A and of B.
GEMMTUNE_SHAPE_FN long long warpgroup_stage_bytes(int math, int bm, int bn) {
  return warpgroup_planes(math) * (warpgroup_tile_bytes(bm) + warpgroup_tile_bytes(bn));
}
/// Dynamic shared memory of a warpgroup instance: its stages, 1024 bytes to align stage 0 to the
/// swizzle pattern, and 64 for the two 8-byte barriers of each of up to 4 stages.
GEMMTUNE_SHAPE_FN long long warpgroup_smem_bytes(int stages, int math, int bm, int bn) {
  return stages * warpgroup_stage_bytes(math, bm, bn) + 1024 + 64;
}

}  // namespace gemmtune

#undef GEMMTUNE_SHAPE_FN
