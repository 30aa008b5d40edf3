#include "gemmtune/sgemm/tuning/candidates.hpp"
#include <algorithm>
#include <bit>

namespace gemmtune::tuner {

bool in_reduced_space(const GemmConfig& c) {
  auto among = [](int v, std::initializer_list<int> values) {
    for (int x : values)
      if (v == x) return true;
    return false;
  };
  // What the hand sweeps on an H200 found to matter: thread tiles of 4-16 (2 for the thinnest
  // and the 16x16 block tiles), 64-256 threads, square-ish warp grids, bk 8-32, stages 2-3,
  // split-K for the few-tile problems up to 512 splits (split_k_useful() decides per problem:
  // 256 and 512 were no faster on 64x64x65536 or 1x4096x4096, but 64x64x262144 runs 1.5x faster
  // with 256 than with 128); padding and rasterization fixed.
  if (c.wgmma) {
    // Measured on an H200 at 4096^3 (docs/PERFORMANCE.md): 128x128 and 128x256 tiles fastest,
    // 64-row ones slower, stages 3 faster than 2. Math 1 and 3 only: math 2 is no faster than 3
    // (89.1 against 89.5 TFLOP/s) and its error (2.9e-5) keeps it from the fp32 policy; math 4's
    // fourth product is past FP32 accuracy already.
    return among(c.bm, {64, 128}) && among(c.bn, {64, 128, 256}) && c.stages >= 3 &&
           (c.math == 1 || c.math == 3) && c.raster == 8 && c.occupancy == 1;
  }
  if (c.uses_tensor_cores()) {
    // Measured on an H200 at 4096^3 (docs/PERFORMANCE.md): the cp.async ring (the register path
    // was slower), bk 16-32, warp tiles of 64x32 or 32x64 (64x64 for math 1: the others keep a
    // second set of accumulators), 128-256 threads. No math 2: its error (all three
    // products in the instruction's accumulators) kept it out of the fp32 policy on every problem
    // of the sweeps of 2026-11-24, where it took fp32 budget and left the FMA kernel to run.
    const bool warp_ok = (c.wm == 64 && c.wn == 32) || (c.wm == 32 && c.wn == 64) ||
                         (c.wm == 64 && c.wn == 64 && c.math == 1);
    return c.math != 2 && c.stages >= 3 && among(c.bk, {16, 32}) && warp_ok &&
           among(c.threads(), {128, 256}) && c.raster == 8 && c.occupancy == 1;
  }
  if (c.reduces()) {
    // Up to 8 outputs per lane, 1-8 warps (16 in a dot's block, below); split-K up to 512 blocks (a dot product has one
    // output). Warps along K only with 16 or 32 lanes along K: with fewer (the matrix stored
    // along the outputs) they measured no faster on an H200 and their numbers cost the sweep
    // better configs. Blocks up to 256 threads, and a dot product's one output also in 512
    // (16 warps of 32 lanes) with the register budget of two blocks an SM: 1x1x100000 on an
    // H200 in 16 such blocks of one cluster 5.6-5.9 us with 56 registers, 6.5-6.7 with the 64 of
    // occupancy 1, 6.0-6.1 in 1024-thread blocks and 6.3-7.3 in 256 (docs/PERFORMANCE.md,
    // entry of 2026-11-29). Up to 16 splits (one cluster's): with 64-512 splits the model
    // ranked such blocks first on dots of 1e6 and more, and 3 s sweeps there came out 4-5% slower.
    const bool dot_block = c.bm * c.bn == 1 && c.k_lanes == 32 && c.k_warps == 16 &&
                           c.occupancy == 2 && c.split_k <= 16;
    return c.tm * c.tn <= 8 && (c.k_warps == 1 || c.k_lanes >= 16) &&
           (c.threads() <= 256 || dot_block) && (c.occupancy == 1 || c.threads() >= 128);
  }
  const int min_t = std::min(c.tm, c.tn), max_t = std::max(c.tm, c.tn);
  const int min_b = std::min(c.bm, c.bn), max_b = std::max(c.bm, c.bn);
  // Streamed B with one register set (stages 1): more blocks per SM in the registers of two sets.
  const bool slice_ok = (c.stages == 2 && among(c.bk, {8, 16})) ||
                        (c.stages == 3 && among(c.bk, {16, 32})) ||
                        (c.stages == 1 && c.streams_b() && among(c.bk, {8, 16, 32}));
  // 96, 192: the blocks of three warp rows or columns (48- and 96-row or column tiles).
  const bool common = slice_ok && c.pad == 4 && c.raster == 8 &&
                      among(c.threads(), {64, 96, 128, 192, 256}) &&
                      (c.occupancy == 1 || c.tm * c.tn <= 64);
  if (!common) return false;
  if (c.bm <= 8) return c.wm == c.bm && among(c.tn, {4, 8}) && c.bn >= 64;  // thin: one warp row
  if (c.bn <= 8) return c.wn == c.bn && among(c.tm, {4, 8}) && c.bm >= 64;  // thin: one warp column
  // Thread tiles of 2 only for the 16x16 tiles of matrices that small (64 threads).
  const bool thread_tile_ok = among(max_t, {4, 8, 16}) || (max_t == 2 && max_b <= 16);
  return thread_tile_ok && max_t <= 2 * min_t && among(c.wm / c.tm, {4, 8}) &&
         (max_b <= 2 * min_b || min_b <= 48);
}

// Rows (or columns) a tile of `side` leaves idle over a problem side of `length`.
static long long overhang(long long length, int side) {
  return (length + side - 1) / side * side - length;
}

// A tile side of three warp tiles (48, 96) where the problem's side takes one or two of them
// and the power-of-two tile a third wider would leave more of its rows idle (33 rows: one 48-row
// tile idles 15, one 64-row tile 31). Elsewhere the power-of-two tiles cover as well.
static bool three_warp_side_suits(long long length, int side) {
  return std::has_single_bit(unsigned(side)) ||
         (length <= 2 * side && overhang(length, side) < overhang(length, side / 3 * 4));
}

// Blocks of bm x bn tiles over the problem's batch; in double, as sizes near INT32_MAX and huge
// batches overflow 64 bits (it is only compared with a few waves of SMs).
static double tile_count(const Problem& p, int bm, int bn) {
  const long long m = p.m, n = p.n;
  return double((m + bm - 1) / bm) * double((n + bn - 1) / bn) * p.batch;
}

static int pow2_at_least(long long v) {
  int p = 1;
  while (p < v && p < (1 << 30)) p *= 2;
  return p;
}

bool tile_suits(const GemmConfig& c, const Problem& p, int sm_count) {
  if (c.reduces()) {
    // Only for vector-like outputs (dot products, matrix-vector products: M or N at most 8),
    // with no lanes past M or N.
    return std::min(p.m, p.n) <= 8 && c.bm <= pow2_at_least(p.m) && c.bn <= pow2_at_least(p.n);
  }
  // Both M and N tiny (dot products and the like): tiles leave nearly every lane idle, and the
  // reductions are the ones to time (a dot product of 1e5 has thousands of tile candidates).
  if (p.m <= 8 && p.n <= 8) return false;
  // A tile past the problem's side rounded up to a power of two idles lanes in every block that a
  // smaller tile would not (32x32x32 b4096 tt on an H200: 0.68x cuBLAS with the 64x64 tiles it
  // was given).
  if (p.m > 8 && c.bm > pow2_at_least(p.m)) return false;
  if (p.n > 8 && c.bn > pow2_at_least(p.n)) return false;
  if (!three_warp_side_suits(p.m, c.bm) || !three_warp_side_suits(p.n, c.bn)) return false;
  // Tiles under 64x64 (more shared-memory traffic per FMA) only where 64x64 tiles leave the
  // GPU short of blocks or would overhang a side of the problem.
  if (c.bm * c.bn < 64 * 64 && std::min(p.m, p.n) >= 64 && tile_count(p, 64, 64) >= 4.0 * sm_count)
    return false;
  // A tile much narrower on one side pays off only where the problem is narrow on that side.
  if (c.bm <= 8 && p.m > 8) return false;
  if (c.bn <= 8 && p.n > 8) return false;
  if (c.bm * 2 < c.bn && p.m > 256) return false;
  if (c.bn * 2 < c.bm && p.n > 256) return false;
  return true;
}

bool split_k_useful(const Problem& p, int bm, int bn, int bk, int split_k, int sm_count,
                    int threads, bool reduction) {
  if (split_k == 1) return true;
  const double tiles = tile_count(p, bm, bn);
  // Enough blocks already: splitting K only adds atomics.
  if (tiles >= 2.0 * sm_count) return false;
  // Beyond two waves of fully occupied SMs more splits only add atomics.
  if (tiles * split_k * threads > 2.0 * 2048 * sm_count) return false;
  // Tiles loop over K, so each split gets at least four slices. A reduction's split needs only
  // one step (`bk` is then its lanes' and warps' whole step): a dot product is latency-bound,
  // and more blocks of one step each put every load in flight at once (1x1x100000 on an H200:
  // 8.6 us with 64 splits of four steps, 6.6 us with 256 splits of one).
  return p.k >= split_k * bk * (reduction ? 1 : 4);
}

bool split_tail_useful(const GemmConfig& c, const Problem& p, int sm_count) {
  if (c.split_k < 2 || c.split_k > 16 || c.reduces() || c.streams_b() || p.batch != 1) return false;
  // Square-ish tiles of problems at least 64 on each side: on a few rows or columns the
  // bandwidth rules, and the twins only crowded out the reductions (3x50000x512 nt on an H200:
  // 59 twins timed at 53 us in a 10 s budget, the reduction that ran 37 us not at all).
  if (std::min(p.m, p.n) < 64 || std::min(c.bm, c.bn) < 32) return false;
  // One to eight rounds of one tile per SM: past that the last round's idle SMs cost little.
  // Each split gets at least four slices, as for split-K.
  const double tiles = tile_count(p, c.bm, c.bn);
  return tiles >= sm_count && tiles <= 8.0 * sm_count && p.k >= 4LL * c.split_k * c.bk;
}

std::vector<GemmConfig> candidate_configs(const std::vector<GemmConfig>& valid, const Problem& p,
                                          int sm_count, SpaceKind space, Precision precision) {
  std::vector<GemmConfig> out;
  // vec 4, each operand's accesses then narrowed to what its data allows (fitted_to): a narrower
  // vec gives the same kernel or a slower one. Where the data is not aligned, also the tiles too
  // narrow for 4-float vectors, at the vec the data allows.
  for (const auto& valid_config : valid) {
    if (valid_config.precision() != precision) continue;
    const GemmConfig c = valid_config.fitted_to(p);
    int allowed = std::min(p.b_alignment(), p.c_alignment());  // the widest vec the data allows
    if (c.reads_a_in_vectors()) allowed = std::min(allowed, p.a_alignment());
    if (c.vec != 4 && (c.vec != allowed || c.tiles_hold_vectors_of(4))) continue;
    if (space == SpaceKind::reduced && !(in_reduced_space(c) && tile_suits(c, p, sm_count)))
      continue;
    // A reduction's block reads bk values per lane and step: bk * k_lanes * k_warps of K.
    const bool split_all = split_k_useful(p, c.bm, c.bn, c.bk * c.k_sharers(), c.split_k, sm_count,
                                          c.threads(), c.reduces());
    const bool split_tail = split_tail_useful(c, p, sm_count);
    if (!split_all && !split_tail) continue;
    if (c.can_implement(p)) continue;
    // Copying a misaligned A or B first may beat reading it narrowly, and writing a narrowed C
    // through shared memory or in aligned windows may beat writing it one float at a time: each
    // way is timed. Fitting clears repack where it would pack nothing (reductions never repack)
    // and stage_c and window_c where C is not narrowed.
    GemmConfig packed = valid_config;
    packed.repack = true;
    packed = packed.fitted_to(p);
    const bool pack = !c.reduces() && packed.repack && !packed.can_implement(p);
    // Splitting every tile and only the tiles past whole rounds (split_tail) are timed apart too.
    auto push = [&](GemmConfig variant) {
      if (split_all) out.push_back(variant);
      variant.split_tail = true;
      if (split_tail) out.push_back(variant);
    };
    // The model ranks the three ways of writing C alike, so their order here is the order the
    // search meets them in: windows first (the faster on three of four odd problems measured on
    // an H200), then direct, then staged.
    auto add = [&](GemmConfig variant) {
      GemmConfig staged = variant, windowed = variant;
      staged.stage_c = true, windowed.window_c = true;
      staged = staged.fitted_to(p), windowed = windowed.fitted_to(p);
      // Each also with the barrier before the last k-step (early_barrier): faster or slower by
      // up to a third depending on tile and problem (H200), so timed as a variant.
      auto push_with_twin = [&](GemmConfig way) {
        push(way);
        way.early_barrier = true;
        if (way.can_barrier_early()) push(way);
      };
      if (windowed.window_c && !windowed.can_implement(p)) push_with_twin(windowed);
      push_with_twin(variant);
      if (staged.stage_c && !staged.can_implement(p)) push_with_twin(staged);
    };
    // A split reduction or streamed thin tile also with C scaled by a kernel before it (short
    // kernels: a dot product, a matrix-vector product), timed first.
    if ((c.reduces() || c.streams_b()) && c.split_k > 1) {
      GemmConfig prescaled = c;
      prescaled.prescale_c = true;
      push(prescaled);
    }
    add(c);
    if (pack) add(packed);
    // A reduction reading its matrix in narrowed runs also with plain loads (plain_narrow_runs;
    // its `_z`, `_d` and `_x` twins not: those pairs have not run on a GPU).
    if (c.narrows_read_once_runs(p)) {
      GemmConfig plain = c;
      plain.plain_narrow_runs = true;
      push(plain);
    }
    // A split reduction also as its deterministic twins, which a deterministic dispatcher runs:
    // the last split adding the sums from the workspace, and (up to 16 splits) the splits as one
    // cluster's blocks adding them in distributed shared memory, which GPUs without clusters drop
    // (sweep_candidates validates every candidate against the device).
    if (c.reduces() && c.split_k > 1) {
      GemmConfig ordered = c;
      ordered.ordered_splits = true;
      push(ordered);
      if (c.split_k <= 16) {
        GemmConfig clustered = c;
        clustered.cluster_splits = true;
        push(clustered);
      }
    }
  }
  return out;
}

}  // namespace gemmtune::tuner
