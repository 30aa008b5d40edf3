#pragma once
// GemmConfig: one point of the FP32 GEMM kernel family's search space (templates/sgemm.cuh).
// This is the only definition of what a valid configuration is: the tuner prunes with
// validate(), the dispatcher rejects stale database rows with it, tests call it.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "gemmtune/device.hpp"
#include "gemmtune/knobs.hpp"
#include "gemmtune/precision.hpp"
#include "gemmtune/problem.hpp"

namespace gemmtune {

/// One kernel instance: the family's knob values (templates/include/gemmtune/knobs.hpp, where
/// kSgemmKnobs says what each means) for one layout. The defaults are a sound general-purpose kernel.
struct GemmConfig : SgemmKnobs {
  Op op_a = Op::N;  ///< op(A): the kernel instance is specialised for the layout
  Op op_b = Op::N;  ///< op(B)
  /// The alignment (4, 2 or 1 floats) of the data the instance is built for, per operand: global
  /// accesses of an operand are width_a/b/c() = min(vec, alignment) floats wide, so that an odd
  /// leading dimension narrows only the accesses of its own operand (the inner loop reads shared
  /// memory as wide as ever). Not knobs: they follow from the data (fitted_to()). 4 means "does
  /// not narrow"; the name shows them only when one narrows ("_g4x1x1").
  int align_a = 4, align_b = 4, align_c = 4;
  /// Whether a launch first copies A and B, where their data would narrow the accesses, into the
  /// workspace with rows padded to a multiple of 4 floats (packs_a/packs_b), and runs the kernel on
  /// the copies at full width. Not a knob either: the kernel binary is the aligned instance's; the
  /// name ends in "_q". fitted_to() clears it where nothing needs packing.
  bool repack = false;
  /// Whether the epilogue writes a narrowed C (an odd ldc) through shared memory, 32 adjacent
  /// floats per store instruction, instead of straight from the thread tiles, whose stores hit
  /// each 32-byte sector in several partial pieces. Which is faster depends on the problem, so
  /// the tuner times both. Not a knob: a template flag; the name ends in "_e" (before "_q").
  /// fitted_to() clears it where C is not narrowed (narrows_c_chunks()) or can_stage_c() fails.
  bool stage_c = false;
  /// Whether the epilogue writes a narrowed C as the aligned windows its rows span, each put
  /// together from two neighbouring thread chunks by a warp shuffle and stored as one vector
  /// (templates/sgemm/epilogue.cuh, Epilogue::windowed), instead of one float at a time. Not a
  /// knob: a template flag the tuner times beside the direct and staged writes (which wins
  /// depends on the config's registers); the name ends in "_c" (after "_e", which excludes it).
  /// fitted_to() clears it where C is not narrowed or can_window_c() fails.
  bool window_c = false;
  /// Whether a split reduction (split_k > 1, k_lanes or k_warps > 1) ends with each split
  /// storing its sums in the workspace and the last split adding them in split order
  /// (templates/sgemm/epilogue.cuh, Epilogue::last_split_sums): the same bits on every run,
  /// instead of every split adding to C atomically (after the first to start scaled C by beta).
  /// Slower on an H200 by 0.3-0.6 us a dot product (K = 1e5, 1e7; measured against the earlier
  /// atomic protocol), but what a deterministic dispatcher can run
  /// where a reduction must split. Not a knob: a template flag the tuner times beside the atomic
  /// protocol; the name ends in "_d" (after "_c").
  bool ordered_splits = false;
  /// Whether a split launch first scales C by beta in a kernel of its own (gemmtune_prescale_c,
  /// templates/sgemm/pack.cuh) and the splits then only add to C atomically, with no tile
  /// counters, where the protocol of split-K in one launch has every split take a ticket first.
  /// On sm_90 and newer the split kernel starts while that one runs (programmatic dependent
  /// launch) and waits for it only before its first add. Which is faster depends on the problem
  /// (on an H200 it wins on x^T B, not on a dot product), so the tuner times both. Not a knob: a
  /// template flag; the name ends in "_z" (after "_d", which excludes it).
  bool prescale_c = false;
  /// Whether a reduction reads the narrowed runs of the operand only its block reads (the
  /// matrix of a matrix-vector product whose leading dimension is odd) with plain loads instead
  /// of evict-first in L2. Which is faster depends on the problem (H200: evict-first 8% faster
  /// on 1x4095x4095 nt, plain 2-4% faster on 1x12289x4097 and 1x8191x8193 nt), so the tuner
  /// times both. Not a knob: a template flag; the name ends in "_n" (after "_z"). fitted_to()
  /// clears it where it would change nothing (narrows_read_once_runs()).
  bool plain_narrow_runs = false;
  /// Whether a split reduction's splits are the blocks of one thread-block cluster (sm_90 and
  /// newer, split_k 2 to 16) that add their sums through distributed shared memory, the first
  /// block in split order, and write C once (templates/sgemm/epilogue.cuh,
  /// Epilogue::cluster_split_sums): no workspace, no atomics, the same bits on every run. On an
  /// H200 it beat the atomic protocol on short dot products (1e4: 5.6 against 6.1 us) and lost
  /// on long ones and on x^T B, where 16 blocks draw too little bandwidth (docs/PERFORMANCE.md,
  /// twenty-first session); the deterministic protocol it replaces there (ordered_splits) is the
  /// slowest of the three. Not a knob: a template flag the tuner times as a variant of the
  /// atomic split (the model cannot tell them apart); the name ends in "_x" (after "_n").
  bool cluster_splits = false;
  /// Whether split_k splits only the tiles past the last whole round of one tile per SM: the
  /// tiles of the whole rounds run unsplit, one block each, and the few left over split K, so
  /// that every SM gets about the same work instead of a few SMs a whole tile more (1531^3 has
  /// 144 tiles of 128x128 for 132 SMs). The kernel tells the two apart from its grid size. Not a
  /// knob: a template flag the tuner times as a twin of split configs; the name ends in "_h".
  bool split_tail = false;
  /// Whether the two-stage FMA loop (stages 2, math 0, shared-memory tiles) stores the next slice
  /// and passes the barrier before the slice's last k-step, whose FMAs then run while the last
  /// warps arrive (templates/sgemm/mainloops.cuh, RegisterPrefetchMainloop), instead of storing
  /// it after all of them. Which is faster depends on the tile and the problem (H200: 64x64x16
  /// t8x8 nn 1.5x faster on 1000^3, 128x128x8 t8x8 nn 16% slower; 128x256x8 t16x8 nt 11% slower
  /// on 4096^3 and 12% faster on 4097^3), so the tuner times both. Only where a thread may have
  /// 255 registers (threads x occupancy at most 256): at 128 the order spills. Not a knob: a
  /// template flag; the name ends in "_b" (after "_h").
  bool early_barrier = false;

  /// Whether the block tiles hold whole `v`-float vectors along each operand's contiguous
  /// dimension (a tile that streams B reads A one float at a time).
  bool tiles_hold_vectors_of(int v) const;
  /// Thread tiles per warp: 32 lanes / k_lanes (32 for the tile kernels).
  int warp_slots() const;
  /// Whether A is read in vectors at all: a config streaming B reads it one float at a time.
  bool reads_a_in_vectors() const;
  /// Threads per block.
  int threads() const;
  /// Whether the kernel streams B from global memory into registers instead of staging tiles in
  /// shared memory: thin tiles whose rows all belong to each thread (bm <= 8, tm == bm) with B
  /// not transposed (matrix-vector-like problems), not a reduction. bk is then the K rows loaded
  /// per step (two steps in flight).
  bool streams_b() const;
  /// Whether this is the reduction path (k_lanes or k_warps > 1): each output's K range is
  /// shared by k_lanes lanes of each of k_warps warps that read A and B straight from global
  /// memory, bk values per lane and step, and sum with shuffles, then through shared memory
  /// (dot products, matrix-vector products).
  bool reduces() const { return k_lanes > 1 || k_warps > 1; }
  /// Whether the same inputs give the same bits on every run: true unless split-K, whose splits
  /// add their parts to C atomically in the order they finish (templates/sgemm/epilogue.cuh),
  /// or ordered_splits or cluster_splits. The reduction path sums in a fixed order.
  bool deterministic() const { return split_k <= 1 || ordered_splits || cluster_splits; }
  /// Whether the products run on tensor cores (math > 0: TF32 mma.sync, templates/sgemm/mma.cuh,
  /// or with wgmma = 1 the warpgroup instruction, templates/sgemm/wgmma.cuh).
  bool uses_tensor_cores() const { return math > 0; }
  /// The precision class of its results: ieee (math 0), fp32 (3xTF32: math 2-4), tf32 (math 1).
  Precision precision() const { return math == 0 ? Precision::ieee : math == 1 ? Precision::tf32 : Precision::fp32; }
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
