#include "gemmtune/config.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <map>
#include <set>

namespace gemmtune {

// The values each parameter takes in the search space. The warp tile is derived from the
// thread tile and the warp's thread-grid rows, so every warp has exactly 32 threads.
namespace space {
// 1-8 rows or columns: thin tiles for matrix-vector-like problems (M or N of a few).
constexpr std::array kBlock = {1, 2, 4, 8, 16, 32, 64, 128, 256};
constexpr std::array kBk = {8, 16, 32};
constexpr std::array kThread = {1, 2, 4, 8, 16};
constexpr std::array kWarpRows = {1, 2, 4, 8, 16, 32};
constexpr std::array kStages = {1, 2, 3, 4};
constexpr std::array kVec = {1, 2, 4};
constexpr std::array kPad = {0, 4};
constexpr std::array kSplitK = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512};
constexpr std::array kRaster = {1, 8};
constexpr std::array kOccupancy = {1, 2};
}  // namespace space

int GemmConfig::threads() const {
  if (wm <= 0 || wn <= 0) return 0;
  return (bm / wm) * (bn / wn) * 32;
}

bool GemmConfig::streams_b() const { return bm <= 8 && tm == bm && op_b == Op::N; }

int GemmConfig::smem_bytes() const {
  if (streams_b()) return 0;
  return stages * bk * (bm + pad + bn + pad) * int(sizeof(float));
}

int GemmConfig::register_budget(const DeviceLimits& limits) const {
  int t = std::max(1, threads() * occupancy);
  return std::min(limits.max_regs_per_thread, limits.max_regs_per_block / t / 8 * 8);
}

static bool is_pow2(int v) { return v > 0 && (v & (v - 1)) == 0; }

std::optional<std::string> GemmConfig::validate(const DeviceLimits& limits) const {
  auto why = [](std::string s) { return std::optional<std::string>(std::move(s)); };
  for (int v : {bm, bn, bk, wm, wn, tm, tn, vec, split_k, raster})
    if (!is_pow2(v)) return why("every tile size, vec, split_k and raster must be a power of two");
  if (tm > 16 || tn > 16) return why("thread tile tm, tn must be at most 16");
  if (tm * tn > 128) return why("thread tile tm*tn = " + std::to_string(tm * tn) + " exceeds 128 accumulators");
  if (wm % tm || wn % tn) return why("warp tile must be a multiple of the thread tile");
  if ((wm / tm) * (wn / tn) != 32)
    return why("warp tile / thread tile gives " + std::to_string((wm / tm) * (wn / tn)) + " threads, not 32");
  if (bm % wm || bn % wn) return why("block tile must be a multiple of the warp tile");
  int t = threads();
  if (t > limits.max_threads_per_block)
    return why(std::to_string(t) + " threads per block exceed the limit " +
               std::to_string(limits.max_threads_per_block));
  if (vec > 4) return why("vec must be 1, 2 or 4");
  if (pad != 0 && pad != 4) return why("pad must be 0 or 4");
  if (stages < 1 || stages > 4) return why("stages must be 1 to 4");
  if (stages >= 3 && limits.cc_major < 8) return why("stages >= 3 use cp.async, which needs sm_80 or newer");
  if (streams_b() && (stages != 2 || pad != 4))
    return why("a thin tile with all rows in each thread (bm <= 8, tm == bm, B not transposed) streams B "
               "from global memory without shared memory: use stages 2 and pad 4 (neither applies)");
  // The split-K tile counter counts tickets in 10 bits (SplitKCounter in templates/sgemm.cuh).
  if (split_k > 512) return why("split_k must be at most 512");
  if (raster > 16) return why("raster must be at most 16");
  if (occupancy < 1 || occupancy > 4) return why("occupancy must be 1 to 4");
  if (t * occupancy > 2048) return why("occupancy x threads exceeds 2048 threads per SM");
  if (smem_bytes() * occupancy > limits.max_smem_per_sm)
    return why("occupancy " + std::to_string(occupancy) + " x shared memory " + std::to_string(smem_bytes()) +
               " B exceeds the multiprocessor's " + std::to_string(limits.max_smem_per_sm) + " B");
  // Threads move whole vectors of both tiles along each operand's contiguous dimension (when a
  // tile has fewer vectors than the block has threads, some threads idle during loads); tiles
  // that stream B read A one float at a time.
  const int a_contiguous = op_a == Op::T ? bm : bk, b_contiguous = op_b == Op::T ? bk : bn;
  if ((!streams_b() && a_contiguous % vec) || b_contiguous % vec)
    return why(std::string("vec must divide ") + (op_a == Op::T ? "bm" : "bk") + " (A's contiguous extent) and " +
               (op_b == Op::T ? "bk" : "bn") + " (B's)");
  if (smem_bytes() > limits.max_smem_per_block_optin)
    return why("shared memory " + std::to_string(smem_bytes()) + " B exceeds the opt-in limit " +
               std::to_string(limits.max_smem_per_block_optin) + " B");
  // Register budget: __launch_bounds__ caps each thread at 64K / (threads x occupancy). This is a
  // floor (accumulators, fragments, register-staged prefetch, a little addressing): what passes
  // may still spill, which the compiled resource report tells and the tuner prunes.
  int staged = streams_b() ? 2 * bk * (tm + tn) : stages <= 2 ? (bm + bn) * bk / t : 0;
  int need = tm * tn + tm + tn + staged + 16;
  int cap = register_budget(limits);
  if (need > cap)
    return why("registers: about " + std::to_string(need) + " per thread needed, " + std::to_string(cap) +
               " available at " + std::to_string(t) + " threads per block");
  return std::nullopt;
}

std::optional<std::string> GemmConfig::can_implement(const Problem& p) const {
  if (p.op_a != op_a || p.op_b != op_b)
    return "kernel is for layout " + std::string{op_char(op_a), op_char(op_b)} + ", problem is " + p.layout();
  if (p.m < 1 || p.n < 1 || p.k < 1 || p.batch < 1) return std::string("M, N, K and batch must be at least 1");
  if (vec > widest_vec(p))
    return "vec " + std::to_string(vec) + " needs data aligned to " + std::to_string(vec) +
           " floats; the problem allows " + std::to_string(widest_vec(p));
  if (p.batch * split_k > 65535) return std::string("batch x split_k exceeds the grid's z limit 65535");
  // Splits take whole bk slices (templates/sgemm.cuh); each must get at least one K value.
  const long long chunk = ((p.k + split_k - 1) / split_k + bk - 1) / bk * bk;
  if (split_k > 1 && (split_k - 1) * chunk >= p.k)
    return "split_k " + std::to_string(split_k) + " with bk " + std::to_string(bk) + " leaves splits without work for K = " +
           std::to_string(p.k) + "; K needs more than " + std::to_string((split_k - 1) * chunk) + " (or fewer splits)";
  return std::nullopt;
}

int GemmConfig::widest_vec(const Problem& p) const {
  return streams_b() ? p.alignment_without_a() : p.alignment();
}

std::string GemmConfig::name_expression() const {
  char buf[200];
  std::snprintf(buf, sizeof buf, "gemmtune::sgemm<%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%s,%s>", bm, bn, bk,
                wm, wn, tm, tn, stages, vec, pad, split_k, raster, occupancy, op_a == Op::T ? "true" : "false",
                op_b == Op::T ? "true" : "false");
  return buf;
}

std::string config_name(const GemmConfig& c) {
  char buf[160];
  int n = std::snprintf(buf, sizeof buf, "sgemm_%c%c_%dx%dx%d_w%dx%d_t%dx%d_s%d_v%d_p%d_k%d_r%d", op_char(c.op_a),
                        op_char(c.op_b), c.bm, c.bn, c.bk, c.wm, c.wn, c.tm, c.tn, c.stages, c.vec, c.pad,
                        c.split_k, c.raster);
  if (c.occupancy != 1) std::snprintf(buf + n, sizeof buf - n, "_o%d", c.occupancy);
  return buf;
}

std::optional<GemmConfig> parse_config_name(const std::string& name) {
  GemmConfig c;
  char a = 0, b = 0;
  int used = 0;
  int got = std::sscanf(name.c_str(), "sgemm_%c%c_%dx%dx%d_w%dx%d_t%dx%d_s%d_v%d_p%d_k%d_r%d%n", &a, &b, &c.bm,
                        &c.bn, &c.bk, &c.wm, &c.wn, &c.tm, &c.tn, &c.stages, &c.vec, &c.pad, &c.split_k,
                        &c.raster, &used);
  if (got != 14) return std::nullopt;
  if (used != int(name.size())) {
    int more = 0;
    if (std::sscanf(name.c_str() + used, "_o%d%n", &c.occupancy, &more) != 1 || used + more != int(name.size()))
      return std::nullopt;
  }
  if ((a != 'n' && a != 't') || (b != 'n' && b != 't')) return std::nullopt;
  c.op_a = a == 't' ? Op::T : Op::N;
  c.op_b = b == 't' ? Op::T : Op::N;
  if (config_name(c) != name) return std::nullopt;  // rejects leading zeros, signs, spaces
  return c;
}

std::size_t full_space_size() {
  using namespace space;
  return kBlock.size() * kBlock.size() * kBk.size() * kThread.size() * kThread.size() * kWarpRows.size() *
         kStages.size() * kVec.size() * kPad.size() * kSplitK.size() * kRaster.size() * kOccupancy.size();
}

void for_each_config(Op op_a, Op op_b, const std::function<void(const GemmConfig&)>& fn, bool skip_misfits) {
  using namespace space;
  GemmConfig c;
  c.op_a = op_a, c.op_b = op_b;
  for (int bm : kBlock) for (int bn : kBlock) for (int bk : kBk)
  for (int tm : kThread) for (int tn : kThread) for (int rows : kWarpRows) {
    c.bm = bm, c.bn = bn, c.bk = bk, c.tm = tm, c.tn = tn;
    c.wm = tm * rows, c.wn = tn * (32 / rows);
    // A warp tile that does not fit the block tile is invalid whatever the other knobs say;
    // skipping those here keeps the walk fast (the thin tiles add many).
    if (skip_misfits && (bm % c.wm || bn % c.wn)) continue;
    for (int st : kStages) for (int v : kVec) for (int pad : kPad)
    for (int sk : kSplitK) for (int r : kRaster) for (int occ : kOccupancy) {
      c.stages = st, c.vec = v, c.pad = pad, c.split_k = sk, c.raster = r, c.occupancy = occ;
      fn(c);
    }
  }
}

std::vector<GemmConfig> valid_space(const DeviceLimits& limits, Op op_a, Op op_b) {
  std::vector<GemmConfig> out;
  for_each_config(
      op_a, op_b,
      [&](const GemmConfig& c) {
        if (!c.validate(limits)) out.push_back(c);
      },
      /*skip_misfits=*/true);
  return out;
}

namespace {
// Each parameter as (name, getter): the sample's notion of "every knob".
using Getter = int (*)(const GemmConfig&);
constexpr std::pair<const char*, Getter> kKnobs[] = {
    {"bm", [](const GemmConfig& c) { return c.bm; }},
    {"bn", [](const GemmConfig& c) { return c.bn; }},
    {"bk", [](const GemmConfig& c) { return c.bk; }},
    {"wm", [](const GemmConfig& c) { return c.wm; }},
    {"wn", [](const GemmConfig& c) { return c.wn; }},
    {"tm", [](const GemmConfig& c) { return c.tm; }},
    {"tn", [](const GemmConfig& c) { return c.tn; }},
    {"stages", [](const GemmConfig& c) { return c.stages; }},
    {"vec", [](const GemmConfig& c) { return c.vec; }},
    {"pad", [](const GemmConfig& c) { return c.pad; }},
    {"split_k", [](const GemmConfig& c) { return c.split_k; }},
    {"raster", [](const GemmConfig& c) { return c.raster; }},
    {"occupancy", [](const GemmConfig& c) { return c.occupancy; }},
};
}  // namespace

std::vector<GemmConfig> coverage_sample(const DeviceLimits& limits, Op op_a, Op op_b) {
  GemmConfig def;
  def.op_a = op_a, def.op_b = op_b;
  auto distance = [&](const GemmConfig& c) {
    int d = 0;
    for (auto& knob : kKnobs) d += knob.second(c) != knob.second(def);
    return d;
  };
  std::vector<GemmConfig> valid = valid_space(limits, op_a, op_b);
  std::vector<GemmConfig> out;
  std::set<std::pair<int, int>> covered;  // (knob index, value)
  auto take = [&](const GemmConfig& c) {
    out.push_back(c);
    for (int i = 0; i < int(std::size(kKnobs)); ++i) covered.insert({i, kKnobs[i].second(c)});
  };
  if (!def.validate(limits)) take(def);
  for (int i = 0; i < int(std::size(kKnobs)); ++i) {
    std::map<int, const GemmConfig*> closest;  // value -> closest valid config having it
    for (auto& c : valid) {
      int v = kKnobs[i].second(c);
      if (covered.count({i, v})) continue;
      if (!closest.count(v) || distance(c) < distance(*closest[v])) closest[v] = &c;
    }
    for (auto& [v, c] : closest)
      if (!covered.count({i, v})) take(*c);
  }
  return out;
}

GemmConfig default_config(const DeviceLimits& limits, const Problem& p) {
  GemmConfig c;
  c.op_a = p.op_a, c.op_b = p.op_b;
  c.vec = std::min(4, p.alignment());
  if (c.validate(limits)) c.stages = 1;  // older GPUs: fall back to the plainest pipeline
  return c;
}

}  // namespace gemmtune
