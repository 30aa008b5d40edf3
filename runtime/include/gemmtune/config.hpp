#pragma once
// GemmConfig: one point of the FP32 GEMM kernel family's search space (templates/sgemm.cuh).
// This is the only definition of what a valid configuration is: the tuner prunes with
// validate(), the dispatcher rejects stale database rows with it, tests call it.
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "gemmtune/device.hpp"
#include "gemmtune/problem.hpp"

namespace gemmtune {

/// Template parameters of one kernel instance. Defaults are a sound general-purpose kernel.
struct GemmConfig {
  int bm = 128;       ///< block tile rows of C
  int bn = 128;       ///< block tile columns of C
  int bk = 8;         ///< K slice loaded into shared memory per stage
  int wm = 64;        ///< warp tile rows (a warp's threads share A reads: no bank conflicts)
  int wn = 32;        ///< warp tile columns
  int tm = 8;         ///< thread tile rows: accumulators per thread are tm x tn
  int tn = 8;         ///< thread tile columns
  int stages = 2;     ///< shared-memory stages: 1 load-sync-compute, 2 register prefetch, >=3 cp.async
  int vec = 4;        ///< floats per global load/store (1, 2, 4); wider needs aligned data
  int pad = 4;        ///< floats of padding per shared-memory row, against bank conflicts (0 or 4)
  int split_k = 1;    ///< K slices computed by separate blocks and summed atomically into C
  int raster = 8;     ///< block rows per rasterization group, for L2 reuse (1 = row-major order)
  int occupancy = 1;  ///< blocks per SM the registers are budgeted for (__launch_bounds__ minimum)
  Op op_a = Op::N;    ///< op(A): the kernel instance is specialised for the layout
  Op op_b = Op::N;    ///< op(B)

  /// Threads per block.
  int threads() const;
  /// Whether the kernel streams B from global memory into registers instead of staging tiles in
  /// shared memory: thin tiles whose rows all belong to each thread (bm <= 8, tm == bm) with B
  /// not transposed (matrix-vector-like problems). bk is then the K rows loaded per step (two
  /// steps in flight).
  bool streams_b() const;
  /// Dynamic shared memory per block, bytes.
  int smem_bytes() const;
  /// Registers per thread that __launch_bounds__(threads, occupancy) leaves on this device.
  int register_budget(const DeviceLimits& limits) const;
  /// Why this config cannot run on a device with these limits, or nullopt when it can.
  std::optional<std::string> validate(const DeviceLimits& limits) const;
  /// Why this (valid) config cannot compute `p` with its pointers' alignment, or nullopt.
  std::optional<std::string> can_implement(const Problem& p) const;
  /// The widest vec this config may use on `p`: the problem's alignment class, except that a
  /// config streaming B reads A one float at a time, so only B and C count.
  int widest_vec(const Problem& p) const;
  /// The NVRTC name expression of this instance, e.g. "gemmtune::sgemm<128,128,...>".
  std::string name_expression() const;

  bool operator==(const GemmConfig&) const = default;
};

/// The procedural name: encodes every parameter, e.g. "sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8"
/// ("_oN" follows when occupancy N is not 1). It is the log id, the database's config key and
/// round-trips through parse_config_name().
std::string config_name(const GemmConfig& c);

/// Parses a procedural name back into a config; nullopt when it is not one.
std::optional<GemmConfig> parse_config_name(const std::string& name);

/// Number of combinations of the family's parameter values for one layout, valid or not.
std::size_t full_space_size();

/// Calls `fn` on every combination of the family's parameter values for one layout; with
/// `skip_misfits`, not on those whose warp tile does not divide the block tile (all invalid).
void for_each_config(Op op_a, Op op_b, const std::function<void(const GemmConfig&)>& fn,
                     bool skip_misfits = false);

/// The configs of full_space() that validate() accepts on `limits`.
std::vector<GemmConfig> valid_space(const DeviceLimits& limits, Op op_a, Op op_b);

/// A small deterministic sample of valid_space() that takes every value of every parameter at
/// least once, each time in the valid config closest to the default: for compile and
/// correctness tests and `gemmtune space --sample`.
std::vector<GemmConfig> coverage_sample(const DeviceLimits& limits, Op op_a, Op op_b);

/// A built-in default that validates on every supported architecture and runs any problem of
/// the layout (vec 1 when the data is unaligned).
GemmConfig default_config(const DeviceLimits& limits, const Problem& p);

}  // namespace gemmtune
