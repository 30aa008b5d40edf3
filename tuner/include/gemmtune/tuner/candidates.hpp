#pragma once
// The candidate configs of one problem: the family's valid space for the GPU, narrowed to what
// can run the problem and can plausibly win.
#include <string>
#include <vector>

#include "gemmtune/config.hpp"
#include "gemmtune/device.hpp"
#include "gemmtune/problem.hpp"

namespace gemmtune::tuner {

/// Which part of the valid space a sweep searches.
enum class SpaceKind {
  full,     ///< every valid config (tens of thousands per layout)
  reduced,  ///< a small, well-chosen subset: a sweep of a few problems finishes in minutes
};

/// Parses "full" or "reduced"; throws Error(kInvalidArgument) otherwise.
SpaceKind parse_space(const std::string& text);

/// Whether `c` belongs to the reduced space: bk 8 or 16, pad 4, raster 8, stages 2 or 3,
/// tm and tn 4, 8 or 16 (at most 2:1), bm and bn 32 to 256 (at most 2:1), warps of 4x8 or 8x4
/// threads, 128 or 256 threads, split_k 1 or 8, occupancy 1 or 2.
bool in_reduced_space(const GemmConfig& c);

/// Whether split_k = `split_k` makes sense for `p` on a GPU with `sm_count` SMs at block tile
/// bm x bn x bk: 1 always; more only when the output tiles (times batch) cannot fill twice the
/// SMs, and every split still gets at least four K slices of bk.
bool split_k_useful(const Problem& p, int bm, int bn, int bk, int split_k, int sm_count);

/// The candidates for `p` out of `valid` (valid_space() of p's layout): those that can_implement
/// p, whose vec equals p's alignment (a narrower vector is never faster on the same data, it only
/// issues more load instructions), with a useful split_k, and in the reduced space if asked.
std::vector<GemmConfig> candidate_configs(const std::vector<GemmConfig>& valid, const Problem& p, int sm_count,
                                          SpaceKind space);

}  // namespace gemmtune::tuner
