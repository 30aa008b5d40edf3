#include "gemmtune/tuner/cost_model.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

#include "gemmtune/register_floor.hpp"
#include "gemmtune/waves.hpp"

namespace gemmtune::tuner {

GpuCeilings GpuCeilings::of(const DeviceInfo& device, const DeviceReport& report) {
  GpuCeilings g;
  g.sm_count = device.sm_count;
  g.fp32_tflops = device.fp32_peak_tflops();
  if (report.dram_peak_gbs() > 0) g.dram_gbs = report.dram_peak_gbs() * kCopyShareOfDramPeak;
  if (report.max_threads_per_sm > 0) g.max_threads_per_sm = report.max_threads_per_sm;
  if (report.max_blocks_per_sm > 0) g.max_blocks_per_sm = report.max_blocks_per_sm;
  g.limits = device.limits;
  return g;
}

namespace {

long long ceil_div(long long a, long long b) { return (a + b - 1) / b; }

// The register floor's terms as the model counts them (register_floor.hpp): a reduction's lanes
// hold one set of bk values of their tm rows and tn columns, a one- or two-stage warpgroup
// config counts a plain tile's staging, and the margin for addressing is 32. Calibrated with the
// rest of the model on recorded H200 timings. validate()'s terms plus a margin of 16 would
// change the occupancy the model gives 1.6 million of sm_90's 33.7 million valid configs
// (reductions and warpgroup configs; 2026-12-02), and so its rankings: the model keeps its own.
constexpr RegisterFloorTerms kModelRegisterTerms{1, true, 32};

// Registers a thread of `c` uses: the model's floor, in the allocation unit of 8, never more
// than the launch bounds leave.
int registers_per_thread(const GemmConfig& c, const DeviceLimits& limits) {
  return std::min(c.register_budget(limits), (register_floor(c, kModelRegisterTerms) + 7) / 8 * 8);
}

// How many times faster than the FP32 FMA pipe a tensor-core variant runs its products,
// fragment splitting included: measured at 4096^3 on an H200 (2026-11-23, docs/PERFORMANCE.md)
// against the FMA peak of 66.9 TFLOP/s. mma.sync: 1xTF32 123-127, 3xTF32 58 (math 2) and 48.6
// (math 3) TFLOP/s. The warpgroup instruction (wgmma; bulk copies and per-stage barriers,
// 2026-11-24), the kernel alone (ncu at the GPU's own clock; repack_ms() adds the split copy):
// 1xTF32 398 (345 us), math 3 130 (1.06 ms); math 2 measured as fast as math 3 with the earlier
// copies; math 4 taken as four products at math 3's rate.
double tensor_core_speedup(const GemmConfig& c) {
  if (c.wgmma) return c.math == 1 ? 5.95 : c.math == 2 || c.math == 3 ? 1.94 : 1.45;
  switch (c.math) {
    case 1: return 1.9;
    case 2: return 0.87;
    case 3: return 0.72;
    default: return 0.62;
  }
}

// Share of the FMA pipe the inner loop keeps busy: per K step a thread issues tm*tn FMAs and
// loads its tm + tn fragment floats from shared memory (in vectors of up to 4). Small thread
// tiles spend relatively more issue slots on loads. Tensor-core variants: their speedup.
double thread_tile_efficiency(const GemmConfig& c) {
  if (c.uses_tensor_cores()) return tensor_core_speedup(c);
  const double fmas = c.tm * c.tn;
  const double loads = std::ceil(c.tm / 4.0) + std::ceil(c.tn / 4.0);
  return fmas / (fmas + 2 * loads);
}

// What a float of an operand read `width` floats per access costs against 4-float vectors: the
// same bytes in more load instructions (an odd leading dimension narrows only its own operand).
double narrow_cost(int width) { return width >= 4 ? 1.0 : width == 2 ? 1 / 0.85 : 1 / 0.7; }

// How much longer a tile kernel's steps take where it reads A or B narrowed (an odd leading
// dimension): each 4-float chunk then comes in 4 / width loads, which touch up to 4 / width times
// the L1 lines and compete with the fragment reads from shared memory. The same tiles on odd
// problems read narrowed against copied aligned first (`_q`, copies subtracted), an H200
// (2026-11-28, docs/PERFORMANCE.md): 3-30% longer with both operands at width 1, 10% typical.
double narrowed_step_cost(const GemmConfig& c) {
  if (c.reduces() || c.streams_b()) return 1.0;
  auto extra = [](int width) { return width >= 4 ? 0.0 : 0.05 * (4.0 / width - 1) / 3; };
  return 1 + extra(c.width_a()) + extra(c.width_b());
}

// What a float costs when a warp reads an operand in contiguous runs of `bytes` per row: below
// a 128-byte line, sectors are partly used and DRAM bursts are short.
double run_cost(double bytes) { return 1 / std::sqrt(std::min(1.0, bytes / 128)); }

// The extra cost of a reduction's reads of A and B. Lanes sharing an output read adjacent runs
// of K: an operand stored along K comes in runs of k_lanes x vec floats per warp and row. An
// operand stored along the outputs comes in runs of the lanes lying along the outputs (32 /
// k_lanes) times their adjacent outputs (up to 4 each).
std::pair<double, double> reduction_run_costs(const GemmConfig& c) {
  if (!c.reduces()) return {1.0, 1.0};
  const double along_k = 4.0 * c.k_lanes * c.vec;
  const double lanes_along_outputs = 32.0 / c.k_lanes;
  const double a = c.op_a == Op::N ? along_k : 4.0 * lanes_along_outputs * std::min(c.tm, 4);
  const double b = c.op_b == Op::T ? along_k : 4.0 * lanes_along_outputs * std::min(c.tn, 4);
  return {run_cost(a), run_cost(b)};
}

// The share of a scheduler's issue slots one warp fills in a tile's K loop. Fitted on recorded
// H200 timings (docs/PERFORMANCE.md, entry of 2026-11-28): the model's rank correlation with
// the measured times of five recordings is 0.20/0.35/0.30/0.34/0.62 with 1 (a lone warp issues
// every cycle), 0.22/0.41/0.36/0.36/0.64 with 0.9; 0.6 correlates better still, but then a
// split tail no longer beats the unsplit tile on 1536^3, as it did measured (182 against 274 us).
// Measured against 1 (3 s sweeps, two rounds, H200, entry of 2026-11-29): 2500^3 nt +22%,
// 3333x777x2047 tt +10%, 4097^3 nt -5%, the rest within 3%; geomean +2-4%.
constexpr double kLoneWarpIssue = 0.9;

// The busiest SM's K loops (its waves `w`): rounds of up to `resident` blocks, each round a fill
// (first loads) and a drain (epilogue) around its steps. A step takes at least its FMAs at the
// SM's issue rate (four schedulers, one warp instruction per cycle each, fragment loads
// included) and at least the load latency that the pipeline leaves exposed; blocks resident
// together overlap their waits. Large problems are bound by the former, small ones (few warps, few
// steps) by the latter.
double compute_ms(const GemmConfig& c, const Problem& p, const GpuCeilings& gpu, const Waves& w) {
  const double k_per_step = double(c.bk) * c.k_sharers();
  const double steps = std::ceil(std::ceil(double(p.k) / c.split_k) / k_per_step);
  const double cycles_per_us = gpu.fp32_tflops * 1e6 / (256.0 * gpu.sm_count);
  const double fmas = double(c.tm) * c.tn * c.bk;  // per thread and step
  // Loads in flight ahead of the math: the cp.async ring's, one or two register sets when
  // streaming B; the plain load-sync-compute loop waits for every load.
  const bool tiles = !c.reduces() && !c.streams_b();
  const double depth = c.streams_b() ? c.stages : tiles && c.stages >= 3 ? c.stages - 1 : 1;
  auto round_us = [&](double blocks) {
    const double warps = blocks * std::max(1, c.threads()) / 32.0;
    // Warps per scheduler, and the share of issue slots they fill: a lone warp stalls on its
    // fragment loads and barriers, two or more cover each other.
    const double per_scheduler = std::max(1.0, warps / 4);
    const double issue_share = std::min(1.0, kLoneWarpIssue * per_scheduler);
    const double issue_us = per_scheduler / issue_share * fmas / thread_tile_efficiency(c) *
                            narrowed_step_cost(c) / cycles_per_us;
    const double step_us = tiles && c.stages == 1 ? issue_us + gpu.load_latency_us
                                                  : std::max(issue_us, gpu.load_latency_us / depth);
    return steps * step_us + 2 * gpu.load_latency_us;
  };
  return (w.full_rounds * round_us(w.resident) + (w.rest > 0 ? round_us(w.rest) : 0)) / 1e3;
}

// A repack config's copies of a misaligned A or B before the GEMM: each a launch that reads
// and writes the operand once at the DRAM bandwidth. A warpgroup config's split copies: each
// reads its operand and writes one or two planes of it, padded to whole tiles and 32-float rows.
double repack_ms(const GemmConfig& c, const Problem& p, const GpuCeilings& gpu) {
  double ms = 0;
  const double batch = p.batch;
  if (c.wgmma) {
    // An operand read in place (reads_a_in_place) is not copied.
    const double planes = c.math >= 2 ? 2 : 1, k = std::ceil(p.k / 32.0) * 32;
    const double a = 4.0 * batch * (double(p.m) * p.k + planes * ceil_div(p.m, c.bm) * c.bm * k);
    const double b = 4.0 * batch * (double(p.n) * p.k + planes * ceil_div(p.n, c.bn) * c.bn * k);
    const bool copy_a = !c.reads_a_in_place(p), copy_b = !c.reads_b_in_place(p);
    return (copy_a + copy_b) * gpu.launch_us / 1e3 +
           (copy_a * a + copy_b * b) / (gpu.dram_gbs * 1e6);
  }
  if (c.packs_a(p)) ms += gpu.launch_us / 1e3 + 8.0 * p.m * p.k * batch / (gpu.dram_gbs * 1e6);
  if (c.packs_b(p)) ms += gpu.launch_us / 1e3 + 8.0 * p.k * p.n * batch / (gpu.dram_gbs * 1e6);
  return ms;
}

}  // namespace

int blocks_per_sm(const GemmConfig& c, const GpuCeilings& gpu) {
  const int t = std::max(1, c.threads());
  int blocks = std::min(gpu.max_blocks_per_sm, gpu.max_threads_per_sm / t);
  blocks =
      std::min(blocks, gpu.limits.max_regs_per_block / (t * registers_per_thread(c, gpu.limits)));
  if (c.smem_bytes() > 0) blocks = std::min(blocks, gpu.limits.max_smem_per_sm / c.smem_bytes());
  return std::max(1, blocks);
}

Prediction predict(const GemmConfig& c, const Problem& p, const GpuCeilings& gpu) {
  Prediction out;
  const long long tiles = ceil_div(p.m, c.bm) * ceil_div(p.n, c.bn) * p.batch;
  out.blocks_per_sm = blocks_per_sm(c, gpu);
  const long long sms = std::max(1, gpu.sm_count);
  out.blocks = c.blocks_for(tiles, sms);
  // Waves and tail: the busiest SM runs ceil(blocks / SMs) blocks, up to blocks_per_sm at once.
  auto rounds_ms = [&](const GemmConfig& config, long long blocks) {
    if (blocks == 0) return 0.0;
    return compute_ms(config, p, gpu, waves_of(double(blocks), gpu.sm_count, out.blocks_per_sm));
  };
  // Tiles split (all, or with split_tail those past whole rounds of one per SM) and not.
  const long long split_tiles =
      c.split_tail ? static_cast<long long>(split_tail_tiles(double(tiles), int(sms))) : tiles;
  GemmConfig unsplit = c;
  unsplit.split_k = 1, unsplit.split_tail = false;
  out.compute_ms = rounds_ms(unsplit, c.split_k > 1 ? tiles - split_tiles : tiles) +
                   (c.split_k > 1 ? rounds_ms(c, split_tiles * c.split_k) : 0.0);
  const double resident = waves_of(double(out.blocks), gpu.sm_count, out.blocks_per_sm).resident;

  // Global traffic: every block reads its A and B panels (mostly from L2), A, B and C come from
  // DRAM once, split-K adds an atomic read-modify-write of C per extra split. Each operand's
  // bytes weigh by the width of its accesses.
  const auto [ra, rb] = reduction_run_costs(c);
  const double wa = narrow_cost(c.width_a()) * ra, wb = narrow_cost(c.width_b()) * rb,
               wc = narrow_cost(c.width_c());
  // A's rows are read once per tile column, B's columns once per tile row, however few rows or
  // columns the last tile holds (33 rows in 16-row tiles read B three times).
  const double tile_cols = double(ceil_div(p.n, c.bn)), tile_rows = double(ceil_div(p.m, c.bm));
  const double reread_bytes =
      4 * double(p.k) * p.batch * (tile_cols * p.m * wa + tile_rows * double(p.n) * wb);
  const double c_floats = double(p.m) * p.n * p.batch;
  // Extra splits per output, on average: the split tiles' share of C times split_k - 1.
  const double extra_splits =
      double(c.split_k - 1) * double(split_tiles) / double(std::max(tiles, 1LL));
  const double unique_bytes =
      4 * (double(p.m) * p.k * p.batch * wa + double(p.k) * p.n * p.batch * wb +
           c_floats * (1 + 2 * extra_splits) * wc);
  // Few blocks in flight cannot draw the full bandwidth: about half the SMs with 8+ warps each.
  const double active_sms = std::min<double>(gpu.sm_count, double(out.blocks));
  const double draw = std::min(1.0, 2 * active_sms / gpu.sm_count) *
                      std::min(1.0, resident * std::max(1, c.threads()) / 32.0 / 8.0);
  const double bytes_per_ms = gpu.dram_gbs * 1e6 * draw;
  out.memory_ms =
      std::max(unique_bytes / bytes_per_ms, reread_bytes / (bytes_per_ms * gpu.l2_over_dram));

  // Split-K's atomic adds: the L2 completes them at its own pace, mostly while other blocks
  // compute; a quarter of that time shows.
  const double atomic_ms = c_floats * extra_splits / gpu.atomics_per_us / 1e3;
  out.memory_ms = std::max(out.memory_ms, atomic_ms);
  out.overhead_ms = gpu.launch_us / 1e3 + atomic_ms / 4 + repack_ms(c, p, gpu);
  // Compute and memory overlap, not perfectly.
  out.ms = std::max(out.compute_ms, out.memory_ms) + 0.2 * std::min(out.compute_ms, out.memory_ms) +
           out.overhead_ms;
  return out;
}

std::vector<std::size_t> rank_by_time(const std::vector<double>& ms) {
  std::vector<std::size_t> order(ms.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return ms[a] < ms[b]; });
  return order;
}

}  // namespace gemmtune::tuner
