#pragma once
// The knobs of the FP32 GEMM kernel family (templates/sgemm.cuh): the one table of them.
//
// Everything that lists knobs follows from kSgemmKnobs: GemmConfig's procedural name and its
// parser, the NVRTC name expression (the template's parameters come in this order, upper-cased:
// a unit test reads the template to check), the search space, the database's `configs` columns
// (a column is added to older databases when they are opened for writing) and
// `gemmtune space --knobs`. Adding a knob: a field in SgemmKnobs and a row in kSgemmKnobs (same
// order), the template parameter, and a rule in GemmConfig::validate() if it constrains others.
// Host-side C++ only (no CUDA); the database layer includes it to name its columns.
#include <cstddef>
#include <span>
#include <string_view>

namespace gemmtune {

/// The knob values of one kernel instance; the defaults make a sound general-purpose kernel.
/// One field per row of kSgemmKnobs, in its order: the table says what each means.
struct SgemmKnobs {
  int bm = 128, bn = 128, bk = 8;
  int wm = 64, wn = 32;
  int tm = 8, tn = 8;
  int stages = 2;
  int vec = 4;
  int pad = 4;
  int split_k = 1;
  int raster = 8;
  int occupancy = 1;
  int k_lanes = 1;
  int k_warps = 1;
  int math = 0;
  int wgmma = 0;

  bool operator==(const SgemmKnobs&) const = default;
};

/// One row of the knob table.
struct Knob {
  std::string_view name;             ///< field, database column, lower-case template parameter
  int SgemmKnobs::*field;            ///< where the value lives
  std::string_view name_prefix;      ///< what precedes the value in the procedural name
  bool named_when_default;           ///< false: left out of the name at its default (knobs added
                                     ///< later, so that names in older databases stay valid)
  std::span<const int> values;       ///< the values the full search space takes
  std::string_view meaning;          ///< one line, for docs and `gemmtune space --knobs`
  bool tile_only = false;            ///< used by the shared-memory tile kernels only: the
                                     ///< reductions (k_lanes > 1) keep its default

  int get(const SgemmKnobs& k) const { return k.*field; }
  void set(SgemmKnobs& k, int v) const { k.*field = v; }
  int default_value() const { return SgemmKnobs{}.*field; }
};

namespace knob_values {
// 1-8 rows or columns are thin tiles for matrix-vector-like problems (M or N of a few); 48 and
// 96 (three warp tiles of 16 or 32) for sides a power of two would overhang by nearly half.
inline constexpr int kBlock[] = {1, 2, 4, 8, 16, 32, 48, 64, 96, 128, 256};
inline constexpr int kBk[] = {8, 16, 32};
// Warp tiles follow from the thread tile and the warp's thread grid (32 threads): every power
// of two a block tile can hold; the space walk skips warp tiles that do not fit (see
// walk() in tuner/src/space.cpp).
inline constexpr int kWarp[] = {1, 2, 4, 8, 16, 32, 64, 128, 256};
// 32 and 64: only the warpgroup instruction's accumulator layout (2 x bn / 4 per thread).
inline constexpr int kThread[] = {1, 2, 4, 8, 16, 32, 64};
inline constexpr int kStages[] = {1, 2, 3, 4};
inline constexpr int kVec[] = {1, 2, 4};
inline constexpr int kPad[] = {0, 4};
inline constexpr int kSplitK[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};
inline constexpr int kRaster[] = {1, 8};
inline constexpr int kOccupancy[] = {1, 2};
inline constexpr int kKLanes[] = {1, 2, 4, 8, 16, 32};
// 16: a dot product's 512-thread block (16 warps of 32 lanes along K), as one cluster's splits.
inline constexpr int kKWarps[] = {1, 2, 4, 8, 16};
inline constexpr int kMath[] = {0, 1, 2, 3, 4};
inline constexpr int kWgmma[] = {0, 1};
}  // namespace knob_values

/// The knob table, in template-parameter order. Name example:
/// sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8 (then _o2 when occupancy is 2, _l8 for 8 k_lanes,
/// _j4 for 4 k_warps, _m3 for math 3, _wg1 for the warpgroup instruction).
inline constexpr Knob kSgemmKnobs[] = {
    {"bm", &SgemmKnobs::bm, "_", true, knob_values::kBlock,
     "block tile rows of C (48 and 96: three warp tiles, FP32 FMA tile kernels only)"},
    {"bn", &SgemmKnobs::bn, "x", true, knob_values::kBlock, "block tile columns of C (48 and 96 likewise)"},
    {"bk", &SgemmKnobs::bk, "x", true, knob_values::kBk,
     "K slice per shared-memory stage (K rows per step when streaming B, K values per lane and "
     "step in a reduction)"},
    {"wm", &SgemmKnobs::wm, "_w", true, knob_values::kWarp,
     "warp tile rows (a warp's threads share A reads: no bank conflicts)"},
    {"wn", &SgemmKnobs::wn, "x", true, knob_values::kWarp, "warp tile columns"},
    {"tm", &SgemmKnobs::tm, "_t", true, knob_values::kThread, "thread tile rows: accumulators per thread are tm x tn"},
    {"tn", &SgemmKnobs::tn, "x", true, knob_values::kThread, "thread tile columns"},
    {"stages", &SgemmKnobs::stages, "_s", true, knob_values::kStages,
     "shared-memory stages: 1 load-sync-compute, 2 register prefetch, >= 3 cp.async ring (a thin tile that "
     "streams B: 1 or 2 register sets of bk rows)", true},
    {"vec", &SgemmKnobs::vec, "_v", true, knob_values::kVec,
     "floats per global load/store (1, 2, 4); wider needs aligned data"},
    {"pad", &SgemmKnobs::pad, "_p", true, knob_values::kPad,
     "floats of padding per shared-memory row, against bank conflicts", true},
    {"split_k", &SgemmKnobs::split_k, "_k", true, knob_values::kSplitK,
     "K slices computed by separate blocks, each adding its sums to C atomically (the first to start "
     "scales C by beta)"},
    {"raster", &SgemmKnobs::raster, "_r", true, knob_values::kRaster,
     "block rows per rasterization group, for L2 reuse (1 = row-major order)", true},
    {"occupancy", &SgemmKnobs::occupancy, "_o", false, knob_values::kOccupancy,
     "blocks per SM the registers are budgeted for (__launch_bounds__ minimum)"},
    {"k_lanes", &SgemmKnobs::k_lanes, "_l", false, knob_values::kKLanes,
     "lanes of a warp sharing each output's K range, summed by shuffles: > 1 is the reduction "
     "path (dot products, matrix-vector), no shared memory; 1 = the tile kernels"},
    {"k_warps", &SgemmKnobs::k_warps, "_j", false, knob_values::kKWarps,
     "warps of a block sharing each output's K range, summed through shared memory: > 1 is the "
     "reduction path too (more loads in flight per output)"},
    {"math", &SgemmKnobs::math, "_m", false, knob_values::kMath,
     "how the products are computed: 0 FP32 FMA (IEEE); tensor cores (mma.sync TF32, sm_80+): 1 "
     "1xTF32 (TF32 accuracy), 2 3xTF32 (big*big + big*small + small*big summed in the tensor core), "
     "3 3xTF32 with each slice's sum added to FP32 accumulators, 4 as 3 plus small*small"},
    {"wgmma", &SgemmKnobs::wgmma, "_wg", false, knob_values::kWgmma,
     "1: the tensor-core products on Hopper's warpgroup instruction (wgmma, sm_90 only) instead of "
     "mma.sync: A and B are first split into TF32 parts and copied K-major into the workspace; four "
     "warps share each 64-row slab of the block tile (warp tiles 16 x bn, bk 32)"},
};

// Every field has its row: a knob added to the struct but not to the table fails here.
static_assert(sizeof(SgemmKnobs) == std::size(kSgemmKnobs) * sizeof(int), "one kSgemmKnobs row per field");

}  // namespace gemmtune
