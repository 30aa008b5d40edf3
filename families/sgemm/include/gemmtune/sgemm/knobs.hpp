#pragma once
// The knobs and flags of the FP32 GEMM kernel family (families/sgemm/kernels/sgemm.cuh): the one
// table of them.
//
// Everything that lists knobs or flags follows from kSgemmTable: GemmConfig's procedural name and
// its parser, the NVRTC name expression (the template's parameters come in the table's order,
// upper-cased, the flags in their template order after the layout and access widths: a unit test
// reads the template to check), the search space, the database's `configs` columns (value knobs
// only, handed to the database as sgemm_family(), runtime/src/db_rows.cpp; a column is added to
// older databases when they are opened for writing), how the tuner's
// model ranking groups a flag's twins, and `gemmtune space --knobs`. Adding a knob: a field in
// SgemmKnobs and a value row (same order); adding a flag: a field in SgemmFlags and a flag row
// (its name suffix must not clash: see names_parse_back); then the template parameter, and a rule
// in GemmConfig::validate() if it constrains others. Host-side C++ only (no CUDA). Internal: not
// installed.
#include <array>
#include <cstddef>
#include <span>
#include <string_view>

namespace gemmtune {

/// The knob values of one kernel instance; the defaults make a sound general-purpose kernel.
/// One field per value row of kSgemmTable, in its order: the table says what each means.
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

/// The variant flags of one kernel instance: template flags the tuner times as twins of a config
/// without them, and `repack`. Not knobs of the search space (the space walk leaves them off, the
/// tuner adds the twins, fitted_to() clears those that change nothing for the data) and no
/// database columns (the name carries them). One field per flag row of kSgemmTable.
struct SgemmFlags {
  /// Whether a launch first copies A and B, where their data would narrow the accesses, into the
  /// workspace with rows padded to a multiple of 4 floats (GemmConfig::packs_a/packs_b), and runs
  /// the kernel on the copies at full width. The kernel binary is the aligned instance's (no
  /// template parameter). fitted_to() clears it where nothing needs packing.
  bool repack = false;
  /// Whether the epilogue writes a narrowed C (an odd ldc) through shared memory, 32 adjacent
  /// floats per store instruction, instead of straight from the thread tiles, whose stores hit
  /// each 32-byte sector in several partial pieces. fitted_to() clears it where C is not narrowed
  /// (narrows_c_chunks()) or can_stage_c() fails.
  bool stage_c = false;
  /// Whether the epilogue writes a narrowed C as the aligned windows its rows span, each put
  /// together from two neighbouring thread chunks by a warp shuffle and stored as one vector
  /// (families/sgemm/kernels/epilogue.cuh, Epilogue::windowed), instead of one float at a time.
  /// Excludes stage_c. fitted_to() clears it where C is not narrowed or can_window_c() fails.
  bool window_c = false;
  /// Whether a split reduction (split_k > 1, k_lanes or k_warps > 1) ends with each split
  /// storing its sums in the workspace and the last split adding them in split order
  /// (families/sgemm/kernels/epilogue.cuh, Epilogue::last_split_sums): the same bits on every run,
  /// instead of every split adding to C atomically. Slower on an H200 by 0.3-0.6 us a dot
  /// product (K = 1e5, 1e7), but what a deterministic dispatcher can run where a reduction must
  /// split.
  bool ordered_splits = false;
  /// Whether a split launch first scales C by beta in a kernel of its own (gemmtune_prescale_c,
  /// families/sgemm/kernels/pack.cuh) and the splits then only add to C atomically, with no tile
  /// counters. On sm_90 and newer the split kernel starts while that one runs (programmatic
  /// dependent launch) and waits for it only before its first add. Excludes ordered_splits.
  bool prescale_c = false;
  /// Whether a reduction reads the narrowed runs of the operand only its block reads (the
  /// matrix of a matrix-vector product whose leading dimension is odd) with plain loads instead
  /// of evict-first in L2. fitted_to() clears it where it would change nothing
  /// (narrows_read_once_runs()).
  bool plain_narrow_runs = false;
  /// Whether a split reduction's splits are the blocks of one thread-block cluster (sm_90 and
  /// newer, split_k 2 to 16) that add their sums through distributed shared memory, the first
  /// block in split order, and write C once (families/sgemm/kernels/epilogue.cuh,
  /// Epilogue::cluster_split_sums): no workspace, no atomics, the same bits on every run. On an
  /// H200 it beat the atomic protocol on short dot products and lost on long ones and on x^T B
  /// (docs/PERFORMANCE.md, 2026-11-28, "splits summed in a cluster").
  bool cluster_splits = false;
  /// Whether split_k splits only the tiles past the last whole round of one tile per SM: the
  /// tiles of the whole rounds run unsplit, one block each, and the few left over split K, so
  /// that every SM gets about the same work. The kernel tells the two apart from its grid size.
  bool split_tail = false;
  /// Whether the two-stage FMA loop (stages 2, math 0, shared-memory tiles) stores the next slice
  /// and passes the barrier before the slice's last k-step, whose FMAs then run while the last
  /// warps arrive (families/sgemm/kernels/mainloops.cuh, RegisterPrefetchMainloop). Only where a
  /// thread may have 255 registers (threads x occupancy at most 256).
  bool early_barrier = false;

  bool operator==(const SgemmFlags&) const = default;
};

/// What a row of the table is: a knob with integer values, or a variant flag.
enum class KnobKind { value, flag };

/// One row of the knob table.
struct Knob {
  KnobKind kind = KnobKind::value;
  /// The field; upper-cased, the template parameter; for value knobs the database column.
  std::string_view name;
  /// Value knobs: where the value lives.
  int SgemmKnobs::*field = nullptr;
  /// Flags: where the flag lives.
  bool SgemmFlags::*flag = nullptr;
  /// Value knobs: what precedes the value in the procedural name. Flags: the suffix the name
  /// ends in when the flag is set.
  std::string_view name_prefix;
  /// Value knobs, false: left out of the name at the default (knobs added later, so that the
  /// names in older databases stay valid). Flags are named only when set.
  bool named_when_default = false;
  /// Value knobs: the values the full search space takes.
  std::span<const int> values;
  /// One line, for docs and `gemmtune space --knobs`.
  std::string_view meaning;
  /// Value knobs used by the shared-memory tile kernels only: the reductions (k_lanes > 1) keep
  /// its default.
  bool tile_only = false;
  /// Flags: the place among the template's flag parameters (after GC); -1: none (repack).
  int template_flag = -1;
  /// Flags: whether the tuner's model ranking times a config with the flag as a variant of its
  /// twin without it (the model cannot tell them apart).
  bool model_variant = false;
  /// Flags: whether the model ranking puts the two in one family.
  bool model_family = false;

  int get(const SgemmKnobs& k) const { return k.*field; }
  void set(SgemmKnobs& k, int v) const { k.*field = v; }
  int default_value() const { return SgemmKnobs{}.*field; }
  bool is_set(const SgemmFlags& f) const { return f.*flag; }
  void set_flag(SgemmFlags& f, bool on) const { f.*flag = on; }
};

namespace knob_values {
// 1-8 rows or columns are thin tiles for matrix-vector-like problems (M or N of a few); 48 and
// 96 (three warp tiles of 16 or 32) for sides a power of two would overhang by nearly half.
inline constexpr int kBlock[] = {1, 2, 4, 8, 16, 32, 48, 64, 96, 128, 256};
inline constexpr int kBk[] = {8, 16, 32};
// Warp tiles follow from the thread tile and the warp's thread grid (32 threads): every power
// of two a block tile can hold; the space walk skips warp tiles that do not fit (see
// walk() in families/sgemm/tuning/src/space.cpp).
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

namespace knob_rows {
/// A value knob's row.
constexpr Knob value(std::string_view name, int SgemmKnobs::*field, std::string_view prefix,
                     bool named_when_default, std::span<const int> values, std::string_view meaning,
                     bool tile_only = false) {
  Knob k;
  k.kind = KnobKind::value, k.name = name, k.field = field, k.name_prefix = prefix;
  k.named_when_default = named_when_default, k.values = values, k.meaning = meaning,
  k.tile_only = tile_only;
  return k;
}
/// How the tuner's model ranking groups a flag's config with its twin without it.
enum class Twin {
  variant_in_family,  ///< one family, timed as its variant
  family_member,      ///< one family, not a variant: the model tells their times apart
  own_family,         ///< a variant, but a family of its own (timed as early as its twin)
  distinct,           ///< neither
};
/// A flag's row.
constexpr Knob flag(std::string_view name, bool SgemmFlags::*field, std::string_view suffix,
                    int template_flag, Twin twin, std::string_view meaning) {
  Knob k;
  k.kind = KnobKind::flag, k.name = name, k.flag = field, k.name_prefix = suffix,
  k.template_flag = template_flag;
  k.model_variant = twin == Twin::variant_in_family || twin == Twin::own_family;
  k.model_family = twin == Twin::variant_in_family || twin == Twin::family_member;
  k.meaning = meaning;
  return k;
}
}  // namespace knob_rows

/// The knob table: the value knobs in template-parameter order, then the flags in the order a
/// name carries them. Name example: sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8 (then _o2 when
/// occupancy is 2, _l8 for 8 k_lanes, _j4 for 4 k_warps, _m3 for math 3, _wg1 for the warpgroup
/// instruction; then _g and the access widths when the data narrows them, then the flags'
/// suffixes).
inline constexpr Knob kSgemmTable[] = {
    knob_rows::value(
        "bm", &SgemmKnobs::bm, "_", true, knob_values::kBlock,
        "block tile rows of C (48 and 96: three warp tiles, FP32 FMA tile kernels only)"),
    knob_rows::value("bn", &SgemmKnobs::bn, "x", true, knob_values::kBlock,
                     "block tile columns of C (48 and 96 likewise)"),
    knob_rows::value(
        "bk", &SgemmKnobs::bk, "x", true, knob_values::kBk,
        "K slice per shared-memory stage (K rows per step when streaming B, K values per lane and "
        "step in a reduction)"),
    knob_rows::value("wm", &SgemmKnobs::wm, "_w", true, knob_values::kWarp,
                     "warp tile rows (a warp's threads share A reads: no bank conflicts)"),
    knob_rows::value("wn", &SgemmKnobs::wn, "x", true, knob_values::kWarp, "warp tile columns"),
    knob_rows::value("tm", &SgemmKnobs::tm, "_t", true, knob_values::kThread,
                     "thread tile rows: accumulators per thread are tm x tn"),
    knob_rows::value("tn", &SgemmKnobs::tn, "x", true, knob_values::kThread, "thread tile columns"),
    knob_rows::value("stages", &SgemmKnobs::stages, "_s", true, knob_values::kStages,
                     "shared-memory stages: 1 load-sync-compute, 2 register prefetch, >= 3 "
                     "cp.async ring (a thin "
                     "tile that streams B: 1 or 2 register sets of bk rows)",
                     true),
    knob_rows::value("vec", &SgemmKnobs::vec, "_v", true, knob_values::kVec,
                     "floats per global load/store (1, 2, 4); wider needs aligned data"),
    knob_rows::value("pad", &SgemmKnobs::pad, "_p", true, knob_values::kPad,
                     "floats of padding per shared-memory row, against bank conflicts", true),
    knob_rows::value(
        "split_k", &SgemmKnobs::split_k, "_k", true, knob_values::kSplitK,
        "K slices computed by separate blocks, each adding its sums to C atomically (the first to "
        "start scales C by beta)"),
    knob_rows::value("raster", &SgemmKnobs::raster, "_r", true, knob_values::kRaster,
                     "block rows per rasterization group, for L2 reuse (1 = row-major order)",
                     true),
    knob_rows::value("occupancy", &SgemmKnobs::occupancy, "_o", false, knob_values::kOccupancy,
                     "blocks per SM the registers are budgeted for (__launch_bounds__ minimum)"),
    knob_rows::value(
        "k_lanes", &SgemmKnobs::k_lanes, "_l", false, knob_values::kKLanes,
        "lanes of a warp sharing each output's K range, summed by shuffles: > 1 is the reduction "
        "path (dot products, matrix-vector), no shared memory; 1 = the tile kernels"),
    knob_rows::value(
        "k_warps", &SgemmKnobs::k_warps, "_j", false, knob_values::kKWarps,
        "warps of a block sharing each output's K range, summed through shared memory: > 1 is the "
        "reduction path too (more loads in flight per output)"),
    knob_rows::value(
        "math", &SgemmKnobs::math, "_m", false, knob_values::kMath,
        "how the products are computed: 0 FP32 FMA (IEEE); tensor cores (mma.sync TF32, sm_80+): 1 "
        "1xTF32 (TF32 accuracy), 2 3xTF32 (big*big + big*small + small*big summed in the tensor "
        "core), 3 3xTF32 with each slice's sum added to FP32 accumulators, 4 as 3 plus "
        "small*small"),
    knob_rows::value(
        "wgmma", &SgemmKnobs::wgmma, "_wg", false, knob_values::kWgmma,
        "1: the tensor-core products on Hopper's warpgroup instruction (wgmma, sm_90 only) instead "
        "of mma.sync: A and B are first split into TF32 parts and copied K-major into the "
        "workspace; four warps share each 64-row slab of the block tile (warp tiles 16 x bn, bk "
        "32)"),
    // The flags, in the order a name carries them; template_flag is their order in the template.
    knob_rows::flag("stage_c", &SgemmFlags::stage_c, "_e", 0, knob_rows::Twin::variant_in_family,
                    "a narrowed C written through shared memory, 32 adjacent floats per store"),
    knob_rows::flag(
        "window_c", &SgemmFlags::window_c, "_c", 2, knob_rows::Twin::variant_in_family,
        "a narrowed C written as the aligned vectors its rows span, put together by warp shuffles "
        "(not with _e)"),
    knob_rows::flag(
        "ordered_splits", &SgemmFlags::ordered_splits, "_d", 3, knob_rows::Twin::family_member,
        "a split reduction's splits store their sums and the last adds them in split order: the "
        "same bits on every run"),
    knob_rows::flag(
        "prescale_c", &SgemmFlags::prescale_c, "_z", 4, knob_rows::Twin::family_member,
        "a split launch first scales C by beta in a kernel of its own; the splits then only add "
        "(not with _d)"),
    knob_rows::flag(
        "plain_narrow_runs", &SgemmFlags::plain_narrow_runs, "_n", 5,
        knob_rows::Twin::variant_in_family,
        "a reduction reads the narrowed runs of a matrix-vector product's matrix with plain loads, "
        "not evict-first"),
    knob_rows::flag(
        "cluster_splits", &SgemmFlags::cluster_splits, "_x", 6, knob_rows::Twin::own_family,
        "a split reduction's splits are one thread-block cluster's blocks, summed through "
        "distributed shared memory (sm_90+)"),
    knob_rows::flag(
        "repack", &SgemmFlags::repack, "_q", -1, knob_rows::Twin::variant_in_family,
        "A and B copied first where their data would narrow the accesses, rows padded to 4 floats "
        "(no template parameter)"),
    knob_rows::flag("split_tail", &SgemmFlags::split_tail, "_h", 1, knob_rows::Twin::distinct,
                    "split-K only for the tiles past whole rounds of one tile per SM"),
    knob_rows::flag("early_barrier", &SgemmFlags::early_barrier, "_b", 7,
                    knob_rows::Twin::variant_in_family,
                    "the two-stage FMA loop passes its barrier before the slice's last k-step"),
};

namespace knob_rows {
constexpr std::size_t count(KnobKind kind) {
  std::size_t n = 0;
  for (const Knob& k : kSgemmTable) n += k.kind == kind;
  return n;
}
template <KnobKind Kind>
constexpr std::array<Knob, count(Kind)> rows() {
  std::array<Knob, count(Kind)> out{};
  std::size_t i = 0;
  for (const Knob& k : kSgemmTable)
    if (k.kind == Kind) out[i++] = k;
  return out;
}
}  // namespace knob_rows

/// The value knobs (the database's columns, the search space), in table order.
inline constexpr auto kSgemmKnobs = knob_rows::rows<KnobKind::value>();
/// The flags, in the order a name carries them.
inline constexpr auto kSgemmFlags = knob_rows::rows<KnobKind::flag>();

/// Whether every procedural name of `table` parses back: a name is the parts of the value rows in
/// order, then "_g" and the access widths when they narrow, then the suffixes of the flags set.
/// The parser tries each optional part (a value knob named only away from its default, "_g", a
/// flag) by its prefix, so no optional part's prefix may begin a later part's prefix: a new
/// knob "_z" would swallow prescale_c's suffix, a flag "_o" occupancy's prefix.
constexpr bool names_parse_back(std::span<const Knob> table) {
  constexpr std::size_t kMost = 64;
  if (table.size() + 1 > kMost) return false;  // room for every part below
  std::string_view parts[kMost];
  bool optional[kMost] = {};
  std::size_t n = 0;
  for (const Knob& k : table)
    if (k.kind == KnobKind::value) parts[n] = k.name_prefix, optional[n++] = !k.named_when_default;
  parts[n] = "_g", optional[n++] = true;
  for (const Knob& k : table)
    if (k.kind == KnobKind::flag) parts[n] = k.name_prefix, optional[n++] = true;
  for (std::size_t i = 0; i < n; ++i) {
    if (parts[i].empty()) return false;
    for (std::size_t j = i + 1; j < n; ++j)
      if (optional[i] && parts[j].starts_with(parts[i])) return false;
  }
  return true;
}

// Every field has its row, and no suffix clashes: a knob or flag added to a struct but not to the
// table, or a clashing suffix, fails here.
static_assert(sizeof(SgemmKnobs) == std::size(kSgemmKnobs) * sizeof(int),
              "one value row per SgemmKnobs field");
static_assert(sizeof(SgemmFlags) == std::size(kSgemmFlags) * sizeof(bool),
              "one flag row per SgemmFlags field");
static_assert(names_parse_back(kSgemmTable),
              "a knob prefix or flag suffix clashes with another: see names_parse_back");

}  // namespace gemmtune
