#pragma once
// The registers a thread of a config needs at least, in one place: GemmConfig::validate()
// refuses a config whose floor exceeds its __launch_bounds__ budget, and the tuner's cost model
// estimates occupancy from it (with terms of its own, calibrated on recorded timings).
#include "gemmtune/sgemm/config.hpp"

namespace gemmtune {

/// What the floor counts besides the accumulators and the A and B fragments. The defaults are
/// validate()'s.
struct RegisterFloorTerms {
  /// Sets of bk x (tm + tn) values a reduction lane holds (validate(): the step it computes and
  /// the next one in flight).
  int reduction_sets = 2;
  /// Whether a warpgroup (wgmma) config of one or two stages counts a plain tile's
  /// register-staged prefetch (validate(): no, its tiles come through bulk copies).
  bool warpgroup_staging = false;
  /// Addressing, indices and loop state.
  int addressing = 16;
};

/// The registers per thread `c` needs at least: its accumulators (two sets where a 3xTF32 or
/// finer split keeps the correction terms apart, math >= 3), one fragment of A and of B, the
/// prefetch staged in registers (a reduction's steps, a streamed B's stages, a two-stage tile's
/// share of the next tiles) and addressing, counted as `terms` says. A floor: a config within it
/// may still spill, which the compiled kernel's resource report tells.
int register_floor(const GemmConfig& c, const RegisterFloorTerms& terms = {});

}  // namespace gemmtune
