#include "gemmtune/sgemm/config.hpp"

#include <algorithm>
#include <iterator>
#include <string_view>

#include "gemmtune/register_floor.hpp"

namespace gemmtune {

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::fp32: return "fp32";
    case Precision::tf32: return "tf32";
    default: return "ieee";
  }
}

std::optional<Precision> parse_precision(const std::string& text) {
  for (Precision p : {Precision::ieee, Precision::fp32, Precision::tf32})
    if (text == precision_name(p)) return p;
  return std::nullopt;
}

int GemmConfig::threads() const {
  if (wm <= 0 || wn <= 0) return 0;
  return static_cast<int>(block_threads(bm, bn, wm, wn, k_warps));
}

bool GemmConfig::reads_a_in_vectors() const { return !streams_b(); }

// The copy goes by batch stride: matrices in pointer arrays are never packed (narrowed instead).
// A warpgroup config copies the operands it does not read in place its own way (split, K-major),
// never by repack.
bool GemmConfig::packs_a(const Problem& p) const {
  return repack && !wgmma && !p.pointer_arrays && reads_a_in_vectors() && p.a_alignment() < vec;
}
bool GemmConfig::packs_b(const Problem& p) const {
  return repack && !wgmma && !p.pointer_arrays && p.b_alignment() < vec;
}

// The copy unit's limits on a K-major operand of `rows` rows: 16-byte aligned rows, matrices not
// overlapping, strides under 2^40 bytes.
static bool tensor_map_fits(const float* base, long long ld, long long stride, long long rows,
                            int batch) {
  const long long limit = 1LL << 38;  // floats
  return Problem::rows_16_byte_aligned(base, ld, stride, batch) && ld < limit &&
         (batch == 1 || (stride >= ld * rows && stride < limit));
}
bool GemmConfig::reads_a_in_place(const Problem& p) const {
  return wgmma && math == 1 && p.op_a == Op::N && !p.pointer_arrays &&
         tensor_map_fits(p.a, p.lda, p.stride_a, p.m, p.batch);
}
bool GemmConfig::reads_b_in_place(const Problem& p) const {
  return wgmma && math == 1 && p.op_b == Op::T && !p.pointer_arrays &&
         tensor_map_fits(p.b, p.ldb, p.stride_b, p.n, p.batch);
}

int GemmConfig::warp_slots() const { return k_lanes > 0 ? 32 / k_lanes : 0; }

// The dynamic shared memory of the path's mainloop (gemmtune/sgemm/shapes.hpp has the shapes).
// 64-bit: knobs may not be validated yet.
static long long dynamic_smem_bytes(const GemmConfig& c) {
  switch (c.path()) {
    case KernelPath::streamed_tile:
    case KernelPath::reduction:
      return 0;  // no shared-memory tiles (a reduction's sums are in static shared memory)
    case KernelPath::warpgroup: return warpgroup_smem_bytes(c.stages, c.math, c.bm, c.bn);
    case KernelPath::register_tile:
    case KernelPath::cp_async_tile:
    case KernelPath::mma_sync:
      return c.stages *
             (stage_floats_a(c.math, c.op_a == Op::T, c.bm, c.bk, c.pad) +
              stage_floats_b(c.math, c.op_b == Op::T, c.bn, c.bk, c.pad)) *
             int(sizeof(float));
  }
  return 0;
}

int GemmConfig::smem_bytes() const { return static_cast<int>(dynamic_smem_bytes(*this)); }

bool GemmConfig::can_barrier_early() const {
  return path() == KernelPath::register_tile && stages == 2 && threads() * occupancy <= 256;
}

bool GemmConfig::can_stage_c() const {
  if (reduces() || streams_b() || wm < 1 || tm < 1 || wn < 1) return false;
  return staged_c_floats(bm, bn, wm, wn, tm) * int(sizeof(float)) <= smem_bytes();
}

// A thread's column chunk (Traits::VN).
static int c_chunk(const GemmConfig& c) {
  return chunk_columns(c.path(), c.math, c.tn, c.width_b());
}

bool GemmConfig::can_window_c() const {
  return !reduces() && c_chunk(*this) > 1 && vec >= c_chunk(*this);
}

bool GemmConfig::narrows_c_chunks() const { return width_c() < c_chunk(*this); }

// ReductionMainloop's kOnceNarrowA/B and a_once/b_once (families/sgemm/kernels/mainloops.cuh).
bool GemmConfig::narrows_read_once_runs(const Problem& p) const {
  if (!reduces() || k_lanes < 16 || (bn == tn) == (bm == tm)) return false;
  return bn == tn ? op_a == Op::N && width_a() < vec && p.n <= bn
                  : op_b == Op::T && width_b() < vec && p.m <= bm;
}

int GemmConfig::register_budget(const DeviceLimits& limits) const {
  int t = std::max(1, threads() * occupancy);
  return std::min(limits.max_regs_per_thread, limits.max_regs_per_block / t / 8 * 8);
}

bool GemmConfig::tiles_hold_vectors_of(int v) const {
  if (reduces())
    return bk % v == 0;  // each lane reads runs of vec along K (in pieces where narrowed)
  const int a_contiguous = op_a == Op::T ? bm : bk, b_contiguous = op_b == Op::T ? bk : bn;
  return (streams_b() || a_contiguous % v == 0) && b_contiguous % v == 0;
}

namespace {

using Why = std::optional<std::string>;
Why why(std::string s) { return Why(std::move(s)); }

bool is_pow2(int v) { return v > 0 && (v & (v - 1)) == 0; }

// 48, 96, 192...: a block side of three (or six...) warp tiles, for sides of a problem that a
// power-of-two tile would overhang by nearly half (33 rows: one 64-row tile idles 31 of them).
bool is_three_times_pow2(int v) { return v >= 48 && v % 3 == 0 && is_pow2(v / 3); }

// No size knob of a config that fits a block of 1024 threads, the shared memory and the registers
// of a GPU comes near this; bounding them first keeps the products below in 64-bit range (names
// from a damaged database or typed by hand can hold any number).
constexpr int kMaxKnobSize = 1 << 16;

// The reasons that more than one path's rules give.
constexpr const char* kThreeWarpSides =
    "block sides of 3 x a power of two (bm or bn 48, 96...) are for the FP32 FMA tile kernels: "
    "math 0, k_lanes and k_warps 1";
constexpr const char* kTensorCoreWarpTile =
    "a tensor-core warp tile is whole 16 x 8 mma tiles: wm a multiple of 16, wn of 8";
constexpr const char* kWarpgroupTiles =
    "a warpgroup config has bk 32, warp tiles of 16 x bn (wm 16, wn = bn), bm a multiple of 64 "
    "and bn 32 to 256";
constexpr const char* kTensorCoreDefaults =
    "the tensor-core variants are tile kernels with their own shared-memory padding: k_lanes, "
    "k_warps and pad keep their defaults";
constexpr const char* kOrderedSplits =
    "ordered_splits (\"_d\") is how a split reduction adds its splits: split_k at least 2 and "
    "k_lanes or k_warps above 1";
constexpr const char* kPrescaleC =
    "prescale_c (\"_z\") is how atomic splits of every tile start: split_k at least 2, not with "
    "ordered splits (\"_d\"), split tails (\"_h\") or the warpgroup instruction";
constexpr const char* kPlainNarrowRuns =
    "plain_narrow_runs (\"_n\") chooses how a reduction reads the narrowed runs of its matrix: "
    "k_lanes at least 16, and a block of one thread tile along N (bn = tn) or along M (bm = tm), "
    "not both";
constexpr const char* kClusterSplits =
    "cluster_splits (\"_x\") is how a split reduction adds its splits: split_k 2 to 16 (the blocks "
    "of one cluster), k_lanes or k_warps above 1, not with ordered splits (\"_d\") or a prescaled "
    "C (\"_z\")";
constexpr const char* kSplitTail =
    "split_tail (\"_h\") splits the tiles past whole rounds of one per SM of a split-K tile "
    "kernel: split_k at least 2, no reduction, no streamed B";

// The range of each knob by itself, whatever the path.
Why knob_rules(const GemmConfig& c) {
  if (c.math < 0 || c.math > 4)
    return why("math must be 0 (FP32 FMA) or 1 to 4 (tensor-core TF32 variants)");
  if (c.wgmma != 0 && c.wgmma != 1)
    return why("wgmma must be 0 (mma.sync) or 1 (the warpgroup instruction)");
  for (int v :
       {c.bm, c.bn, c.bk, c.wm, c.wn, c.tm, c.tn, c.vec, c.split_k, c.raster, c.k_lanes, c.k_warps})
    if (v > kMaxKnobSize)
      return why("tile sizes, vec, split_k, raster, k_lanes and k_warps must be at most 65536");
  for (int v : {c.bk, c.wm, c.wn, c.tm, c.tn, c.vec, c.raster, c.k_lanes, c.k_warps})
    if (!is_pow2(v))
      return why("every tile size, vec, raster, k_lanes and k_warps must be a power of two");
  if (c.split_k < 1) return why("split_k must be at least 1");
  for (int v : {c.bm, c.bn})
    if (!is_pow2(v) && !is_three_times_pow2(v))
      return why(
          "block tile sides bm and bn must be powers of two or 3 x a power of two from 48 on (48, "
          "96...)");
  if (c.k_lanes > 32) return why("k_lanes must be at most 32 (the lanes of a warp)");
  // The warpgroup instruction's accumulator layout (wgmma.cuh) is 2 x bn / 4 per thread.
  if (c.tm > 16 || c.tn > (c.wgmma ? 64 : 16))
    return why("thread tile tm, tn must be at most 16 (tn 64 for wgmma = 1)");
  if (c.tm * c.tn > 128)
    return why("thread tile tm*tn = " + std::to_string(c.tm * c.tn) + " exceeds 128 accumulators");
  if (c.vec > 4) return why("vec must be 1, 2 or 4");
  for (int a : {c.align_a, c.align_b, c.align_c})
    if (a != 1 && a != 2 && a != 4) return why("data alignments must be 1, 2 or 4 floats");
  if (c.pad != 0 && c.pad != 4) return why("pad must be 0 or 4");
  if (c.stages < 1 || c.stages > 4) return why("stages must be 1 to 4");
  // The split-K tile counter counts tickets in 10 bits (SplitKCounter in
  // families/sgemm/kernels/sgemm.cuh).
  if (c.split_k > 512) return why("split_k must be at most 512");
  if (c.raster > 16) return why("raster must be at most 16");
  if (c.occupancy < 1 || c.occupancy > 4) return why("occupancy must be 1 to 4");
  return std::nullopt;
}

// The flags of the reduction path, which every other path leaves off.
Why no_reduction_flags(const GemmConfig& c) {
  if (c.ordered_splits) return why(kOrderedSplits);
  if (c.plain_narrow_runs) return why(kPlainNarrowRuns);
  if (c.cluster_splits) return why(kClusterSplits);
  return std::nullopt;
}

// KernelPath::register_tile: every tile flag (early_barrier where can_barrier_early()).
Why register_tile_rules(const GemmConfig& c) { return no_reduction_flags(c); }

// KernelPath::cp_async_tile.
Why cp_async_tile_rules(const GemmConfig& c, const DeviceLimits& limits) {
  if (limits.cc_major < 8) return why("stages >= 3 use cp.async, which needs sm_80 or newer");
  return no_reduction_flags(c);
}

// KernelPath::streamed_tile: B in registers, one set of bk rows or two, no shared memory.
Why streamed_tile_rules(const GemmConfig& c) {
  // A thin tile's few rows (bm <= 8) make no tensor-core warp tile (16 rows, 64 per warpgroup).
  if (c.wgmma) return why(kWarpgroupTiles);
  if (tensor_core_math(c.math)) return why(kTensorCoreWarpTile);
  if (c.stages > 2 || c.pad != 4)
    return why(
        "a thin tile with all rows in each thread (bm <= 8, tm == bm, B not transposed) streams B "
        "from global memory into registers without shared memory: use stages 1 (one register "
        "set) or 2 (two) and pad 4 (unused)");
  if (c.split_tail) return why(kSplitTail);
  return no_reduction_flags(c);
}

// KernelPath::reduction: FP32 FMA without shared-memory tiles; its own ways to add splits.
Why reduction_rules(const GemmConfig& c, const DeviceLimits& limits) {
  if (!is_pow2(c.bm) || !is_pow2(c.bn)) return why(kThreeWarpSides);
  if (tensor_core_math(c.math) || c.wgmma) return why(kTensorCoreDefaults);
  // ReductionMainloop sums the k_warps warps' tiles through static shared memory (48 KiB at
  // most). 64-bit: the warp tiles are checked after the path.
  if ((c.k_warps - 1) * output_warps(c.bm, c.bn, c.wm, c.wn) * 32 * c.tm * c.tn *
          int(sizeof(float)) >
      48 * 1024)
    return why("k_warps " + std::to_string(c.k_warps) + " x thread tiles of " +
               std::to_string(c.tm * c.tn) +
               " outputs need more than 48 KiB of shared memory for the sum");
  for (const Knob& knob : kSgemmKnobs)
    if (knob.tile_only && knob.get(c) != knob.default_value())
      return why("the reduction path (k_lanes or k_warps > 1) has no shared-memory tiles: " +
                 std::string(knob.name) + " must keep its default " +
                 std::to_string(knob.default_value()));
  // A reduction reads each operand once, straight from global memory: a copy first would double
  // that.
  if (c.repack)
    return why("repack is for the tile kernels, not the reduction path (k_lanes or k_warps > 1)");
  if (c.split_tail) return why(kSplitTail);
  if (c.ordered_splits && c.split_k < 2) return why(kOrderedSplits);
  if (c.plain_narrow_runs && (c.k_lanes < 16 || (c.bn == c.tn) == (c.bm == c.tm)))
    return why(kPlainNarrowRuns);
  if (c.cluster_splits && (c.split_k < 2 || c.split_k > 16 || c.ordered_splits || c.prescale_c))
    return why(kClusterSplits);
  if (c.cluster_splits && limits.cc_major < 9)
    return why("cluster_splits (\"_x\") needs thread-block clusters: sm_90 or newer");
  return std::nullopt;
}

// Both tensor-core paths. mma.sync m16n8k8: the warp tile is whole 16 x 8 instruction tiles; a
// lane holds 2 rows and 2 columns of each (families/sgemm/kernels/mma.cuh), which is the thread
// tile.
Why tensor_core_rules(const GemmConfig& c, const DeviceLimits& limits) {
  if (!is_pow2(c.bm) || !is_pow2(c.bn)) return why(kThreeWarpSides);
  if (limits.cc_major < 8) return why("the tensor-core variants (math > 0) need sm_80 or newer");
  if (c.wm % 16 || c.wn % 8) return why(kTensorCoreWarpTile);
  if (c.tm != c.wm / 8 || c.tn != c.wn / 4)
    return why("a tensor-core thread tile is the mma accumulator layout: tm = wm / 8 = " +
               std::to_string(c.wm / 8) + ", tn = wn / 4 = " + std::to_string(c.wn / 4));
  if (c.bk < 8) return why("a tensor-core slice is whole k8 mma steps: bk at least 8");
  if (c.pad != SgemmKnobs{}.pad) return why(kTensorCoreDefaults);
  if (accumulator_rows(c.math, c.tm) * c.tn > 128)
    return why(
        "math 3 and 4 sum each slice in accumulators of its own: 2 x tm x tn must be at most 128");
  return std::nullopt;
}

// KernelPath::mma_sync: the tile mainloops with the tensor-core step.
Why mma_sync_rules(const GemmConfig& c, const DeviceLimits& limits) {
  if (Why w = tensor_core_rules(c, limits)) return w;
  return no_reduction_flags(c);
}

// KernelPath::warpgroup (families/sgemm/kernels/wgmma.cuh): 64-row warpgroup slabs, one instruction
// m64nBNk8 per product and k8 step, slices of one 128-byte swizzle row.
Why warpgroup_rules(const GemmConfig& c, const DeviceLimits& limits) {
  if (tensor_core_math(c.math))
    if (Why w = tensor_core_rules(c, limits)) return w;
  if (limits.cc_major != 9 || limits.cc_minor != 0)
    return why("the warpgroup instruction (wgmma = 1) exists on sm_90 (Hopper) only");
  if (!tensor_core_math(c.math)) return why("wgmma = 1 runs tensor-core math: math 1 to 4");
  if (c.bk != 32 || c.wm != 16 || c.wn != c.bn || c.bm % 64 != 0 || c.bn < 32 || c.bn > 256)
    return why(kWarpgroupTiles);
  if (c.stages < 2) return why("a warpgroup config pipelines its copies: stages 2 to 4");
  if (c.repack)
    return why("a warpgroup config copies A and B anyway (split, K-major): no repack (\"_q\")");
  if (c.prescale_c) return why(kPrescaleC);
  return no_reduction_flags(c);
}

// Which knobs and flags the config's path takes, and their limits there.
Why path_rules(const GemmConfig& c, const DeviceLimits& limits) {
  switch (c.path()) {
    case KernelPath::register_tile: return register_tile_rules(c);
    case KernelPath::cp_async_tile: return cp_async_tile_rules(c, limits);
    case KernelPath::streamed_tile: return streamed_tile_rules(c);
    case KernelPath::reduction: return reduction_rules(c, limits);
    case KernelPath::mma_sync: return mma_sync_rules(c, limits);
    case KernelPath::warpgroup: return warpgroup_rules(c, limits);
  }
  return why("unknown kernel path");
}

// How the block, warp and thread tiles fit each other and the block's thread limit.
Why tile_rules(const GemmConfig& c, const DeviceLimits& limits) {
  if (c.wm % c.tm || c.wn % c.tn) return why("warp tile must be a multiple of the thread tile");
  const long long slots = 1LL * (c.wm / c.tm) * (c.wn / c.tn);
  if (slots != c.warp_slots())
    return why("warp tile / thread tile gives " + std::to_string(slots) + " thread tiles, not " +
               std::to_string(c.warp_slots()) + " (32 lanes / k_lanes " +
               std::to_string(c.k_lanes) + ")");
  if (c.bm % c.wm || c.bn % c.wn) return why("block tile must be a multiple of the warp tile");
  // From here on threads() fits an int.
  const long long threads = block_threads(c.bm, c.bn, c.wm, c.wn, c.k_warps);
  if (threads > limits.max_threads_per_block)
    return why(std::to_string(threads) + " threads per block exceed the limit " +
               std::to_string(limits.max_threads_per_block));
  return std::nullopt;
}

// The flags' conditions beyond the path.
Why flag_rules(const GemmConfig& c) {
  if (c.stage_c && !c.can_stage_c())
    return why(
        "stage_c (\"_e\") needs a tile kernel (no reduction, no streamed B) with room for the "
        "staged rows (one per lane row of each warp, wn + 4 floats) in its shared memory");
  if (c.window_c && (c.stage_c || !c.can_window_c()))
    return why(
        "window_c (\"_c\") writes C from the thread chunks of a tile kernel (no reduction) whose "
        "chunks are whole vectors (vec at least the chunk), and not staged (\"_e\") at the same "
        "time");
  if (c.prescale_c && (c.split_k < 2 || c.ordered_splits || c.split_tail)) return why(kPrescaleC);
  if (c.early_barrier && !c.can_barrier_early())
    return why(
        "early_barrier (\"_b\") moves the barrier of the two-stage FMA loop: stages 2, math 0, no "
        "wgmma, a tile kernel (no reduction, no streamed B), and threads x occupancy at most 256 "
        "(255 registers a thread)");
  if (c.split_tail && c.split_k < 2) return why(kSplitTail);
  return std::nullopt;
}

// What a block needs of a multiprocessor: threads, shared memory, registers.
Why resource_rules(const GemmConfig& c, const DeviceLimits& limits) {
  const int t = c.threads();
  if (t * c.occupancy > 2048) return why("occupancy x threads exceeds 2048 threads per SM");
  const long long smem = dynamic_smem_bytes(c);
  if (smem * c.occupancy > limits.max_smem_per_sm)
    return why("occupancy " + std::to_string(c.occupancy) + " x shared memory " +
               std::to_string(smem) + " B exceeds the multiprocessor's " +
               std::to_string(limits.max_smem_per_sm) + " B");
  // Threads move whole vectors of both tiles along each operand's contiguous dimension (when a
  // tile has fewer vectors than the block has threads, some threads idle during loads); tiles
  // that stream B read A one float at a time.
  if (!c.tiles_hold_vectors_of(c.vec))
    return why(c.reduces() ? std::string("vec must divide bk (each lane's run along K)")
                           : std::string("vec must divide ") + (c.op_a == Op::T ? "bm" : "bk") +
                                 " (A's contiguous extent) and " + (c.op_b == Op::T ? "bk" : "bn") +
                                 " (B's)");
  if (smem > limits.max_smem_per_block_optin)
    return why("shared memory " + std::to_string(smem) + " B exceeds the opt-in limit " +
               std::to_string(limits.max_smem_per_block_optin) + " B");
  // Register budget: __launch_bounds__ caps each thread at 64K / (threads x occupancy). The
  // need is a floor (register_floor.hpp): what passes may still spill, which the compiled
  // resource report tells and the tuner prunes.
  const int need = register_floor(c);
  const int cap = c.register_budget(limits);
  if (need > cap)
    return why("registers: about " + std::to_string(need) + " per thread needed, " +
               std::to_string(cap) + " available at " + std::to_string(t) + " threads per block");
  return std::nullopt;
}

}  // namespace

// The knobs' own ranges first, then the path's rules (which knobs and flags it takes: a tensor-core
// thread tile is the instruction's layout before it is checked against the warp tile), the tiles,
// the flags, and what the block needs of the GPU.
std::optional<std::string> GemmConfig::validate(const DeviceLimits& limits) const {
  if (Why w = knob_rules(*this)) return w;
  if (Why w = path_rules(*this, limits)) return w;
  if (Why w = tile_rules(*this, limits)) return w;
  if (Why w = flag_rules(*this)) return w;
  return resource_rules(*this, limits);
}

std::optional<std::string> GemmConfig::can_implement(const Problem& p) const {
  if (p.op_a != op_a || p.op_b != op_b)
    return "kernel is for layout " + std::string{op_char(op_a), op_char(op_b)} + ", problem is " +
           p.layout();
  if (p.m < 1 || p.n < 1 || p.k < 1 || p.batch < 1)
    return std::string("M, N, K and batch must be at least 1");
  if (wgmma && p.pointer_arrays)
    return std::string(
        "a warpgroup config (\"_wg1\") copies A and B by batch stride: not for pointer arrays");
  const struct {
    const char* operand;
    int width, allowed;
  } accesses[] = {
      {"A", reads_a_in_vectors() ? width_a() : 1, packs_a(p) || wgmma ? 4 : p.a_alignment()},
      {"B", width_b(), packs_b(p) || wgmma ? 4 : p.b_alignment()},
      {"C", width_c(), p.c_alignment()}};
  for (const auto& a : accesses)
    if (a.width > a.allowed)
      return std::string(a.operand) + " is accessed " + std::to_string(a.width) +
             " floats at a time; its data allows " + std::to_string(a.allowed) +
             " (fit the config to the problem: GemmConfig::fitted_to)";
  if (split_tail && p.batch > 1)
    return std::string("split_tail (\"_h\") is for one matrix, not a batch");
  if (static_cast<long long>(p.batch) * split_k > 65535)
    return std::string("batch x split_k exceeds the grid's z limit 65535");
  // Splits share K's bk slices as evenly as they go (BlockWork::split_range in
  // families/sgemm/kernels/tiles.cuh); each must get at least one.
  const long long slices = (static_cast<long long>(p.k) + bk - 1) / bk;
  if (split_k > 1 && slices < split_k)
    return "split_k " + std::to_string(split_k) + " with bk " + std::to_string(bk) +
           " leaves splits without work for K = " + std::to_string(p.k) + "; K needs more than " +
           std::to_string(1LL * (split_k - 1) * bk) + " (one bk slice per split) or fewer splits";
  return std::nullopt;
}

int GemmConfig::width_a() const { return std::min(vec, align_a); }
int GemmConfig::width_b() const { return std::min(vec, align_b); }
int GemmConfig::width_c() const { return std::min(vec, align_c); }

// An alignment that does not narrow the access is stored as 4, so that one instance has one name.
static int narrowing(int vec, int alignment) { return alignment < vec ? alignment : 4; }

GemmConfig GemmConfig::fitted_to(const Problem& p) const {
  GemmConfig c = *this;
  // A packed copy has rows padded to 4 floats and a 16-byte aligned base (LaunchWorkspace).
  // A warpgroup config reads the split copies of A and B (LaunchWorkspace), aligned too.
  c.align_a = reads_a_in_vectors() && !packs_a(p) && !wgmma ? narrowing(vec, p.a_alignment()) : 4;
  c.align_b = packs_b(p) || wgmma ? 4 : narrowing(vec, p.b_alignment());
  c.align_c = narrowing(vec, p.c_alignment());
  c.repack = packs_a(p) || packs_b(p);
  c.stage_c = stage_c && c.can_stage_c() && c.narrows_c_chunks();
  c.window_c = window_c && !c.stage_c && c.can_window_c() && c.narrows_c_chunks();
  c.plain_narrow_runs = plain_narrow_runs && c.narrows_read_once_runs(p);
  return c;
}

std::string GemmConfig::name_expression() const {
  std::string out = wgmma ? "gemmtune::sgemm_wgmma<" : "gemmtune::sgemm<";
  for (const Knob& knob : kSgemmKnobs) out += std::to_string(knob.get(*this)) + ",";
  out += op_a == Op::T ? "true," : "false,";
  out += op_b == Op::T ? "true," : "false,";
  out +=
      std::to_string(width_a()) + "," + std::to_string(width_b()) + "," + std::to_string(width_c());
  // The template's flags after them, in its order, up to the last one set (the template
  // defaults the rest to false, so that adding a flag changes no other instance's name).
  bool flags[std::size(kSgemmFlags)] = {};
  int count = 0;
  for (const Knob& f : kSgemmFlags)
    if (f.template_flag >= 0 && f.is_set(*this))
      flags[f.template_flag] = true, count = std::max(count, f.template_flag + 1);
  for (int i = 0; i < count; ++i) out += flags[i] ? ",true" : ",false";
  return out + ">";
}

long long GemmConfig::blocks_for(long long tiles, long long sms) const {
  if (!split_tail || sms < 1) return tiles * split_k;
  const long long whole = tiles / sms * sms;
  return whole + (tiles - whole) * split_k;
}

std::string config_name(const GemmConfig& c) {
  std::string out = std::string("sgemm_") + op_char(c.op_a) + op_char(c.op_b);
  for (const Knob& knob : kSgemmKnobs) {
    const int v = knob.get(c);
    if (knob.named_when_default || v != knob.default_value())
      (out += knob.name_prefix) += std::to_string(v);
  }
  if (c.width_a() < c.vec || c.width_b() < c.vec || c.width_c() < c.vec)
    out += "_g" + std::to_string(c.width_a()) + "x" + std::to_string(c.width_b()) + "x" +
           std::to_string(c.width_c());
  for (const Knob& f : kSgemmFlags)
    if (f.is_set(c)) out += f.name_prefix;
  return out;
}

namespace {
// Reads the decimal digits at the front of `rest` into `value` and drops them; false when
// there are none or they do not fit an int.
bool take_number(std::string_view& rest, int& value) {
  std::size_t digits = 0;
  long long v = 0;
  while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9' && digits < 9)
    v = v * 10 + (rest[digits++] - '0');
  if (digits == 0) return false;
  value = static_cast<int>(v);
  rest.remove_prefix(digits);
  return true;
}
}  // namespace

std::optional<GemmConfig> parse_config_name(const std::string& name) {
  std::string_view rest = name;
  if (!rest.starts_with("sgemm_") || rest.size() < 8) return std::nullopt;
  auto a = op_from_char(rest[6]), b = op_from_char(rest[7]);
  if (!a || !b) return std::nullopt;
  GemmConfig c;
  c.op_a = *a, c.op_b = *b;
  rest.remove_prefix(8);
  for (const Knob& knob : kSgemmKnobs) {
    int v = knob.default_value();
    if (rest.starts_with(knob.name_prefix)) {
      rest.remove_prefix(knob.name_prefix.size());
      if (!take_number(rest, v)) return std::nullopt;
    } else if (knob.named_when_default) {
      return std::nullopt;
    }
    knob.set(c, v);
  }
  if (rest.starts_with("_g")) {
    rest.remove_prefix(2);
    int* aligns[] = {&c.align_a, &c.align_b, &c.align_c};
    for (int i = 0; i < 3; ++i) {
      if (i > 0 && !rest.starts_with("x")) return std::nullopt;
      if (i > 0) rest.remove_prefix(1);
      int width = 0;
      if (!take_number(rest, width) || (width != 1 && width != 2 && width != 4))
        return std::nullopt;
      *aligns[i] = narrowing(c.vec, width);
    }
  }
  for (const Knob& f : kSgemmFlags)
    if (rest.starts_with(f.name_prefix)) {
      rest.remove_prefix(f.name_prefix.size());
      f.set_flag(c, true);
    }
  if (!rest.empty() || config_name(c) != name) return std::nullopt;  // rejects leading zeros, "_o1"
  return c;
}

GemmConfig default_config(const DeviceLimits& limits, const Problem& p) {
  GemmConfig c;
  c.op_a = p.op_a, c.op_b = p.op_b;
  if (c.validate(limits)) c.stages = 1;  // older GPUs: fall back to the plainest pipeline
  return c.fitted_to(p);
}

}  // namespace gemmtune
