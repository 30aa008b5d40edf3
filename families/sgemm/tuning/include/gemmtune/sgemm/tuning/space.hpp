#pragma once
// The search space of the FP32 GEMM family: every combination of the values kSgemmKnobs lists
// (families/sgemm/include/gemmtune/sgemm/knobs.hpp), and the subsets the tuner and the tests start
// from.
#include <cstddef>
#include <functional>
#include <vector>

#include "gemmtune/sgemm/config.hpp"

namespace gemmtune::tuner {

/// Number of combinations of the knobs' values for one layout, valid or not.
std::size_t full_space_size();

/// The combinations that GemmConfig::validate() accepts on `limits`, for one layout; given
/// `keep`, only those it keeps too. `keep` runs during the walk, before validate() (a cheap
/// filter first saves most validations), on valid and invalid combinations alike; a caller that
/// needs a small part never holds the whole space (6.3 million configs per layout on sm_90, 4 s
/// and 600 MB to build).
std::vector<GemmConfig> valid_space(const DeviceLimits& limits, Op op_a, Op op_b,
                                    const std::function<bool(const GemmConfig&)>& keep = {});

/// A small deterministic sample of valid_space() that takes every value of every knob at least
/// once, each time in the valid config closest to the default: for compile and correctness
/// tests and `gemmtune space --sample`. `visit`, when given, sees every combination of the walk
/// (`gemmtune space` counts them to show its progress).
std::vector<GemmConfig> coverage_sample(const DeviceLimits& limits, Op op_a, Op op_b,
                                        const std::function<void(const GemmConfig&)>& visit = {});

}  // namespace gemmtune::tuner
