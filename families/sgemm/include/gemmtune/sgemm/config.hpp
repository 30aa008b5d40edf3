#pragma once
// GemmConfig: one point of the FP32 GEMM kernel family's search space
// (families/sgemm/kernels/sgemm.cuh). This is the only definition of what a valid configuration is:
// the tuner prunes with validate(), the dispatcher rejects stale database rows with it, tests call
// it.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gemmtune/device.hpp"
#include "gemmtune/precision.hpp"
#include "gemmtune/problem.hpp"
#include "gemmtune/sgemm/knobs.hpp"
#include "gemmtune/sgemm/shapes.hpp"

namespace gemmtune {

/// One kernel instance: the family's knob values and variant flags (gemmtune/sgemm/knobs.hpp,
/// where kSgemmTable says what each means) for one layout and data alignment. The defaults are a
/// sound general-purpose kernel.
struct GemmConfig : SgemmKnobs, SgemmFlags {
  Op op_a = Op::N;  ///< op(A): the kernel instance is specialised for the layout
  Op op_b = Op::N;  ///< op(B)
  /// The alignment (4, 2 or 1 floats) of the data the instance is built for, per operand: global
  /// accesses of an operand are width_a/b/c() = min(vec, alignment) floats wide, so that an odd
  /// leading dimension narrows only the accesses of its own operand (the inner loop reads shared
  /// memory as wide as ever). Not knobs: they follow from the data (fitted_to()). 4 means "does
  /// not narrow"; the name shows them only when one narrows ("_g4x1x1").
  int align_a = 4, align_b = 4, align_c = 4;

  /// Whether the block tiles hold whole `v`-float vectors along each operand's contiguous
  /// dimension (a tile that streams B reads A one float at a time).
  bool tiles_hold_vectors_of(int v) const;
  /// Thread tiles per warp: 32 lanes / k_lanes (32 for the tile kernels).
  int warp_slots() const;
  /// Whether A is read in vectors at all: a config streaming B reads it one float at a time.
  bool reads_a_in_vectors() const;
  /// Threads per block.
  int threads() const;
  /// The kernel path (families/sgemm/include/gemmtune/sgemm/shapes.hpp): which mainloop the
  /// instance runs and which of validate()'s rules apply. A knob derived from the others
  /// (kernel_path()), so it has no place in the name: the names of every path stay as they were.
  KernelPath path() const {
    return kernel_path(bm, tm, stages, k_lanes, k_warps, math, wgmma, op_b == Op::T);
  }
  /// Whether the kernel streams B from global memory into registers instead of staging tiles in
  /// shared memory (KernelPath::streamed_tile): thin tiles whose rows all belong to each thread
  /// (bm <= 8, tm == bm) with B not transposed (matrix-vector-like problems), not a reduction. bk
  /// is then the K rows loaded per step (two steps in flight).
  bool streams_b() const { return path() == KernelPath::streamed_tile; }
  /// Whether this is the reduction path (KernelPath::reduction: k_lanes or k_warps > 1): each
  /// output's K range is shared by k_lanes lanes of each of k_warps warps that read A and B
  /// straight from global memory, bk values per lane and step, and sum with shuffles, then
  /// through shared memory (dot products, matrix-vector products).
  bool reduces() const { return path() == KernelPath::reduction; }
  /// Whether the same inputs give the same bits on every run: true unless split-K, whose splits
  /// add their parts to C atomically in the order they finish
  /// (families/sgemm/kernels/epilogue.cuh), or ordered_splits or cluster_splits. The reduction path
  /// sums in a fixed order.
  bool deterministic() const { return split_k <= 1 || ordered_splits || cluster_splits; }
  /// Whether the products run on tensor cores (math > 0: TF32 mma.sync,
  /// families/sgemm/kernels/mma.cuh, or with wgmma = 1 the warpgroup instruction,
  /// families/sgemm/kernels/wgmma.cuh).
  bool uses_tensor_cores() const { return tensor_core_math(math); }
  /// The precision class of its results: ieee (math 0), fp32 (3xTF32: math 2-4), tf32 (math 1).
  Precision precision() const {
    return math == 0 ? Precision::ieee : math == 1 ? Precision::tf32 : Precision::fp32;
  }
  /// Lanes of a block sharing each output's K range: k_lanes x k_warps.
  int k_sharers() const { return k_lanes * k_warps; }
  /// Whether a launch of this config on `p` copies A (B) first: a repack config whose accesses of
  /// that operand its data would narrow (a config that reads A one float at a time never packs A).
  /// The copy finds batches by stride, so matrices in pointer arrays (Problem::pointer_arrays) are
  /// never packed: fitted_to() narrows their accesses instead. A warpgroup config (wgmma) never
  /// repacks: it copies the operands it does not read in place its own way (split, K-major).
  bool packs_a(const Problem& p) const;
  bool packs_b(const Problem& p) const;
  /// Whether a warpgroup config reads A (B) of `p` in place through a tensor map instead of
  /// copying it first: math 1 (nothing to split), op(A) = A (op(B) = B^T), so that the stored rows
  /// run along K as the instruction reads them, and rows the copy unit can address (16-byte
  /// aligned base, leading dimension and batch stride multiples of 4 floats, matrices apart).
  bool reads_a_in_place(const Problem& p) const;
  bool reads_b_in_place(const Problem& p) const;
  /// Whether stage_c can apply: a tile kernel (not a reduction, not streaming B) with room for
  /// the staged rows (one per lane row of each warp, of wn + 4 floats) in its shared memory.
  bool can_stage_c() const;
  /// Whether early_barrier may be set: a tile kernel (no reduction, no streamed B) with the
  /// two-stage FMA loop and threads x occupancy at most 256.
  bool can_barrier_early() const;
  /// Whether window_c can apply: a tile kernel (not a reduction) whose column chunks are whole
  /// vectors of more than one float.
  bool can_window_c() const;
  /// Whether C's accesses are narrower than a thread's column chunk (where stage_c and window_c pay).
  bool narrows_c_chunks() const;
  /// Whether this reduction on `p` reads the matrix of a matrix-vector product (the operand only
  /// its block reads, 16 or more lanes to a row, the block more than one thread tile) in runs
  /// narrowed by its alignment: where plain_narrow_runs chooses their loads.
  bool narrows_read_once_runs(const Problem& p) const;
  /// The blocks a launch of this config runs for `tiles` output tiles (times the batch) on
  /// `sms` SMs: tiles x split_k, or for split_tail the tiles of whole rounds of one per SM
  /// unsplit plus the rest split_k times.
  long long blocks_for(long long tiles, long long sms) const;
  /// Whether a launch needs a LaunchWorkspace: split-K's tile counters (not a cluster's splits),
  /// repack's copies or a warpgroup config's split copies.
  bool needs_workspace() const { return (split_k > 1 && !cluster_splits) || repack || wgmma; }
  /// Dynamic shared memory per block, bytes.
  int smem_bytes() const;
  /// Registers per thread that __launch_bounds__(threads, occupancy) leaves on this device.
  int register_budget(const DeviceLimits& limits) const;
  /// Why this config cannot run on a device with these limits, or nullopt when it can.
  std::optional<std::string> validate(const DeviceLimits& limits) const;
  /// Why this (valid) config cannot compute `p` with its pointers' alignment, or nullopt.
  std::optional<std::string> can_implement(const Problem& p) const;
  /// Floats per global access of A, B and C: vec, narrowed by the data's alignment.
  int width_a() const;
  int width_b() const;
  int width_c() const;
  /// This config with its access widths fitted to `p`'s data: each operand as wide as vec and
  /// its alignment allow (an operand not read in vectors is left alone; a packed one counts as
  /// aligned), and repack cleared when it packs neither A nor B. can_implement() then checks only
  /// the shape and layout.
  GemmConfig fitted_to(const Problem& p) const;
  /// The NVRTC name expression of this instance, e.g. "gemmtune::sgemm<128,128,...>".
  std::string name_expression() const;

  bool operator==(const GemmConfig&) const = default;
};

/// The procedural name: the layout and every knob in kSgemmKnobs's order, each after its name
/// prefix, e.g. "sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8" (knobs added later appear only
/// away from their default: "_o2"), then "_g" and the access widths of A, B and C when the
/// data's alignment narrows one of them: "..._r8_g4x1x1", then "_q" for a repack config:
/// "..._r8_g4x4x1_q". It is the log id, the database's config key and round-trips
/// through parse_config_name().
std::string config_name(const GemmConfig& c);

/// Parses a procedural name back into a config; nullopt when it is not one.
std::optional<GemmConfig> parse_config_name(const std::string& name);

/// A built-in default that validates on every supported architecture and runs any problem of
/// the layout (fitted to its data's alignment).
GemmConfig default_config(const DeviceLimits& limits, const Problem& p);

}  // namespace gemmtune
