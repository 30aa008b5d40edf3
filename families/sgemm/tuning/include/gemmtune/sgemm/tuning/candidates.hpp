#pragma once
// The candidate configs of one problem: the family's valid space for the GPU, narrowed to what
// can run the problem and can plausibly win.
#include <vector>

#include "gemmtune/device.hpp"
#include "gemmtune/problem.hpp"
#include "gemmtune/sgemm/config.hpp"
#include "gemmtune/tuner/family_tuning.hpp"

namespace gemmtune::tuner {

/// Whether `c` belongs to the reduced space: pad 4, raster 8, stages 2 (bk 8, 16) or 3 (bk 16,
/// 32), 64-256 threads, occupancy 2 only for tiles of at most 64 accumulators; block tiles of
/// 16-256 with 4-16 thread tiles (at most 2:1) on 4x8 or 8x4 warp grids, or thin tiles (1-8
/// rows or columns spanned by one warp row or column, 4-8 wide thread tiles on the long side).
bool in_reduced_space(const GemmConfig& c);

/// Whether `c`'s block shape suits `p` on `sm_count` SMs: no side past p's side rounded up to a
/// power of two (above 8), tiles under 64x64 only where 64x64 tiles give fewer than 4 blocks per
/// SM or a side of p is under 64, thin tiles (<= 8) only where p has <= 8 rows (columns), tiles
/// more than 2:1 elongated only where p is at most 256 along the short side.
bool tile_suits(const GemmConfig& c, const Problem& p, int sm_count);

/// Whether split_k = `split_k` makes sense for `p` on a GPU with `sm_count` SMs at block tile
/// bm x bn x bk of `threads` threads: 1 always; more only when the output tiles (times batch)
/// cannot fill twice the SMs, the split blocks fit two waves of fully occupied SMs (2048 threads
/// each), and every split still gets at least four K slices of bk (a `reduction`'s: one step of
/// bk, its lanes' and warps' whole step).
bool split_k_useful(const Problem& p, int bm, int bn, int bk, int split_k, int sm_count,
                    int threads, bool reduction = false);

/// Whether `c`'s split_k, as a split of only the tiles past whole rounds of one tile per SM
/// (GemmConfig::split_tail), makes sense for `p`: a tile kernel of tiles 32 or more on each
/// side, split_k 2-16, one matrix 64 or more on each side of one to eight rounds of one tile per
/// SM (`sm_count` SMs), four K slices or more per split.
bool split_tail_useful(const GemmConfig& c, const Problem& p, int sm_count);

/// The candidates for `p` out of `valid` (valid_space() of p's layout), fitted to p's data
/// (GemmConfig::fitted_to): those with vec 4 (each operand's global accesses then as wide as its
/// data allows) and, where the data is not aligned, those whose tiles are too narrow for vec 4
/// at the vec the data allows; that can_implement p, with a useful split_k, and in the reduced
/// space (with a tile that suits p) if asked. Where A or B would narrow a tile candidate's
/// accesses, its repack variant (GemmConfig::repack: those operands copied aligned first) follows it;
/// a split config whose split_tail_useful() also comes as its split_tail twin (only that twin
/// where splitting every tile is not useful).
/// Only configs of precision class `precision` (GemmConfig::precision()): the sweep searches
/// each class it tunes on its own.
std::vector<GemmConfig> candidate_configs(const std::vector<GemmConfig>& valid, const Problem& p,
                                          int sm_count, SpaceKind space,
                                          Precision precision = Precision::ieee);

}  // namespace gemmtune::tuner
