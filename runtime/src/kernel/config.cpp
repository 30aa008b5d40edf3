#include "gemmtune/config.hpp"

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
  return (bm / wm) * (bn / wn) * 32 * k_warps;
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

bool GemmConfig::streams_b() const { return bm <= 8 && tm == bm && op_b == Op::N && !reduces(); }

// Floats per pipeline stage of both operands (templates/sgemm/tiles.cuh, Traits::kStageA/B):
// the tensor-core step keeps K-contiguous operands as x rows of bk + 4 floats, others as bk rows
// of x + 8 floats; the FMA step stores both K-major with `pad` floats per row. 64-bit: knobs may
// not be validated yet.
static long long stage_floats(const GemmConfig& c) {
  if (!c.uses_tensor_cores()) return 1LL * c.bk * (c.bm + c.pad + c.bn + c.pad);
  const long long a = c.op_a == Op::N ? 1LL * c.bm * (c.bk + 4) : 1LL * c.bk * (c.bm + 8);
  const long long b = c.op_b == Op::T ? 1LL * c.bn * (c.bk + 4) : 1LL * c.bk * (c.bn + 8);
  return a + b;
}

// The warpgroup mainloop's stages (templates/sgemm/wgmma.cuh): per stage a bm x 32 and a bn x 32
// tile of each TF32 plane (2 planes from math 2 on), plus 1024 bytes to align stage 0 to the
// swizzle pattern and 64 for the stages' two barriers each. 64-bit: knobs may not be validated yet.
static long long warpgroup_smem_bytes(const GemmConfig& c) {
  return 1LL * c.stages * (c.math >= 2 ? 2 : 1) * (c.bm + c.bn) * 32 * int(sizeof(float)) + 1024 +
         64;
}

int GemmConfig::smem_bytes() const {
  if (streams_b() || reduces()) return 0;
  if (wgmma) return static_cast<int>(warpgroup_smem_bytes(*this));
  return static_cast<int>(stages * stage_floats(*this) * int(sizeof(float)));
}

bool GemmConfig::can_barrier_early() const {
  return stages == 2 && math == 0 && !wgmma && !reduces() && !streams_b() &&
         threads() * occupancy <= 256;
}

bool GemmConfig::can_stage_c() const {
  if (reduces() || streams_b() || wm < 1 || tm < 1 || wn < 1) return false;
  const long long warps = 1LL * (bm / wm) * (bn / wn), lane_rows = wm / tm;
  return warps * lane_rows * (wn + 4) * int(sizeof(float)) <= smem_bytes();
}

// A thread's column chunk (templates/sgemm/tiles.cuh, Traits::VN): 2 for the tensor-core
// accumulator layout, else up to 4, narrowed to B's access width where B is streamed.
static int c_chunk(const GemmConfig& c) {
  if (c.uses_tensor_cores()) return 2;
  const int chunk = std::min(c.tn, 4);
  return c.streams_b() ? std::min(chunk, c.width_b()) : chunk;
}

bool GemmConfig::can_window_c() const {
  return !reduces() && c_chunk(*this) > 1 && vec >= c_chunk(*this);
}

bool GemmConfig::narrows_c_chunks() const { return width_c() < c_chunk(*this); }

// ReductionMainloop's kOnceNarrowA/B and a_once/b_once (templates/sgemm/mainloops.cuh).
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

static bool is_pow2(int v) { return v > 0 && (v & (v - 1)) == 0; }

// 48, 96, 192...: a block side of three (or six...) warp tiles, for sides of a problem that a
// power-of-two tile would overhang by nearly half (33 rows: one 64-row tile idles 31 of them).
static bool is_three_times_pow2(int v) { return v >= 48 && v % 3 == 0 && is_pow2(v / 3); }

// No size knob of a config that fits a block of 1024 threads, the shared memory and the registers
// of a GPU comes near this; bounding them first keeps the products below in 64-bit range (names
// from a damaged database or typed by hand can hold any number).
constexpr int kMaxKnobSize = 1 << 16;

std::optional<std::string> GemmConfig::validate(const DeviceLimits& limits) const {
  auto why = [](std::string s) { return std::optional<std::string>(std::move(s)); };
  if (math < 0 || math > 4)
    return why("math must be 0 (FP32 FMA) or 1 to 4 (tensor-core TF32 variants)");
  for (int v : {bm, bn, bk, wm, wn, tm, tn, vec, split_k, raster, k_lanes, k_warps})
    if (v > kMaxKnobSize)
      return why("tile sizes, vec, split_k, raster, k_lanes and k_warps must be at most 65536");
  for (int v : {bk, wm, wn, tm, tn, vec, raster, k_lanes, k_warps})
    if (!is_pow2(v))
      return why("every tile size, vec, raster, k_lanes and k_warps must be a power of two");
  if (split_k < 1) return why("split_k must be at least 1");
  for (int v : {bm, bn})
    if (!is_pow2(v) && !is_three_times_pow2(v))
      return why(
          "block tile sides bm and bn must be powers of two or 3 x a power of two from 48 on (48, "
          "96...)");
  if ((!is_pow2(bm) || !is_pow2(bn)) && (math != 0 || reduces()))
    return why(
        "block sides of 3 x a power of two (bm or bn 48, 96...) are for the FP32 FMA tile kernels: "
        "math 0, "
        "k_lanes and k_warps 1");
  if (k_lanes > 32) return why("k_lanes must be at most 32 (the lanes of a warp)");
  // The warpgroup instruction's accumulator layout (wgmma.cuh) is 2 x bn / 4 per thread.
  if (tm > 16 || tn > (wgmma ? 64 : 16))
    return why("thread tile tm, tn must be at most 16 (tn 64 for wgmma = 1)");
  if (tm * tn > 128)
    return why("thread tile tm*tn = " + std::to_string(tm * tn) + " exceeds 128 accumulators");
  if (uses_tensor_cores()) {
    // mma.sync m16n8k8: the warp tile is whole 16 x 8 instruction tiles; a lane holds 2 rows and
    // 2 columns of each (templates/sgemm/mma.cuh), which is the thread tile.
    if (limits.cc_major < 8) return why("the tensor-core variants (math > 0) need sm_80 or newer");
    if (wm % 16 || wn % 8)
      return why("a tensor-core warp tile is whole 16 x 8 mma tiles: wm a multiple of 16, wn of 8");
    if (tm != wm / 8 || tn != wn / 4)
      return why("a tensor-core thread tile is the mma accumulator layout: tm = wm / 8 = " +
                 std::to_string(wm / 8) + ", tn = wn / 4 = " + std::to_string(wn / 4));
    if (bk < 8) return why("a tensor-core slice is whole k8 mma steps: bk at least 8");
    if (reduces() || pad != SgemmKnobs{}.pad)
      return why(
          "the tensor-core variants are tile kernels with their own shared-memory padding: "
          "k_lanes, k_warps "
          "and pad keep their defaults");
    if (math >= 3 && 2 * tm * tn > 128)
      return why(
          "math 3 and 4 sum each slice in accumulators of its own: 2 x tm x tn must be at most "
          "128");
  }
  if (wgmma != 0 && wgmma != 1)
    return why("wgmma must be 0 (mma.sync) or 1 (the warpgroup instruction)");
  if (wgmma) {
    // templates/sgemm/wgmma.cuh: 64-row warpgroup slabs, one instruction m64nBNk8 per product
    // and k8 step, slices of one 128-byte swizzle row.
    if (limits.cc_major != 9 || limits.cc_minor != 0)
      return why("the warpgroup instruction (wgmma = 1) exists on sm_90 (Hopper) only");
    if (!uses_tensor_cores()) return why("wgmma = 1 runs tensor-core math: math 1 to 4");
    if (bk != 32 || wm != 16 || wn != bn || bm % 64 != 0 || bn < 32 || bn > 256)
      return why(
          "a warpgroup config has bk 32, warp tiles of 16 x bn (wm 16, wn = bn), bm a multiple of "
          "64 and "
          "bn 32 to 256");
    if (stages < 2) return why("a warpgroup config pipelines its copies: stages 2 to 4");
    if (repack)
      return why("a warpgroup config copies A and B anyway (split, K-major): no repack (\"_q\")");
  }
  if (wm % tm || wn % tn) return why("warp tile must be a multiple of the thread tile");
  const long long slots = 1LL * (wm / tm) * (wn / tn);
  if (slots != warp_slots())
    return why("warp tile / thread tile gives " + std::to_string(slots) + " thread tiles, not " +
               std::to_string(warp_slots()) + " (32 lanes / k_lanes " + std::to_string(k_lanes) +
               ")");
  if (bm % wm || bn % wn) return why("block tile must be a multiple of the warp tile");
  // From here on threads() fits an int.
  const long long block_threads = 1LL * (bm / wm) * (bn / wn) * 32 * k_warps;
  if (block_threads > limits.max_threads_per_block)
    return why(std::to_string(block_threads) + " threads per block exceed the limit " +
               std::to_string(limits.max_threads_per_block));
  // ReductionMainloop sums the k_warps warps' tiles through static shared memory (48 KiB at most).
  if (reduces() && (k_warps - 1) * (threads() / k_warps) * tm * tn * int(sizeof(float)) > 48 * 1024)
    return why("k_warps " + std::to_string(k_warps) + " x thread tiles of " +
               std::to_string(tm * tn) +
               " outputs need more than 48 KiB of shared memory for the sum");
  if (reduces())
    for (const Knob& knob : kSgemmKnobs)
      if (knob.tile_only && knob.get(*this) != knob.default_value())
        return why("the reduction path (k_lanes or k_warps > 1) has no shared-memory tiles: " +
                   std::string(knob.name) + " must keep its default " +
                   std::to_string(knob.default_value()));
  const int t = threads();
  if (vec > 4) return why("vec must be 1, 2 or 4");
  for (int a : {align_a, align_b, align_c})
    if (a != 1 && a != 2 && a != 4) return why("data alignments must be 1, 2 or 4 floats");
  // A reduction reads each operand once, straight from global memory: a copy first would double that.
  if (stage_c && !can_stage_c())
    return why(
        "stage_c (\"_e\") needs a tile kernel (no reduction, no streamed B) with room for the "
        "staged rows "
        "(one per lane row of each warp, wn + 4 floats) in its shared memory");
  if (window_c && (stage_c || !can_window_c()))
    return why(
        "window_c (\"_c\") writes C from the thread chunks of a tile kernel (no reduction) whose "
        "chunks are "
        "whole vectors (vec at least the chunk), and not staged (\"_e\") at the same time");
  if (ordered_splits && (!reduces() || split_k < 2))
    return why(
        "ordered_splits (\"_d\") is how a split reduction adds its splits: split_k at least 2 and "
        "k_lanes or "
        "k_warps above 1");
  if (prescale_c && (split_k < 2 || ordered_splits || split_tail || wgmma))
    return why(
        "prescale_c (\"_z\") is how atomic splits of every tile start: split_k at least 2, not "
        "with ordered "
        "splits (\"_d\"), split tails (\"_h\") or the warpgroup instruction");
  if (plain_narrow_runs && (!reduces() || k_lanes < 16 || (bn == tn) == (bm == tm)))
    return why(
        "plain_narrow_runs (\"_n\") chooses how a reduction reads the narrowed runs of its matrix: "
        "k_lanes at "
        "least 16, and a block of one thread tile along N (bn = tn) or along M (bm = tm), not "
        "both");
  if (cluster_splits && (!reduces() || split_k < 2 || split_k > 16 || ordered_splits || prescale_c))
    return why(
        "cluster_splits (\"_x\") is how a split reduction adds its splits: split_k 2 to 16 (the "
        "blocks of one "
        "cluster), k_lanes or k_warps above 1, not with ordered splits (\"_d\") or a prescaled C "
        "(\"_z\")");
  if (cluster_splits && limits.cc_major < 9)
    return why("cluster_splits (\"_x\") needs thread-block clusters: sm_90 or newer");
  if (early_barrier && !can_barrier_early())
    return why(
        "early_barrier (\"_b\") moves the barrier of the two-stage FMA loop: stages 2, math 0, no "
        "wgmma, a tile "
        "kernel (no reduction, no streamed B), and threads x occupancy at most 256 (255 registers "
        "a thread)");
  if (repack && reduces())
    return why("repack is for the tile kernels, not the reduction path (k_lanes or k_warps > 1)");
  if (split_tail && (split_k < 2 || reduces() || streams_b()))
    return why(
        "split_tail (\"_h\") splits the tiles past whole rounds of one per SM of a split-K tile "
        "kernel: "
        "split_k at least 2, no reduction, no streamed B");
  if (pad != 0 && pad != 4) return why("pad must be 0 or 4");
  if (stages < 1 || stages > 4) return why("stages must be 1 to 4");
  if (stages >= 3 && limits.cc_major < 8)
    return why("stages >= 3 use cp.async, which needs sm_80 or newer");
  if (streams_b() && (stages > 2 || pad != 4))
    return why(
        "a thin tile with all rows in each thread (bm <= 8, tm == bm, B not transposed) streams B "
        "from global memory into registers without shared memory: use stages 1 (one register set) "
        "or 2 "
        "(two) and pad 4 (unused)");
  // The split-K tile counter counts tickets in 10 bits (SplitKCounter in templates/sgemm.cuh).
  if (split_k > 512) return why("split_k must be at most 512");
  if (raster > 16) return why("raster must be at most 16");
  if (occupancy < 1 || occupancy > 4) return why("occupancy must be 1 to 4");
  if (t * occupancy > 2048) return why("occupancy x threads exceeds 2048 threads per SM");
  // smem_bytes() in 64 bits: bk is bounded only by kMaxKnobSize yet.
  const long long smem = streams_b() || reduces() ? 0
                         : wgmma                  ? warpgroup_smem_bytes(*this)
                                 : stages * stage_floats(*this) * int(sizeof(float));
  if (smem * occupancy > limits.max_smem_per_sm)
    return why("occupancy " + std::to_string(occupancy) + " x shared memory " +
               std::to_string(smem) + " B exceeds the multiprocessor's " +
               std::to_string(limits.max_smem_per_sm) + " B");
  // Threads move whole vectors of both tiles along each operand's contiguous dimension (when a
  // tile has fewer vectors than the block has threads, some threads idle during loads); tiles
  // that stream B read A one float at a time.
  if (!tiles_hold_vectors_of(vec))
    return why(reduces() ? std::string("vec must divide bk (each lane's run along K)")
                         : std::string("vec must divide ") + (op_a == Op::T ? "bm" : "bk") +
                               " (A's contiguous extent) and " + (op_b == Op::T ? "bk" : "bn") +
                               " (B's)");
  if (smem > limits.max_smem_per_block_optin)
    return why("shared memory " + std::to_string(smem) + " B exceeds the opt-in limit " +
               std::to_string(limits.max_smem_per_block_optin) + " B");
  // Register budget: __launch_bounds__ caps each thread at 64K / (threads x occupancy). The
  // need is a floor (register_floor.hpp): what passes may still spill, which the compiled
  // resource report tells and the tuner prunes.
  int need = register_floor(*this);
  int cap = register_budget(limits);
  if (need > cap)
    return why("registers: about " + std::to_string(need) + " per thread needed, " +
               std::to_string(cap) + " available at " + std::to_string(t) + " threads per block");
  return std::nullopt;
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
  // templates/sgemm/tiles.cuh); each must get at least one.
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
